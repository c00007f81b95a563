"""GPU build configurator for LLM fine-tuning.

Layers (imports point downward only): ``ui`` -> ``report`` -> ``engine`` -> ``catalog``.
The engine and catalog are pure Python and never import Qt.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("gpu-build-configurator")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"

