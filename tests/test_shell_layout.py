"""The main window's shell at real screen sizes (issue 15): keyboard focus stays on what is shown, nothing
is clipped at 1024x700, the window sizes itself to the screen or to where it was left, no dead space or
duplicated titles, and no Qt warnings on start-up."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, QStandardPaths, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from tests.gui_helpers import make_window

pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture(autouse=True)
def _isolated_paths() -> None:
    QStandardPaths.setTestModeEnabled(True)


@pytest.fixture
def window(qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    return make_window(qtbot, tmp_path)


def rect_in(widget: QWidget, top: QWidget) -> QRect:
    """``widget``'s rectangle in ``top``'s coordinates."""
    return QRect(widget.mapTo(top, QPoint(0, 0)), widget.size())


def on_screen(widget: QWidget, top: QWidget) -> bool:
    return widget.isVisible() and rect_in(widget, top).intersects(top.rect())


def test_tab_never_reaches_the_jobs_form_behind_the_cards_tab(window) -> None:  # type: ignore[no-untyped-def]
    """With the Cards tab shown, Tab cycles through what is on screen only: before, it walked into the Jobs
    form Qt had parked off-screen, where two Down presses changed the LoRA rank unseen."""
    window.cards_dock.raise_()
    window.activateWindow()
    window.card_palette.setFocus()
    QApplication.processEvents()
    focused: list[QWidget] = []
    for _ in range(60):
        widget = QApplication.focusWidget()
        assert widget is not None
        focused.append(widget)
        QTest.keyClick(widget, Qt.Key.Key_Tab)
    hidden = [w for w in focused if not on_screen(w, window) or window.jobs_panel.isAncestorOf(w)]
    assert not hidden, [f"{type(w).__name__} {w.objectName() or w.accessibleName()}" for w in hidden]
    assert window.chassis_view in focused  # Tab still goes round the window

    # The Jobs tab chosen: its form takes the keyboard again, and it shows the document as it is now
    rank_before = window.jobs_panel.rank_spin.value()
    window.jobs_dock.raise_()
    QApplication.processEvents()
    assert window.jobs_panel.isVisible() and not window.card_palette.isVisible()
    window.jobs_panel.rank_spin.setFocus()
    QApplication.processEvents()
    assert QApplication.focusWidget() is window.jobs_panel.rank_spin
    assert window.jobs_panel.rank_spin.value() == rank_before
