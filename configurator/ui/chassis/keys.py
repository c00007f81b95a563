"""The chassis from the keyboard: a cursor (a blue frame) over the slots, shown while the view has focus.

Arrows move it (Left/Right in reading order, Up/Down to the slot above or below) and select the card it
lands on; Shift+arrow adds that card to the selection; Space toggles it; Escape clears the selection.
Ctrl+arrow moves the selected card to the next slot that way that takes it; B bridges the selection (one
card: with its neighbour(s)); Delete/Backspace (the view's remove action) removes it. Every change is
a ``document.edit`` with a function from engine/editing, so Ctrl+Z undoes it.

An object the chassis view holds (``view.keys``) with its own state, the cursor and its frame; the view passes
its key and focus events on to it. What it asks of the view is ``KeySurface``.
"""

from __future__ import annotations

from functools import partial
from typing import Protocol

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFocusEvent, QKeyEvent

from configurator.engine import editing
from configurator.ui.base import BuildDocument
from configurator.ui.chassis.items import KEYS_HINT, CardItem, FocusFrame, SlotItem

ARROWS = (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down)
WORDS = {Qt.Key.Key_Left: "back", Qt.Key.Key_Right: "on", Qt.Key.Key_Up: "up", Qt.Key.Key_Down: "down"}
KEYBOARD_REASONS = (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason,
                    Qt.FocusReason.ShortcutFocusReason, Qt.FocusReason.OtherFocusReason)  # fmt: skip


class KeySurface(Protocol):
    """What the keys ask of the chassis view."""

    doc: BuildDocument
    slot_items: dict[int, SlotItem]
    card_items: dict[int, CardItem]

    def say(self, text: str) -> None: ...
    def selected_slots(self) -> list[int]: ...
    def clear_selection(self) -> None: ...
    def card_chosen(self, slot: int) -> None: ...
    def show_rect(self, rect: QRectF) -> None: ...
    def hasFocus(self) -> bool: ...
    def menu_at_cursor(self) -> None: ...


