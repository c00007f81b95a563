"""Low-precision recipes (FP8, MXFP8, NVFP4): which a card supports, what they keep in memory, what they are
measured to gain.
"""
