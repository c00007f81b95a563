"""The build sheet's page breaks: a table starts on the page of its heading and lead-in line, with its header row
and first rows ("Bill of materials" and its quote line ended page 2 of a priced sheet, the table on page 3)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from PySide6.QtGui import QTextCursor, QTextDocument

from configurator.report.pagination import KEEP_ROWS
from tests.sheet_text import CUSTOMER, PRICES, ROOT

# the reviewer's price list for the eight-card build: its bill of materials fell after its heading's page
EIGHT_PRICES = """\
currency: EUR
tax_rate: 0.19
valid_days: 30
parts: {h200-nvl: 31000, supermicro-sys-521ge-tnrt: 12500, nvlink-bridge-4way: 900}
services: [{name: Assembly and burn-in, price: 450}]
"""


def _stranded(doc: QTextDocument) -> list[str]:
    """Tables whose lead-in (the block before them, or the heading before that) or first rows are on another page
    than their header row, as 'first words of the lead-in'."""
    layout, page_h = doc.documentLayout(), doc.pageSize().height()
    out: list[str] = []
    seen: set[int] = set()
    block = doc.begin()
    while block.isValid():
        table = QTextCursor(block).currentTable()
        if table is not None and table.firstPosition() not in seen:
            seen.add(table.firstPosition())
            prev = block.previous()
            while prev.isValid() and prev.length() <= 1 and QTextCursor(prev).currentTable() is None:
                prev = prev.previous()
            start = layout.blockBoundingRect(block).top()
            if prev.isValid() and QTextCursor(prev).currentTable() is None:
                start = layout.blockBoundingRect(prev).top()
            end, b = 0.0, block
            while b.isValid() and (t := QTextCursor(b).currentTable()) is not None and t.firstPosition() == (
                table.firstPosition()
            ):
                if table.cellAt(QTextCursor(b)).row() <= KEEP_ROWS:
                    end = max(end, layout.blockBoundingRect(b).bottom())
                b = b.next()
            if end - start < 0.8 * page_h and int(start // page_h) != int((end - 1) // page_h):
                out.append(prev.text()[:40] if prev.isValid() else block.text()[:40])
        block = block.next()
    return out


def test_tables_start_with_their_lead_in(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QPdfWriter

    from configurator.catalog.loader import default_catalog
    from configurator.catalog.prices import parse_price_list
    from configurator.engine import evaluate
    from configurator.engine.model.buildfile import load_build
    from configurator.report.pdf import BuildSheet, page_layout
    from configurator.report.sheet import SheetOptions

    catalog = default_catalog()
    ids = set(catalog.cards) | set(catalog.chassis)
    for name, prices in (("seed-70b-lora-8x-h200-nvl.yaml", EIGHT_PRICES), ("default.yaml", PRICES),
                         ("seed-mig-four-tenants.yaml", None)):  # fmt: skip
        build = load_build(ROOT / "resources" / "builds" / name)
        writer = QPdfWriter(str(tmp_path / "pagination-probe.pdf"))
        writer.setResolution(300)
        writer.setPageLayout(page_layout("a4"))
        options = SheetOptions(seller_name="Müller & Söhne GmbH & Co. KG", customer=CUSTOMER, page="a4",
                               prices=parse_price_list(prices, "prices.yaml", ids) if prices else None,
                               date=dt.date(2026, 12, 3))  # fmt: skip
        doc, _ = BuildSheet(build, evaluate(build), catalog, options).prepare(writer)
        assert not _stranded(doc), (name, _stranded(doc))
        del writer


def test_topo_grid_stays_whole(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The predicted ``nvidia-smi topo -m`` grid (a <pre>, one block per line) moves to the next page whole with its
    caption: eight bridged cards with three one-card jobs put its page break between the grid's rows on A4."""
    from PySide6.QtGui import QPdfWriter

    from configurator.engine import Build, evaluate
    from configurator.report.pdf import BuildSheet, page_layout
    from configurator.report.sheet import SheetOptions

    build = Build.model_validate({
        "name": "Eight bridged H200 NVL", "chassis": "generic-server-8",
        "cards": [{"slot": s, "card": "h200-nvl"} for s in range(1, 9)],
        "bridges": [{"slots": [s, s + 1]} for s in (1, 3, 5, 7)],
        "jobs": [{"name": f"job {k}", "model": "llama-3.1-8b", "method": "lora", "cards": [k]} for k in (1, 2, 3)],
    })  # fmt: skip
    writer = QPdfWriter(str(tmp_path / "topo-probe.pdf"))
    writer.setResolution(300)
    writer.setPageLayout(page_layout("a4"))
    doc, _ = BuildSheet(build, evaluate(build), options=SheetOptions(page="a4", date=dt.date(2026, 12, 3))).prepare(
        writer
    )
    layout, page_h = doc.documentLayout(), doc.pageSize().height()
    block, pages, caption = doc.begin(), [], None
    while block.isValid():
        if "topo -m" in block.text() and not block.blockFormat().nonBreakableLines():
            caption = int(layout.blockBoundingRect(block).top() // page_h)
        elif caption is not None and block.blockFormat().nonBreakableLines():
            r = layout.blockBoundingRect(block)
            pages += [int(r.top() // page_h), int((r.bottom() - 1) // page_h)]
        block = block.next()
    assert len(pages) == 2 * 9, "the grid: a header line and a row per card"
    assert set(pages) == {caption}, (caption, pages)
    del writer
