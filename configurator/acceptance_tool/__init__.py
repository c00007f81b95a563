"""The measurement tool the burn-in kit runs on the built machine (``measure.py``).

It imports torch, so nothing in the application imports this package (an import-linter contract); the kit
copies ``measure.py`` next to its ``run.sh`` and runs it as a script.
"""
