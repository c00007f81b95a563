"""The chassis view's keys (configurator/ui/chassis/keys.py): cursor, selection, move, bridge, remove, menu.

Key presses go to the focused chassis view; every edit is checked in the document, its undo text and the
drawing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMenu

from configurator.engine import editing
from tests.gui_helpers import make_window
from tests.paths import BUILDS

pytestmark = pytest.mark.usefixtures("qapp")
Key, Mod = Qt.Key, Qt.KeyboardModifier


@pytest.fixture
def window(active_window, qtbot):  # type: ignore[no-untyped-def]
    """The active window with the chassis focused the way a user reaches it: by Tab, not by the window opening."""
    w = active_window
    w.card_palette.filter.setFocus()  # the window opens with the chassis focused: come back to it by Tab
    qtbot.waitUntil(lambda: not w.chassis_view.hasFocus())
    w.chassis_view.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(w.chassis_view.hasFocus)
    return w


def keys(qtbot, view, key: Qt.Key, times: int, mods: Qt.KeyboardModifier = Mod.NoModifier) -> None:  # type: ignore[no-untyped-def]
    for _ in range(times):
        qtbot.keyClick(view, key, mods)


def place(window, slot: int, card: str = "h200-nvl") -> None:  # type: ignore[no-untyped-def]
    cat = window.doc.catalog
    assert window.doc.edit("place", lambda b: editing.place_card(b, cat, slot, card))


def test_focus_shows_the_cursor_frame_and_the_keys(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Focus by keyboard draws the cursor frame on a slot and says the keys; focus elsewhere hides it."""
    view = window.chassis_view
    assert view.keys.focus_frame.isVisible() and view.keys.cursor_slot == 1
    assert view.keys.focus_frame.rect().contains(view.slot_items[1].rect())
    assert "Ctrl+arrow" in window.statusBar().currentMessage()
    window.card_palette.filter.setFocus()
    qtbot.waitUntil(lambda: not view.hasFocus())
    assert not view.keys.focus_frame.isVisible()
    # the keys are named where the pointer rests: the view, each slot and each card
    for tip in (view.toolTip(), view.slot_items[4].toolTip(), view.card_items[1].toolTip()):
        assert "Ctrl+arrow" in tip and "Delete" in tip and "B" in tip
    assert "press Enter" in window.card_palette.cards.item(0).toolTip()  # placing from the palette
    assert "B or Ctrl+B" in window.card_palette.bridges.item(0).toolTip()


