"""The attract loop: after demo/idle_minutes without input, cycle the scenarios with a cross-fade."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import (
    QEvent,
    QObject,
    QPoint,
    QPointF,
    QPropertyAnimation,
    QTimer,
)
from PySide6.QtGui import QSinglePointEvent
from PySide6.QtWidgets import (
    QApplication,
    QWidget,
)

from configurator.ui.kiosk.layout import KioskView

_INPUT_EVENTS = frozenset(
    {
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonDblClick,
        QEvent.Type.Wheel,
        QEvent.Type.KeyPress,
        QEvent.Type.TouchBegin,
        QEvent.Type.TabletPress,
    }
)


class AttractLoop(QObject):
    """The idle timer, the cycle and the banner. ``show(index, animated)`` shows a scenario, ``index()`` tells
    the one on screen, ``quiet()`` closes the overlays (PIN pad, take-home panel) when the loop starts."""

    def __init__(self, window: QWidget, ui: KioskView, show: Callable[[int, bool], None], index: Callable[[], int],
                 quiet: Callable[[], None], idle_ms: int, cycle_ms: int) -> None:  # fmt: skip
        super().__init__(window)
        self.window = window
        self.ui = ui
        self._show = show
        self._index = index
        self._quiet = quiet
        self.idle_ms = idle_ms
        self.cycle_ms = cycle_ms
        self.attracting = False
        self._filtering = False
        self._last_move: QPointF | None = None
        self.idle_timer = QTimer(self)
        self.idle_timer.setSingleShot(True)
        self.idle_timer.timeout.connect(self.start)
        self.cycle_timer = QTimer(self)
        self.cycle_timer.timeout.connect(self._cycle)

    def start(self) -> None:
        """Drop the visitor's changes and cycle the scenarios until the next input."""
        self.idle_timer.stop()
        self._quiet()
        self.attracting = True
        self._show(self._index(), False)
        self.place_banner()
        self.ui.banner.show()
        self.ui.banner.raise_()
        self.cycle_timer.start(self.cycle_ms)

    def stop(self) -> None:
        was = self.attracting
        self.attracting = False
        self.cycle_timer.stop()
        self.ui.banner.hide()
        if was:
            self.ui.stop_fade()
        self.restart_idle()

    def _cycle(self) -> None:
        # a cross-fade still running (a slow or busy machine) is left to finish: the next tick moves on, rather
        # than cutting it and leaving the picture of the last scenario over the stage
        if self.attracting and self.ui.fade_anim.state() != QPropertyAnimation.State.Running:
            self._show(self._index() + 1, True)
            self.ui.banner.raise_()

    def restart_idle(self) -> None:
        if self.window.isVisible():
            self.idle_timer.start(self.idle_ms)

    def place_banner(self) -> None:
        """Over the controls row, which the loop does not use."""
        ui = self.ui
        stage = ui.stage.geometry()
        s = ui.scale
        if ui.card_palette.isVisible():
            top = ui.card_palette.mapTo(self.window, QPoint(0, 0)).y() - round(40 * s)
        else:
            top = stage.bottom() - round(220 * s)
        ui.banner.setGeometry(stage.left(), top, stage.width(), stage.bottom() - top + 1)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in _INPUT_EVENTS and kind != QEvent.Type.MouseMove:
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self.window:
            return False
        if kind == QEvent.Type.MouseMove and isinstance(event, QSinglePointEvent):
            pos = event.globalPosition()
            moved = self._last_move is not None and (pos - self._last_move).manhattanLength() > 6
            self._last_move = pos
            if not (moved and event.spontaneous()):
                return False
        if self.attracting:
            self.stop()
            return kind != QEvent.Type.MouseMove  # the waking touch does not also press a button
        self.restart_idle()
        return False

    def shown(self) -> None:
        """The window is up: watch the input, start the idle timer."""
        app = QApplication.instance()
        if app is not None and not self._filtering:
            app.installEventFilter(self)
            self._filtering = True
        if not self.attracting:
            self.restart_idle()

    def shut(self) -> None:
        """The window hides or closes: no timer, no banner, no input watched."""
        self.idle_timer.stop()
        self.cycle_timer.stop()
        self.attracting = False
        self.ui.banner.hide()
        app = QApplication.instance()
        if app is not None and self._filtering:
            app.removeEventFilter(self)
            self._filtering = False
