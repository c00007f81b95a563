"""The result object of the worker's interface (schema 1), built from the standard library only, so a worker
without torch can still answer with a clear error."""

from __future__ import annotations

import platform
from importlib import metadata
from typing import Any

SCHEMA = 1
LIBRARIES = ("torch", "transformers", "peft", "accelerate", "bitsandbytes", "torchao")
KINDS = ("parameters", "gradients", "optimizer_states", "activations", "temporaries")
INSTALL_HINT = (
    "install the trace extra: python -m pip install 'gpu-build-configurator[trace]' "
    "(pins torch, transformers, peft, accelerate, bitsandbytes, torchao)"
)


def versions() -> dict[str, str]:
    """Python's and each traced library's installed version ("" where it is not installed)."""
    found = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = ""
    return found


def failure(error: str, *, notes: list[str] | None = None, seconds: float = 0.0) -> dict[str, Any]:
    """A clean "cannot trace this" result: ok false, the reason in one sentence."""
    return {
        "schema": SCHEMA,
        "ok": False,
        "peak_allocated_bytes": 0,
        "phase": "",
        "step": 0,
        "op": "",
        "module": "",
        "breakdown": dict.fromkeys(KINDS, 0),
        "versions": versions(),
        "attention_kernel": "",
        "seconds": round(seconds, 3),
        "notes": list(notes or []),
        "error": error,
    }
