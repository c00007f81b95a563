"""Leaving demo mode: the PIN pad (settings demo/pin) and the gate that checks it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import (
    QPoint,
    QPropertyAnimation,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QGridLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from configurator.ui.base import Settings
from configurator.ui.kiosk.widgets import Overlay, _font

# shown instead of "Wrong PIN" while the stored PIN is not usable (PinGate.pin)
LOCKED_MESSAGE = "Locked: the stored PIN is not valid. Staff: run configurator demo-pin --reset"


class PinPad(Overlay):
    """Big digit buttons; the window checks the PIN."""

    submitted = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.digits = ""
        layout = QVBoxLayout(self.panel)
        layout.setContentsMargins(40, 32, 40, 32)
        layout.setSpacing(14)
        title = QLabel("Staff only: enter the PIN to leave demo mode")
        title.setFont(_font(22, True))
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(title)
        self.display = QLabel(" ")
        self.display.setFont(_font(40, True))
        self.display.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.display.setMinimumHeight(70)
        layout.addWidget(self.display)
        self.message = QLabel(" ")
        self.message.setFont(_font(20, True))
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setStyleSheet("color: #C62828;")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        grid = QGridLayout()
        grid.setSpacing(12)
        self.group = QButtonGroup(self)
        keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "Clear", "0", "OK"]
        for i, key in enumerate(keys):
            b = QPushButton(key)
            b.setObjectName("pinkey")
            b.setFont(_font(30 if key.isdigit() else 22, True))
            b.setMinimumSize(150, 96)
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self.group.addButton(b, i)
            grid.addWidget(b, i // 3, i % 3)
        self.group.idClicked.connect(self._key)
        layout.addLayout(grid)
        cancel = QPushButton("Cancel")
        cancel.setFont(_font(22, True))
        cancel.setMinimumHeight(80)
        cancel.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        cancel.clicked.connect(self._cancel)
        layout.addWidget(cancel)
        self._keys = keys
        self.shake = QPropertyAnimation(self.panel, b"pos", self)
        self.shake.setDuration(420)

    def open(self) -> None:
        self.digits = ""
        self.message.setText(" ")
        self._show_digits()
        self.cover()
        self.setFocus()

    def _show_digits(self) -> None:
        self.display.setText(" ".join("●" for _ in self.digits) or " ")

    def _key(self, index: int) -> None:
        key = self._keys[index]
        if key == "Clear":
            self.digits = ""
        elif key == "OK":
            self.submitted.emit(self.digits)
            return
        elif len(self.digits) < 12:
            self.digits += key
        self.message.setText(" ")
        self._show_digits()

    def _cancel(self) -> None:
        self.hide()
        self.cancelled.emit()

    def refuse(self, why: str = "Wrong PIN: try again") -> None:
        self.digits = ""
        self._show_digits()
        self.message.setText(why)
        if self.shake.state() == QPropertyAnimation.State.Running:
            return
        start = self.panel.pos()
        self.shake.setStartValue(start)
        for i, dx in enumerate((-28, 24, -18, 12, -6)):
            self.shake.setKeyValueAt((i + 1) / 6, start + QPoint(dx, 0))
        self.shake.setEndValue(start)
        self.shake.start()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        text = event.text()
        if text.isdigit() and len(text) == 1:
            self._key(self._keys.index(text))
        elif event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.submitted.emit(self.digits)
        elif event.key() == Qt.Key.Key_Backspace:
            self.digits = self.digits[:-1]
            self._show_digits()
        else:
            event.accept()  # Escape and the rest: nothing


class PinGate:
    """The way out: Ctrl+Shift+Q opens the pad, the right PIN calls ``leave``, nothing else does. The PIN is read
    from ``settings()`` each time (the window's settings, which staff may change while the demo runs)."""

    def __init__(self, window: QWidget, settings: Callable[[], Settings], leave: Callable[[], None]) -> None:
        self._settings = settings
        self._leave = leave
        self.pin_pad = PinPad(window)
        self.pin_pad.submitted.connect(self.enter_pin)

    def open(self) -> None:
        self.pin_pad.open()

    def pin(self) -> str | None:
        """The PIN that leaves the demo, or None (locked): a stored PIN that is not valid (``12ab``, 10 MB of
        digits) or a settings file that cannot be read never falls back to the shipped default, which
        anyone could look up. Staff unlock with ``configurator demo-pin --reset`` (README)."""
        settings = self._settings()
        if settings.stored_problem("demo/pin") is not None:
            return None
        return str(settings.get("demo/pin"))

    def enter_pin(self, digits: str) -> bool:
        """True (and ``leave()``) for the right PIN; a wrong one shakes the pad."""
        pin = self.pin()
        if pin is None:
            if not self.pin_pad.isVisible():
                self.pin_pad.open()
            self.pin_pad.refuse(LOCKED_MESSAGE)
            return False
        if digits == pin:
            self.pin_pad.hide()
            self._leave()
            return True
        if not self.pin_pad.isVisible():
            self.pin_pad.open()
        self.pin_pad.refuse()
        return False
