"""The card palette: every catalog card, filterable, dragged out by id; the chassis picker above it."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QKeyEvent
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.cards import CardSpec, short_card_name
from configurator.catalog.loader import Catalog
from configurator.present.colours import BRIDGE_EDGE, BRIDGE_FILL
from configurator.present.verdict import plural
from configurator.present.words import capacity_label, memory_label
from configurator.ui.base import MiddleElidedComboBox, ViewState, card_colour, hidpi_canvas
from configurator.ui.dnd import DragList, bridge_mime, card_mime

ID_ROLE = Qt.ItemDataRole.UserRole


def card_icon(card: CardSpec, size: int = 40) -> QIcon:
    """A drawn silhouette: a PCIe card with its bracket and fan openings, or a square SXM module."""
    pm, p = hidpi_canvas(size)
    colour = card_colour(card.id)
    p.setPen(colour.darker(150))
    p.setBrush(colour)
    if card.form_factor.kind == "sxm":
        p.drawRoundedRect(6, 6, size - 12, size - 12, 3, 3)
        p.setBrush(QColor("#D4AF37"))
        p.drawRect(size // 2 - 6, size // 2 - 6, 12, 12)
    else:
        p.drawRoundedRect(4, 12, size - 8, size - 22, 3, 3)
        p.setBrush(QColor("#B0B0B0"))
        p.drawRect(2, 10, 3, size - 18)  # bracket
        p.setBrush(QColor("#D4AF37"))
        p.drawRect(12, size - 10, size - 24, 3)  # edge connector
        if card.cooling.kind in ("flow-through", "blower"):
            p.setBrush(colour.darker(170))
            p.drawEllipse(size // 2 - 7, 16, 14, 14)
    p.end()
    return QIcon(pm)


def bridge_icon(size_cards: int, size: int = 40) -> QIcon:
    """An NVLink bridge seen from above: a bar over ``size_cards`` connector fingers."""
    pm, p = hidpi_canvas(size)
    p.setPen(QColor(BRIDGE_EDGE))
    p.setBrush(QColor(BRIDGE_FILL))
    p.drawRoundedRect(4, 13, size - 8, 10, 3, 3)
    p.setBrush(QColor("#D4AF37"))
    pitch = (size - 12) / size_cards
    for i in range(size_cards):
        p.drawRect(int(7 + i * pitch + pitch / 2 - 3), 24, 6, 5)
    p.end()
    return QIcon(pm)


UNKNOWN_CHASSIS = "unknown"  # the role marking the box's entry for a chassis id the catalog lacks


class BridgeList(DragList):
    """NVLink bridges by how many cards they join, dragged onto a card in the chassis."""

    def __init__(self, sizes: list[int], parent: QWidget | None = None) -> None:
        super().__init__(icon_px=40, spacing=2, drag_icon_px=40, parent=parent)
        for n in sizes:
            item = QListWidgetItem(bridge_icon(n), f"NVLink bridge, {n}-way")
            item.setData(ID_ROLE, n)
            item.setToolTip(
                f"Drag onto a card: joins it and its {plural(n - 1, 'identical neighbour')} side by side "
                "(the cards must take a bridge of this size). Enter, or B or Ctrl+B in the chassis, bridges the "
                "selected cards."
            )
            self.addItem(item)
        rows = max(len(sizes), 1)
        self.setFixedHeight(rows * (self.sizeHintForRow(0) + 4) + 6)

    def payload(self, item: QListWidgetItem) -> QMimeData:
        return bridge_mime(int(item.data(ID_ROLE)))


def card_summary(card: CardSpec, unit: str = "GB") -> str:
    nvlink = "NVLink" if card.nvlink else "no NVLink"
    power = card.power.tdp_w.value
    name = short_card_name(card.name, abbreviate=False)
    # the capacity in the demo's words too: the datasheet's figure, then what the driver shows (issue 15)
    capacity = capacity_label(card.memory_gb.require(f"{card.id} memory"), card.visible_gb, unit)
    return f"{name}\n{capacity}\n{power:.0f} W · {nvlink}"


class CardList(DragList):
    """A list that drags card ids, not widgets."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(icon_px=40, spacing=2, drag_icon_px=40, parent=parent)

    def payload(self, item: QListWidgetItem) -> QMimeData:
        return card_mime(item.data(ID_ROLE))


class FilterEdit(QLineEdit):
    """The palette's filter: Down (or Page Down) goes into the list below it, as in a search box."""

    down = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_PageDown) and not event.modifiers():
            self.down.emit()
            return
        super().keyPressEvent(event)


