"""The sheet's host section: the RAM and NVMe the jobs need, term by term with sources, and the DIMMs and drives."""

from __future__ import annotations

from html import escape

from configurator.engine.model.result import HostResult, HostTerm
from configurator.present.host_words import nvme_line, ram_line
from configurator.report.sheet_tables import H2, html_table


def host_part_rows(host: HostResult | None) -> list[list[str]]:
    """Parts-list rows for the DIMMs and drives (quantity, part, key specifications, slots)."""
    rows: list[list[str]] = []
    if host is None:
        return rows
    for part in (host.dimms, host.drives):
        if part is None:
            continue
        how = "as the build states" if part.stated else "picked to hold the jobs' need"
        rows.append([str(part.count), escape(part.description), f"{escape(part.part_id)}, {how}", "—"])
    return rows


def _rows(terms: list[HostTerm], unit: str) -> list[list[str]]:
    scale = 1000.0 if unit == "TB" else 1.0
    return [[escape(t.job or "the host"), escape(t.what), f"{t.gb / scale:,.2f} {unit}", escape(t.source)]
            for t in terms]  # fmt: skip


def host_section(host: HostResult | None) -> list[str]:
    """Host memory and storage: the two lines and the terms behind them."""
    if host is None or not (host.ram_terms or host.nvme_terms):
        return []
    out = [H2.format("Host memory and storage"),
           f"<p>{escape(ram_line(host))}.<br/>{escape(nvme_line(host))}. The jobs run at the same time, so their "
           "needs add up; each process's runtime and the OS's reserve are assumptions, named as such "
           "below.</p>"]  # fmt: skip
    rows = _rows(host.ram_terms, "GB") + _rows(host.nvme_terms, "TB")
    out.append(html_table(["Job", "Host RAM / NVMe for", "Size", "Source"], rows, [14, 22, 12, 52],
                          right=frozenset({2})))  # fmt: skip
    return out
