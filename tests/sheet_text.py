"""The customer-sheet tests' shared data and reader: a price list, a customer, each PDF page's text. A helper
module, not a test module."""

from __future__ import annotations

from pathlib import Path

from tests.paths import ROOT  # noqa: F401  (re-exported for the sheet tests)

PRICES = """\
currency: EUR
tax_rate: 0.19
valid_days: 30
parts: {h200-nvl: 31000, rtx-pro-6000-server: 8900.50, generic-server-8: 9800, nvlink-bridge-h200-nvl-2way: 650,
        dimm-32gb: 160, nvme-1.92tb: 240}
services: [{name: Assembly and burn-in, price: 450}]
"""
CUSTOMER = "Jane Doe, Example Research GmbH"


def sheet_pages(path: Path) -> list[str]:
    """Each page's text, as pypdf extracts it (line breaks kept: a number broken across lines shows), fi and fl
    ligatures as the two letters."""
    from pypdf import PdfReader

    pages = [page.extract_text() or "" for page in PdfReader(str(path)).pages]
    return [p.replace("\ufb01", "fi").replace("\ufb02", "fl") for p in pages]  # the fonts' fi/fl ligatures
