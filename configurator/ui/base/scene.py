"""Small helpers for QGraphicsScene views."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication, QGraphicsItem, QGraphicsScene

T = TypeVar("T", bound=QGraphicsItem)


def item_under(scene: QGraphicsScene, pos: QPointF, kind: type[T]) -> T | None:
    """The topmost item of ``kind`` at ``pos``, also when the cursor is on one of its child items (a label)."""
    for item in scene.items(pos):
        while item is not None and not isinstance(item, kind):
            item = item.parentItem()
        if isinstance(item, kind):
            return item
    return None


def drag_started(press: QPointF | None, pos: QPointF) -> bool:
    """True once a left-button press (``press``, None when there is none) has moved past the platform's
    drag distance, so a click never starts a drag."""
    return press is not None and (pos - press).manhattanLength() > QApplication.startDragDistance()
