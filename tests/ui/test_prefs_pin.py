"""The demo PIN in Preferences (review 2, finding 17): typed masked, so typed twice, and 4 digits at least;
a PIN refused says why and stores nothing (the stored PIN stays the one that leaves demo mode)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from configurator.ui.shell.preferences import PreferencesDialog

pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture
def dialog(window, qtbot):  # type: ignore[no-untyped-def]
    window.settings.set("demo/pin", "2468")
    made = PreferencesDialog(window.settings, window)
    qtbot.addWidget(made)
    made.show()
    qtbot.waitExposed(made)
    return made


def type_pins(qtbot, dialog, pin: str, again: str) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClicks(dialog.pin, pin)
    qtbot.keyClicks(dialog.pin_again, again)
    qtbot.keyClick(dialog.pin_again, Qt.Key.Key_Return)  # Enter: the dialog's OK


def test_confirm_field_is_masked(dialog) -> None:  # type: ignore[no-untyped-def]
    assert dialog.pin_again.echoMode() == dialog.pin_again.EchoMode.Password


def test_same_pin_twice_is_stored(dialog, qtbot, window) -> None:  # type: ignore[no-untyped-def]
    type_pins(qtbot, dialog, "97531", "97531")
    assert window.settings.get("demo/pin") == "97531"
    assert dialog.result() == dialog.DialogCode.Accepted


def test_typo_in_confirm_is_refused(dialog, qtbot, window) -> None:  # type: ignore[no-untyped-def]
    type_pins(qtbot, dialog, "97531", "97351")
    assert window.settings.get("demo/pin") == "2468"  # unchanged: the old PIN still leaves demo mode
    assert dialog.isVisible()
    assert dialog.pin_message.isVisible() and "differ" in dialog.pin_message.text()
    assert "PIN not changed" in dialog.pin_message.text()
    qtbot.wait(20)
    message = dialog.pin_message
    assert message.height() >= message.heightForWidth(message.width())  # every line of it shown, not cut


def test_one_digit_pin_is_refused(dialog, qtbot, window) -> None:  # type: ignore[no-untyped-def]
    type_pins(qtbot, dialog, "7", "7")
    assert window.settings.get("demo/pin") == "2468"
    assert dialog.isVisible()
    assert "4 to 12 digits" in dialog.pin_message.text()
    assert dialog.pin.hasFocus()  # back to the field to fix


def test_pin_without_confirm_is_refused(dialog, qtbot, window) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClicks(dialog.pin, "97531")
    qtbot.keyClick(dialog.pin, Qt.Key.Key_Return)
    assert window.settings.get("demo/pin") == "2468"
    assert "again" in dialog.pin_message.text()
    assert dialog.pin_again.hasFocus()

