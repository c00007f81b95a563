"""The chassis drawn to scale from its spec, with cards in their slots and bridges over them.

Drops (``drops``, drops.py) carry a card id (from the palette), a slot (a placed card being moved), a bridge or
a job. The keyboard (``keys``, keys.py) moves a cursor over the slots, selects, moves, bridges and removes
cards. Both are objects the view holds, each with its own state; the view passes its events on. The items
drawn are in items.py. Every change goes through ``document.edit`` with a function from engine/editing.
"""

from __future__ import annotations

import itertools
import math
from functools import partial

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSizeF, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QContextMenuEvent,
    QDrag,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QFocusEvent,
    QFont,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QMenu,
    QWidget,
)

from configurator.catalog.cards import CardSpec
from configurator.catalog.chassis import ChassisSpec, SlotPosition
from configurator.catalog.richtext import plain_tooltip
from configurator.engine import Build, BuildResult, editing
from configurator.present.colours import FOCUS
from configurator.present.words import PITCH_MM
from configurator.ui.base import BuildDocument, ViewState, drag_started, item_under
from configurator.ui.chassis.drops import ChassisDrops
from configurator.ui.chassis.frame import ARROW, Frame, Room, layout_frame
from configurator.ui.chassis.items import KEYS_HINT, MM, BridgeItem, CardItem, SlotItem
from configurator.ui.chassis.keys import ChassisKeys
from configurator.ui.chassis.label import CARD_FONT_PX
from configurator.ui.dnd import slot_mime

LEGIBLE_PX = 9.0  # the smallest text on screen (pixels): below it the chassis text could not be read
CARD_MAX_FLOOR_PX = 40  # a floor no higher than this (scene px): a window too small for the drawing still lays out
GROW_STEP = 0.05  # the text grows in steps of 5 % (fit): a resize redraws the drawing only when a step is crossed
MAX_GROW = 3.0  # a window too small for any legible drawing still lays out
FIT_MARGIN = 2  # px inside the viewport's edge that QGraphicsView.fitInView leaves (qgraphicsview.cpp)


