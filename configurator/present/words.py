"""Numbers in words, the same in every view and on the sheet."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence

from configurator.catalog.loader import Catalog
from configurator.catalog.units import gb_to_gib
from configurator.engine.model.build import Build
from configurator.engine.topology.physical import card_power_w

UNITS = ("GB", "GiB")  # GB = 10^9 bytes (the seeds' unit); GiB = 2^30 bytes
# each display unit in words, for the View menu and Preferences (the settings registry takes its choices from UNITS)
UNIT_WORDS = {
    "GB": "GB (10⁹ bytes, as card makers quote memory)",
    "GiB": "GiB (2³⁰ bytes, as nvidia-smi and PyTorch show it)",
}
PITCH_MM = 20.32  # PCIe expansion-slot pitch, 0.8 in (PCI Express CEM specification, add-in card outline)


def to_unit(gb: float, unit: str) -> float:
    """GB (10^9 B) to the display unit: GB or GiB (2^30 B)."""
    return gb_to_gib(gb) if unit == "GiB" else gb


def memory_label(gb: float, unit: str = "GB", digits: int = 1, sign: bool = False) -> str:
    """'102.6 GB' or '95.6 GiB': a memory figure in the display unit (``sign``: '+13.3 GB')."""
    return f"{to_unit(gb, unit):{'+' if sign else ''}.{digits}f} {unit}"


def headroom_label(headroom_gb: float, fits: bool, unit: str = "GB", digits: int = 1) -> str:
    """'+12.3 GB' when it fits, 'short 4.5 GB' when it does not (in the display unit)."""
    head = to_unit(headroom_gb, unit)
    return f"{head:+.{digits}f} {unit}" if fits else f"short {-head:.{digits}f} {unit}"


def capacity_label(nominal_gb: float, visible_gb: float, unit: str = "GB") -> str:
    """'141 GB (150.8 GB visible)': the capacity a customer knows from the datasheet, then what the driver
    shows (nvidia-smi's total); one wording for every view. The nominal figure is the product name's, kept
    as printed; the visible one is converted to ``unit``."""
    return f"{nominal_gb:.0f} GB ({to_unit(visible_gb, unit):.1f} {unit} visible)"


def psu_room_label(margin_w: float, card_w: float | None, free_slots: int | None = None) -> str:
    """How much the PSUs have left, in watts and in cards of ``card_w`` each: 'room for 2 more 600 W cards
    (1,300 W free)', '500 W free: not enough for another 600 W card', '300 W over the PSU rating'.
    ``margin_w`` is the engine's (``Power.margin_w``: continuous capacity, redundant units held back, less
    the draw); ``card_w`` what one more card would draw (``largest_card_w``), None with no card fitted;
    ``free_slots`` the chassis' empty slots (``free_slots``): no more cards than fit in them (a full 8-socket HGX
    read "room for 6 more 700 W cards")."""
    if margin_w < 0:
        return f"{-margin_w:,.0f} W over the PSU rating"
    if not card_w:
        return f"{margin_w:,.0f} W free"
    if free_slots == 0:
        return f"{margin_w:,.0f} W free; every slot is taken"
    more = int(margin_w // card_w)
    if free_slots is not None:
        more = min(more, free_slots)
    if more == 0:
        return f"{margin_w:,.0f} W free: not enough for another {card_w:,.0f} W card"
    return f"room for {more} more {card_w:,.0f} W card{'s' if more > 1 else ''} ({margin_w:,.0f} W free)"


def largest_card_w(build: Build, catalog: Catalog) -> float | None:
    """The draw of the hungriest card fitted, with its power limit, as the PSU budget counts it
    (``engine.topology.physical.card_power_w``): the card a customer would add another of. None with no card."""
    draws = [card_power_w(catalog.cards[c.card], c.power_limit_w) for c in build.cards if c.card in catalog.cards]
    return max(draws, default=None)


def free_slots(build: Build, catalog: Catalog) -> int | None:
    """The chassis' slots (sockets) with no card in them; None for a chassis the catalog does not know."""
    chassis = catalog.chassis.get(build.chassis)
    if chassis is None:
        return None
    taken = {c.slot for c in build.cards}
    return sum(1 for pos in chassis.positions if pos.slot not in taken)


def jobs_named(names: Sequence[str], jobs: Collection[str]) -> str:
    """Whom a line several jobs share is for: 'all 4 jobs' where ``names`` are every one of ``jobs`` (more than one),
    else the names once each, 'tenant A, tenant B'. The sheet's band sentence and host sources and the step-time
    chart's note say it alike (each had its own grouper, 'For all 4 jobs', 'all 4 jobs', 'every job')."""
    if len(set(jobs)) > 1 and set(names) == set(jobs):
        return f"all {len(set(jobs))} jobs"
    return ", ".join(dict.fromkeys(names))


def check_ref(code: str) -> str:
    """A check's code as a reference a person can quote ("psu-tight"), not the engine's PSU_TIGHT."""
    return str(code).lower().replace("_", "-")


def mig_profile_gb(profile: str, catalog_gb: float) -> float:
    """A MIG profile's headline size as its name gives it (1g.18gb: 18 GB), the figure a buyer sees; the
    catalog's own figure only for a name without one. "16.5 GB nominal" beside "1g.18gb" read as a mistake."""
    match = re.search(r"\.(\d+(?:\.\d+)?)gb", profile)
    return float(match.group(1)) if match else catalog_gb


def layout_words(profiles: list[str], sep: str = " + ") -> str:
    """One card's MIG layout, equal profiles counted in their first order: '4 × 1g.24gb', '2 × 1g.24gb + 2g.48gb'
    (``sep`` between the kinds)."""
    counts = Counter(profiles)
    return sep.join(f"{n} × {p}" if n > 1 else p for p, n in counts.items())


def mig_words(profiles: list[str]) -> str:
    """'MIG 4 × 1g.24gb' or 'MIG 2 × 1g.18gb, 3g.71gb' (the chassis view's card label and the sheet's card tile;
    '1g.24gb+1g.24gb+1g.24gb+1g.24gb' overflowed the tile)."""
    return "MIG " + layout_words(profiles, ", ")
