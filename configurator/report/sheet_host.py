"""The sheet's host section: the RAM and NVMe the jobs need, term by term with sources, and the DIMMs and drives."""

from __future__ import annotations

from html import escape

from configurator.engine.model.result import HostResult
from configurator.present.host_words import nvme_line, part_specs, ram_line, source_words, term_size_words
from configurator.present.words import jobs_named
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
        # what a buyer reads: the part's sizes, not its price-list id (dimm-32gb)
        rows.append([str(part.count), escape(part.description), f"{escape(part_specs(part))}; {how}", "—"])
    return rows


def host_section(host: HostResult | None) -> list[str]:
    """Host memory and storage: the two lines and the terms behind them (their sources are in the appendix:
    host_sources_section)."""
    if host is None or not (host.ram_terms or host.nvme_terms):
        return []
    out = [H2.format("Host memory and storage"),
           f"<p>{escape(ram_line(host))}.<br/>{escape(nvme_line(host))}. The jobs run at the same time, so their "
           "needs add up; each process's runtime and the OS's reserve are assumptions, named as such below. The "
           "appendix gives the source of each figure.</p>"]  # fmt: skip
    rows = [[escape(t.job or "the host"), where, escape(t.what), escape(term_size_words(t, unit))]
            for terms, where, unit in ((host.ram_terms, "RAM", "GB"), (host.nvme_terms, "NVMe", "TB"))
            for t in terms]  # fmt: skip
    out.append(html_table(["Job", "In", "For", "Size"], rows, [30, 8, 46, 16], right=frozenset({3})))
    return out


def host_sources_section(host: HostResult | None) -> list[str]:
    """The appendix's table of what each host term rests on, in words (no constant's name or code path)."""
    if host is None or not (host.ram_terms or host.nvme_terms):
        return []
    out = [H2.format("Host memory and storage: sources")]
    # a term every job has alike (four tenants' model loading, word for word) is one row, for all of them
    jobs = {t.job for t in (*host.ram_terms, *host.nvme_terms) if t.job}
    same: dict[tuple[str, str, str], list[str]] = {}
    for terms, where in ((host.ram_terms, "RAM"), (host.nvme_terms, "NVMe")):
        for t in terms:
            same.setdefault((where, t.what, source_words(t.source)), []).append(t.job or "the host")
    rows = [[escape(jobs_named(names, jobs)), where, escape(what), escape(source)]
            for (where, what, source), names in same.items()]  # fmt: skip
    out.append(html_table(["Job", "In", "For", "Source"], rows, [15, 7, 20, 58]))
    return out
