"""Drops on the chassis view: a card (from the palette, or a placed one being moved), an NVLink bridge, or a
job. While dragging, every slot is tinted pale green where the card may go and pale red where it may not;
the slot under the pointer is tinted strongly, and a refused drop says why through ``status``.

An object the chassis view holds (``view.drops``) with its own state, the tints of a drag under way; the view
passes its drag events on to it. What it asks of the view is ``DropSurface``.
"""

from __future__ import annotations

from functools import partial
from typing import Protocol

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDragMoveEvent, QDropEvent

from configurator.engine import editing
from configurator.ui.base import BuildDocument
from configurator.ui.chassis.items import ALLOWED, ALLOWED_PALE, REFUSED, REFUSED_PALE, CardItem, SlotItem
from configurator.ui.dnd import read_bridge, read_card, read_job, read_slot


class DropSurface(Protocol):
    """What the drops ask of the chassis view."""

    doc: BuildDocument
    slot_items: dict[int, SlotItem]

    def say(self, text: str) -> None: ...
    def scene_point(self, event: QDropEvent) -> QPointF: ...
    def card_under(self, scene_pos: QPointF) -> CardItem | None: ...
    def slot_under(self, scene_pos: QPointF) -> SlotItem | None: ...
    def bridge_under(self, scene_pos: QPointF) -> list[int] | None: ...


