"""The build document the engine reads and the result it writes, and the vocabulary both speak: check codes,
parallelism strategies, framework profiles, the wall circuit.
"""
