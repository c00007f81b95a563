"""The build sheet's first page and its page header: the parties' names as typed, the wording of a sheet without
a price list or a seller, a long seller name beside the reference; and the power paragraph's transient demand."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
from html import escape
from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine import evaluate
from configurator.engine.model.buildfile import load_build
from configurator.report.sheet import SheetOptions, build_html
from tests.sheet_text import ROOT

needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")
SELLER = "Müller & Söhne GmbH & Co. KG"


def _html(**options: object) -> str:
    build = load_build(ROOT / "resources" / "builds" / "default.yaml")
    sheet = SheetOptions(page="a4", date=dt.date(2026, 12, 3), **options)  # type: ignore[arg-type]
    return build_html(build, evaluate(build), default_catalog(), sheet)


def test_the_sellers_name_is_escaped_once() -> None:
    html = _html(seller_name=SELLER)
    assert "&amp;amp;" not in html  # the signature table's header printed "Müller &amp; Söhne"
    assert "For Müller &amp; Söhne GmbH &amp; Co. KG" in html


@needs_poppler
def test_a_long_seller_name_stays_clear_of_the_reference(tmp_path: Path) -> None:
    """The header's seller name is shrunk and elided to end before "Ref. GBC-…" (it ran over it on every page)."""
    from configurator.report.pdf import export_pdf

    build = load_build(ROOT / "resources" / "builds" / "default.yaml")
    pdf = tmp_path / "sheet.pdf"
    long_name = SELLER + " Hochleistungsrechner und Systemintegration Niederlassung Süd"
    export_pdf(pdf, build, evaluate(build), options=SheetOptions(seller_name=long_name, page="a4"))
    boxes = subprocess.run(["pdftotext", "-f", "2", "-l", "2", "-bbox", str(pdf), "-"], capture_output=True,
                           text=True, check=True).stdout  # fmt: skip
    words = [(float(x0), float(y0), float(x1), w) for x0, y0, x1, w in re.findall(
        r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<', boxes)]  # fmt: skip
    ref = next(w for w in words if w[3] == "Ref.")
    line = [w for w in words if abs(w[1] - ref[1]) < 3 and w[0] < ref[0]]  # the seller's, on the reference's line
    assert line and line[0][3] == "Müller"
    assert max(w[2] for w in line) < ref[0] - 5


def test_without_a_price_list_the_cover_is_a_proposal() -> None:
    html = _html(seller_name="Northwind Compute")
    assert "Build proposal of 03 December 2026" in html and "Quote — of" not in html
    assert "at the price above" not in html  # "Price: on request" has no price above to accept
    assert "The price is quoted separately." in html
    # and with the seller's price list, a quote accepted at its price
    from configurator.catalog.prices import parse_price_list
    from tests.sheet_text import PRICES

    catalog = default_catalog()
    prices = parse_price_list(PRICES, "prices.yaml", set(catalog.cards) | set(catalog.chassis))
    priced = _html(seller_name="Northwind Compute", prices=prices)
    assert "Quote Q-20261203-" in priced and "accepts this build at the price above" in priced
    assert "Build proposal" not in priced


def test_without_a_seller_its_lines_are_left_to_fill_in() -> None:
    """Neither no name nor the app's name (Preferences' placeholder) is printed as the seller's."""
    for name in ("", "GPU Build Configurator"):
        html = _html(seller_name=name)
        assert "GPU Build Configurator" not in html, name
        # four blanks: the customer's and the seller's names, and a name under each signature (a named seller: three)
        assert "For the seller" in html and html.count("Name: <span") == 4


def test_transient_demand_is_shown_when_the_psu_rating_is_unpublished() -> None:
    """Eight H200 NVL: 16,100 W of card excursions against an 8,100 W server supply whose excursion rating nobody
    publishes; the sheet said nothing of it."""
    build = load_build(ROOT / "resources" / "builds" / "seed-70b-lora-8x-h200-nvl.yaml")
    result = evaluate(build)
    assert result.power is not None and result.power.transient_capacity_w is None
    html = build_html(build, result, default_catalog(), SheetOptions(page="a4"))
    assert f"transient demand up to {result.power.transient_demand_w:,.0f} W for 100 µs" in html
    assert "the PSU's excursion rating is not published: check with its maker that it carries this" in html


def test_the_total_points_to_the_bill_of_materials_not_a_page() -> None:
    """The bill of materials follows the chassis drawing, the parts and the host tables: on page 3 of the
    eight-card sheet, not 'the next page' the total named."""
    from configurator.catalog.prices import parse_price_list
    from tests.sheet_text import PRICES

    catalog = default_catalog()
    html = _html(prices=parse_price_list(PRICES, "prices.yaml", set(catalog.cards) | set(catalog.chassis)))
    assert "its lines are in the bill of materials after the parts list" in html and "next page" not in html


def test_no_signature_at_an_incomplete_price_or_with_build_errors() -> None:
    """review2 cli 17: "By signing, the customer accepts this build at the price above" under a total that left parts
    unpriced, and under a build whose errors (PSU overload, passive card in a tower, mixed bridge) only the appendix
    named. Now: NOT A QUOTE, no signature lines, and the errors on the cover."""
    from configurator.catalog.prices import parse_price_list

    catalog = default_catalog()
    partial = "currency: EUR\ntax_rate: 0.19\nparts: {h200-nvl: 31000, rtx-pro-6000-server: 8000}\n"
    prices = parse_price_list(partial, "prices.yaml", set(catalog.cards) | set(catalog.chassis))
    html = _html(prices=prices)
    assert "Incomplete: no price for" in html and "accepts this build" not in html and "Signature:" not in html
    assert "NOT A QUOTE, not for signature:</b> the price is incomplete (" in html
    # and its heading agrees: a draft, not a quote (it read "Quote and build sheet" over the NOT A QUOTE)
    assert ">Draft quote and build sheet</p>" in html and ">Quote and build sheet<" not in html

    build = load_build(ROOT / "resources" / "builds" / "mixed-with-errors.yaml")
    result = evaluate(build)
    html = build_html(build, result, catalog, SheetOptions(page="a4", date=dt.date(2026, 12, 3)))
    cover = html.split("NOT A QUOTE")[0]  # the cover ends with the acceptance section
    assert "4 build errors: this build cannot be built or run as specified." in cover
    for error in result.errors:
        assert escape(error.message) in cover
    assert "4 build errors remain" in html and "accepts this build" not in html and "Signature:" not in html
