"""The torch side of "trace exactly": one job's two training steps run on meta tensors, the caching allocator's
bytes counted (``python -m configurator.trace.worker``, request JSON on stdin, result JSON on stdout).

Everything that imports torch, transformers, peft or bitsandbytes lives in this subpackage, which only the
``trace`` optional extra can run; the app and the engine never import it (the runner starts it in a subprocess).
"""
