"""Numbers in words, the same in every view and on the sheet."""

from __future__ import annotations

UNITS = ("GB", "GiB")  # GB = 10^9 bytes (the seeds' unit); GiB = 2^30 bytes
PITCH_MM = 20.32  # PCIe expansion-slot pitch, 0.8 in (PCI Express CEM specification, add-in card outline)


def to_unit(gb: float, unit: str) -> float:
    """GB (10^9 B) to the display unit: GB or GiB (2^30 B)."""
    return gb * 1e9 / 2**30 if unit == "GiB" else gb


def headroom_label(headroom_gb: float, fits: bool, unit: str = "GB", digits: int = 1) -> str:
    """'+12.3 GB' when it fits, 'short 4.5 GB' when it does not (in the display unit)."""
    head = to_unit(headroom_gb, unit)
    return f"{head:+.{digits}f} {unit}" if fits else f"short {-head:.{digits}f} {unit}"


def capacity_label(nominal_gb: float, visible_gb: float, unit: str = "GB") -> str:
    """'141 GB (150.8 GB visible)': the capacity a customer knows from the datasheet, then what the driver
    shows (nvidia-smi's total); one wording for every view. The nominal figure is the product name's, kept
    as printed; the visible one is converted to ``unit``."""
    return f"{nominal_gb:.0f} GB ({to_unit(visible_gb, unit):.1f} {unit} visible)"
