"""While a job is dragged over the chassis, the cards it can run on are tinted (nothing said a job could be
dropped on a card), and the tints go when the drag leaves."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent
from PySide6.QtWidgets import QApplication

from configurator.ui.chassis.items import ALLOWED_PALE
from configurator.ui.dnd import job_mime
from tests.gui_helpers import make_window


def test_job_drag_tints_the_cards_it_can_run_on(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    view = window.chassis_view
    messages: list[str] = []
    view.status.connect(messages.append)
    mime = job_mime(window.doc.build.jobs[0].name)  # held: the event does not own it
    enter = QDragEnterEvent(QPoint(5, 5), Qt.DropAction.CopyAction | Qt.DropAction.MoveAction, mime,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)  # fmt: skip
    QApplication.sendEvent(view.viewport(), enter)
    cards = {c.slot for c in window.doc.build.cards}
    tinted = {slot for slot, item in view.slot_items.items() if item.brush().color() == ALLOWED_PALE}
    assert tinted == cards  # every placed card, no empty slot
    assert messages and "green card" in messages[-1]
    QApplication.sendEvent(view.viewport(), QDragLeaveEvent())
    assert not {slot for slot, item in view.slot_items.items() if item.brush().color() == ALLOWED_PALE}
