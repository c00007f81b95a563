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


def parts_note(peak_phase: str) -> str:
    """Why the memory table's parts do not add up to its peak (32.8 GB of parts beside a 31.1 GB peak read as an
    error): each part is at its own largest, the parts are largest in different phases of the step, and the peak is
    the total of the largest phase (engine/memory/estimate.py MemoryBreakdown.phase_reserved)."""
    return (f"each part is at its own largest and the parts peak in different phases, so they need not add up to the "
            f"peak: the total of the largest phase ({peak_phase})")  # fmt: skip
