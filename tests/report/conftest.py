"""Fixtures of the build-sheet tests: the default build's sheet, priced and for a named customer, read back."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
PRICES = """\
currency: EUR
tax_rate: 0.19
valid_days: 30
parts: {h200-nvl: 31000, rtx-pro-6000-server: 8900.50, generic-server-8: 9800, nvlink-bridge-h200-nvl-2way: 650}
services: [{name: Assembly and burn-in, price: 450}]
"""
CUSTOMER = "Jane Doe, Example Research GmbH"


def sheet_pages(path: Path) -> list[str]:
    """Each page's text, as pypdf extracts it (line breaks kept: a number broken across lines shows), fi and fl
    ligatures as the two letters."""
    from pypdf import PdfReader

    pages = [page.extract_text() or "" for page in PdfReader(str(path)).pages]
    return [p.replace("\ufb01", "fi").replace("\ufb02", "fl") for p in pages]  # the fonts' fi/fl ligatures


@pytest.fixture(scope="module")
def customer_sheet(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The default build's sheet, priced, for CUSTOMER, sold by 'Acme GPU Systems': its pages' text."""
    from configurator.catalog.loader import default_catalog
    from configurator.catalog.prices import parse_price_list
    from configurator.engine import evaluate
    from configurator.engine.model.buildfile import load_build
    from configurator.report.pdf import export_pdf
    from configurator.report.sheet import SheetOptions

    catalog = default_catalog()
    prices = parse_price_list(PRICES, "prices.yaml", set(catalog.cards) | set(catalog.chassis))
    build = load_build(ROOT / "resources" / "builds" / "default.yaml")
    out = tmp_path_factory.mktemp("sheet") / "sheet.pdf"
    options = SheetOptions(seller_name="Acme GPU Systems", customer=CUSTOMER, prices=prices, page="a4",
                           date=dt.date(2026, 3, 2))  # fmt: skip
    export_pdf(out, build, evaluate(build), options=options)
    return sheet_pages(out)