class Palette(QWidget):
    chassis_chosen = Signal(str)
    card_activated = Signal(str)  # Enter / double-click: place the card in the first slot that takes it
    bridge_activated = Signal(int)  # Enter / double-click on a bridge: bridge the selected cards

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(QLabel("<b>Chassis</b>"))
        # cut in the middle where the dock is narrow: "Generic HGX…8-GPU server", never "…8-GPU serv"
        self.chassis_box = MiddleElidedComboBox(min_chars=18)
        self.chassis_box.setAccessibleName("Chassis")
        for ch in catalog.chassis.values():
            self.chassis_box.addItem(ch.name, ch.id)
            self.chassis_box.setItemData(
                self.chassis_box.count() - 1, ch.note or ch.source, Qt.ItemDataRole.ToolTipRole
            )
        self.chassis_box.activated.connect(lambda i: self.chassis_chosen.emit(self.chassis_box.itemData(i)))
        layout.addWidget(self.chassis_box)
        layout.addWidget(QLabel("<b>Cards</b> <span style='color:gray'>(drag into a slot)</span>"))
        self.filter = FilterEdit()
        self.filter.setPlaceholderText("Filter cards…")
        self.filter.setClearButtonEnabled(True)
        self.filter.setAccessibleName("Filter cards")
        self.filter.textChanged.connect(self._apply_filter)
        self.filter.returnPressed.connect(self._place_first_match)  # Enter: as Enter on the first card shown
        self.filter.down.connect(self._enter_list)
        layout.addWidget(self.filter)
        self.cards = CardList()
        self.cards.setAccessibleName("Card palette")
        for card in catalog.cards.values():
            item = QListWidgetItem(card_icon(card), "")
            item.setData(ID_ROLE, card.id)
            self.cards.addItem(item)
        self.unit = ""
        self.set_unit("GB")
        self.cards.itemActivated.connect(lambda item: self.card_activated.emit(item.data(ID_ROLE)))
        layout.addWidget(self.cards, 1)
        sizes = sorted({n for c in catalog.cards.values() if c.nvlink and c.nvlink.fabric == "bridge"
                        for n in c.nvlink.bridge_sizes})  # fmt: skip
        layout.addWidget(QLabel("<b>Bridges</b> <span style='color:gray'>(drag onto a card)</span>"))
        self.bridges = BridgeList(sizes)
        self.bridges.setAccessibleName("Bridge palette")
        self.bridges.itemActivated.connect(lambda item: self.bridge_activated.emit(int(item.data(ID_ROLE))))
        layout.addWidget(self.bridges)

    def follow(self, view: ViewState) -> None:
        """The cards' memory in the view state's unit, as every chart's."""
        view.unit_changed.connect(self.set_unit)
        self.set_unit(view.unit)

    def set_unit(self, unit: str) -> None:
        """Write the cards' visible memory in ``unit``; the datasheet's figure stays the GB it is printed in
        (capacity_label)."""
        if unit == self.unit:
            return
        self.unit = unit
        for i in range(self.cards.count()):
            item = self.cards.item(i)
            card = self.catalog.cards[item.data(ID_ROLE)]
            item.setText(card_summary(card, unit))
            mig = f"MIG: up to {card.mig.max_instances} instances" if card.mig else "no MIG"
            item.setToolTip(
                f"<b>{card.name}</b><br>{card.memory_gb.value:.0f} GB {card.memory_type}, "
                f"{memory_label(card.visible_gb, unit)} visible<br>{card.memory_bandwidth_gb_s.value or 0:,.0f} "
                f"GB/s · BF16 {card.bf16_dense_tflops.value or 0:.0f} TFLOPS dense<br>{card.cooling.kind} · "
                f"{card.form_factor.kind.upper()} · {mig}<br><i>Drag into a slot, or press Enter: it goes into "
                "the first free slot that takes it</i>"
            )

    def set_chassis(self, chassis_id: str) -> None:
        """Show ``chassis_id`` in the box; one the catalog lacks (a build file's typo) is shown as itself, marked
        unknown, first in the list until the user chooses a known one (the Checks list says which exist)."""
        unknown = self.chassis_box.findData(UNKNOWN_CHASSIS, Qt.ItemDataRole.UserRole + 1)
        if unknown >= 0 and self.chassis_box.itemData(unknown) != chassis_id:
            self.chassis_box.removeItem(unknown)
            unknown = -1
        i = self.chassis_box.findData(chassis_id)
        if i < 0:
            self.chassis_box.insertItem(0, f"{chassis_id} (unknown chassis)", chassis_id)
            self.chassis_box.setItemData(0, UNKNOWN_CHASSIS, Qt.ItemDataRole.UserRole + 1)
            self.chassis_box.setItemData(0, f"'{chassis_id}' is not in the catalog: the build file names it. "
                                         "Choose a chassis from this list to replace it.", Qt.ItemDataRole.ToolTipRole)
            i = 0
        self.chassis_box.setCurrentIndex(i)

    def _apply_filter(self, text: str) -> None:
        """Cards whose name or id holds every word; where none does, cards whose whole text does (their figures
        and 'NVLink'): 'nvl' lists the NVL cards, not every card with an NVLink bridge, while 'nvlink' still finds
        those."""
        words = text.lower().split()
        items = [self.cards.item(i) for i in range(self.cards.count())]
        names = [(item.text().split("\n")[0] + " " + item.data(ID_ROLE)).lower() for item in items]
        by_name = [all(w in name for w in words) for name in names]
        if not any(by_name):
            by_name = [all(w in (item.text() + " " + item.data(ID_ROLE)).lower() for w in words) for item in items]
        for item, shown in zip(items, by_name, strict=True):
            item.setHidden(not shown)

    def _first_shown(self) -> QListWidgetItem | None:
        """The card Enter in the filter means: the list's current card if the filter left it shown, else the
        first card shown (the only one, when the filter narrows to one)."""
        current = self.cards.currentItem()
        if current is not None and not current.isHidden() and current.isSelected():
            return current
        for i in range(self.cards.count()):
            if not self.cards.item(i).isHidden():
                return self.cards.item(i)
        return None

    def _place_first_match(self) -> None:
        item = self._first_shown()
        if item is not None:
            self.cards.setCurrentItem(item)
            self.card_activated.emit(item.data(ID_ROLE))

    def _enter_list(self) -> None:
        """Down in the filter: the focus to the list, on the first card shown."""
        item = self._first_shown()
        if item is not None:
            self.cards.setCurrentItem(item)
        self.cards.setFocus(Qt.FocusReason.OtherFocusReason)

    def visible_ids(self) -> list[str]:
        return [
            self.cards.item(i).data(ID_ROLE) for i in range(self.cards.count()) if not self.cards.item(i).isHidden()
        ]
