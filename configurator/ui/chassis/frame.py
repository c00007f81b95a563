"""The chassis drawing's frame laid out at one type size: the heading, the slots with their labels and the airflow
arrow, every size measured from the fonts. The view draws it (ChassisView._build_chassis); its fit sizes it at
another type size without drawing it, so a resize rebuilds the scene at most once (it was rebuilt at each 5 % step).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSizeF
from PySide6.QtGui import QFont, QFontMetricsF

from configurator.catalog.chassis import ChassisSpec, SlotPosition
from configurator.present.verdict import plural
from configurator.present.words import PITCH_MM
from configurator.ui.chassis.items import MM
from configurator.ui.chassis.label import wrap

LABEL_W = 150.0  # the slot label column at the least (widened to the longest label)
TOP = 90.0  # the slots' top at the least: below the heading, which may take more lines (heading)
SXM_SIZE = 150.0
SXM_MARGIN = 10.0  # left of the sockets, where no slot label stands
SXM_GAP = 24.0  # between sockets in a row; widened to the socket labels on each redraw
SXM_UNDER = 70.0  # below a row of sockets, for their two-line labels; more where the labels are drawn larger
HEADING_POINTS = 24.0  # the chassis name, at the least: it stays larger than the slot labels when they grow
ARROW = "airflow →  front to rear"

Text = tuple[str, QFont, QPointF]  # words, type, top-left corner


def text_size(text: str, font: QFont) -> QSizeF:
    """The box a QGraphicsSimpleTextItem of ``text`` takes: its widest line across, and each line its font's height
    rounded up to a whole pixel, as the item lays it out."""
    metrics = QFontMetricsF(font)
    lines = text.split("\n")
    return QSizeF(max(metrics.horizontalAdvance(line) for line in lines), len(lines) * math.ceil(metrics.height()))


def slot_label(pos: SlotPosition) -> str:
    if pos.kind == "sxm":  # under a socket: short lines, so the sockets stay side by side
        return f"Slot {pos.slot} · SXM5\n{pos.root_label()}"
    # the link on the slot's line and the path to it below: the column is as wide as the longer of the two
    # (the link and the path on one line made it a third wider, and scaled the drawing down with it)
    return f"Slot {pos.slot} · Gen{pos.pcie_generation} x{pos.lanes}\n{pos.root_label()}"


@dataclass(frozen=True)
class Room:
    """Where the slots stand: the label column's width, the sockets' gap across and room under, the slots' top."""

    label_w: float = LABEL_W
    sxm_gap: float = SXM_GAP
    sxm_under: float = SXM_UNDER
    top: float = TOP

    def slot_rect(self, chassis: ChassisSpec, pos: SlotPosition) -> QRectF:
        if pos.kind == "sxm":
            col, row = pos.x % 4, pos.x // 4
            pitch = SXM_SIZE + self.sxm_gap, SXM_SIZE + self.sxm_under
            return QRectF(self.label_w + col * pitch[0], self.top + row * pitch[1], SXM_SIZE, SXM_SIZE)
        length = (chassis.max_card_length_mm.value or 312.0) * MM
        return QRectF(self.label_w, self.top + pos.x * PITCH_MM * MM, length, max(pos.max_width, 1) * PITCH_MM * MM)


@dataclass(frozen=True)
class Frame:
    """The frame at one type size: the room, the slot labels' type, the heading's texts, each slot's rectangle,
    label and the label's place, and the airflow arrow's place (None: a desk chassis)."""

    room: Room
    small: QFont
    heading: list[Text]
    slots: list[tuple[SlotPosition, QRectF, str, QPointF]]
    arrow: QPointF | None

    def extent(self) -> QRectF:
        """What the frame covers (the cards and bridges stand in its slots)."""
        rect = QRectF()
        boxes = [QRectF(at, text_size(text, font)) for text, font, at in self.heading]
        boxes += [r for _, r, _, _ in self.slots]
        boxes += [QRectF(at, text_size(text, self.small)) for _, _, text, at in self.slots]
        if self.arrow is not None:
            boxes.append(QRectF(self.arrow, text_size(ARROW, self.small)))
        for box in boxes:
            rect = rect.united(box)
        return rect


