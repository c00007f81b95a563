"""Small helpers for QGraphicsScene views."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

T = TypeVar("T", bound=QGraphicsItem)


def item_under(scene: QGraphicsScene, pos: QPointF, kind: type[T]) -> T | None:
    """The topmost item of ``kind`` at ``pos``, also when the cursor is on one of its child items (a label)."""
    for item in scene.items(pos):
        while item is not None and not isinstance(item, kind):
            item = item.parentItem()
        if isinstance(item, kind):
            return item
    return None
