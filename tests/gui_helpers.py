"""Helpers for driving the real widgets offscreen: synthetic drag-and-drop events, a window fixture."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from configurator.engine.buildfile import load_build
from configurator.ui.chassis.chassis_view import ChassisView
from configurator.ui.shell.document import BuildDocument
from configurator.ui.shell.main_window import MainWindow
from configurator.ui.shell.settings import Settings


def make_window(qtbot, tmp_path: Path, build_path: Path | None = None) -> MainWindow:  # type: ignore[no-untyped-def]
    from configurator.cli import default_build_path

    path = build_path or default_build_path()
    doc = BuildDocument(load_build(path))
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(doc, settings)
    # no "save changes?" prompt when pytest-qt closes the window after the test
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    return window


def make_active_window(qtbot, tmp_path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    """``make_window``, activated: key events go to the focused widget only in the active window."""
    from PySide6.QtCore import QStandardPaths

    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    return window


def slot_point(view: ChassisView, slot: int) -> QPoint:
    return view.mapFromScene(view.slot_items[slot].rect().center())


def drag_drop(view: ChassisView, mime: QMimeData, slot: int) -> bool:
    """Enter, move over and drop on ``slot`` with real Qt drag events; returns whether the drop was accepted."""
    target = view.viewport()
    point = slot_point(view, slot)
    actions = Qt.DropAction.CopyAction | Qt.DropAction.MoveAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(target, QDragEnterEvent(point, actions, mime, buttons, mods))
    move = QDragMoveEvent(point, actions, mime, buttons, mods)
    QApplication.sendEvent(target, move)
    drop = QDropEvent(QPointF(point), actions, mime, buttons, mods)
    QApplication.sendEvent(target, drop)
    return drop.isAccepted()


def drag_over(view: ChassisView, mime: QMimeData, slot: int) -> bool:
    """Hover a drag over ``slot`` without dropping; returns whether the view would accept it."""
    target = view.viewport()
    point = slot_point(view, slot)
    actions = Qt.DropAction.CopyAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(target, QDragEnterEvent(point, actions, mime, buttons, mods))
    move = QDragMoveEvent(point, actions, mime, buttons, mods)
    QApplication.sendEvent(target, move)
    return move.isAccepted()


def hover_tooltip(view, plot, x: float, y: float) -> str:  # type: ignore[no-untyped-def]
    """Move the real mouse over ``plot`` at view coordinates (x, y) inside the pyqtgraph ``view`` and
    return the tooltip text the chart shows ('' when none)."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QToolTip

    QToolTip.hideText()
    QApplication.processEvents()
    scene_point = plot.vb.mapViewToScene(QPointF(x, y))
    QTest.mouseMove(view.viewport(), view.mapFromScene(scene_point))
    QApplication.processEvents()
    return QToolTip.text() if QToolTip.isVisible() else ""
