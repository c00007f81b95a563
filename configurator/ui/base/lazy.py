"""Deferring a hidden view's refresh until it is shown, so an edit only pays for what is on screen."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QWidget


def hidden_in_shown_window(widget: QWidget) -> bool:
    """True for a view behind another tab of a window the user sees. A widget outside any shown window
    (built standalone, or before the window opens) is not deferred, so it always matches the document.
    A dock widget behind another dock's tab stays "visible" to Qt with nothing of it on screen, hence the
    visible-region test."""
    if not widget.window().isVisible():
        return False
    focus = QApplication.focusWidget()
    if focus is not None and (focus is widget or widget.isAncestorOf(focus)):
        return False  # keyboard focus can sit in a dock behind another tab: its fields must be current
    return not widget.isVisible() or widget.visibleRegion().isEmpty()
