"""A word-wrapped label that keeps room for all its lines."""

from __future__ import annotations

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget


class WrapLabel(QLabel):
    """A word-wrapped label that asks for the height of all its lines at the width it is given: a QFormLayout
    gave its spanning wrapped labels one line too few (the Jobs form at a narrow dock cut the info line's stack
    and the trace row's "Tracing …", review 2 finding 10; Preferences its PIN message)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit()

    def _fit(self) -> None:
        if self.width() <= 0:
            return
        height = self.heightForWidth(self.width()) if self.text() else 0
        if height >= 0 and height != self.minimumHeight():
            self.setMinimumHeight(height)
