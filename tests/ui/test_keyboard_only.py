"""The whole main window from the keyboard alone (issue 15): no mouse event and no direct call on a widget,
only key presses sent where keyboard input goes (the focused widget) and Tab to move between panes.

Each step asserts what the window shows (chassis items, summary strip, chart bars and labels, status bar)
against the engine's own result.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QTabBar, QWidget

from configurator.ui.chassis.items import BridgeItem
from tests.gui_helpers import focused, press

pytestmark = pytest.mark.usefixtures("qapp")
Key, Mod = Qt.Key, Qt.KeyboardModifier


def tab_to(qtbot, wanted: Callable[[QWidget], bool], backwards: bool = False, limit: int = 80) -> QWidget:  # type: ignore[no-untyped-def]
    """Tab (or Shift+Tab) through the focus chain until ``wanted`` holds for the focused widget."""
    for _ in range(limit):
        if wanted(focused()):
            return focused()
        press(qtbot, Key.Key_Backtab if backwards else Key.Key_Tab)
    raise AssertionError(f"Tab never reached the widget; stopped at {focused()!r}")


def dock_tabs(window) -> QTabBar:  # type: ignore[no-untyped-def]
    """The tab strip of the Cards and Jobs docks (the main window makes it; it is the user's way between them)."""
    return next(bar for bar in window.findChildren(QTabBar)
                if bar.count() == 2 and {bar.tabText(0), bar.tabText(1)} == {"Cards", "Jobs"})  # fmt: skip


def rows(window) -> list:  # type: ignore[no-untyped-def]
    return [row for job in window.doc.result.jobs for row in job.cards]


def test_keyboard_only_session(active_window, qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    window = active_window
    view, doc, summary = window.chassis_view, window.doc, window.summary

    # ---- place two H200 NVL from the palette: filter, pick, Enter ----
    tab_to(qtbot, lambda w: w is window.card_palette.filter)
    qtbot.keyClicks(focused(), "h200")
    assert window.card_palette.visible_ids() == ["h200-nvl", "h200-sxm"]
    press(qtbot, Key.Key_Tab)
    assert focused() is window.card_palette.cards
    press(qtbot, Key.Key_Home)
    assert window.card_palette.cards.currentItem().data(Qt.ItemDataRole.UserRole) == "h200-nvl"
    press(qtbot, Key.Key_Return)
    press(qtbot, Key.Key_Return)
    assert doc.build.card_in(4).card == "h200-nvl" and doc.build.card_in(5).card == "h200-nvl"
    assert sorted(view.card_items) == [1, 2, 3, 4, 5]
    assert "Cards</b> 5" in summary.cards.text()
    assert doc.undo_stack.undoText() == "Place NVIDIA H200 NVL in slot 5"

    # ---- into the chassis: it shows focus; the arrows walk the slots and select the card there ----
    chassis = tab_to(qtbot, lambda w: w is view, backwards=True)
    assert chassis.hasFocus() and view.keys.focus_frame.isVisible()
    assert "Arrows" in window.statusBar().currentMessage()
    press(qtbot, Key.Key_Home)
    press(qtbot, Key.Key_Down, times=3)
    assert view.keys.cursor_slot == 4 and view.selected_slots() == [4]
    assert view.keys.focus_frame.rect().contains(view.slot_items[4].rect())
    assert window.statusBar().currentMessage() == "Slot 4: NVIDIA H200 NVL"

    # ---- move it down and back with Ctrl+arrow (one undoable edit each) ----
    press(qtbot, Key.Key_Down)  # slot 5
    press(qtbot, Key.Key_Down, Mod.ControlModifier)
    assert doc.build.card_in(5) is None and doc.build.card_in(6).card == "h200-nvl"
    assert view.keys.cursor_slot == 6 and view.selected_slots() == [6]
    assert doc.undo_stack.undoText() == "Move NVIDIA H200 NVL from slot 5 to slot 6"
    press(qtbot, Key.Key_Up, Mod.ControlModifier)
    assert doc.build.card_in(5).card == "h200-nvl" and view.selected_slots() == [5]

    # ---- select 4 and 5 (Shift+arrow) and bridge them (B) ----
    press(qtbot, Key.Key_Up)
    press(qtbot, Key.Key_Down, Mod.ShiftModifier)
    assert view.selected_slots() == [4, 5]
    assert "2 cards selected" in window.statusBar().currentMessage()
    press(qtbot, Key.Key_B)
    assert [b.slots for b in doc.build.bridges] == [[1, 2], [4, 5]]
    assert doc.undo_stack.undoText() == "Bridge slots 4, 5"
    assert "Bridges</b> 2" in summary.bridges.text()
    assert [4, 5] in doc.result.topology.nvlink_domains
    bars = {tuple(i.slots): i.text for i in view.scene().items() if isinstance(i, BridgeItem)}
    assert bars == {(1, 2): "NVLink ×2", (4, 5): "NVLink ×2"}

    # ---- Delete removes the card at the cursor and its bridge; undo and redo by their keys ----
    press(qtbot, Key.Key_Escape)  # clears the selection; the cursor stays on slot 5
    assert view.selected_slots() == [] and view.keys.cursor_slot == 5
    press(qtbot, Key.Key_Space)  # selects the card at the cursor
    assert view.selected_slots() == [5]
    press(qtbot, Key.Key_Delete)
    assert doc.build.card_in(5) is None and 5 not in view.card_items
    assert [b.slots for b in doc.build.bridges] == [[1, 2]]
    assert "Cards</b> 4" in summary.cards.text() and "Bridges</b> 1" in summary.bridges.text()
    press(qtbot, Key.Key_Z, Mod.ControlModifier)
    assert doc.build.card_in(5).card == "h200-nvl" and [b.slots for b in doc.build.bridges] == [[1, 2], [4, 5]]
    assert "Cards</b> 5" in summary.cards.text() and "Bridges</b> 2" in summary.bridges.text()
    press(qtbot, Key.Key_Z, Mod.ControlModifier | Mod.ShiftModifier)
    assert doc.build.card_in(5) is None and "Cards</b> 4" in summary.cards.text()

    # ---- the first job's LoRA rank, in the Jobs tab, reached by Tab and the dock's tab strip ----
    tabs = tab_to(qtbot, lambda w: w is dock_tabs(window))
    press(qtbot, Key.Key_Right if tabs.tabText(tabs.currentIndex()) == "Cards" else Key.Key_Left)
    assert tabs.tabText(tabs.currentIndex()) == "Jobs"
    panel = window.jobs_panel
    tab_to(qtbot, lambda w: w is panel.job_list)
    press(qtbot, Key.Key_Home)
    assert panel.job_list.currentRow() == 0
    adapters_before = window.chart.heights("adapters_gb")[0]
    rank = tab_to(qtbot, lambda w: w is panel.rank_spin)
    assert not rank.visibleRegion().isEmpty()  # on screen: the Jobs dock is in front
    press(qtbot, Key.Key_A, Mod.ControlModifier)
    qtbot.keyClicks(rank, "64")
    press(qtbot, Key.Key_Return)
    assert doc.build.jobs[0].lora.rank == 64
    assert panel.rank_spin.value() == 64
    assert window.chart.heights("adapters_gb") == pytest.approx([r.adapters_gb for r in rows(window)])
    assert window.chart.heights("adapters_gb")[0] > adapters_before  # a wider adapter: more memory
    assert window.chart.labels[0].toPlainText() == f"{rows(window)[0].headroom_gb:+.1f} GB"

    # ---- export the build sheet: Ctrl+E opens the preview, Ctrl+S saves it (the path comes from the
    # file dialog, patched as in the other tests) ----
    out = tmp_path / "keyboard.pdf"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "PDF (*.pdf)"))
    seen: list[str] = []

    def in_preview() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None or QApplication.activeWindow() is not dialog:  # not up (or not active) yet
            QTimer.singleShot(50, in_preview)
            return
        seen.append(dialog.windowTitle())
        qtbot.keyClick(focused(), Key.Key_S, Mod.ControlModifier)

    QTimer.singleShot(50, in_preview)
    # returns when the preview closes; the sheet is written on a worker (shell/sheet_worker.py)
    with qtbot.waitSignal(window.sheet.written, timeout=60_000):
        press(qtbot, Key.Key_E, Mod.ControlModifier)
    assert seen == [f"Build sheet — {doc.build.name}"]
    assert out.read_bytes().startswith(b"%PDF")
    assert window.statusBar().currentMessage().startswith(f"Build sheet saved: {out}")
