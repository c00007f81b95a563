"""An HTML report as a PDF, paginated by Qt's text engine and written through the one safe writer: the plan
sheet and the acceptance report share it (the build sheet draws its own pages in report/pdf.py).

Each page is painted by hand, as the build sheet's are: the text inside margins, a header line with the title
and a footer with "Page n of m". (QTextDocument.print_ with a page size set to the paint rectangle drew the text
from the paper's edge: the first word at x = 3 pt, no page numbers.)"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPdfWriter, QPen, QTextDocument

from configurator.catalog.fileio import atomic_replace, pdf_problem
from configurator.report.pagination import add_row_break, first_split_row, keep_together, split_tables
from configurator.report.pdf import (
    MARGIN_MM,
    MAX_ROW_SPLITS,
    draw_footer,
    ensure_app,
    page_document,
    page_layout,
    paint_pages,
)

STYLE = "h1 {font-size: 16pt} h2 {font-size: 12pt} h3 {font-size: 10pt} td {font-size: 7pt} th {font-size: 7pt}"
# the build sheet's margins (pdf.MARGIN_MM); a title line and a page-number line of their own
HEADER_MM, FOOTER_MM = 9.0, 9.0


def write_html_pdf(path: str | os.PathLike[str], html: str, *, page: str, title: str, creator: str, what: str,
                   style: str = STYLE) -> int:  # fmt: skip
    """Write ``html`` as a PDF at ``path``; returns the page count. FileError when it cannot be written (a FIFO,
    a device or a folder is refused before anything is written; the target is replaced only by a whole PDF)."""
    ensure_app()
    pages = [0]

    def produce(tmp: Path) -> None:
        writer = QPdfWriter(str(tmp))
        writer.setResolution(300)
        writer.setPageLayout(page_layout(page))
        writer.setTitle(title)
        writer.setCreator(creator)
        pages[0] = _paint(writer, html, style, title)
        del writer  # flushes and closes the file

    atomic_replace(path, produce, pdf_problem, what=what)
    return pages[0]


def _paint(writer: QPdfWriter, html: str, style: str, title: str) -> int:
    dpi = writer.logicalDpiX()
    mm = dpi / 25.4
    full = writer.pageLayout().fullRectPixels(dpi)
    doc, body = laid_out(writer, html, style)
    return paint_pages(writer, doc, body, lambda painter, page, pages: _header_footer(
        painter, full.width(), full.height(), mm, title, page, pages))


def laid_out(writer: QPdfWriter, html: str, style: str = STYLE) -> tuple[QTextDocument, QRectF]:
    """``html`` laid out on ``writer``'s pages, paragraphs and table rows kept whole; and its text area."""
    doc, body = page_document(writer, style, HEADER_MM, FOOTER_MM)
    # Lay out, keep paragraphs whole (keep_together), then cut a table before the first row Qt splits across a page
    # ("HGX H100 /" at a page's foot, "7g.80gb" alone on the next): the rest of the table starts the next page with
    # its header again. Each cut moves only what follows it, so the layout runs again, a few times at most.
    breaks: dict[int, set[int]] = {}
    for _ in range(MAX_ROW_SPLITS + 1):
        cut, parts = split_tables(html, breaks)
        doc.setHtml(cut)
        doc.documentLayout().documentSize()
        keep_together(doc)  # no paragraph split across pages, no heading alone at a page's foot
        if not add_row_break(breaks, parts, first_split_row(doc)):
            break
    return doc, body


def _header_footer(painter: QPainter, width: float, height: float, mm: float, title: str, page: int,
                   pages: int) -> None:  # fmt: skip
    left, right, top = MARGIN_MM * mm, width - MARGIN_MM * mm, MARGIN_MM * mm
    painter.save()
    f = QFont("DejaVu Sans")
    f.setPointSizeF(8)
    painter.setFont(f)
    painter.setPen(QColor("#555555"))
    mid = Qt.AlignmentFlag.AlignVCenter
    heading = painter.fontMetrics().elidedText(title, Qt.TextElideMode.ElideRight, int(right - left))
    painter.drawText(QRectF(left, top, right - left, 5 * mm), Qt.AlignmentFlag.AlignLeft | mid, heading)
    painter.setPen(QPen(QColor("#76B900"), 0.4 * mm))
    painter.drawLine(int(left), int(top + 6 * mm), int(right), int(top + 6 * mm))
    draw_footer(painter, width, height, mm, page, pages, "GB = 10^9 bytes")
    painter.restore()