def test_arrows_select_and_shift_extends(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    view = window.chassis_view
    qtbot.keyClick(view, Key.Key_Down)
    assert view.keys.cursor_slot == 2 and view.selected_slots() == [2]
    qtbot.keyClick(view, Key.Key_Up, Mod.ShiftModifier)
    assert view.selected_slots() == [1, 2]
    qtbot.keyClick(view, Key.Key_End)
    assert view.keys.cursor_slot == 8 and view.selected_slots() == []  # an empty slot: nothing selected
    qtbot.keyClick(view, Key.Key_Up)  # at 7, still empty
    qtbot.keyClick(view, Key.Key_Home)
    assert view.keys.cursor_slot == 1 and view.selected_slots() == [1]
    qtbot.keyClick(view, Key.Key_Space)
    assert view.selected_slots() == []
    qtbot.keyClick(view, Key.Key_Up)  # the top edge: the cursor stays
    assert view.keys.cursor_slot == 1
    qtbot.keyClick(view, Key.Key_Down, Mod.ShiftModifier)  # as in a list: the card left behind joins too
    assert view.keys.cursor_slot == 2 and view.selected_slots() == [1, 2]
    qtbot.keyClick(view, Key.Key_Escape)
    assert view.selected_slots() == [] and view.keys.cursor_slot == 2


def test_ctrl_arrow_moves_past_taken_slots_and_says_why_not(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+Down moves the card to the next slot that takes it (its job follows); Ctrl+Up with only
    taken slots above refuses with the engine's reason and changes nothing."""
    view, doc = window.chassis_view, window.doc
    keys(qtbot, view, Key.Key_Down, 2)  # slot 3: the RTX PRO 6000 Server
    before = doc.build
    qtbot.keyClick(view, Key.Key_Up, Mod.ControlModifier)
    assert doc.build == before
    assert window.statusBar().currentMessage().startswith("Cannot move it up: slot 2 already holds NVIDIA H200 NVL")
    place(window, 4)
    qtbot.keyClick(view, Key.Key_Down, Mod.ControlModifier)
    assert doc.build.card_in(3) is None and doc.build.card_in(5).card == "rtx-pro-6000-server"
    assert doc.build.jobs[1].cards == [5] and window.chart.rows[-1][1].slot == 5
    assert view.keys.cursor_slot == 5 and view.selected_slots() == [5]
    window.menus.undo_action.trigger()
    assert doc.build.card_in(3).card == "rtx-pro-6000-server"


def test_b_bridges_one_card_with_its_neighbour_or_says_why(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    view, doc = window.chassis_view, window.doc
    place(window, 5)
    view.select_slot(5)
    qtbot.keyClick(view, Key.Key_B)  # alone: no card beside it
    assert doc.build.bridges == [b for b in doc.build.bridges if b.slots == [1, 2]]
    assert "a 2-way bridge joins 2 cards side by side; slot 5 has no card next to it" in (
        window.statusBar().currentMessage()
    )
    place(window, 6)
    view.select_slot(5)
    qtbot.keyClick(view, Key.Key_B)
    assert [b.slots for b in doc.build.bridges] == [[1, 2], [5, 6]]
    assert doc.undo_stack.undoText() == "Bridge slots 5, 6"
    view.select_slot(3)
    qtbot.keyClick(view, Key.Key_B)  # the RTX PRO 6000 Server has no bridge connector
    assert "no NVLink bridge connector" in window.statusBar().currentMessage()
    assert len(doc.build.bridges) == 2


def test_backspace_removes_the_selection(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    view, doc = window.chassis_view, window.doc
    keys(qtbot, view, Key.Key_Down, 2)
    qtbot.keyClick(view, Key.Key_Backspace)
    assert doc.build.card_in(3) is None and 3 not in view.card_items
    assert doc.undo_stack.undoText() == "Remove card from slot 3"


def test_menu_key_opens_the_actions_at_the_cursor(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The Menu key opens the context menu for the card at the cursor, listing the edits with their keys."""
    view = window.chassis_view
    qtbot.keyClick(view, Key.Key_Down)
    listed: list[str] = []

    def read_menu() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, read_menu)
            return
        listed.extend(f"{a.text()}|{a.shortcut().toString()}" for a in menu.actions())
        menu.close()

    QTimer.singleShot(20, read_menu)
    qtbot.keyClick(view, Key.Key_Menu)
    assert view.selected_slots() == [2]
    assert "Remove card|Del" in listed and "&Bridge selected cards|Ctrl+B" in listed
    listed.clear()
    QTimer.singleShot(20, read_menu)
    qtbot.keyClick(view, Key.Key_F10, Mod.ShiftModifier)
    assert "Remove card|Del" in listed and "&Bridge selected cards|Ctrl+B" in listed


def test_sxm_grid_arrows(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """In the HGX baseboard's 4 × 2 grid, Left/Right walk the sockets in reading order and Up/Down change row."""
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path, BUILDS / "seed-30b-lora-h100-sxm.yaml")
    view = window.chassis_view
    view.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(view.hasFocus)
    assert view.keys.reading_order() == [1, 2, 3, 4, 5, 6, 7, 8]
    qtbot.keyClick(view, Key.Key_Down)
    assert view.keys.cursor_slot == 5
    qtbot.keyClick(view, Key.Key_Right)
    qtbot.keyClick(view, Key.Key_Up)
    assert view.keys.cursor_slot == 2
    keys(qtbot, view, Key.Key_Right, 2)
    qtbot.keyClick(view, Key.Key_Right)  # from the row's end to the next row's start
    assert view.keys.cursor_slot == 5
    # the socket labels stand apart: no two overlap
    labels = [t.sceneBoundingRect() for t in view._texts if t.text().startswith("Slot ")]
    assert len(labels) == 8
    assert not any(a.intersects(b) for i, a in enumerate(labels) for b in labels[i + 1 :])
