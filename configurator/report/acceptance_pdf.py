"""The acceptance report as a PDF: the verify result with the build sheet's reference and sign-off lines,
paginated by Qt's text engine and written atomically (temporary file, then rename)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from configurator.catalog.fileio import atomic_replace, pdf_problem
from configurator.engine import Build
from configurator.engine.acceptance.verify import VerifyReport
from configurator.report.sheet import reference_number
from configurator.report.sheet_acceptance import verify_html


def export_acceptance_pdf(
    path: str | os.PathLike[str],
    build: Build,
    report: VerifyReport,
    page: str = "a4",
    seller: str = "GPU Build Configurator",
    date: dt.date | None = None,
) -> int:
    """Write the acceptance report; returns the page count. The reference is the sheet's for ``date`` (today)."""
    from PySide6.QtCore import QSizeF
    from PySide6.QtGui import QFont, QPdfWriter, QTextDocument

    from configurator.report.pdf import ensure_app, page_layout

    ensure_app()
    day = date or dt.date.today()
    html = verify_html(report, reference_number(build, day), f"{day:%d %B %Y}", seller)
    pages = [0]

    def produce(tmp: Path) -> None:
        writer = QPdfWriter(str(tmp))
        writer.setResolution(300)
        layout = page_layout(page)
        writer.setPageLayout(layout)
        writer.setPageMargins(layout.margins())
        writer.setTitle(f"Acceptance report: {report.build_name}")
        writer.setCreator(seller)
        doc = QTextDocument()
        font = QFont("DejaVu Sans")
        font.setPointSizeF(9)
        doc.setDefaultFont(font)
        doc.setDefaultStyleSheet("h1 {font-size: 16pt} h2 {font-size: 12pt} td {font-size: 7pt} th {font-size: 7pt}")
        doc.setHtml(html)
        rect = writer.pageLayout().paintRectPixels(writer.resolution())
        doc.documentLayout().setPaintDevice(writer)
        doc.setPageSize(QSizeF(rect.size()))
        doc.print_(writer)
        pages[0] = doc.pageCount()
        del writer  # flushes and closes the file

    # the one safe writer (catalog/fileio.py): a FIFO, a device or a folder is refused before anything is
    # written, and the target is replaced only by a complete, verified PDF
    atomic_replace(path, produce, pdf_problem, what="the acceptance report")
    return pages[0]
