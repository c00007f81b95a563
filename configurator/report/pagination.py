"""Page breaks of the build sheet's laid-out document: paragraphs, headings and preformatted blocks kept whole on a
page (:func:`keep_together`) and the first table row Qt splits across a page (:func:`first_split_row`)."""

from __future__ import annotations

import re

from PySide6.QtGui import (
    QTextBlock,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextTable,
    QTextTableFormat,
)

_TABLE = re.compile(r"<table\b[^>]*>.*?</table>", re.S | re.I)
_ROW = re.compile(r"<tr\b.*?</tr>", re.S | re.I)
_OPEN = re.compile(r"<table\b[^>]*>", re.I)
_STYLE = re.compile(r"style=(['\"])", re.I)
KEEP_ROWS = 3  # a table's header row and at least this many rows stay on the page that starts it


def keep_together(doc: QTextDocument) -> int:
    """Move a paragraph that would break across pages to the next page whole, and a heading that would end
    a page to the next page with what follows it. Returns the number of blocks moved.

    Qt's layout splits a paragraph between its lines at a page end; a sheet read on paper should not split
    a sentence. A table's header row and first KEEP_ROWS rows start on one page, with the heading and lead-in line
    before it; later rows are left to Qt (their header row repeats on the next page). A preformatted block (``<pre>``,
    which Qt imports as one block per line: the ``nvidia-smi topo -m`` grid) stays whole with its lead-in line, as a
    table's start does. A block taller than a page is left to split. Walks the document once, top to bottom:
    moving a block only shifts the blocks after it.
    """
    layout = doc.documentLayout()
    page_h = doc.pageSize().height()
    moved = 0

    def pages_of(block: QTextBlock) -> tuple[int, int, float]:
        r = layout.blockBoundingRect(block)
        return int(r.top() // page_h), int(max(r.top(), r.bottom() - 1) // page_h), r.height()

    def break_before(block: QTextBlock) -> None:
        fmt = QTextBlockFormat()
        fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
        QTextCursor(block).mergeBlockFormat(fmt)
        layout.documentSize()  # lay the rest out again before measuring the next block

    def first_rows_bottom(table: QTextTable, start: QTextBlock) -> float:
        """The bottom of ``table``'s header row and its first KEEP_ROWS rows (its blocks from ``start``)."""
        bottom, b = 0.0, start
        while b.isValid():
            cursor = QTextCursor(b)
            inside = cursor.currentTable()
            if inside is None or inside.firstPosition() != table.firstPosition():
                break
            if table.cellAt(cursor).row() <= KEEP_ROWS:
                bottom = max(bottom, layout.blockBoundingRect(b).bottom())
            b = b.next()
        return bottom

    def lead_in(table_start: QTextBlock) -> QTextBlock | None:
        """What introduces a table: the paragraph right before it, or the heading before that paragraph."""
        prev = table_start.previous()
        while prev.isValid() and prev.length() <= 1 and QTextCursor(prev).currentTable() is None:
            prev = prev.previous()  # an empty block Qt puts between blocks
        if not prev.isValid() or QTextCursor(prev).currentTable() is not None:
            return None
        above = prev.previous()
        if not prev.blockFormat().headingLevel() and above.isValid() and above.blockFormat().headingLevel():
            return above
        return prev

    def breaks_before(fmt: QTextBlockFormat | QTextTableFormat) -> bool:  # it starts a page
        return bool(fmt.pageBreakPolicy() & QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)

    def preformatted(block: QTextBlock) -> bool:  # a line of a <pre>: Qt marks each one's lines non-breakable
        fmt = block.blockFormat()
        return block.isValid() and fmt.nonBreakableLines() and QTextCursor(block).currentTable() is None

    tables_seen: set[int] = set()
    block = doc.begin()
    while block.isValid():
        if preformatted(block) and not preformatted(block.previous()):
            end = block
            while preformatted(end.next()):
                end = end.next()
            top, bottom = layout.blockBoundingRect(block).top(), layout.blockBoundingRect(end).bottom()
            if int(top // page_h) != int(max(top, bottom - 1) // page_h) and bottom - top < 0.8 * page_h:
                lead = lead_in(block)  # the grid's caption goes with it, as a table's lead-in line does
                lead_top = layout.blockBoundingRect(lead).top() if lead is not None else top
                if lead is not None and not breaks_before(lead.blockFormat()) and bottom - lead_top < 0.8 * page_h:
                    break_before(lead)
                    moved += 1
                elif not breaks_before(block.blockFormat()):
                    break_before(block)
                    moved += 1
            block = end.next()
            continue
        table = QTextCursor(block).currentTable()
        if table is not None and table.firstPosition() not in tables_seen:
            # a table's start: its header and first rows on one page, with what introduces it (the heading or
            # lead-in line ended a page, the table on the next: "Bill of materials" at a page's foot)
            tables_seen.add(table.firstPosition())
            top = layout.blockBoundingRect(block).top()
            bottom = first_rows_bottom(table, block)
            lead = lead_in(block)
            lead_top = layout.blockBoundingRect(lead).top() if lead is not None else top
            # a table already sent to a new page (its first row would have split) leaves its lead-in behind: moved too
            if int(lead_top // page_h) != int(max(lead_top, bottom - 1) // page_h):
                tfmt = table.format()
                if lead is not None and not breaks_before(lead.blockFormat()) and bottom - lead_top < 0.8 * page_h:
                    if breaks_before(tfmt):
                        tfmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_Auto)
                        table.setFormat(tfmt)
                    break_before(lead)
                    moved += 1
                elif not breaks_before(tfmt) and bottom - top < 0.8 * page_h:
                    tfmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
                    table.setFormat(tfmt)
                    layout.documentSize()
                    moved += 1
        if QTextCursor(block).currentTable() is None and block.length() > 1:
            first, last, height = pages_of(block)
            already = breaks_before(block.blockFormat())
            if first != last and height < 0.8 * page_h and not already:
                break_before(block)
                moved += 1
            elif block.blockFormat().headingLevel() and not already:
                nxt = block.next()
                # the next block's end, not its start: a figure too tall for the room left starts its block on
                # this page and draws on the next ("Reopen this build" alone at a page's foot, its QR over)
                if nxt.isValid() and pages_of(nxt)[1] > last:
                    table = QTextCursor(nxt).currentTable()
                    if table is not None:  # a table sent to a new page whole goes with its heading, not after it
                        fmt = table.format()
                        fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_Auto)
                        table.setFormat(fmt)
                    break_before(block)
                    moved += 1
        block = block.next()
    return moved


def first_split_row(doc: QTextDocument) -> tuple[int, int] | None:
    """(table index in layout order, row) of the first table row that breaks across a page, header rows aside."""
    layout = doc.documentLayout()
    page_h = doc.pageSize().height()
    tables: dict[int, int] = {}
    rows: dict[tuple[int, int], list[float]] = {}
    block = doc.begin()
    while block.isValid():
        cursor = QTextCursor(block)
        table = cursor.currentTable()
        if table is not None:
            t = tables.setdefault(table.firstPosition(), len(tables))
            r = layout.blockBoundingRect(block)
            span = rows.setdefault((t, table.cellAt(cursor).row()), [r.top(), r.bottom()])
            span[0], span[1] = min(span[0], r.top()), max(span[1], r.bottom())
        block = block.next()
    for (t, row), (top, bottom) in sorted(rows.items()):
        if row > 0 and int(top // page_h) != int(max(top, bottom - 1) // page_h) and bottom - top < 0.5 * page_h:
            return t, row
    return None


def add_row_break(breaks: dict[int, set[int]], parts: list[tuple[int, int]], split: tuple[int, int] | None) -> bool:
    """Record where to cut next after a layout: ``split`` (first_split_row: Qt's table and row that cross a page) mapped
    through ``parts`` ((source table, its first data row) per table Qt laid out) into ``breaks`` (source table -> data
    rows to cut before; 0: the whole table starts a new page). False where there is nothing to gain and the layout
    stands: no split, or a part's first row taller than the room a new page gives. The build sheet's and the HTML
    reports' pagination loops both ask this."""
    if split is None or split[0] >= len(parts):
        return False
    table, first_row = parts[split[0]]
    row = first_row + split[1] - 1  # Qt's row 0 is the header
    asked = breaks.setdefault(table, set())
    if row <= first_row:  # the part's first row splits: the whole table to a new page, once
        if first_row != 0 or 0 in asked:
            return False
        asked.add(0)
        return True
    if row in asked:
        return False
    asked.add(row)
    return True


def split_tables(html: str, breaks: dict[int, set[int]]) -> tuple[str, list[tuple[int, int]]]:
    """``html`` with its n-th table cut before the data rows ``breaks[n]`` names, each later part a table of its own
    that starts a new page with the header row again (0 in ``breaks[n]``: the whole table starts a new page); and,
    for each table Qt will lay out, in order, (the source table's number, its first data row). A row
    :func:`first_split_row` finds maps back through that list. Tables are not nested (the plan and acceptance
    reports' are not); a table's first row is its header."""
    parts: list[tuple[int, int]] = []
    count = [0]

    def cut(m: re.Match[str]) -> str:
        n = count[0]
        count[0] += 1
        table = m.group(0)
        found = list(_ROW.finditer(table))
        rows = [r.group(0) for r in found]
        asked = breaks.get(n, set())
        opening = _OPEN.match(table)
        if opening is None or len(rows) < 2 or not asked:
            parts.append((n, 0))
            return _new_page(table) if 0 in asked else table
        head, data = rows[0], rows[1:]
        cuts = sorted(b for b in asked if 0 < b < len(data))
        out = []
        for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(data)], strict=True)):
            parts.append((n, a))
            if i == 0:  # the first part keeps what the source wrote around its rows (thead, tbody)
                first = table[: found[1 + cuts[0]].start() if cuts else len(table)]
                close = ("</tbody></table>" if "<tbody" in table.lower() else "</table>") if cuts else ""
                piece = first + close
                out.append(_new_page(piece) if 0 in asked else piece)
            else:
                wrap = ("<thead>", "</thead><tbody>", "</tbody>") if "<thead" in table.lower() else ("", "", "")
                piece = f"{opening.group(0)}{wrap[0]}{head}{wrap[1]}{''.join(data[a:b])}{wrap[2]}</table>"
                out.append(_new_page(piece))
        return "".join(out)

    return _TABLE.sub(cut, html), parts


def _new_page(table: str) -> str:
    """``table`` with page-break-before:always in its opening tag's style."""
    opening = _OPEN.match(table)
    assert opening is not None
    tag = opening.group(0)
    if _STYLE.search(tag):
        tag = _STYLE.sub(lambda q: f"style={q.group(1)}page-break-before:always;", tag, count=1)
    else:
        tag = tag[:-1] + " style='page-break-before:always'>"
    return tag + table[opening.end() :]
