"""Sentences about a card's memory result that the text report, the build sheet and the headroom tooltip
all print: one wording, written once."""

from __future__ import annotations

from typing import Literal

from configurator.present.words import to_unit


def reserved_basis_note(
    reserved_set_by: Literal["step", "fsdp-setup"], setup_pool_gb: float, unit: str = "GB", digits: int = 1
) -> str | None:
    """Why the allocator's reserved figure is what it is, when the training step does not set it.

    Under FSDP the pool the wrap/shard phase leaves in PyTorch's caching allocator can exceed what the
    step itself asks for (engine/memory/estimate.py, the set-up phase); the reserved figure is then that pool's.
    Returns None when the step sets it (nothing to explain).
    """
    if reserved_set_by != "fsdp-setup":
        return None
    pool = to_unit(setup_pool_gb, unit)
    return f"allocator reserved is set by the pool FSDP set-up leaves ({pool:.{digits}f} {unit}), not by the step"
