"""A list widget whose items are dragged out as a payload (ids under vendor MIME types), never as widgets."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QSize, Qt
from PySide6.QtGui import QDrag
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget


class DragList(QListWidget):
    """Drag-only list; subclasses say what an item carries (``payload``). ``drag_icon_px``: show the item's
    icon at that size under the cursor while dragging (None: the platform's default)."""

    def __init__(self, icon_px: int, spacing: int, drag_icon_px: int | None = None,
                 parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.setDragEnabled(True)
        self.setDragDropMode(QListWidget.DragDropMode.DragOnly)
        self.setIconSize(QSize(icon_px, icon_px))
        self.setSpacing(spacing)
        self.setWordWrap(True)
        self._drag_icon_px = drag_icon_px

    def payload(self, item: QListWidgetItem) -> QMimeData:
        raise NotImplementedError

    def startDrag(self, supported_actions: Qt.DropAction) -> None:
        item = self.currentItem()
        if item is None:
            return
        drag = QDrag(self)
        drag.setMimeData(self.payload(item))
        if self._drag_icon_px:
            drag.setPixmap(item.icon().pixmap(self._drag_icon_px, self._drag_icon_px))
        drag.exec(Qt.DropAction.CopyAction)
