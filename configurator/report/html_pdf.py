"""An HTML report as a PDF, paginated by Qt's text engine and written through the one safe writer: the plan
sheet and the acceptance report share it (the build sheet draws its own pages in report/pdf.py)."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSizeF
from PySide6.QtGui import QFont, QPdfWriter, QTextDocument

from configurator.catalog.fileio import atomic_replace, pdf_problem
from configurator.report.pdf import ensure_app, page_layout

STYLE = "h1 {font-size: 16pt} h2 {font-size: 12pt} h3 {font-size: 10pt} td {font-size: 7pt} th {font-size: 7pt}"


def write_html_pdf(path: str | os.PathLike[str], html: str, *, page: str, title: str, creator: str, what: str,
                   style: str = STYLE) -> int:  # fmt: skip
    """Write ``html`` as a PDF at ``path``; returns the page count. FileError when it cannot be written (a FIFO,
    a device or a folder is refused before anything is written; the target is replaced only by a whole PDF)."""
    ensure_app()
    pages = [0]

    def produce(tmp: Path) -> None:
        writer = QPdfWriter(str(tmp))
        writer.setResolution(300)
        layout = page_layout(page)
        writer.setPageLayout(layout)
        writer.setPageMargins(layout.margins())
        writer.setTitle(title)
        writer.setCreator(creator)
        doc = QTextDocument()
        font = QFont("DejaVu Sans")
        font.setPointSizeF(9)
        doc.setDefaultFont(font)
        doc.setDefaultStyleSheet(style)
        doc.setHtml(html)
        rect = writer.pageLayout().paintRectPixels(writer.resolution())
        doc.documentLayout().setPaintDevice(writer)
        doc.setPageSize(QSizeF(rect.size()))
        doc.print_(writer)
        pages[0] = doc.pageCount()
        del writer  # flushes and closes the file

    atomic_replace(path, produce, pdf_problem, what=what)
    return pages[0]
