"""Plain-text comparison of two builds for ``configurator compare``: the engine's rows (engine/compare.py), the
window's compare dialog's figures, as a table. Nothing is computed here."""

from __future__ import annotations

from configurator.engine.compare import Difference

HEADERS = ("", "left", "right", "right - left", "better")


def _better(row: Difference) -> str:
    return {"left": "left", "right": "right"}.get(row.better or "", "")


def render_compare(left_name: str, right_name: str, rows: list[Difference]) -> str:
    """'Compare: A (left) with B (right)', then per job its rows, then the build-wide rows (power, errors, rates)."""
    out = [f"Compare: {left_name} (left) with {right_name} (right)"]
    groups: dict[str | None, list[Difference]] = {}
    for row in rows:
        groups.setdefault(row.job, []).append(row)
    table = [[r.what, r.left, r.right, r.delta, _better(r)] for r in rows]
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(HEADERS)] if table else [0] * 5
    widths[0] += 2  # a row sits under its job's heading

    def line(cells: list[str] | tuple[str, ...]) -> str:
        return "  ".join(f"{c:{w}s}" for c, w in zip(cells, widths, strict=True)).rstrip()

    for job, members in sorted(groups.items(), key=lambda g: g[0] is None):  # the jobs first, the build last
        out.append("")
        out.append(f"Job: {job}" if job is not None else "Build")
        out.append(line(HEADERS))
        out += [line(["  " + r.what, r.left, r.right, r.delta, _better(r)]) for r in members]
    return "\n".join(out) + "\n"
