"""Fixtures of the build-sheet tests: the default build's sheet, priced and for a named customer, read back."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.sheet_text import CUSTOMER, PRICES, ROOT, sheet_pages


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
