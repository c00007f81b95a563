"""Where the shipped data lives: ``configurator/resources`` in an installed wheel or bundle, the
top-level ``resources/`` folder in a source checkout. One finder for every layer."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource(*parts: str) -> Path:
    """The path of a shipped resource, e.g. resource("builds", "default.yaml"); FileNotFoundError if absent."""
    for root in (_PACKAGE / "resources", _PACKAGE.parent / "resources"):
        candidate = root.joinpath(*parts)
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"resources/{'/'.join(parts)} not found next to {_PACKAGE}")