class ChassisDrops:
    def __init__(self, view: DropSurface) -> None:
        self.view = view
        self.doc = view.doc
        self.allowed: dict[int, bool] = {}  # while a card or a job is dragged: the slots that take it
        self.highlighted: SlotItem | None = None

    def _drop_target(self, event: QDropEvent) -> tuple[SlotItem | None, str | None]:
        card_id = read_card(event.mimeData())
        if card_id is None:
            return None, "not a card"
        slot_item = self.view.slot_under(self.view.scene_point(event))
        if slot_item is None:
            return None, "drop the card onto a slot"
        moving = read_slot(event.mimeData())
        reason = editing.check_place(self.doc.build, self.doc.catalog, slot_item.slot, card_id, moving_from=moving)
        return slot_item, reason

    def _highlight(self, item: SlotItem | None, allowed: bool) -> None:
        if self.highlighted is not None and self.highlighted is not item:
            slot = self.highlighted.slot
            tint = None
            if slot in self.allowed:
                tint = ALLOWED_PALE if self.allowed[slot] else REFUSED_PALE
            self.highlighted.highlight(tint)
        self.highlighted = item
        if item is not None:
            item.highlight(ALLOWED if allowed else REFUSED)

    def _bridge_target(self, event: QDropEvent) -> tuple[list[int] | None, str | None]:
        """(slots the dragged bridge would join, refusal reason) at the pointer."""
        size = read_bridge(event.mimeData())
        card = self.view.card_under(self.view.scene_point(event))
        if size is None or card is None:
            return None, "drop the bridge onto a card"
        return editing.bridge_group_for(self.doc.build, self.doc.catalog, card.slot, size)

    def _show_bridge_target(self, slots: list[int] | None) -> None:
        for slot, item in self.view.slot_items.items():
            item.highlight(ALLOWED if slots and slot in slots else None)

    def enter(self, event: QDragEnterEvent) -> None:
        if read_bridge(event.mimeData()) is not None:
            event.acceptProposedAction()
            return
        card_id = read_card(event.mimeData())
        if card_id is None:
            if read_job(event.mimeData()) is not None:  # a job from the jobs panel: assign it to a card
                self._hint_job_targets()
                event.acceptProposedAction()
            else:
                event.ignore()
            return
        # Tint every slot: pale green where the card may go, pale red where it may not.
        moving = read_slot(event.mimeData())
        self.allowed = {
            slot: editing.check_place(self.doc.build, self.doc.catalog, slot, card_id, moving_from=moving) is None
            for slot in self.view.slot_items
        }
        for slot, item in self.view.slot_items.items():
            item.highlight(ALLOWED_PALE if self.allowed[slot] else REFUSED_PALE)
        event.acceptProposedAction()

    def _hint_job_targets(self) -> None:
        """While a job is dragged: every card it can run on tinted pale green, a MIG-split card pale red (its
        instances are placed in the MIG editor), empty slots left plain; the status bar says what to do."""
        build = self.doc.build
        self.allowed = {}
        for slot, item in self.view.slot_items.items():
            if build.card_in(slot) is None:
                continue
            self.allowed[slot] = editing.check_assign(build, slot) is None
            item.highlight(ALLOWED_PALE if self.allowed[slot] else REFUSED_PALE)
        self.view.say("Drop the job on a green card to run it there (Ctrl: add the card to the job's cards)")

    def _clear_tints(self) -> None:
        self.allowed = {}
        self.highlighted = None
        for item in self.view.slot_items.values():
            item.highlight(None)

    def _job_target(self, event: QDropEvent) -> tuple[int | None, str | None]:
        """(slot, refusal reason) for a job dragged over the view."""
        name = read_job(event.mimeData())
        if name is not None and self.doc.build.job_index(name) is None:
            return None, f"this build has no job called '{name}'"
        group = self.view.bridge_under(self.view.scene_point(event))
        if group:
            return group[0], None
        card = self.view.card_under(self.view.scene_point(event))
        if card is None:
            return None, "drop the job onto a card"
        return card.slot, editing.check_assign(self.doc.build, card.slot)

    def move(self, event: QDragMoveEvent) -> None:
        if read_bridge(event.mimeData()) is not None:
            slots, reason = self._bridge_target(event)
            self._show_bridge_target(slots)
            if slots:
                self.view.say(f"Bridge slots {', '.join(map(str, slots))}")
                event.acceptProposedAction()
            else:
                self.view.say(f"Cannot bridge here: {reason}")
                event.ignore()
            return
        if read_job(event.mimeData()) is not None and read_card(event.mimeData()) is None:
            slot, reason = self._job_target(event)
            self._highlight(self.view.slot_items.get(slot) if slot else None, reason is None)
            if reason is None:
                group = self.view.bridge_under(self.view.scene_point(event))
                self.view.say(f"Run the job on bridged slots {group}" if group else
                                 f"Run the job on slot {slot} (Ctrl: add this card to the job)")  # fmt: skip
                event.acceptProposedAction()
            else:
                self.view.say(f"Cannot drop here: {reason}")
                event.ignore()
            return
        item, reason = self._drop_target(event)
        self._highlight(item, reason is None)
        if item is not None and reason is None:
            self.view.say(f"Drop into slot {item.slot}")
            event.acceptProposedAction()
        else:
            if item is not None and reason:
                self.view.say(f"Cannot drop here: {reason}")
            event.ignore()

    def leave(self, event: QDragLeaveEvent) -> None:
        """Not passed on to QGraphicsView: its handler expects the drag enter it never got (the view handles
        drags itself, not its scene) and printed "drag leave received before drag enter" (issue 15)."""
        self._clear_tints()
        event.accept()

    def _drop_job(self, event: QDropEvent) -> None:
        dragged = read_job(event.mimeData())
        index = self.doc.build.job_index(dragged) if dragged is not None else None
        slot, reason = self._job_target(event)
        self._clear_tints()
        if index is None or slot is None or reason is not None:
            self.view.say(f"Cannot drop here: {reason}" if reason else "Drop the job onto a card")
            event.ignore()
            return
        add = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        name = self.doc.build.jobs[index].name
        group = self.view.bridge_under(self.view.scene_point(event))
        if group:
            onto_group = partial(editing.set_job_cards, index=index, cards=list(group))
            if self.doc.edit(f"Run job {name} on bridged slots {', '.join(map(str, group))}", onto_group):
                event.acceptProposedAction()
            else:
                event.ignore()
            return
        text = f"{'Add' if add else 'Move'} job {name} {'to' if add else 'onto'} slot {slot}"
        if self.doc.edit(text, partial(editing.assign_job, catalog=self.doc.catalog, index=index, slot=slot, add=add)):
            event.acceptProposedAction()
        else:
            event.ignore()

    def _drop_bridge(self, event: QDropEvent) -> None:
        slots, reason = self._bridge_target(event)
        self._clear_tints()
        if not slots:
            self.view.say(f"Cannot bridge here: {reason}")
            event.ignore()
            return
        text = f"Bridge slots {', '.join(map(str, slots))}"
        if self.doc.edit(text, partial(editing.add_bridge, catalog=self.doc.catalog, slots=slots)):
            self.view.say(text)
            event.acceptProposedAction()
        else:
            event.ignore()

    def drop(self, event: QDropEvent) -> None:
        if read_bridge(event.mimeData()) is not None:
            self._drop_bridge(event)
            return
        if read_job(event.mimeData()) is not None and read_card(event.mimeData()) is None:
            self._drop_job(event)
            return
        item, reason = self._drop_target(event)
        self._clear_tints()
        if item is None or reason is not None:
            self.view.say(f"Cannot drop here: {reason}" if reason else "Drop the card onto a slot")
            event.ignore()
            return
        card_id = read_card(event.mimeData())
        assert card_id is not None  # _drop_target found a card
        moving = read_slot(event.mimeData())
        catalog = self.doc.catalog
        name = catalog.cards[card_id].name if card_id in catalog.cards else card_id
        if moving is not None:
            make = partial(editing.move_card, catalog=catalog, from_slot=moving, to_slot=item.slot)
            ok = self.doc.edit(f"Move {name} from slot {moving} to slot {item.slot}", make)
        else:
            make = partial(editing.place_card, catalog=catalog, slot=item.slot, card_id=card_id)
            ok = self.doc.edit(f"Place {name} in slot {item.slot}", make)
        if ok:
            self.view.say(f"{name} in slot {item.slot}")
            event.acceptProposedAction()
        else:
            event.ignore()
