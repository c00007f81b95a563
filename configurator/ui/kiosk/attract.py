"""The attract loop: after demo/idle_minutes without input, cycle the scenarios with a cross-fade."""

from __future__ import annotations

from PySide6.QtCore import (
    QEvent,
    QObject,
    QPoint,
    QPropertyAnimation,
)
from PySide6.QtWidgets import (
    QApplication,
    QWidget,
)

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


class AttractMixin:
    """DemoWindow's idle timer, cycle and banner."""

    # ---- attract loop ----
    def is_attracting(self) -> bool:
        return self._attracting

    def start_attract(self) -> None:
        """Drop the visitor's changes and cycle the scenarios until the next input."""
        self.idle_timer.stop()
        self.pin_pad.hide()
        self.code_panel.hide()
        self._attracting = True
        self.show_scenario(self._index, animated=False)
        self._place_banner()
        self.banner.show()
        self.banner.raise_()
        self.cycle_timer.start(self.cycle_ms)

    def stop_attract(self) -> None:
        was = self._attracting
        self._attracting = False
        self.cycle_timer.stop()
        self.banner.hide()
        if was and self.fade_anim.state() == QPropertyAnimation.State.Running:
            self.fade_anim.stop()
            self._fade_done()
        self._restart_idle()

    def _cycle(self) -> None:
        if self._attracting:
            self.show_scenario(self._index + 1, animated=True)
            self.banner.raise_()

    def _restart_idle(self) -> None:
        if self.isVisible():
            self.idle_timer.start(self.idle_ms)

    def _place_banner(self) -> None:
        """Over the controls row, which the loop does not use."""
        stage = self.stage.geometry()
        shown = self.card_palette.isVisible()
        s = self._scale
        if shown:
            top = self.card_palette.mapTo(self, QPoint(0, 0)).y() - round(40 * s)
        else:
            top = stage.bottom() - round(220 * s)
        self.banner.setGeometry(stage.left(), top, stage.width(), stage.bottom() - top + 1)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in _INPUT_EVENTS and kind != QEvent.Type.MouseMove:
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self:
            return False
        if kind == QEvent.Type.MouseMove:
            pos = event.globalPosition()  # type: ignore[attr-defined]
            moved = self._last_move is not None and (pos - self._last_move).manhattanLength() > 6
            self._last_move = pos
            if not (moved and event.spontaneous()):
                return False
        if self._attracting:
            self.stop_attract()
            return kind != QEvent.Type.MouseMove  # the waking touch does not also press a button
        self._restart_idle()
        return False

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        app = QApplication.instance()
        if app is not None and not self._filtering:
            app.installEventFilter(self)
            self._filtering = True
        if not self._attracting:
            self._restart_idle()

    def hideEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self._stop_everything()
        super().hideEvent(event)

    def _stop_everything(self) -> None:
        self.idle_timer.stop()
        self.cycle_timer.stop()
        self.message_timer.stop()
        self.fade_anim.stop()
        self._attracting = False
        self.banner.hide()
        app = QApplication.instance()
        if app is not None and self._filtering:
            app.removeEventFilter(self)
            self._filtering = False

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._rescale()
        for overlay in (self.pin_pad, self.code_panel):
            if overlay.isVisible():
                overlay.setGeometry(self.rect())
        if self.fade.isVisible():
            self.fade.setGeometry(self.stage.rect())
        self._place_banner()
