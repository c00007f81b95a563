"""The build sheet's tables and the markers its figures go at, shared by the sheet's section modules.

A table's rows can start a new page (ROW_BREAKS, set by the PDF layout in :mod:`configurator.report.pdf`);
:func:`table_parts` maps the tables Qt lays out back to the sheet's tables and rows.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterator
from decimal import Decimal
from html import escape

FIGURE_MARK = "[[figure:{}]]"
H2 = "<h2 style='color:#33691E;margin-top:14px'>{}</h2>"
NEW_PAGE_H2 = "<h2 style='color:#33691E;margin-top:0px;page-break-before:always'>{}</h2>"
# a number with thousands separators or decimals: kept on one line (a narrow cell broke "70,553,706,496" as
# "70,553,706,49 / 6")
_NUMBER = re.compile(r"(?<![\w#])[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\w)|(?<![\w#.])[-+]?\d+\.\d+(?![\w.])")
_TAG = re.compile(r"(<[^>]*>)")


def unbroken_numbers(html: str) -> str:
    """``html`` with each number in a no-wrap span; tags and their attributes left alone."""
    parts = _TAG.split(html)
    for i in range(0, len(parts), 2):  # the text between tags
        parts[i] = _NUMBER.sub(lambda m: f"<span style='white-space:nowrap'>{m.group(0)}</span>", parts[i])
    return "".join(parts)


# Rows a table starts a new page before, by the order the sheet emits its tables: set by the PDF layout
# (report.pdf) when a row would otherwise break across a page, so no cell's sentence is split. Each part
# after a break is a table of its own with the header row again, starting on a new page.
ROW_BREAKS: contextvars.ContextVar[dict[int, frozenset[int]] | None] = contextvars.ContextVar(
    "ROW_BREAKS", default=None
)
_TABLES: contextvars.ContextVar[list[int]] = contextvars.ContextVar("_TABLES")


def html_table(headers: list[str], rows: list[list[str]], widths: list[int] | None = None,
           right: frozenset[int] = frozenset()) -> str:  # fmt: skip
    """An HTML table, cut into parts (each with its header row again) before the rows ROW_BREAKS names."""
    head = "".join(
        f"<th{f' width={widths[i]}%' if widths else ''} align={'right' if i in right else 'left'}>{escape(h)}</th>"
        for i, h in enumerate(headers)
    )
    counter = _TABLES.get(None)
    ordinal = counter[0] if counter is not None else -1
    if counter is not None:
        counter[0] += 1
    asked = (ROW_BREAKS.get() or {}).get(ordinal, frozenset())
    cuts = sorted(b for b in asked if 0 < b < len(rows))
    parts = [rows[a:b] for a, b in zip([0, *cuts], [*cuts, len(rows)], strict=True)]
    whole_on_next_page = 0 in asked  # its first row would break across a page: the table starts a new one
    out = []
    for n, part in enumerate(parts):
        body = "".join(
            "<tr>" + "".join(f"<td{' align=right' if i in right else ''}>{unbroken_numbers(c)}</td>"
                             for i, c in enumerate(row))
            + "</tr>"
            for row in part
        )
        brk = "page-break-before:always;" if n or whole_on_next_page else ""
        out.append(
            "<table border=1 cellspacing=0 cellpadding=3 width=100% style='border-collapse:collapse;"
            f"{brk}border-color:#999'><thead><tr style='background:#E8F0E0'>{head}</tr></thead><tbody>{body}</tbody>"
            "</table>"
        )
    return "".join(out)


def table_parts() -> list[tuple[int, int]]:
    """For each table Qt lays out, in order: (the sheet's table ordinal, index of its first data row).

    The inverse of the splits ROW_BREAKS asks for, so a row found in the laid-out document maps back.
    """
    out: list[tuple[int, int]] = []
    breaks = ROW_BREAKS.get() or {}
    for ordinal in range(_TABLES_EMITTED.get()):
        out += [(ordinal, 0)] + [(ordinal, b) for b in sorted(breaks.get(ordinal, frozenset())) if b > 0]
    return out


_TABLES_EMITTED: contextvars.ContextVar[int] = contextvars.ContextVar("_TABLES_EMITTED", default=0)


@contextlib.contextmanager
def counted_tables() -> Iterator[None]:
    """Number the tables emitted inside (ROW_BREAKS is keyed by that number); afterwards
    :func:`table_parts` knows how many there were."""
    counter = [0]
    token = _TABLES.set(counter)
    try:
        yield
    finally:
        _TABLES.reset(token)
        _TABLES_EMITTED.set(counter[0])


def fmt_gb(v: float) -> str:
    """A GB figure as the sheet prints it: one decimal, thousands separated."""
    return f"{v:,.1f}"


def tax_percent(rate: Decimal) -> str:
    """A tax rate as the sheet prints it: 0.19 -> '19', 0.075 -> '7.5' (no trailing zeros)."""
    return f"{(rate * 100).normalize():f}"


def source_text(text: str | None) -> str:
    """A catalog source, escaped, or 'not published'."""
    return escape(text or "not published")