def chassis_line(chassis: ChassisSpec) -> str:
    """The line under the chassis name: sockets, power supplies, airflow and the longest card, parts joined by
    ' · ' (where it wraps)."""
    psu = chassis.psu
    watts = (
        f"{psu.units} × {psu.watts_each.value:,.0f} W" if psu.watts_each.value
        else f"{plural(psu.units, 'PSU')} (rating not published)"
    )  # fmt: skip
    red = f", {psu.redundant_units} redundant" if psu.redundant_units else ""
    airflow = "front-to-rear server fans" if chassis.airflow == "server" else "desk airflow (tower fans)"
    length = chassis.max_card_length_mm.value
    return (f"{plural(chassis.cpu_sockets, 'CPU socket')} · PSU {watts}{red} · {airflow}"
            + (f" · cards up to {length:.0f} mm" if length else ""))  # fmt: skip


def heading(chassis: ChassisSpec, small: QFont, width: float, grow: float, subtitle_points: float
            ) -> tuple[list[Text], float]:  # fmt: skip
    """The chassis name and the line under it, each wrapped to ``width`` (the drawing's, so the heading does not
    widen it: the line under the name was the widest thing drawn and set the scale); and their bottom."""
    f = QFont()
    # grown text: the name a quarter larger than the labels at the least (the designed sizes are left as they are)
    f.setPointSizeF(HEADING_POINTS if grow == 1.0 else max(HEADING_POINTS, 1.25 * small.pointSizeF()))
    f.setBold(True)
    name = "\n".join(wrap(chassis.name, " ", QFontMetricsF(f), width))
    sub_font = QFont(small)
    sub_font.setPointSizeF(subtitle_points * grow)
    sub = " ·\n".join(wrap(chassis_line(chassis), " · ", QFontMetricsF(sub_font), width))
    sub_y = max(40.0, text_size(name, f).height() + 4)
    return [(name, f, QPointF(0, 0)), (sub, sub_font, QPointF(0, sub_y))], sub_y + text_size(sub, sub_font).height()


def layout_frame(chassis: ChassisSpec, label_points: float, subtitle_points: float, grow: float,
                 with_heading: bool = True) -> Frame:  # fmt: skip
    """The frame with its text ``grow`` times its designed size (``label_points`` for the slot labels,
    ``subtitle_points`` for the line under the name). ``with_heading`` False: no heading, the slots at the top (the
    kiosk shows the heading over the drawing)."""
    small = QFont()
    small.setPointSizeF(label_points * grow)
    # the label column is as wide as the longest label (cascaded switches name two switches); SXM
    # sockets are spaced by their labels, which sit under them
    metrics = QFontMetricsF(small)
    widths = {p.slot: max(metrics.horizontalAdvance(line) for line in slot_label(p).split("\n"))
              for p in chassis.positions}  # fmt: skip
    widest = max((widths[p.slot] for p in chassis.positions if p.kind != "sxm"), default=None)
    # no column where every slot is a socket (their labels sit under them): it was a third of the drawing's
    # width, empty, and scaled the sockets and their labels down with it
    label_w = SXM_MARGIN if widest is None else max(LABEL_W, widest + 18)
    widest_sxm = max((widths[p.slot] for p in chassis.positions if p.kind == "sxm"), default=0.0)
    room = Room(label_w, max(SXM_GAP, widest_sxm + 16 - SXM_SIZE), max(SXM_UNDER, 2 * metrics.height() + 20), 0.0)
    # the slots' x and width do not depend on their top: the heading is wrapped to their extent, then they go
    # under it
    texts: list[Text] = []
    if with_heading:
        right = max((room.slot_rect(chassis, p).right() for p in chassis.positions), default=label_w)
        texts, bottom = heading(chassis, small, right + 40, grow, subtitle_points)  # a name 40 px wider: one line
        room = Room(room.label_w, room.sxm_gap, room.sxm_under, max(TOP, bottom + 24))
    slots = []
    for pos in sorted(chassis.positions, key=lambda p: p.x):
        rect = room.slot_rect(chassis, pos)
        at = QPointF(rect.left() + 2, rect.bottom() + 2) if pos.kind == "sxm" else QPointF(6, rect.top() + 4)
        slots.append((pos, rect, slot_label(pos), at))
    arrow = None
    if chassis.airflow == "server" and slots:
        lowest = max(r.bottom() for _, r, _, _ in slots)
        under = max(60.0, 2 * metrics.height() + 10)  # clear of the two-line labels under SXM sockets
        arrow = QPointF(room.label_w, lowest + (under if chassis.nvswitch else 30))
    return Frame(room, small, texts, slots, arrow)