class ChassisKeys:
    def __init__(self, view: KeySurface) -> None:
        self.view = view
        self.doc = view.doc
        self.cursor_slot: int | None = None
        self.focus_frame = FocusFrame()

    # ---- the cursor ----
    def reading_order(self) -> list[int]:
        """Slots row by row, left to right (a PCIe chassis is one column: top to bottom)."""
        rects = {s: i.rect() for s, i in self.view.slot_items.items()}
        return sorted(rects, key=lambda s: (round(rects[s].top()), rects[s].left()))

    def place_cursor(self, slot: int | None) -> None:
        """Put the keyboard cursor on ``slot`` (the first slot when that is not in this chassis)."""
        order = self.reading_order()
        self.cursor_slot = slot if slot in self.view.slot_items else (order[0] if order else None)
        frame = self.focus_frame
        if self.cursor_slot is not None:
            frame.around(self.view.slot_items[self.cursor_slot].rect())
        frame.setVisible(self.cursor_slot is not None and self.view.hasFocus())

    def neighbour(self, slot: int, key: Qt.Key) -> int | None:
        """The slot an arrow key leads to from ``slot``: Left/Right the previous/next in reading order,
        Up/Down the nearest slot above/below (in the same column first); None at the edge."""
        order = self.reading_order()
        if key in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            at = order.index(slot) + (1 if key == Qt.Key.Key_Right else -1)
            return order[at] if 0 <= at < len(order) else None
        here = self.view.slot_items[slot].rect().center()
        sign = 1 if key == Qt.Key.Key_Down else -1
        best: tuple[float, int] | None = None
        for other, item in self.view.slot_items.items():
            d = item.rect().center() - here
            if d.y() * sign > 1:
                score = abs(d.y()) + 3 * abs(d.x())
                best = min(best, (score, other)) if best else (score, other)
        return best[1] if best else None

    def _say_where(self) -> None:
        slot = self.cursor_slot
        if slot is None:
            return
        item = self.view.card_items.get(slot)
        chosen = len(self.view.selected_slots())
        what = item.card.name if item is not None else "empty"
        more = f" · {chosen} cards selected (B bridges them)" if chosen > 1 else ""
        self.view.say(f"Slot {slot}: {what}{more}")

    def _go(self, slot: int, extend: bool) -> None:
        """Move the cursor to ``slot``: the card there becomes the selection (``extend``: it joins the
        selection, and so does the card the cursor left, as Shift+arrow does in a list)."""
        view = self.view
        if not extend:
            view.clear_selection()
        elif self.cursor_slot is not None and self.cursor_slot in view.card_items:
            view.card_items[self.cursor_slot].setSelected(True)
        self.place_cursor(slot)
        view.show_rect(view.slot_items[slot].rect())
        item = view.card_items.get(slot)
        if item is not None:
            item.setSelected(True)
            view.card_chosen(slot)
        self._say_where()

    # ---- keys ----
    def key_press(self, event: QKeyEvent) -> bool:
        """Act on a key pressed in the view; False for a key the view should handle itself."""
        key, mods = Qt.Key(event.key()), event.modifiers()
        ctrl = bool(mods & Qt.KeyboardModifier.ControlModifier)
        shift = bool(mods & Qt.KeyboardModifier.ShiftModifier)
        slot = self.cursor_slot
        view = self.view
        if slot is None or slot not in view.slot_items:
            return False
        if key in ARROWS and ctrl:
            self.move_selected(key)
        elif key in ARROWS:
            target = self.neighbour(slot, key)
            if target is not None:
                self._go(target, extend=shift)
        elif key in (Qt.Key.Key_Home, Qt.Key.Key_End):
            order = self.reading_order()
            self._go(order[0] if key == Qt.Key.Key_Home else order[-1], extend=shift)
        elif key == Qt.Key.Key_Space and slot in view.card_items:
            item = view.card_items[slot]
            item.setSelected(not item.isSelected())
            self._say_where()
        elif key == Qt.Key.Key_Escape and view.selected_slots():
            view.clear_selection()
            self._say_where()
        elif key == Qt.Key.Key_B and not ctrl:
            self.bridge_selection()
        elif key == Qt.Key.Key_Menu or (key == Qt.Key.Key_F10 and shift):
            view.menu_at_cursor()
        else:
            return False
        event.accept()
        return True

    def focus_in(self, event: QFocusEvent) -> None:
        chosen = self.view.selected_slots()
        self.place_cursor(self.cursor_slot if self.cursor_slot is not None else (chosen[0] if chosen else None))
        if event.reason() in KEYBOARD_REASONS:
            self.view.say(f"Chassis: {KEYS_HINT}")

    def focus_out(self) -> None:
        self.focus_frame.setVisible(False)

    # ---- edits ----
    def move_selected(self, key: Qt.Key) -> None:
        """Ctrl+arrow: the card at the cursor goes to the next slot that way that takes it."""
        slot = self.cursor_slot
        placed = self.doc.build.card_in(slot) if slot is not None else None
        if slot is None or placed is None:
            self.view.say("Move the cursor onto a card to move it (Ctrl+arrow)")
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
            self.view.say(f"Cannot move it {WORDS[key]}: {first_reason or 'no slot that way'}")
            return
        card = self.doc.catalog.cards.get(placed.card)
        name = card.name if card else placed.card
        make = partial(editing.move_card, catalog=self.doc.catalog, from_slot=slot, to_slot=target)
        if self.doc.edit(f"Move {name} from slot {slot} to slot {target}", make):
            self._go(target, extend=False)
            self.view.say(f"{name} moved to slot {target} (Ctrl+Z undoes)")

    def bridge_selection(self) -> None:
        """B: an NVLink bridge over the selected cards; one card is bridged with its neighbour(s), the
        smallest bridge it takes first (engine/editing.bridge_group_for picks the run)."""
        slots = self.view.selected_slots()
        if not slots and self.cursor_slot is not None and self.cursor_slot in self.view.card_items:
            slots = [self.cursor_slot]
        if not slots:
            self.view.say("Select a card to bridge (arrows, Shift+arrow for more)")
            return
        if len(slots) == 1:
            placed = self.doc.build.card_in(slots[0])
            card = self.doc.catalog.cards.get(placed.card) if placed is not None else None
            sizes = sorted(card.nvlink.bridge_sizes) if card and card.nvlink and card.nvlink.bridge_sizes else [2]
            group, reason = None, None
            for size in sizes:
                group, why = editing.bridge_group_for(self.doc.build, self.doc.catalog, slots[0], size)
                reason = reason or why
                if group:
                    break
            if not group:
                self.view.say(f"Cannot bridge slot {slots[0]}: {reason}")
                return
            slots = group
        text = f"Bridge slots {', '.join(map(str, slots))}"
        if self.doc.edit(text, partial(editing.add_bridge, catalog=self.doc.catalog, slots=slots)):
            self.view.say(f"{text} (Ctrl+Z undoes)")
