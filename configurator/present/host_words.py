"""How the host's memory and drives read: the need against what is installed (or picked), in one line or by term.

The sheet, the text report, the CLI and the window's summary share these words (engine/memory/host.py computes
every figure)."""

from __future__ import annotations

import re

from configurator.engine.model.result import HostPart, HostResult, HostTerm

# a source's lead-in naming the engine's constant and file ("ASSUMPTION_OS_RESERVE_GB (engine/memory/host.py): "):
# the code's own reference, not a source a reader can follow
_CODE_LEAD = re.compile(r"^[A-Z][A-Z0-9_]+ \((?:configurator/)?engine/[\w/]+\.py\): ")


def part_words(part: HostPart | None) -> str:
    """'16 × DDR5 RDIMM, 32 GB (32 GiB each, as DIMMs are labelled), 550 GB (10^9 B) in all', or 'none holds it'
    where no part fits the chassis. A DIMM's label is binary (engine/memory/host.py), the sum is in GB = 10^9 B:
    '16 × 32 GB, 550 GB in all' read as a sum gone wrong."""
    if part is None:
        return "none holds it"
    if part.kind == "dimm":
        return f"{part.count} × {part.description} ({dimm_each(part)}), {part.capacity_gb:,.0f} GB (10^9 B) in all"
    return f"{part.count} × {part.description}, {nvme_words(part.capacity_gb)} in all"


def dimm_each(part: HostPart) -> str:
    """'32 GiB each, as DIMMs are labelled': a DIMM's size is in binary GB, unlike every other GB shown."""
    return f"{part.size:g} GiB each, as DIMMs are labelled"


def part_specs(part: HostPart) -> str:
    """A host part's key specifications for a parts list: what one holds and what they hold together, with no
    price-list id. '32 GiB each, as DIMMs are labelled; 550 GB (10^9 B) in all', '1.92 TB (10^12 B) each'."""
    if part.kind == "dimm":
        return f"{dimm_each(part)}; {part.capacity_gb:,.0f} GB (10^9 B) in all"
    each = f"{part.size:g} TB (10^12 B) each"
    return each if part.count == 1 else f"{each}; {nvme_words(part.capacity_gb)} in all"


def _how(part: HostPart | None) -> str:
    if part is None:
        return ""
    return " installed" if part.stated else " picked to hold it"


def ram_line(host: HostResult) -> str:
    """'Host RAM: 403 GB needed; 16 × DDR5 RDIMM, 32 GB (32 GiB each, ...), 550 GB (10^9 B) in all picked to hold
    it'."""
    most = f", at most {host.ram_max_gb:,.0f} GB in this chassis" if host.ram_max_gb is not None else ""
    return f"Host RAM: {host.ram_need_gb:,.0f} GB needed{most}; {part_words(host.dimms)}{_how(host.dimms)}"


def nvme_line(host: HostResult) -> str:
    """'NVMe: 630 GB needed; 1 × NVMe SSD, 1.92 TB (2.5in U.2 NVMe), 1.92 TB in all picked to hold it'."""
    bays = f", {host.drive_bays} bays in this chassis" if host.drive_bays is not None else ""
    return f"NVMe: {nvme_words(host.nvme_need_gb)} needed{bays}; {part_words(host.drives)}{_how(host.drives)}"


def short_line(host: HostResult) -> str:
    """The window's summary line after a bold 'Host': 'RAM 403 / 550 GB · NVMe 630 GB / 1.92 TB (need / installed)'.
    Both RAM figures are GB = 10^9 B (the DIMMs' binary labels are in ram_line, the line's tooltip)."""
    ram = f"{host.dimms.capacity_gb:,.0f}" if host.dimms else "?"
    nvme = nvme_words(host.drives.capacity_gb) if host.drives else "?"
    return f"RAM {host.ram_need_gb:,.0f} / {ram} GB · NVMe {nvme_words(host.nvme_need_gb)} / {nvme} (need / installed)"


def nvme_words(gb: float) -> str:
    """An NVMe size (a need, or the drives' capacity) in the unit drives are sold in: GB below 1 TB ('150 GB',
    '4.2 GB'), TB from 1 TB up with at most the two decimals of the drive sizes ('1.92 TB', '15.36 TB', '2 TB').
    A 150 GB need read '0.15 TB'. GB = 10^9 B, TB = 10^12 B."""
    if round(gb) >= 1000:
        return f"{_trimmed(gb / 1000)} TB"
    return f"{gb:,.0f} GB" if gb >= 10 or gb == 0 else f"{gb:.1f} GB"


def _trimmed(value: float) -> str:
    """'1.92', '1.5', '2': two decimals at most, no trailing zeros."""
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def source_words(source: str) -> str:
    """A host term's source without the engine's constant and file it opens with: 'The OS, daemons and ...' for
    'ASSUMPTION_OS_RESERVE_GB (engine/memory/host.py): the OS, daemons and ...'."""
    text = _CODE_LEAD.sub("", source)
    return text[:1].upper() + text[1:] if text != source else source


def size_words(gb: float, unit: str) -> str:
    """A host term's size: '2.49 GB', '< 0.01 GB'; an NVMe term (``unit`` 'TB') in TB from 1 TB up and in GB below
    it (a 5 GB checkpoint read '0.00 TB'), as nvme_words."""
    if unit == "TB" and round(gb) >= 1000:
        return nvme_words(gb)
    return "< 0.01 GB" if 0 < gb < 0.005 else f"{gb:,.2f} GB"


def term_size_words(term: HostTerm, unit: str) -> str:
    """A host term's size column: size_words, or 'shared' for a later job's copy of a model's files, which the
    first job's term counts (its line says whose it shares): it read '0.00 GB', a copy that seemed to weigh nothing."""
    return "shared" if term.shared_with is not None else size_words(term.gb, unit)
