"""The chassis from the keyboard: a cursor (a blue frame) over the slots, shown while the view has focus.

Arrows move it (Left/Right in reading order, Up/Down to the slot above or below) and select the card it
lands on; Shift+arrow adds that card to the selection; Space toggles it; Escape clears the selection.
Ctrl+arrow moves the selected card to the next slot that way that takes it; B bridges the selection (one
card: with its neighbour(s)); Delete/Backspace (the view's remove action) removes it. Every change is
a ``document.edit`` with a function from engine/editing, so Ctrl+Z undoes it.

A mixin of :class:`~configurator.ui.chassis.chassis_view.ChassisView` (it needs ``doc``, ``status``,
``slot_selected``, ``slot_items``, ``card_items``, ``focus_frame`` and ``selected_slots``).
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

from configurator.engine import editing
from configurator.present.colours import FOCUS
from configurator.ui.chassis.items import KEYS_HINT

ARROWS = (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down)
WORDS = {Qt.Key.Key_Left: "back", Qt.Key.Key_Right: "on", Qt.Key.Key_Up: "up", Qt.Key.Key_Down: "down"}
KEYBOARD_REASONS = (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason,
                    Qt.FocusReason.ShortcutFocusReason, Qt.FocusReason.OtherFocusReason)  # fmt: skip


class KeysMixin:
    # ---- the cursor ----
    def reading_order(self) -> list[int]:
        """Slots row by row, left to right (a PCIe chassis is one column: top to bottom)."""
        rects = {s: i.rect() for s, i in self.slot_items.items()}
        return sorted(rects, key=lambda s: (round(rects[s].top()), rects[s].left()))

    def place_cursor(self, slot: int | None) -> None:
        """Put the keyboard cursor on ``slot`` (the first slot when that is not in this chassis)."""
        order = self.reading_order()
        self.cursor_slot = slot if slot in self.slot_items else (order[0] if order else None)
        frame = self.focus_frame
        if self.cursor_slot is not None:
            frame.around(self.slot_items[self.cursor_slot].rect())
        frame.setVisible(self.cursor_slot is not None and self.hasFocus())

    def neighbour(self, slot: int, key: Qt.Key) -> int | None:
        """The slot an arrow key leads to from ``slot``: Left/Right the previous/next in reading order,
        Up/Down the nearest slot above/below (in the same column first); None at the edge."""
        order = self.reading_order()
        if key in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            at = order.index(slot) + (1 if key == Qt.Key.Key_Right else -1)
            return order[at] if 0 <= at < len(order) else None
        here = self.slot_items[slot].rect().center()
        sign = 1 if key == Qt.Key.Key_Down else -1
        best: tuple[float, int] | None = None
        for other, item in self.slot_items.items():
            d = item.rect().center() - here
            if d.y() * sign > 1:
                score = abs(d.y()) + 3 * abs(d.x())
                best = min(best, (score, other)) if best else (score, other)
        return best[1] if best else None

    def _say_where(self) -> None:
        slot = self.cursor_slot
        if slot is None:
            return
        item = self.card_items.get(slot)
        chosen = len(self.selected_slots())
        what = item.card.name if item is not None else "empty"
        more = f" · {chosen} cards selected (B bridges them)" if chosen > 1 else ""
        self.status.emit(f"Slot {slot}: {what}{more}")

    def _go(self, slot: int, extend: bool) -> None:
        """Move the cursor to ``slot``: the card there becomes the selection (``extend``: it joins the
        selection, and so does the card the cursor left, as Shift+arrow does in a list)."""
        if not extend:
            self.scene().clearSelection()
        elif self.cursor_slot in self.card_items:
            self.card_items[self.cursor_slot].setSelected(True)
        self.place_cursor(slot)
        self.ensureVisible(self.slot_items[slot].rect(), 8, 8)
        item = self.card_items.get(slot)
        if item is not None:
            item.setSelected(True)
            self.slot_selected.emit(slot)
        self._say_where()

    # ---- keys ----
    def keyPressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        key, mods = Qt.Key(event.key()), event.modifiers()
        ctrl = bool(mods & Qt.KeyboardModifier.ControlModifier)
        shift = bool(mods & Qt.KeyboardModifier.ShiftModifier)
        slot = self.cursor_slot
        if slot is None or slot not in self.slot_items:
            super().keyPressEvent(event)
            return
        if key in ARROWS and ctrl:
            self.move_selected(key)
        elif key in ARROWS:
            target = self.neighbour(slot, key)
            if target is not None:
                self._go(target, extend=shift)
        elif key in (Qt.Key.Key_Home, Qt.Key.Key_End):
            order = self.reading_order()
            self._go(order[0] if key == Qt.Key.Key_Home else order[-1], extend=shift)
        elif key == Qt.Key.Key_Space and slot in self.card_items:
            item = self.card_items[slot]
            item.setSelected(not item.isSelected())
            self._say_where()
        elif key == Qt.Key.Key_Escape and self.selected_slots():
            self.scene().clearSelection()
            self._say_where()
        elif key == Qt.Key.Key_B and not ctrl:
            self.bridge_selection()
        elif key == Qt.Key.Key_Menu or (key == Qt.Key.Key_F10 and shift):
            self.menu_at_cursor()
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def focusInEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().focusInEvent(event)
        chosen = self.selected_slots()
        self.place_cursor(self.cursor_slot if self.cursor_slot is not None else (chosen or [None])[0])
        self.viewport().update()
        if event.reason() in KEYBOARD_REASONS:
            self.status.emit(f"Chassis: {KEYS_HINT}")

    def focusOutEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().focusOutEvent(event)
        self.focus_frame.setVisible(False)
        self.viewport().update()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:  # type: ignore[override]
        """A frame around the whole view while it has keyboard focus."""
        super().drawForeground(painter, rect)
        if self.hasFocus():
            painter.save()
            painter.resetTransform()
            painter.setPen(QPen(QColor(FOCUS), 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(self.viewport().rect()).adjusted(1, 1, -1, -1))
            painter.restore()

    # ---- edits ----
    def move_selected(self, key: Qt.Key) -> None:
        """Ctrl+arrow: the card at the cursor goes to the next slot that way that takes it."""
        slot = self.cursor_slot
        placed = self.doc.build.card_in(slot) if slot is not None else None
        if slot is None or placed is None:
            self.status.emit("Move the cursor onto a card to move it (Ctrl+arrow)")
            return
        first_reason: str | None = None
        target = self.neighbour(slot, key)
        while target is not None:
            reason = editing.check_place(self.doc.build, self.doc.catalog, target, placed.card, moving_from=slot)
            if reason is None:
                break
            first_reason = first_reason or reason
            target = self.neighbour(target, key)
        if target is None:
            self.status.emit(f"Cannot move it {WORDS[key]}: {first_reason or 'no slot that way'}")
            return
        card = self.doc.catalog.cards.get(placed.card)
        name = card.name if card else placed.card
        make = partial(editing.move_card, catalog=self.doc.catalog, from_slot=slot, to_slot=target)
        if self.doc.edit(f"Move {name} from slot {slot} to slot {target}", make):
            self._go(target, extend=False)
            self.status.emit(f"{name} moved to slot {target} (Ctrl+Z undoes)")

    def bridge_selection(self) -> None:
        """B: an NVLink bridge over the selected cards; one card is bridged with its neighbour(s), the
        smallest bridge it takes first (engine/editing.bridge_group_for picks the run)."""
        slots = self.selected_slots() or ([self.cursor_slot] if self.cursor_slot in self.card_items else [])
        if not slots:
            self.status.emit("Select a card to bridge (arrows, Shift+arrow for more)")
            return
        if len(slots) == 1:
            card = self.doc.catalog.cards.get(self.doc.build.card_in(slots[0]).card)  # type: ignore[union-attr]
            sizes = sorted(card.nvlink.bridge_sizes) if card and card.nvlink and card.nvlink.bridge_sizes else [2]
            group, reason = None, None
            for size in sizes:
                group, why = editing.bridge_group_for(self.doc.build, self.doc.catalog, slots[0], size)
                reason = reason or why
                if group:
                    break
            if not group:
                self.status.emit(f"Cannot bridge slot {slots[0]}: {reason}")
                return
            slots = group
        text = f"Bridge slots {', '.join(map(str, slots))}"
        if self.doc.edit(text, partial(editing.add_bridge, catalog=self.doc.catalog, slots=slots)):
            self.status.emit(f"{text} (Ctrl+Z undoes)")
