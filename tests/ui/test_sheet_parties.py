"""Who the quote is for and who sells it, typed in the sheet's preview, are kept across sessions through the
settings registry (the customer was kept for the session only; the seller only from Preferences)."""

from __future__ import annotations

from pathlib import Path

from tests.gui_helpers import make_window


def _type(field, text: str) -> None:  # type: ignore[no-untyped-def]
    field.setText(text)
    field.editingFinished.emit()


def test_customer_and_seller_are_kept_for_the_next_session(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    first = make_window(qtbot, tmp_path)
    dialog = first.sheet.preview_dialog()
    qtbot.addWidget(dialog)
    assert dialog.customer.text() == "" and dialog.seller.text() == ""  # no seller until one is named
    _type(dialog.customer, "Example Research GmbH")
    _type(dialog.seller, "Northwind Compute")
    assert dialog.sheet.options.customer == "Example Research GmbH"
    assert dialog.sheet.options.seller_name == "Northwind Compute"
    first.settings.q.sync()

    second = make_window(qtbot, tmp_path)  # the same settings file: the next session
    options = second.sheet.options()
    assert (options.customer, options.seller_name) == ("Example Research GmbH", "Northwind Compute")
    again = second.sheet.preview_dialog()
    qtbot.addWidget(again)
    assert again.customer.text() == "Example Research GmbH" and again.seller.text() == "Northwind Compute"


def test_an_emptied_seller_keeps_the_preferences_name(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    window.settings.set("seller_name", "Northwind Compute")  # as Preferences saves it
    dialog = window.sheet.preview_dialog()
    qtbot.addWidget(dialog)
    _type(dialog.seller, "")
    assert window.sheet.options().seller_name == "Northwind Compute"
    _type(dialog.customer, "")
    assert window.sheet.options().customer == ""
