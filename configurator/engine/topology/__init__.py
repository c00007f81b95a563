"""Links between cards from the chassis slot map and bridges, and the physical checks of a build.
"""
