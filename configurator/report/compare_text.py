"""Plain-text comparison of two builds for ``configurator compare``: the engine's rows (engine/compare.py), the
window's compare dialog's figures, as a table. Nothing is computed here."""

from __future__ import annotations

from configurator.engine.compare import Difference

HEADERS = ("", "left", "right", "right - left", "better")


def _cells(row: Difference) -> tuple[str, str, str, str, str]:
    """A row's cells under HEADERS: what, left, right, right - left, which is better (left, right or nothing)."""
    return row.what, row.left, row.right, row.delta, {"left": "left", "right": "right"}.get(row.better or "", "")


def render_compare(left_name: str, right_name: str, rows: list[Difference]) -> str:
    """'Compare: A (left) with B (right)', the build-wide rows (cards, fit, power, errors, rates), then per job its
    rows."""
    out = [f"Compare: {left_name} (left) with {right_name} (right)"]
    groups: dict[str | None, list[Difference]] = {}
    for row in rows:
        groups.setdefault(row.job, []).append(row)
    # each column as wide as its header and its widest cell, measured row by row (no copy of the table)
    widths = [len(h) for h in HEADERS]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, _cells(row), strict=True)]
    widths[0] += 2  # a row sits under its job's heading

    def line(cells: list[str] | tuple[str, ...]) -> str:
        return "  ".join(f"{c:{w}s}" for c, w in zip(cells, widths, strict=True)).rstrip()

    for job, members in sorted(groups.items(), key=lambda g: g[0] is not None):  # the build first, then the jobs
        out.append("")
        out.append(f"Job: {job}" if job is not None else "Build")
        out.append(line(HEADERS))
        out += [line(("  " + r.what, *_cells(r)[1:])) for r in members]
    return "\n".join(out) + "\n"
