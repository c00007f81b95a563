"""What every window of ui/ shares: its minimum size and fitting a window to its screen, the redo keys and a
message box's text."""

from __future__ import annotations

import html

from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtGui import Qt as QtGuiNs
from PySide6.QtWidgets import QWidget

# Fits a 1024x768 screen with a panel and a title bar. Set explicitly, so the window's minimum never changes
# after it is shown: Qt's own (the layout's minimum, set on every relayout) made QWindow call
# propagateSizeHints() on each change, which the offscreen platform logs as a warning. The content's own
# minimum stays under it with either dock tab raised (tests/test_shell_layout.py).
MIN_WINDOW = QSize(960, 600)


def fit_to_screen(window: QWidget, width: int, height: int) -> None:
    """Resize ``window`` to ``width`` x ``height``, or to its screen's available area where that is smaller
    (the planner's 1440x900 and the compare dialog's 1200x760 left a 1024x768 screen)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    size = QSize(width, height)
    if screen is not None:
        room = screen.availableGeometry()
        size = size.boundedTo(QSize(room.width(), room.height() - 32)).expandedTo(window.minimumSize())
    window.resize(size)


def redo_shortcuts() -> list[QKeySequence]:
    """Ctrl+Shift+Z and Ctrl+Y, each once. The platform's StandardKey.Redo already holds Ctrl+Shift+Z on
    Linux; listing it beside an explicit Ctrl+Shift+Z made Qt log "Ambiguous shortcut overload" and do
    nothing, so the list is deduplicated."""
    keys: list[QKeySequence] = []
    for key in (
        QKeySequence("Ctrl+Shift+Z"),
        QKeySequence("Ctrl+Y"),
        *QKeySequence.keyBindings(QKeySequence.StandardKey.Redo),
    ):
        if not key.isEmpty() and all(key != k for k in keys):
            keys.append(key)
    return keys


def safe_message(text: str) -> str:
    """``text`` for a message box, which guesses rich text: file and build names are user text, so a
    message Qt would take as HTML (``<img src=...>``) is escaped and shown as the characters typed."""
    if not QtGuiNs.mightBeRichText(text):
        return text
    return "<p>" + html.escape(text).replace("\n", "<br>") + "</p>"
