"""The chassis drawing's items: slots, cards (their label laid out inside the card), NVLink bridges and the
keyboard cursor's frame. Sizes are scene pixels (``MM`` per millimetre); the view scales the scene to fit."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QStyleOptionGraphicsItem, QWidget

from configurator.catalog.cards import CardSpec, short_card_name
from configurator.catalog.chassis import SlotPosition
from configurator.present.colours import BRIDGE_EDGE, BRIDGE_FILL, FOCUS, SELECTED, SEVERITY_COLOUR, card_ink_hex
from configurator.present.words import memory_label
from configurator.ui.base import card_colour
from configurator.ui.chassis.label import CARD_FONT_PX, Piece, bold_px, layout, mig_words

MM = 2.0  # scene pixels per millimetre
ALLOWED = QColor(46, 125, 50, 90)
REFUSED = QColor(198, 40, 40, 90)
ALLOWED_PALE = QColor(46, 125, 50, 35)
REFUSED_PALE = QColor(198, 40, 40, 30)
KEYS_HINT = ("Arrows: move between slots · Shift+arrow: add the next card to the selection · Space: select · "
             "Ctrl+arrow: move the card · B or Ctrl+B: bridge · Delete: remove · Menu key: actions")  # fmt: skip


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
                        + (f" ({pos.label})" if pos.label else "") + f"\n{KEYS_HINT}")  # fmt: skip

    def highlight(self, colour: QColor | None) -> None:
        self.setBrush(QBrush(colour if colour else QColor(0, 0, 0, 12)))


class CardItem(QGraphicsRectItem):
    """A placed card: its fill by family, its name, memory and power (and MIG layout) written inside it at
    the largest size that fits (label.layout)."""

    def __init__(self, slot: int, card: CardSpec, rect: QRectF, mig: list[str] | None, bridge_left: float | None = None,
                 min_px: int = CARD_FONT_PX[1], unit: str = "GB") -> None:  # fmt: skip
        super().__init__(rect)
        # bridge_left: the scene x where the NVLink bar over this card starts (None: no bar). The bar stands a
        # fixed inset from the shortest bridged card's end, so on a longer card it sits further in than its own end
        self.slot, self.card, self.bridge_left = slot, card, bridge_left
        self.bridged = bridge_left is not None
        self._drawn = (card.id, rect.getRect(), tuple(mig or ()), bridge_left, unit)
        colour = card_colour(card.id)
        self.ink = QColor(card_ink_hex(card.id))
        self.setBrush(QBrush(colour))
        self.setPen(QPen(colour.darker(160), 1.5))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsFocusable, True)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.setZValue(2)
        memory = memory_label(card.visible_gb, unit)  # the view's unit
        figures = f"{memory} · {card.power.tdp_w.value or 0:.0f} W"
        self.texts = [card.name, figures] + ([mig_words(mig)] if mig else [])
        self.memory = memory
        self.min_px = min_px  # the label's smallest size in scene pixels (ChassisView.fit: legible on screen)
        self.lines, self.font = self._layout()
        layout = f"\nMIG: {' + '.join(mig)}" if mig else ""
        self.setToolTip(f"Slot {slot}: {card.name}, {figures}{layout}\nDrag or Ctrl+arrow to move it; Delete "
                        "removes it; Shift+arrow adds a neighbour to the selection, B or Ctrl+B bridges.")  # fmt: skip

    def set_min_px(self, px: int) -> None:
        """Lay the label out again with ``px`` as its smallest size (the view's scale changed)."""
        if px != self.min_px:
            self.min_px = px
            self.lines, self.font = self._layout()
            self.update()

    def drawn_as(self, card: CardSpec, rect: QRectF, mig: list[str] | None, bridge_left: float | None,
                 unit: str = "GB") -> bool:  # fmt: skip
        """Whether this item already draws that card there, so a redraw can keep it."""
        return self._drawn == (card.id, rect.getRect(), tuple(mig or ()), bridge_left, unit)

    def text_rect(self) -> QRectF:
        """Where the label goes: inside the card, left of the NVLink bridge bar when the card has one (the
        bar's own left edge, not this card's end: 'Workstation Edition' ran under the bar on a longer card)."""
        box = self.rect().adjusted(10, 2, -8, -2)  # two lines of 30 px (9 px on screen at 1024x768) in 75 px
        if self.bridge_left is not None:
            box.setRight(min(box.right(), self.bridge_left - 4))
        return box

    def _layout(self) -> tuple[list[str], QFont]:
        names = dict.fromkeys([self.card.name, short_card_name(self.card.name, abbreviate=False),
                               short_card_name(self.card.name)])  # fmt: skip
        rest: list[Piece] = [(t, ", " if t.startswith("MIG ") else " · ") for t in self.texts[1:]]
        joined: list[Piece] = [(" · ".join(self.texts[1:]), " · ")]  # the MIG layout after the figures
        variants = [[(name, " "), *tail] for name in names for tail in ([rest, joined] if len(rest) > 1 else [rest])]
        # where none fits (a drawing scaled to 0.3 at 1024x768 leaves one line): fewer words, the figures kept
        # ('RTX PRO 6000 Server · 10…' cut the capacity): the MIG layout dropped (the MIG tab and the tooltip have
        # it), then the power, then the name's model words alone, then the capacity first
        short = short_card_name(self.card.name)
        model = " ".join(short.split()[:3])  # 'RTX PRO 6000', 'H100 SXM 80GB'
        fallbacks: list[list[Piece]] = [
            [(short, " "), (self.texts[1], " · ")],
            [(short, " "), (self.memory, " ")],
            [(f"{short} · {self.memory}", " · ")],
            [(f"{model} · {self.memory}", " · ")],
            [(f"{self.memory} · {model}", " · ")],
        ]
        return layout(variants, self.text_rect(), self.min_px, fallbacks)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(self.brush())
        r = self.rect()
        if self.isSelected():  # a light ring with a dark line inside: visible on every fill and canvas
            painter.setPen(QPen(QColor(SELECTED), 6))
            painter.drawRoundedRect(r, 5, 5)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(QColor("#111111"), 1.5))
            painter.drawRoundedRect(r.adjusted(3, 3, -3, -3), 3, 3)
        else:
            painter.setPen(self.pen())
            painter.drawRoundedRect(r, 5, 5)
        if self.card.form_factor.kind == "pcie":  # bracket at the rear
            painter.setBrush(QColor("#BDBDBD"))
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawRect(QRectF(r.left() - 6, r.top(), 5, r.height()))
        painter.setFont(self.font)
        painter.setPen(self.ink)
        box = self.text_rect()
        spacing = QFontMetricsF(self.font).lineSpacing()
        top = box.center().y() - spacing * len(self.lines) / 2
        for i, line in enumerate(self.lines):
            painter.drawText(QRectF(box.left(), top + i * spacing, box.width(), spacing),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)  # fmt: skip


