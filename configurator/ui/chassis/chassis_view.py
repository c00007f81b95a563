"""The chassis drawn to scale from its spec, with cards in their slots and bridges over them.

Drops carry a card id (from the palette) or a slot (a placed card being moved). While dragging, the
slot under the cursor turns green or red, and a refused drop says why through ``status``.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QDrag, QFont, QFontMetricsF, QKeySequence, QPainter, QPen
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
from configurator.engine import Build, BuildResult, editing
from configurator.present.colours import BRIDGE_EDGE, BRIDGE_FILL
from configurator.present.words import PITCH_MM
from configurator.ui.chassis.scene import drag_started, item_under
from configurator.ui.dnd import read_bridge, read_card, read_job, read_slot, slot_mime
from configurator.ui.shell import BuildDocument, card_colour

MM = 2.0  # scene pixels per millimetre
LABEL_W = 290.0
TOP = 90.0
SXM_SIZE = 150.0
ALLOWED = QColor(46, 125, 50, 90)
REFUSED = QColor(198, 40, 40, 90)


class SlotItem(QGraphicsRectItem):
    def __init__(self, pos: SlotPosition, rect: QRectF) -> None:
        super().__init__(rect)
        self.position = pos
        self.slot = pos.slot
        self.setPen(QPen(QColor("#9E9E9E"), 1, Qt.PenStyle.DashLine))
        self.setBrush(QBrush(QColor(0, 0, 0, 12)))
        self.setZValue(0)
        root = pos.root_label()
        self.setToolTip(f"Slot {pos.slot}: PCIe Gen{pos.pcie_generation} x{pos.lanes}, {root}"
                        + (f" ({pos.label})" if pos.label else ""))  # fmt: skip

    def highlight(self, colour: QColor | None) -> None:
        self.setBrush(QBrush(colour if colour else QColor(0, 0, 0, 12)))


class CardItem(QGraphicsRectItem):
    def __init__(self, slot: int, card: CardSpec, rect: QRectF, mig: list[str] | None) -> None:
        super().__init__(rect)
        self.slot, self.card = slot, card
        colour = card_colour(card.id)
        self.setBrush(QBrush(colour))
        self.setPen(QPen(colour.darker(160), 1.5))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsFocusable, True)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.setZValue(2)
        text = f"{card.name}\n{card.visible_gb:.1f} GB · {card.power.tdp_w.value or 0:.0f} W"
        if mig:
            text += f" · MIG {'+'.join(mig)}"
        label = QGraphicsSimpleTextItem(text, self)
        label.setBrush(QBrush(QColor("white")))
        font = QFont()
        font.setPointSizeF(15)
        font.setBold(True)
        label.setFont(font)
        fm_h = label.boundingRect().height()
        label.setPos(rect.left() + 10, rect.center().y() - fm_h / 2)
        if label.boundingRect().width() > rect.width() - 14:
            label.setScale((rect.width() - 14) / label.boundingRect().width())
        self.setToolTip(f"Slot {slot}: {card.name}. Drag to move; Delete removes it; select two with Ctrl "
                        "and press Ctrl+B to bridge.")  # fmt: skip

    def paint(self, painter: QPainter, option, widget=None) -> None:  # type: ignore[no-untyped-def, override]
        selected = self.isSelected()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(self.brush())
        painter.setPen(QPen(QColor("#FFD54F"), 3) if selected else self.pen())
        painter.drawRoundedRect(self.rect(), 5, 5)
        if self.card.form_factor.kind == "pcie":  # bracket at the rear
            painter.setBrush(QColor("#BDBDBD"))
            painter.setPen(Qt.PenStyle.NoPen)
            r = self.rect()
            painter.drawRect(QRectF(r.left() - 6, r.top(), 5, r.height()))


class ChassisView(QGraphicsView):
    status = Signal(str)
    slot_selected = Signal(int)

    def __init__(self, document: BuildDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self._label_w = LABEL_W  # widened to the longest slot label on each redraw
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setAcceptDrops(True)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setAccessibleName("Chassis view")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.slot_items: dict[int, SlotItem] = {}
        self.card_items: dict[int, CardItem] = {}
        self._overlay: list[QGraphicsItem] = []
        self._chassis_id: str | None = None
        self._press: QPointF | None = None
        self._highlighted: SlotItem | None = None
        self.ink = QColor("#222222")
        self._texts: list[QGraphicsSimpleTextItem] = []
        self.remove_action = QAction("Remove card", self)
        self.remove_action.setShortcut(QKeySequence.StandardKey.Delete)
        self.remove_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.remove_action.triggered.connect(self.remove_selected)
        self.addAction(self.remove_action)
        document.changed.connect(self.refresh)
        self.refresh(document.build, document.result)

    # ---- drawing ----
    def _geometry(self, chassis: ChassisSpec, pos: SlotPosition) -> QRectF:
        if pos.kind == "sxm":
            col, row = pos.x % 4, pos.x // 4
            return QRectF(self._label_w + col * (SXM_SIZE + 24), TOP + row * (SXM_SIZE + 40), SXM_SIZE, SXM_SIZE)
        length = (chassis.max_card_length_mm.value or 312.0) * MM
        return QRectF(self._label_w, TOP + pos.x * PITCH_MM * MM, length, max(pos.max_width, 1) * PITCH_MM * MM)

    def _card_rect(self, chassis: ChassisSpec, pos: SlotPosition, card: CardSpec) -> QRectF:
        slot_rect = self._geometry(chassis, pos)
        if pos.kind == "sxm" or card.form_factor.kind == "sxm":
            return slot_rect.adjusted(8, 8, -8, -8)
        width = max(int(card.form_factor.slot_width.value or 1), 1)
        length = (card.form_factor.length_mm.value or 267.0) * MM
        return QRectF(slot_rect.left() + 4, slot_rect.top() + 3, length, width * PITCH_MM * MM - 6)

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

    def _build_chassis(self, chassis: ChassisSpec) -> None:
        scene = self.scene()
        scene.clear()
        self._texts.clear()
        self.slot_items.clear()
        self.card_items.clear()
        self._overlay.clear()
        f = QFont()
        f.setPointSizeF(24)
        f.setBold(True)
        self._text(chassis.name, f).setPos(0, 0)
        psu = chassis.psu
        watts = (
            f"{psu.units} × {psu.watts_each.value:,.0f} W" if psu.watts_each.value else f"{psu.units} PSU (rating n/p)"
        )
        red = f", {psu.redundant_units} redundant" if psu.redundant_units else ""
        airflow = "front-to-rear server fans" if chassis.airflow == "server" else "desk airflow (tower fans)"
        small = QFont()
        small.setPointSizeF(16)
        length = chassis.max_card_length_mm.value
        sub = self._text(
            f"{chassis.cpu_sockets} CPU socket(s) · PSU {watts}{red} · {airflow}"
            + (f" · cards up to {length:.0f} mm" if length else ""),
            small,
        )
        sub.setPos(0, 40)

        def slot_label(pos: SlotPosition) -> str:
            if pos.kind == "sxm":  # under a 150 px socket: "SXM5 socket · CPU0 · plx0" ran into the next one
                return f"Slot {pos.slot} · SXM5\n{pos.root_label()}"
            return f"Slot {pos.slot}\nGen{pos.pcie_generation} x{pos.lanes} · {pos.root_label()}"

        # the label column is as wide as the longest label (cascaded switches name two switches)
        metrics = QFontMetricsF(small)
        widest = max((metrics.horizontalAdvance(line) for p in chassis.positions if p.kind != "sxm"
                      for line in slot_label(p).split("\n")), default=0.0)  # fmt: skip
        self._label_w = max(LABEL_W, widest + 18)
        for pos in sorted(chassis.positions, key=lambda p: p.x):
            rect = self._geometry(chassis, pos)
            item = SlotItem(pos, rect)
            scene.addItem(item)
            self.slot_items[pos.slot] = item
            label = self._text(slot_label(pos), small)
            if pos.kind == "sxm":
                label.setPos(rect.left() + 6, rect.bottom() + 2)
            else:
                label.setPos(6, rect.top() + 4)
        if chassis.airflow == "server":
            arrow = QGraphicsSimpleTextItem("airflow →  front to rear")
            arrow.setFont(small)
            arrow.setBrush(QBrush(QColor("#42A5F5")))
            bottom = max(i.rect().bottom() for i in self.slot_items.values())
            arrow.setPos(self._label_w, bottom + (60 if chassis.nvswitch else 30))
            scene.addItem(arrow)

    def refresh(self, build: Build, result: BuildResult) -> None:
        chassis = self.doc.catalog.chassis.get(build.chassis)
        if chassis is None:
            self.scene().clear()
            self.slot_items.clear()
            self.card_items.clear()
            self._chassis_id = None
            return
        new_chassis = chassis.id != self._chassis_id
        if new_chassis:
            self._build_chassis(chassis)
            self._chassis_id = chassis.id
        selected = {i.slot for i in self.card_items.values() if i.isSelected()}
        for item in self.card_items.values():
            self.scene().removeItem(item)
        self.card_items.clear()
        for item in self._overlay:
            self.scene().removeItem(item)
        self._overlay.clear()
        for placement in build.cards:
            card = self.doc.catalog.cards.get(placement.card)
            if card is None or placement.slot not in self.slot_items:
                continue
            pos = chassis.position(placement.slot)
            mig = [r.profile for r in placement.mig] if placement.mig else None
            item = CardItem(placement.slot, card, self._card_rect(chassis, pos, card), mig)
            self.scene().addItem(item)
            item.setSelected(placement.slot in selected)
            self.card_items[placement.slot] = item
        for bridge in build.bridges:
            items = [self.card_items[s] for s in bridge.slots if s in self.card_items]
            if len(items) < 2:
                continue
            top = min(i.rect().top() for i in items)
            bottom = max(i.rect().bottom() for i in items)
            right = min(i.rect().right() for i in items)
            bar = QGraphicsRectItem(QRectF(right - 70, top + 6, 22, bottom - top - 12))
            bar.setBrush(QBrush(QColor(BRIDGE_FILL)))
            bar.setPen(QPen(QColor(BRIDGE_EDGE), 1.5))
            bar.setZValue(3)
            bar.setToolTip(f"NVLink bridge over slots {bridge.slots}: drop a job here to run it on all of them")
            bar.setData(0, list(bridge.slots))
            self.scene().addItem(bar)
            text = QGraphicsSimpleTextItem(f"NVLink ×{len(items)}")
            text.setRotation(-90)
            text.setPos(right - 66, (top + bottom) / 2 + 30)
            text.setZValue(4)
            self.scene().addItem(text)
            self._overlay += [bar, text]
        if new_chassis:  # the drawing's extent is the chassis; re-fitting on every edit would repaint it all
            self.scene().setSceneRect(self.scene().itemsBoundingRect().adjusted(-10, -10, 10, 10))
            self.fit()

    def fit(self) -> None:
        self.fitInView(self.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self.fit()

    # ---- selection and keys ----
    def selected_slots(self) -> list[int]:
        return sorted(i.slot for i in self.card_items.values() if i.isSelected())

    def select_slot(self, slot: int) -> None:
        self.scene().clearSelection()
        if slot in self.card_items:
            self.card_items[slot].setSelected(True)
            self.centerOn(self.card_items[slot])
        elif slot in self.slot_items:
            self.centerOn(self.slot_items[slot])

    def remove_selected(self) -> None:
        slots = self.selected_slots()
        if not slots:
            self.status.emit("Select a card to remove")
            return
        names = ", ".join(f"slot {s}" for s in slots)
        self.doc.edit(f"Remove card from {names}", partial(editing.remove_cards, slots=slots))

    def contextMenuEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        item = self._card_at(self.mapToScene(event.pos()))
        if item is not None and not item.isSelected():
            self.scene().clearSelection()
            item.setSelected(True)
        menu = QMenu(self)
        for action in self.actions():
            menu.addAction(action)
        menu.exec(event.globalPos())

    # ---- dragging a placed card ----
    def _card_at(self, scene_pos: QPointF) -> CardItem | None:
        return item_under(self.scene(), scene_pos, CardItem)

    def _slot_at(self, scene_pos: QPointF) -> SlotItem | None:
        for item in self.slot_items.values():
            if item.rect().contains(scene_pos):
                return item
        card = self._card_at(scene_pos)
        return self.slot_items.get(card.slot) if card else None

    def mousePressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self._press = event.position() if event.button() == Qt.MouseButton.LeftButton else None
        item = self._card_at(self.mapToScene(event.position().toPoint()))
        if item is not None:
            self.slot_selected.emit(item.slot)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if drag_started(self._press, event.position()):
            item = self._card_at(self.mapToScene(self._press.toPoint()))
            if item is not None:
                self._press = None
                drag = QDrag(self)
                drag.setMimeData(slot_mime(item.slot, item.card.id))
                drag.exec(Qt.DropAction.MoveAction)
                return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self._press = None
        super().mouseReleaseEvent(event)

    # ---- drops ----
    def _drop_target(self, event) -> tuple[SlotItem | None, str | None]:  # type: ignore[no-untyped-def]
        card_id = read_card(event.mimeData())
        if card_id is None:
            return None, "not a card"
        slot_item = self._slot_at(self.mapToScene(event.position().toPoint()))
        if slot_item is None:
            return None, "drop the card onto a slot"
        moving = read_slot(event.mimeData())
        reason = editing.check_place(self.doc.build, self.doc.catalog, slot_item.slot, card_id, moving_from=moving)
        return slot_item, reason

    def _highlight(self, item: SlotItem | None, allowed: bool) -> None:
        if self._highlighted is not None and self._highlighted is not item:
            slot = self._highlighted.slot
            tint = None
            if slot in getattr(self, "_allowed", {}):
                tint = QColor(46, 125, 50, 35) if self._allowed[slot] else QColor(198, 40, 40, 30)
            self._highlighted.highlight(tint)
        self._highlighted = item
        if item is not None:
            item.highlight(ALLOWED if allowed else REFUSED)

    def _bridge_target(self, event) -> tuple[list[int] | None, str | None]:  # type: ignore[no-untyped-def]
        """(slots the dragged bridge would join, refusal reason) at the pointer."""
        size = read_bridge(event.mimeData())
        card = self._card_at(self.mapToScene(event.position().toPoint()))
        if size is None or card is None:
            return None, "drop the bridge onto a card"
        return editing.bridge_group_for(self.doc.build, self.doc.catalog, card.slot, size)

    def _show_bridge_target(self, slots: list[int] | None) -> None:
        for slot, item in self.slot_items.items():
            item.highlight(ALLOWED if slots and slot in slots else None)

    def dragEnterEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if read_bridge(event.mimeData()) is not None:
            event.acceptProposedAction()
            return
        card_id = read_card(event.mimeData())
        if card_id is None:
            if read_job(event.mimeData()) is not None:  # a job from the jobs panel: assign it to a card
                event.acceptProposedAction()
            else:
                event.ignore()
            return
        # Tint every slot: pale green where the card may go, pale red where it may not.
        moving = read_slot(event.mimeData())
        self._allowed = {
            slot: editing.check_place(self.doc.build, self.doc.catalog, slot, card_id, moving_from=moving) is None
            for slot in self.slot_items
        }
        for slot, item in self.slot_items.items():
            item.highlight(QColor(46, 125, 50, 35) if self._allowed[slot] else QColor(198, 40, 40, 30))
        event.acceptProposedAction()

    def _clear_tints(self) -> None:
        self._allowed = {}
        self._highlighted = None
        for item in self.slot_items.values():
            item.highlight(None)

    def _bridge_at(self, scene_pos: QPointF) -> list[int] | None:
        """The slots of the NVLink bridge drawn under ``scene_pos`` (a job dropped there runs on the group)."""
        for item in self.scene().items(scene_pos):
            slots = item.data(0)
            if isinstance(slots, list):
                return slots
        return None

    def _job_target(self, event) -> tuple[int | None, str | None]:  # type: ignore[no-untyped-def]
        """(slot, refusal reason) for a job dragged over the view."""
        name = read_job(event.mimeData())
        if name is not None and self.doc.build.job_index(name) is None:
            return None, f"this build has no job called '{name}'"
        group = self._bridge_at(self.mapToScene(event.position().toPoint()))
        if group:
            return group[0], None
        card = self._card_at(self.mapToScene(event.position().toPoint()))
        if card is None:
            return None, "drop the job onto a card"
        placement = self.doc.build.card_in(card.slot)
        if placement is not None and placement.mig:
            return card.slot, f"slot {card.slot} is split into MIG instances: use the MIG editor to place the job"
        return card.slot, None

    def dragMoveEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if read_bridge(event.mimeData()) is not None:
            slots, reason = self._bridge_target(event)
            self._show_bridge_target(slots)
            if slots:
                self.status.emit(f"Bridge slots {', '.join(map(str, slots))}")
                event.acceptProposedAction()
            else:
                self.status.emit(f"Cannot bridge here: {reason}")
                event.ignore()
            return
        if read_job(event.mimeData()) is not None and read_card(event.mimeData()) is None:
            slot, reason = self._job_target(event)
            self._highlight(self.slot_items.get(slot) if slot else None, reason is None)
            if reason is None:
                group = self._bridge_at(self.mapToScene(event.position().toPoint()))
                self.status.emit(f"Run the job on bridged slots {group}" if group else
                                 f"Run the job on slot {slot} (Ctrl: add this card to the job)")  # fmt: skip
                event.acceptProposedAction()
            else:
                self.status.emit(f"Cannot drop here: {reason}")
                event.ignore()
            return
        item, reason = self._drop_target(event)
        self._highlight(item, reason is None)
        if item is not None and reason is None:
            self.status.emit(f"Drop into slot {item.slot}")
            event.acceptProposedAction()
        else:
            if item is not None and reason:
                self.status.emit(f"Cannot drop here: {reason}")
            event.ignore()

    def dragLeaveEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self._clear_tints()
        super().dragLeaveEvent(event)

    def _drop_job(self, event) -> None:  # type: ignore[no-untyped-def]
        dragged = read_job(event.mimeData())
        index = self.doc.build.job_index(dragged) if dragged is not None else None
        slot, reason = self._job_target(event)
        self._clear_tints()
        if index is None or slot is None or reason is not None:
            self.status.emit(f"Cannot drop here: {reason}" if reason else "Drop the job onto a card")
            event.ignore()
            return
        add = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        name = self.doc.build.jobs[index].name
        group = self._bridge_at(self.mapToScene(event.position().toPoint()))
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

    def _drop_bridge(self, event) -> None:  # type: ignore[no-untyped-def]
        slots, reason = self._bridge_target(event)
        self._clear_tints()
        if not slots:
            self.status.emit(f"Cannot bridge here: {reason}")
            event.ignore()
            return
        text = f"Bridge slots {', '.join(map(str, slots))}"
        if self.doc.edit(text, partial(editing.add_bridge, catalog=self.doc.catalog, slots=slots)):
            self.status.emit(text)
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if read_bridge(event.mimeData()) is not None:
            self._drop_bridge(event)
            return
        if read_job(event.mimeData()) is not None and read_card(event.mimeData()) is None:
            self._drop_job(event)
            return
        item, reason = self._drop_target(event)
        self._clear_tints()
        if item is None or reason is not None:
            self.status.emit(f"Cannot drop here: {reason}" if reason else "Drop the card onto a slot")
            event.ignore()
            return
        card_id = read_card(event.mimeData())
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
            self.status.emit(f"{name} in slot {item.slot}")
            event.acceptProposedAction()
        else:
            event.ignore()
