"""The build sheet's first page and its page header: the parties' names as typed, the wording of a sheet without
a price list or a seller, a long seller name beside the reference."""

from __future__ import annotations

import datetime as dt

from configurator.catalog.loader import default_catalog
from configurator.engine import evaluate
from configurator.engine.model.buildfile import load_build
from configurator.report.sheet import SheetOptions, build_html
from tests.sheet_text import ROOT

SELLER = "Müller & Söhne GmbH & Co. KG"


def _html(**options: object) -> str:
    build = load_build(ROOT / "resources" / "builds" / "default.yaml")
    sheet = SheetOptions(page="a4", date=dt.date(2026, 12, 3), **options)  # type: ignore[arg-type]
    return build_html(build, evaluate(build), default_catalog(), sheet)


def test_the_sellers_name_is_escaped_once() -> None:
    html = _html(seller_name=SELLER)
    assert "&amp;amp;" not in html  # the signature table's header printed "Müller &amp; Söhne"
    assert "For Müller &amp; Söhne GmbH &amp; Co. KG" in html