class BridgeItem(QGraphicsRectItem):
    """The NVLink bridge over ``slots``: a bar across the cards with 'NVLink ×n' written along it, large
    enough to read when the chassis is scaled down to a laptop's window (issue 15: it was 9 pt)."""

    WIDTH = 30.0
    INSET = 80.0  # the bar's left edge, from the cards' right end
    FONT_PX = 22.0

    @classmethod
    def left_for(cls, right: float) -> float:
        """The bar's left edge for bridged cards whose shortest ends at ``right``."""
        return right - cls.INSET

    def __init__(self, slots: list[int], top: float, bottom: float, right: float, links: int | None = None) -> None:
        super().__init__(QRectF(self.left_for(right), top + 6, self.WIDTH, bottom - top - 12))
        self.slots = list(slots)
        self.text = f"NVLink ×{len(slots)}"
        self.setBrush(QBrush(QColor(BRIDGE_FILL)))
        self.setPen(QPen(QColor(BRIDGE_EDGE), 1.5))
        self.setZValue(3)
        # '×2' counts the cards the bridge joins; the Topology tab (nvidia-smi topo -m) names the same bridge 'NV18',
        # the NVLink links between each pair (catalog NvlinkSpec.links): one sentence says both
        where = ", ".join(str(s) for s in self.slots[:-1]) + f" and {self.slots[-1]}"
        seen = (f" nvidia-smi topo -m and the Topology tab show each pair as NV{links}: the {links} NVLink links "
                "between them." if links else "")  # fmt: skip
        self.setToolTip(f"NVLink bridge joining the {len(self.slots)} cards in slots {where} (×{len(self.slots)}: "
                        f"the cards it joins).{seen}\nDrop a job here to run it on all of them.")  # fmt: skip
        self.setData(0, self.slots)  # the view finds a bridge under the pointer by this
        length = self.rect().height() - 8
        width = QFontMetricsF(bold_px(self.FONT_PX)).horizontalAdvance(self.text)
        self.font = bold_px(self.FONT_PX * min(1.0, length / max(width, 1.0)))

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        super().paint(painter, option, widget)
        r = self.rect()
        painter.save()
        painter.translate(r.center())
        painter.rotate(-90)
        painter.setFont(self.font)
        painter.setPen(QColor("#111111"))  # on the amber bar: 11:1
        painter.drawText(QRectF(-r.height() / 2, -r.width() / 2, r.height(), r.width()),
                         Qt.AlignmentFlag.AlignCenter, self.text)  # fmt: skip
        painter.restore()


