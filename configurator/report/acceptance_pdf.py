"""The acceptance report as a PDF: the verify result with the build sheet's reference and sign-off lines,
paginated by Qt's text engine and written atomically (temporary file, then rename)."""

from __future__ import annotations

import datetime as dt
import os

from configurator.engine import Build
from configurator.engine.acceptance.verify import VerifyReport
from configurator.report.html_pdf import write_html_pdf
from configurator.report.sheet import APP_NAME, reference_number
from configurator.report.sheet_acceptance import verify_html


def export_acceptance_pdf(
    path: str | os.PathLike[str],
    build: Build,
    report: VerifyReport,
    page: str = "a4",
    seller: str = "",
    date: dt.date | None = None,
) -> int:
    """Write the acceptance report; returns the page count. The reference is the sheet's for ``date`` (today)."""
    day = date or dt.date.today()
    html = verify_html(report, reference_number(build, day), f"{day:%d %B %Y}", seller)
    return write_html_pdf(path, html, page=page, title=f"Acceptance report: {report.build_name}",
                          creator=seller or APP_NAME, what="the acceptance report",
                          style="h1 {font-size: 16pt} h2 {font-size: 12pt} td {font-size: 7pt} th {font-size: 7pt}")
