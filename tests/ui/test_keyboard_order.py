"""Moving through the main window by keyboard (review 2, findings 12 and 16): Tab goes left to right (the
Cards/Jobs docks, the chassis, the analysis, the summary strip, the Checks), the Jobs form and the summary's
Host figures are reached by keys, Quit and Preferences have theirs, and the palette filter takes Enter and Down.

Only key presses sent where the keyboard sends them (the focused widget, or the window for its shortcuts).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTabBar, QWidget

from configurator.ui.shell.help import shortcut_rows
from tests.gui_helpers import focused, press

pytestmark = pytest.mark.usefixtures("qapp")
Key, Mod = Qt.Key, Qt.KeyboardModifier


def tab_stops(qtbot, start: QWidget, limit: int = 40) -> list[QWidget]:  # type: ignore[no-untyped-def]
    """The widgets Tab visits from ``start`` until it comes back to it (one round of the ring)."""
    start.setFocus(Qt.FocusReason.OtherFocusReason)
    assert focused() is start
    stops = [start]
    for _ in range(limit):
        press(qtbot, Key.Key_Tab)
        if focused() is start:
            return stops
        stops.append(focused())
    raise AssertionError(f"Tab never came back to {start!r}: {stops}")


def part(window, widget: QWidget) -> str:  # type: ignore[no-untyped-def]
    """Which part of the window ``widget`` is in, by name."""
    if isinstance(widget, QTabBar) and widget.parentWidget() is window:
        return "dock tabs"
    for name, area in (("cards", window.cards_dock), ("jobs", window.jobs_dock), ("chassis", window.chassis_view),
                       ("analysis", window.analysis_scroll), ("summary", window.summary),
                       ("checks", window.checks_dock)):  # fmt: skip
        if area is widget or area.isAncestorOf(widget):
            return name
    return "other"


def test_tab_goes_left_to_right(active_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = active_window
    window.resize(1024, 768)
    qtbot.wait(50)
    stops = tab_stops(qtbot, window.card_palette.chassis_box)
    parts = [part(window, w) for w in stops]
    # one pass in order, each part visited once: the left column, then the centre, then the Checks; the
    # dock tab strip closes the ring (it comes before the column, after the Checks)
    runs = [p for i, p in enumerate(parts) if i == 0 or parts[i - 1] != p]
    assert runs == ["cards", "chassis", "analysis", "summary", "checks", "dock tabs"], parts
    assert stops[:4] == [window.card_palette.chassis_box, window.card_palette.filter, window.card_palette.cards,
                         window.card_palette.bridges]  # fmt: skip
    assert stops[4] is window.chassis_view
    assert window.summary.host in stops  # the clickable Host figures are a Tab stop


def test_summary_host_opens_by_enter(active_window, qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    window = active_window
    opened: list[bool] = []
    monkeypatch.setattr(window, "host_parts", lambda: opened.append(True))
    window.summary.host_clicked.disconnect()
    window.summary.host_clicked.connect(window.host_parts)
    window.chassis_view.setFocus()
    for _ in range(40):
        if focused() is window.summary.host:
            break
        press(qtbot, Key.Key_Tab)
    assert focused() is window.summary.host
    press(qtbot, Key.Key_Return)
    assert opened == [True]


def test_jobs_form_by_keys(active_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = active_window
    window.chassis_view.setFocus()
    qtbot.keyClick(focused(), Key.Key_2, Mod.ControlModifier)  # View › Jobs
    panel = window.jobs_panel
    assert focused() is panel.job_list
    assert not panel.job_list.visibleRegion().isEmpty()  # the Jobs dock is in front
    press(qtbot, Key.Key_Tab)
    assert window.jobs_dock.isAncestorOf(focused())  # on into the form, not back to the Cards
    qtbot.keyClick(focused(), Key.Key_1, Mod.ControlModifier)  # View › Cards palette
    assert focused() is window.card_palette.filter
    assert window.card_palette.filter.visibleRegion().isEmpty() is False


def test_quit_and_preferences_keys(active_window) -> None:  # type: ignore[no-untyped-def]
    menus = active_window.menus
    assert [k.toString() for k in menus.quit_action.shortcuts()] == ["Ctrl+Q"]  # offscreen: Qt's Quit has none
    assert menus.preferences_action.shortcuts() and not menus.preferences_action.shortcuts()[0].isEmpty()
    rows = {command: keys for _menu, command, keys in shortcut_rows(active_window)}
    assert rows["Quit"] == "Ctrl+Q"
    assert rows["Preferences"] == menus.preferences_action.shortcuts()[0].toString()
    assert rows["Jobs"] == "Ctrl+2" and rows["Cards palette"] == "Ctrl+1"
    assert rows["Verify build"] == "Ctrl+Shift+V"  # File › Verify build… had no key


def test_ctrl_shift_v_opens_verify_build(active_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.shell.verify_dialog import VerifyDialog

    window = active_window
    window.chassis_view.setFocus()
    qtbot.keyClick(focused(), Key.Key_V, Mod.ControlModifier | Mod.ShiftModifier)
    qtbot.waitUntil(lambda: any(d.isVisible() for d in window.findChildren(VerifyDialog)))
    for dialog in window.findChildren(VerifyDialog):
        dialog.close()


def test_ctrl_q_closes_the_window(active_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = active_window
    window.chassis_view.setFocus()
    qtbot.keyClick(focused(), Key.Key_Q, Mod.ControlModifier)
    qtbot.waitUntil(lambda: not window.isVisible())


def test_filter_enter_places_the_one_match(active_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = active_window
    palette, doc = window.card_palette, window.doc
    before = len(doc.build.cards)
    palette.filter.setFocus()
    qtbot.keyClicks(palette.filter, "l40s")
    assert palette.visible_ids() == ["l40s"]
    press(qtbot, Key.Key_Return)
    assert len(doc.build.cards) == before + 1
    assert doc.undo_stack.undoText().startswith("Place NVIDIA L40S")


def test_filter_enter_places_the_first_match(active_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = active_window
    palette, doc = window.card_palette, window.doc
    palette.filter.setFocus()
    qtbot.keyClicks(palette.filter, "h200")
    assert palette.visible_ids() == ["h200-nvl", "h200-sxm"]
    press(qtbot, Key.Key_Return)
    assert doc.undo_stack.undoText().startswith("Place NVIDIA H200 NVL")
    assert focused() is palette.filter  # the filter keeps the focus: Enter again places another


def test_filter_down_goes_into_the_list(active_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = active_window
    palette = window.card_palette
    palette.filter.setFocus()
    qtbot.keyClicks(palette.filter, "h100")
    press(qtbot, Key.Key_Down)
    assert focused() is palette.cards
    assert palette.cards.currentItem().data(Qt.ItemDataRole.UserRole) == "h100-sxm"
    press(qtbot, Key.Key_Down)
    assert palette.cards.currentItem().data(Qt.ItemDataRole.UserRole) == "h100-nvl"
    press(qtbot, Key.Key_Return)
    assert window.doc.undo_stack.undoText().startswith("Place NVIDIA H100 NVL")
    assert QApplication.focusWidget() is palette.cards
