"""How the host's memory and drives read: the need against what is installed (or picked), in one line or by term.

The sheet, the text report, the CLI and the window's summary share these words (engine/memory/host.py computes
every figure)."""

from __future__ import annotations

from configurator.engine.model.result import HostPart, HostResult


def part_words(part: HostPart | None) -> str:
    """'16 × 32 GB DDR5 RDIMM (546 GB)', or 'none holds it' where no part fits the chassis."""
    if part is None:
        return "none holds it"
    if part.kind == "dimm":
        return f"{part.count} × {part.description}, {part.capacity_gb:,.0f} GB in all"
    return f"{part.count} × {part.description}, {part.capacity_gb / 1000:,.2f} TB in all"


def _how(part: HostPart | None) -> str:
    if part is None:
        return ""
    return " installed" if part.stated else " picked to hold it"


def ram_line(host: HostResult) -> str:
    """'Host RAM: 403 GB needed; 16 × DDR5 RDIMM, 32 GB (550 GB) picked to hold it'."""
    most = f", at most {host.ram_max_gb:,.0f} GB in this chassis" if host.ram_max_gb is not None else ""
    return f"Host RAM: {host.ram_need_gb:,.0f} GB needed{most}; {part_words(host.dimms)}{_how(host.dimms)}"


def nvme_line(host: HostResult) -> str:
    """'NVMe: 0.63 TB needed; 1 × NVMe SSD, 1.92 TB (2.5in U.2 NVMe) (1.92 TB) picked to hold it'."""
    bays = f", {host.drive_bays} bays in this chassis" if host.drive_bays is not None else ""
    return f"NVMe: {host.nvme_need_gb / 1000:,.2f} TB needed{bays}; {part_words(host.drives)}{_how(host.drives)}"


def short_line(host: HostResult) -> str:
    """The window's summary line after a bold 'Host': 'RAM 403 / 550 GB · NVMe 0.63 / 1.92 TB (need / installed)'."""
    ram = f"{host.dimms.capacity_gb:,.0f}" if host.dimms else "?"
    nvme = f"{host.drives.capacity_gb / 1000:,.2f}" if host.drives else "?"
    return (
        f"RAM {host.ram_need_gb:,.0f} / {ram} GB · NVMe {host.nvme_need_gb / 1000:,.2f} / {nvme} TB (need / installed)"
    )
