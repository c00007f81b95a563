"""What every window of ui/ shares: its minimum size and fitting a window to its screen, the redo keys and a
message box's text."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtGui import Qt as QtGuiNs
from PySide6.QtWidgets import QMessageBox, QWidget

from configurator.catalog.errors import FileError

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


_ID = re.compile(r"[\w.]+(?:-[\w.]+)+")
NB_HYPHEN = "\u2011"  # U+2011 NON-BREAKING HYPHEN: Qt's line breaker honours it (a nowrap span it ignored)


def nowrap_ids(text: str) -> str:
    """``text`` as rich text whose ids ('gpt-oss-120b', supermicro-sys-521ge-tnrt) are never broken at their
    hyphens: a message box's word wrap split them across lines ("gpt-/oss-120b"). Drawn with non-breaking
    hyphens, so only the box's text is changed: its Show Details text keeps the ids as typed, to copy. User
    text is escaped."""
    return _ID.sub(lambda m: m.group().replace("-", NB_HYPHEN), html.escape(text, quote=False))


def file_error_box(parent: QWidget | None, title: str, exc: FileError, after: str = "") -> QMessageBox:
    """The box for a file that cannot be read: one line with what is wrong and where (line and field), the
    file once below it with ``after`` (what happens now), and every problem with all the values each allows
    behind Show Details (the list of 32 models was cut off in the box's text)."""
    box = QMessageBox(QMessageBox.Icon.Critical, title, "", QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(f"<p>{nowrap_ids(exc.headline())}</p>")
    then = f"<p>{html.escape(after, quote=False)}</p>" if after else ""
    box.setInformativeText(f"<p>File: {nowrap_ids(exc.path)}</p>{then}")
    details = exc.details()
    if details:
        box.setDetailedText(details)
    return box
