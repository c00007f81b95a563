"""The acceptance report as a PDF: the verify result with the build sheet's reference and sign-off lines,
paginated by Qt's text engine and written atomically (temporary file, then rename)."""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from pathlib import Path

from configurator.catalog.errors import FileError, Problem
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
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
        os.close(fd)
    except OSError as exc:
        raise FileError(str(target), [Problem("", f"cannot write here: {exc.strerror or exc}")]) from None
    try:
        writer = QPdfWriter(tmp)
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
        pages = doc.pageCount()
        del writer  # flushes and closes the file
        if os.path.getsize(tmp) == 0:
            raise OSError("the PDF writer produced an empty file (disk full?)")
        os.replace(tmp, target)
        return pages
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise FileError(
            str(target), [Problem("", f"cannot write the acceptance report: {exc.strerror or exc}")]
        ) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