class FocusFrame(QGraphicsRectItem):
    """The keyboard cursor: a frame around the slot it is on, shown while the chassis view has focus."""

    def __init__(self) -> None:
        super().__init__()
        self.setPen(QPen(QColor(FOCUS), 4))
        self.setBrush(Qt.BrushStyle.NoBrush)
        self.setZValue(5)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setVisible(False)

    def around(self, rect: QRectF) -> None:
        self.setRect(rect.adjusted(-3, -3, 3, 3))


class ProblemSlotItem(QGraphicsRectItem):
    """A slot with a problem the engine found, drawn where it is: a card id the catalog lacks (a placeholder the
    user can select and remove, or replace after removing) or a slot a job names that holds no card. Dashed red
    over the slot, its words centred and shrunk to fit the slot's width: an id is never broken."""

    def __init__(self, slot: int, rect: QRectF, lines: list[str], tooltip: str, removable: bool,
                 ink: str = SEVERITY_COLOUR["error"]) -> None:  # fmt: skip
        super().__init__(rect)
        self.slot, self.lines, self.removable = slot, lines, removable
        self.ink = QColor(ink)  # the checks list's error red of the theme (present.colours)
        self.setPen(QPen(self.ink, 2.5, Qt.PenStyle.DashLine))
        self.setBrush(QBrush(QColor(198, 40, 40, 28)))
        self.setZValue(3)
        self.setToolTip(tooltip)
        if removable:
            self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)

    def label_font(self) -> QFont:
        """The largest of 16 .. 6 scene px at which every line fits the slot's width."""
        font = QFont()
        room = self.rect().width() - 8
        for px in range(16, 5, -1):
            font.setPixelSize(px)
            metrics = QFontMetricsF(font)
            if all(metrics.horizontalAdvance(line) <= room for line in self.lines):
                break
        return font

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        pen = QPen(self.pen())
        if self.isSelected():
            pen.setColor(QColor(SELECTED))
            pen.setStyle(Qt.PenStyle.SolidLine)
        painter.setPen(pen)
        painter.setBrush(self.brush())
        painter.drawRect(self.rect())
        font = self.label_font()
        painter.setFont(font)
        painter.setPen(self.ink)
        height = QFontMetricsF(font).height()
        top = self.rect().center().y() - height * len(self.lines) / 2
        for i, line in enumerate(self.lines):
            row = QRectF(self.rect().left(), top + i * height, self.rect().width(), height)
            painter.drawText(row, int(Qt.AlignmentFlag.AlignCenter), line)
