"""The plan's and the acceptance report's PDF pages: text inside margins, a page number on every page."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from configurator.report.html_pdf import write_html_pdf

needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")
MM = 72 / 25.4


@needs_poppler
def test_pages_have_margins_and_numbers(tmp_path: Path) -> None:
    pdf = tmp_path / "report.pdf"
    html = "<h1>Report</h1>" + "".join(f"<p>Paragraph {i}: some words to fill a line of text.</p>" for i in range(120))
    pages = write_html_pdf(pdf, html, page="a4", title="A report", creator="test", what="the report")
    assert pages >= 2
    boxes = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    box = r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)"'
    words = [tuple(map(float, w)) for w in re.findall(box, boxes)]
    assert min(w[0] for w in words) > 12 * MM  # was 3 pt: the text from the paper's edge
    assert max(w[2] for w in words) < 210 * MM - 12 * MM
    assert min(w[1] for w in words) > 12 * MM and max(w[3] for w in words) < 297 * MM - 12 * MM
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    for n in range(1, pages + 1):
        assert f"Page {n} of {pages}" in text
