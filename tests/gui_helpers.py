"""Helpers for driving the real widgets offscreen: synthetic drag-and-drop events, a window fixture."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, QRect, QSettings, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QWidget

from configurator.engine.model.buildfile import load_build
from configurator.ui.base.document import BuildDocument
from configurator.ui.base.settings import Settings
from configurator.ui.chassis.chassis_view import ChassisView
from configurator.ui.jobs import JobsPanel
from configurator.ui.shell.layout import parked
from configurator.ui.shell.main_window import MainWindow
from tests.paths import BUILDS


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


def visible_rect(widget, top):  # type: ignore[no-untyped-def]
    """The part of ``widget`` (in ``top``'s coordinates) that its ancestors up to ``top`` leave visible."""
    rect = QRect(widget.mapTo(top, QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None:
        origin = parent.mapTo(top, QPoint(0, 0)) if parent is not top else QPoint(0, 0)
        rect = rect.intersected(QRect(origin, parent.size()))
        if parent is top:
            break
        parent = parent.parentWidget()
    return rect


def chart_parts(top):  # type: ignore[no-untyped-def]
    """(name, rect in ``top``'s coordinates, the visible rect of its graphics view) of each plot, plot title and
    legend in the shown pyqtgraph views under ``top``."""
    import pyqtgraph as pg

    parts = []
    views = [v for v in top.findChildren(pg.GraphicsView) if v.isVisible()]
    if isinstance(top, pg.GraphicsView):
        views.append(top)
    for view in views:
        if parked_widget(view, top):
            continue
        viewport = view.viewport()
        seen = visible_rect(viewport, top)
        origin = viewport.mapTo(top, QPoint(0, 0)) if viewport is not top else QPoint(0, 0)
        name = view.accessibleName() or type(view).__name__
        for item in view.scene().items():
            if not item.isVisible() or item.sceneBoundingRect().isEmpty():
                continue
            if isinstance(item, pg.PlotItem):
                parts.append((f"{name}: plot", item.sceneBoundingRect(), view, origin, seen))
                title = item.titleLabel
                if title.isVisible() and title.text:
                    text_rect = title.item.sceneBoundingRect()
                    parts.append((f"{name}: title {title.text[:30]!r}", text_rect, view, origin, seen))
            elif (isinstance(item, pg.LegendItem) and item.items) or (getattr(item, "is_legend", False) and item.text):
                parts.append((f"{name}: legend", item.sceneBoundingRect(), view, origin, seen))
    out = []
    for label, scene_rect, view, origin, seen in parts:
        rect = view.mapFromScene(scene_rect).boundingRect().translated(origin)
        out.append((label, rect, seen))
    return out


def parked_widget(widget, top) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``widget`` sits in a dock Qt parked off-screen behind another dock's tab."""
    return top.isWindow() and parked(widget, top)


def charts_cut(top, tolerance: int = 2) -> list[str]:  # type: ignore[no-untyped-def]
    """Each shown chart's plot, title and legend that does not lie inside the visible part of its view."""
    problems = []
    for label, rect, seen in chart_parts(top):
        if not seen.adjusted(-tolerance, -tolerance, tolerance, tolerance).contains(rect):
            problems.append(f"{label}: {rect.getRect()} not inside visible {seen.getRect()}")
    return problems


def rect_in(widget: QWidget, top: QWidget) -> QRect:
    """``widget``'s rectangle in ``top``'s coordinates."""
    return QRect(widget.mapTo(top, QPoint(0, 0)), widget.size())


def on_screen(widget: QWidget, top: QWidget) -> bool:
    return widget.isVisible() and rect_in(widget, top).intersects(top.rect())


def inside_scroll_area(widget: QWidget, top: QWidget) -> bool:
    """Whether ``widget`` sits in a scroll area's viewport (it may extend past it: it scrolls)."""
    from PySide6.QtWidgets import QAbstractScrollArea

    parent = widget.parentWidget()
    while parent is not None and parent is not top:
        grand = parent.parentWidget()
        if isinstance(grand, QAbstractScrollArea) and parent is grand.viewport():
            return True
        parent = grand
    return False


def clipped(top: QWidget) -> list[str]:
    """Visible widgets outside ``top`` or outside their parent, and labels given less than their text needs;
    widgets inside a scroll area's viewport are left to it (it scrolls)."""
    problems = []
    for w in top.findChildren(QWidget):
        if not w.isVisible() or w.isWindow() or inside_scroll_area(w, top) or parked(w, top):
            continue  # a dock behind another's tab is parked off-screen by Qt: nothing of it shows
        name = f"{type(w).__name__} {w.objectName() or (w.text()[:30] if isinstance(w, QLabel) else '')}"
        parent = w.parentWidget()
        if not top.rect().contains(rect_in(w, top)) or not parent.rect().contains(w.geometry()):
            problems.append(f"{name}: {rect_in(w, top).getRect()} outside {parent.rect().getRect()}")
        if isinstance(w, QLabel) and w.text():
            if w.wordWrap():
                short = w.height() < w.heightForWidth(w.width())
            else:
                short = w.width() < w.sizeHint().width() or w.height() < w.sizeHint().height()
            if short:
                problems.append(f"{name}: {w.size().toTuple()} for a text of {w.sizeHint().toTuple()}")
    return problems


def open_panel(qtbot, name: str = "default.yaml") -> tuple[BuildDocument, JobsPanel]:  # type: ignore[no-untyped-def]
    doc = BuildDocument(load_build(BUILDS / name))
    panel = JobsPanel(doc)
    qtbot.addWidget(panel)
    panel.resize(340, 780)
    panel.show()
    qtbot.waitExposed(panel)
    return doc, panel


def choose(box: QComboBox, word: object) -> None:
    """Pick the item whose data is ``word``, as a user picking from the list does."""
    i = box.findData(word)
    assert i >= 0, word
    box.setCurrentIndex(i)


def undo_all(doc: BuildDocument) -> None:
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()


def last_text(doc: BuildDocument) -> str:
    return doc.undo_stack.text(doc.undo_stack.index() - 1)


def focused() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None, "nothing has keyboard focus"
    return widget


def press(qtbot, key: Qt.Key, mods: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier, times: int = 1) -> None:  # type: ignore[no-untyped-def]
    """A key press where the keyboard sends it: to the widget with focus."""
    for _ in range(times):
        qtbot.keyClick(focused(), key, mods)


def open_seed_b_planner(qtbot, on_open_build=None):  # type: ignore[no-untyped-def]
    """The planner window on seed B's plan at 1280x800, shown and planned once (the fixture of the planner's
    window tests); ``on_open_build`` receives the builds its "Open as build" opens."""
    from configurator.engine.planner import load_plan
    from configurator.paths import resource
    from configurator.ui.base.plan_document import PlanDocument
    from configurator.ui.planner import PlannerWindow

    path = Path(resource("plans", "seed-b-service.yaml"))
    args = (on_open_build,) if on_open_build is not None else ()
    window = PlannerWindow(PlanDocument(load_plan(path), path), *args)
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    assert window.wait_for_plan() is not None
    return window


@contextmanager
def dark_theme() -> Iterator[None]:
    """The application in View › Dark theme's palette for the block, the palette it had restored after it."""
    from configurator.ui.base.style import dark_palette

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = app.palette()
    try:
        app.setPalette(dark_palette())
        yield
    finally:
        app.setPalette(before)
