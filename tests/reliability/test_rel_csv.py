"""CSV price lists: CR-only line ends (Excel for Mac) read; a field over the csv module's limit, a NUL or a
bad quote is a clear message with its line (it was exit 3); as the Preferences price list, a bad file never
breaks the sheet export (a status-bar message instead)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from configurator.catalog.errors import FileError
from configurator.catalog.prices import parse_price_list

KNOWN = {"h200-nvl", "generic-server-8"}


def test_cr_only_line_ends_are_read() -> None:
    """`_csv.Error: new-line character seen in unquoted field`: exit 3, and every sheet export broken."""
    prices = parse_price_list("field,value\rcurrency,EUR\rparts.h200-nvl,31000\r", "mac.csv", KNOWN, "csv")
    assert prices.currency == "EUR" and prices.parts["h200-nvl"] == 31000


def test_a_field_over_the_csv_limit_is_a_message_with_its_line() -> None:
    text = "field,value\ncurrency,EUR\nservices." + "a" * 140_000 + ",1\n"
    with pytest.raises(FileError) as info:
        parse_price_list(text, "big.csv", KNOWN, "csv")
    assert info.value.problems[0].line == 3


def test_a_long_field_under_the_csv_limit_is_refused_too() -> None:
    with pytest.raises(FileError, match="characters"):
        parse_price_list("field,value\ncurrency,EUR\nservices." + "a" * 5_000 + ",1\n", "long.csv", KNOWN, "csv")


@pytest.mark.parametrize("text", ["field,value\ncurrency,\x00EUR\n", "field,value\ncurrency,EUR,x\n", "\r\r\r"])
def test_odd_csv_is_a_file_error(text: str) -> None:
    with pytest.raises(FileError):
        parse_price_list(text, "odd.csv", KNOWN, "csv")


@given(st.text(alphabet=st.sampled_from(list('field,vaucrenyEUR.0123456789"\r\n\x00 ')), max_size=120))
def test_any_csv_is_a_price_list_or_a_file_error(text: str) -> None:
    with contextlib.suppress(FileError):  # anything else (csv.Error, ValueError) fails the example
        parse_price_list(text, "any.csv", KNOWN, "csv")


def test_a_bad_preferences_price_list_never_breaks_the_sheet(window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "prices.csv"
    bad.write_text("field,value\rcurrency,EUR\rparts.nosuch,1\r" + "x" * 200_000, encoding="utf-8")
    window.settings.set("price_list", str(bad))
    options = window.sheet.options()  # raised _csv.Error before
    assert options.prices is None
    assert "Price list not used" in window.statusBar().currentMessage()