class ChassisView(QGraphicsView):
    status = Signal(str)
    slot_selected = Signal(int)
    label_points = 16.0  # the slot labels' type in scene units (the kiosk's view draws larger ones)
    subtitle_points = 16.0  # the line under the chassis name
    # False: the view shows no heading in the drawing (the kiosk's shows it over the drawing, in the window's type,
    # where the drawing's scale does not shrink it)
    draws_heading = True

    def __init__(self, document: BuildDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self._room = Room()  # where the slots stand: the label column widened to the longest label on each redraw
        self._card_min_px = CARD_FONT_PX[1]  # the card labels' smallest size in scene pixels (fit)
        self.unit = "GB"  # the view state's memory unit (follow): the cards' figures are written in it
        # the text's size over its designed size (label_points, subtitle_points): raised by fit where the drawing is
        # scaled down so far that it would read under LEGIBLE_PX; the label column and the heading grow with it
        self._grow = 1.0
        self._mark_spec: dict[int, tuple[str, str]] = {}
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setAcceptDrops(True)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        # the drawing sits at the top, not centred: a wide chassis left empty space above it (issue 15)
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.setAccessibleName("Chassis view")
        self.setAccessibleDescription(KEYS_HINT)
        self.setToolTip(KEYS_HINT)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.slot_items: dict[int, SlotItem] = {}
        self.card_items: dict[int, CardItem] = {}
        self._overlay: list[QGraphicsItem] = []
        self._marks: dict[int, QGraphicsRectItem] = {}  # slot outlines (set_slot_marks)
        self._chassis_id: str | None = None
        self._press: QPointF | None = None
        self._choosing: int | None = None  # the slot being announced as chosen here (follow)
        self.drops = ChassisDrops(self)
        self.keys = ChassisKeys(self)  # the keyboard cursor and its frame
        self.ink = QColor("#222222")
        self._texts: list[QGraphicsSimpleTextItem] = []
        self.remove_action = QAction("Remove card", self)
        self.remove_action.setShortcuts([QKeySequence(QKeySequence.StandardKey.Delete), QKeySequence("Backspace")])
        self.remove_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.remove_action.setToolTip("Remove the selected cards (Delete or Backspace in the chassis)")
        self.remove_action.triggered.connect(self.remove_selected)
        self.addAction(self.remove_action)
        document.changed.connect(self.refresh)
        self.refresh(document.build, document.result)

    # ---- drawing ----
    def _geometry(self, chassis: ChassisSpec, pos: SlotPosition) -> QRectF:
        return self._room.slot_rect(chassis, pos)

    def _card_rect(self, chassis: ChassisSpec, pos: SlotPosition, card: CardSpec) -> QRectF:
        slot_rect = self._geometry(chassis, pos)
        if pos.kind == "sxm" or card.form_factor.kind == "sxm":
            return slot_rect.adjusted(8, 8, -8, -8)
        width = max(int(card.form_factor.slot_width.value or 1), 1)
        length = (card.form_factor.length_mm.value or 267.0) * MM
        return QRectF(slot_rect.left() + 4, slot_rect.top() + 3, length, width * PITCH_MM * MM - 6)

    def follow(self, view: ViewState) -> None:
        """Share the view state's selected card and theme: a card chosen here (a click, the keyboard) is the
        view state's selected slot, and a slot selected elsewhere (the checks list) is selected and shown here."""
        self.slot_selected.connect(view.set_slot)
        view.slot_changed.connect(self._slot_changed)
        view.theme_changed.connect(self._theme_changed)
        self._theme_changed(view.dark)
        view.unit_changed.connect(self._unit_changed)
        self._unit_changed(view.unit)

    def _unit_changed(self, unit: str) -> None:
        """The cards' memory in ``unit`` ('102.6 GB' stayed in GB with GiB chosen while the charts said GiB)."""
        if unit != self.unit:
            self.unit = unit
            self._draw(self.doc.build)

    def _slot_changed(self, slot: int | None) -> None:
        if slot is not None and slot != self._choosing:  # not the card just chosen here
            self.select_slot(slot)

    def _theme_changed(self, dark: bool) -> None:
        self.setBackgroundBrush(QColor("#262626") if dark else QColor("white"))
        self.set_ink("#e6e6e6" if dark else "#222222")

    def set_ink(self, colour: str) -> None:
        """Text colour for the chassis drawing (light or dark theme)."""
        self.ink = QColor(colour)
        for t in self._texts:
            t.setBrush(QBrush(self.ink))

    def _text(self, text: str, font: QFont) -> QGraphicsSimpleTextItem:
        item = QGraphicsSimpleTextItem(text)
        item.setFont(font)
        item.setBrush(QBrush(self.ink))
        self.scene().addItem(item)
        self._texts.append(item)
        return item

    def text_points(self) -> float:
        """The slot labels' point size as drawn (the designed size, grown by fit where the drawing is small)."""
        return self.label_points * self._grow

    def _frame(self, chassis: ChassisSpec, grow: float) -> Frame:
        """The chassis's frame with its text ``grow`` times its designed size (frame.layout_frame)."""
        return layout_frame(chassis, self.label_points, self.subtitle_points, grow, self.draws_heading)

    def _build_chassis(self, chassis: ChassisSpec) -> None:
        scene = self.scene()
        if self.keys.focus_frame.scene() is scene:
            scene.removeItem(self.keys.focus_frame)  # kept across redraws (scene.clear would delete it)
        scene.clear()
        self._texts.clear()
        self.slot_items.clear()
        self.card_items.clear()
        self._overlay.clear()
        frame = self._frame(chassis, self._grow)
        self._room = frame.room
        for text, font, at in frame.heading:
            self._text(text, font).setPos(at)
        for pos, rect, label, at in frame.slots:
            item = SlotItem(pos, rect)
            scene.addItem(item)
            self.slot_items[pos.slot] = item
            self._text(label, frame.small).setPos(at)
        if frame.arrow is not None:
            arrow = QGraphicsSimpleTextItem(ARROW)
            arrow.setFont(frame.small)
            arrow.setBrush(QBrush(QColor("#42A5F5")))
            arrow.setPos(frame.arrow)
            scene.addItem(arrow)

    def refresh(self, build: Build, result: BuildResult) -> None:
        if self._draw(build):
            self.fit()

    def _draw(self, build: Build) -> bool:
        """Draw ``build``'s cards (and its chassis, when it changed: True, the drawing's extent changed)."""
        chassis = self.doc.catalog.chassis.get(build.chassis)
        if chassis is None:
            if self.keys.focus_frame.scene() is self.scene():
                self.scene().removeItem(self.keys.focus_frame)
            self.scene().clear()
            self.slot_items.clear()
            self.card_items.clear()
            self._chassis_id = None
            return False
        new_chassis = chassis.id != self._chassis_id
        if new_chassis:
            self._build_chassis(chassis)
            self._chassis_id = chassis.id
        selected = {i.slot for i in self.card_items.values() if i.isSelected()}
        # a card drawn as before is kept (its label's fitting is most of a redraw's cost: every card was rebuilt
        # on every edit); one that changed, moved or went is replaced or removed
        before, self.card_items = self.card_items, {}
        for drawn in self._overlay:
            self.scene().removeItem(drawn)
        self._overlay.clear()
        # each bridge's bar stands at the shortest of its cards' ends: known before the cards are drawn, so each
        # card's label keeps left of the bar
        rects = {p.slot: self._card_rect(chassis, chassis.position(p.slot), card) for p in build.cards
                 if (card := self.doc.catalog.cards.get(p.card)) is not None and p.slot in self.slot_items}  # fmt: skip
        bar_left: dict[int, float] = {}
        for bridge in build.bridges:
            ends = [rects[s].right() for s in bridge.slots if s in rects]
            if len(ends) >= 2:
                bar_left.update({s: BridgeItem.left_for(min(ends)) for s in bridge.slots if s in rects})
        for placement in build.cards:
            card = self.doc.catalog.cards.get(placement.card)
            if card is None or placement.slot not in self.slot_items:
                continue
            mig = [r.profile for r in placement.mig] if placement.mig else None
            bridge_left = bar_left.get(placement.slot)
            rect = rects[placement.slot]
            kept = before.pop(placement.slot, None)
            if kept is not None and not new_chassis and kept.drawn_as(card, rect, mig, bridge_left, self.unit):
                self.card_items[placement.slot] = kept
                continue
            if kept is not None and kept.scene() is self.scene():
                self.scene().removeItem(kept)
            item = CardItem(placement.slot, card, rect, mig, bridge_left, self._card_min_px, self.unit)
            self.scene().addItem(item)
            item.setSelected(placement.slot in selected)
            self.card_items[placement.slot] = item
        for gone in before.values():
            if gone.scene() is self.scene():
                self.scene().removeItem(gone)
        for bridge in build.bridges:
            items = [self.card_items[s] for s in bridge.slots if s in self.card_items]
            if len(items) < 2:
                continue
            top = min(i.rect().top() for i in items)
            bottom = max(i.rect().bottom() for i in items)
            right = min(i.rect().right() for i in items)
            spec = items[0].card.nvlink
            links = spec.links.value if spec is not None and spec.links is not None else None
            bar = BridgeItem(list(bridge.slots), top, bottom, right, int(links) if links else None)
            self.scene().addItem(bar)
            self._overlay.append(bar)
        if new_chassis:  # the drawing's extent is the chassis; re-fitting on every edit would repaint it all
            self.scene().setSceneRect(self.scene().itemsBoundingRect().adjusted(-10, -10, 10, 10))
            self.scene().addItem(self.keys.focus_frame)
        self.keys.place_cursor(self.keys.cursor_slot)
        return new_chassis

    def set_slot_marks(self, marks: dict[int, tuple[str, str]]) -> None:
        """Outline slots in a colour with a tooltip, e.g. a verify result: {slot: (colour, text)}; {} removes them."""
        for item in self._marks.values():
            try:
                if item.scene() is self.scene():
                    self.scene().removeItem(item)
            except RuntimeError:  # the chassis was redrawn (scene cleared): the item is gone already
                pass
        self._marks = {}
        self._mark_spec = dict(marks)  # drawn again when the chassis is (fit: the text grown or shrunk)
        for slot, (colour, text) in marks.items():
            slot_item = self.slot_items.get(slot)
            if slot_item is None:
                continue
            mark = self.scene().addRect(slot_item.sceneBoundingRect().adjusted(-3, -3, 3, 3), QPen(QColor(colour), 4))
            mark.setZValue(40)
            mark.setToolTip(plain_tooltip(text))  # figures name jobs and files: user text
            self._marks[slot] = mark

    def slot_marks(self) -> dict[int, str]:
        """The colour of each slot outlined by set_slot_marks."""
        return {slot: mark.pen().color().name() for slot, mark in self._marks.items()}

    def _fit_view(self) -> None:
        """The drawing scaled into the view (the kiosk's view fits a part of it)."""
        self.fitInView(self.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)

    def fit(self) -> None:
        self._fit_view()
        # the slot labels and the heading no smaller on screen than LEGIBLE_PX: at 1024x768 the drawing is scaled to
        # ~0.3 and its 16 pt labels read ~6 px. Their type grows (and the label column with it, which scales the
        # drawing down a little more); back down when the window grows again. The size it settles at is found from
        # the frame's measures (_settled_grow) and drawn once: each 5 % step was drawn in turn, up to six a resize
        grow = self._settled_grow()
        if grow != self._grow:
            self._grow = grow
            self._chassis_id = None  # the chassis is drawn again, at the new size
            self._draw(self.doc.build)
            if self._mark_spec:
                self.set_slot_marks(self._mark_spec)
            self._fit_view()
        # the card labels no smaller on screen than LEGIBLE_PX: at 1024x768 the drawing is scaled to ~0.35 and its
        # 11 px labels read ~4-6 px; a label that does not fit at that size takes a shorter name or is elided
        scale = self.transform().m11()
        px = math.ceil(LEGIBLE_PX / scale - 1e-6) if scale > 0 else CARD_FONT_PX[1]
        self._card_min_px = min(max(px, CARD_FONT_PX[1]), CARD_MAX_FLOOR_PX)
        for item in self.card_items.values():
            item.set_min_px(self._card_min_px)

    def _settled_grow(self) -> float:
        """The text's growth that reads LEGIBLE_PX at the scale the drawing fits at when drawn with it: the frame
        measured at each step (frame.layout_frame), with the room the cards, bridges and margin take beside it as
        drawn now, until a step holds (six at most, as a window too small for any legible drawing may never settle)."""
        chassis = self.doc.catalog.chassis.get(self.doc.build.chassis) if self._chassis_id is not None else None
        grow = self._grow
        if chassis is None:
            return grow
        scale = self.transform().m11()
        beside: QSizeF | None = None
        for _ in range(6):
            step = self._legible_grow(scale, grow)
            if step == grow:
                break
            if beside is None:  # what the drawing takes beyond its frame, as drawn
                drawn, here = self.scene().sceneRect(), self._frame(chassis, self._grow).extent()
                beside = QSizeF(drawn.width() - here.width(), drawn.height() - here.height())
            grow = step
            size = self._frame(chassis, grow).extent().size() + beside
            scale = self._fit_scale(size)
        return grow

    def _fit_scale(self, size: QSizeF) -> float:
        """The scale fitInView gives a scene rectangle of ``size`` (KeepAspectRatio)."""
        room = self.viewport().rect().adjusted(FIT_MARGIN, FIT_MARGIN, -FIT_MARGIN, -FIT_MARGIN)
        if size.width() <= 0 or size.height() <= 0:
            return self.transform().m11()
        return min(room.width() / size.width(), room.height() / size.height())

    def label_floor_px(self) -> float:
        """The slot labels' least size on screen (pixels): fit grows them to it."""
        return LEGIBLE_PX

    def most_grow(self) -> float:
        """The most the text may grow (fit)."""
        return MAX_GROW

    def label_gap(self) -> float | None:
        """The least distance (scene px) between two slots' tops, where their labels stand (None: every slot is a
        socket, labelled under it)."""
        chassis = self.doc.catalog.chassis.get(self.doc.build.chassis)
        xs = sorted(p.x for p in chassis.positions if p.kind != "sxm") if chassis is not None else []
        return min(((b - a) * PITCH_MM * MM for a, b in itertools.pairwise(xs) if b > a), default=None)

    def _legible_grow(self, scale: float, grow: float) -> float:
        """The text's growth at which the slot labels read label_floor_px on screen at ``scale``, in GROW_STEPs (1:
        the designed size is legible); ``grow`` while it reads and is no more than a step too large."""
        px = self.label_points * self.logicalDpiY() / 72 * scale  # the designed size on screen
        if px <= 0:
            return grow
        need = self.label_floor_px() / px
        cap = max(1.0, min(MAX_GROW, self.most_grow()))
        if need > cap:  # as far as it may: the step at or under the cap
            return max(1.0, math.floor(cap / GROW_STEP + 1e-9) * GROW_STEP)
        if need <= grow < need + GROW_STEP or (need <= 1.0 and grow == 1.0):
            return grow
        # a step over the need: the label column widens with the text and scales the drawing down a little
        return min(MAX_GROW, max(1.0, math.ceil(need / GROW_STEP + 1) * GROW_STEP))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()

    # ---- selection ----
    def selected_slots(self) -> list[int]:
        return sorted(i.slot for i in self.card_items.values() if i.isSelected())

    def select_slot(self, slot: int) -> None:
        self.scene().clearSelection()
        if slot in self.card_items:
            self.card_items[slot].setSelected(True)
            self.centerOn(self.card_items[slot])
        elif slot in self.slot_items:
            self.centerOn(self.slot_items[slot])
        self.keys.place_cursor(slot)

    def remove_selected(self) -> None:
        slots = self.selected_slots()
        if not slots:
            self.status.emit("Select a card to remove")
            return
        names = ", ".join(f"slot {s}" for s in slots)
        self.doc.edit(f"Remove card from {names}", partial(editing.remove_cards, slots=slots))

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        if event.reason() == event.Reason.Keyboard:
            self.menu_at_cursor()
        else:
            self._menu(self.card_under(self.mapToScene(event.pos())), event.globalPos())

    def menu_at_cursor(self) -> None:
        """The Menu key (or Shift+F10): the context menu at the keyboard cursor, for the card there."""
        slot = self.keys.cursor_slot
        if slot is not None and slot in self.slot_items:
            where = self.mapFromScene(self.slot_items[slot].rect().center())
            self._menu(self.card_items.get(slot), self.viewport().mapToGlobal(where))

    def _menu(self, item: CardItem | None, at: QPoint) -> None:
        if item is not None and not item.isSelected():
            self.scene().clearSelection()
            item.setSelected(True)
        menu = QMenu(self)
        for action in self.actions():
            menu.addAction(action)
        menu.exec(at)

    # ---- what the drops and the keys ask of the view (DropSurface, KeySurface) ----
    def say(self, text: str) -> None:
        self.status.emit(text)

    def scene_point(self, event: QDropEvent) -> QPointF:
        return self.mapToScene(event.position().toPoint())

    def card_under(self, scene_pos: QPointF) -> CardItem | None:
        return item_under(self.scene(), scene_pos, CardItem)

    def slot_under(self, scene_pos: QPointF) -> SlotItem | None:
        for item in self.slot_items.values():
            if item.rect().contains(scene_pos):
                return item
        card = self.card_under(scene_pos)
        return self.slot_items.get(card.slot) if card else None

    def bridge_under(self, scene_pos: QPointF) -> list[int] | None:
        """The slots of the NVLink bridge drawn under ``scene_pos`` (a job dropped there runs on the group)."""
        for item in self.scene().items(scene_pos):
            slots = item.data(0)
            if isinstance(slots, list):
                return slots
        return None

    def clear_selection(self) -> None:
        self.scene().clearSelection()

    def card_chosen(self, slot: int) -> None:
        """A card clicked or reached with the keyboard: announced as the selected card (``slot_selected``)."""
        self._choosing = slot
        try:
            self.slot_selected.emit(slot)
        finally:
            self._choosing = None

    def show_rect(self, rect: QRectF) -> None:
        self.ensureVisible(rect, 8, 8)

    # ---- events, passed on to the drops and the keys ----
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        self.drops.enter(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        self.drops.move(event)

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.drops.leave(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.drops.drop(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self.keys.key_press(event):
            super().keyPressEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.keys.focus_in(event)
        self.viewport().update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.keys.focus_out()
        self.viewport().update()

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        """A frame around the whole view while it has keyboard focus."""
        super().drawForeground(painter, rect)
        if self.hasFocus():
            painter.save()
            painter.resetTransform()
            painter.setPen(QPen(QColor(FOCUS), 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(self.viewport().rect()).adjusted(1, 1, -1, -1))
            painter.restore()

    # ---- dragging a placed card ----
    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press = event.position() if event.button() == Qt.MouseButton.LeftButton else None
        scene_pos = self.mapToScene(event.position().toPoint())
        item = self.card_under(scene_pos)
        if item is not None:
            self.card_chosen(item.slot)
        slot = self.slot_under(scene_pos)
        if slot is not None:
            self.keys.place_cursor(slot.slot)  # the keyboard carries on from where the mouse was
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._press is not None and drag_started(self._press, event.position()):
            item = self.card_under(self.mapToScene(self._press.toPoint()))
            if item is not None:
                self._press = None
                drag = QDrag(self)
                drag.setMimeData(slot_mime(item.slot, item.card.id))
                drag.exec(Qt.DropAction.MoveAction)
                return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._press = None
        super().mouseReleaseEvent(event)
