"""Vector figures for the build sheet, painted with QPainter straight into the PDF (no rasters).

Every number drawn comes from the engine's result; the drawing code only places it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen

from configurator.catalog.chassis import ChassisSpec, SlotPosition
from configurator.catalog.loader import Catalog
from configurator.engine import Build
from configurator.engine.model.result import CardMemory, JobResult
from configurator.present.colours import (
    BRIDGE_EDGE,
    BRIDGE_FILL,
    COMPONENTS,
    STATUS_INK,
    card_colour_hex,
    card_ink_hex,
)
from configurator.present.memory_words import at_peak
from configurator.present.rl_words import capacity_legend
from configurator.present.verdict import colocated_share
from configurator.present.words import PITCH_MM, headroom_label, mig_words


def _finite(v: float) -> float:
    """A drawable value: NaN and negative sizes draw as 0, infinity as the largest float."""
    if v != v or v < 0:  # NaN
        return 0.0
    return min(v, 1e300)


def axis_step(top: float, ticks: int = 6) -> float:
    """A 1-2-2.5-5 x 10^k grid step giving at most ``ticks`` intervals up to ``top``, for any magnitude.

    Any positive finite ``top`` has one: the decade is computed (log10), not searched in a fixed list.
    """
    if not math.isfinite(top) or top <= 0:
        return 1.0
    decade = 10.0 ** math.floor(math.log10(top / ticks))
    for m in (1, 2, 2.5, 5, 10):
        if top / (m * decade) <= ticks:
            return m * decade
    return 10 * decade


def _font(painter: QPainter, size_pt: float, bold: bool = False) -> None:
    """A font of ``size_pt`` on paper: the device resolves points, so undo the painter's own scale."""
    f = QFont(painter.font())
    f.setPointSizeF(size_pt / max(abs(painter.worldTransform().m11()), 1e-6))
    f.setBold(bold)
    painter.setFont(f)


TILE_FLAGS = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap


def _fit_text(painter: QPainter, box: QRectF, text: str, size_pt: float = 7.5, smallest_pt: float = 5.0) -> float:
    """``text`` drawn wrapped in ``box`` in bold at the largest size from ``size_pt`` down to ``smallest_pt`` at
    which it fits (a MIG card's tile ran its third line past the card's edge); returns the size used."""
    size = size_pt
    while True:
        _font(painter, size, bold=True)
        need = painter.boundingRect(box, TILE_FLAGS, text)
        if (need.height() <= box.height() and need.width() <= box.width()) or size <= smallest_pt:
            break
        size -= 0.5
    painter.drawText(box, TILE_FLAGS, text)
    return size


def card_colour(card_id: str) -> QColor:
    """A stable colour per card family (present.colours)."""
    return QColor(card_colour_hex(card_id))


@dataclass(frozen=True)
class _ChassisScale:
    """Where the chassis drawing puts things: a label column, then SXM modules in a 4-wide grid of ``cell``
    or PCIe slots to scale (``scale`` drawing units per mm)."""

    rect: QRectF
    label_w: float
    sxm: bool
    length_mm: float
    cell: float = 0.0
    scale: float = 0.0

    def slot_rect(self, pos: SlotPosition) -> QRectF:
        rect = self.rect
        if self.sxm:
            c, r = pos.x % 4, pos.x // 4
            return QRectF(rect.left() + self.label_w + c * self.cell, rect.top() + r * self.cell, self.cell * 0.92,
                          self.cell * 0.85)  # fmt: skip
        return QRectF(rect.left() + self.label_w, rect.top() + pos.x * PITCH_MM * self.scale,
                      self.length_mm * self.scale, max(pos.max_width, 1) * PITCH_MM * self.scale)  # fmt: skip


def _chassis_scale(rect: QRectF, chassis: ChassisSpec) -> _ChassisScale:
    """Fit the chassis's positions into ``rect`` beside a label column."""
    label_w = rect.width() * 0.22
    sxm = any(p.kind == "sxm" for p in chassis.positions)
    max_x = max(p.x + max(p.max_width, 1) for p in chassis.positions)
    length_mm = chassis.max_card_length_mm.value or 312.0
    if sxm:
        cols, rows = 4, (max_x + 3) // 4
        cell = min((rect.width() - label_w) / cols, rect.height() / rows)
        return _ChassisScale(rect, label_w, sxm, length_mm, cell=cell)
    scale = min((rect.width() - label_w) / length_mm, rect.height() / (max_x * PITCH_MM))
    return _ChassisScale(rect, label_w, sxm, length_mm, scale=scale)


def _draw_slots(painter: QPainter, lay: _ChassisScale, chassis: ChassisSpec, ink: QColor) -> None:
    """Every GPU position, dashed, with its slot number, link and PCIe root."""
    rect, label_w, sxm = lay.rect, lay.label_w, lay.sxm
    for pos in chassis.positions:
        r = lay.slot_rect(pos)
        painter.setPen(QPen(QColor("#9E9E9E"), 0.8, Qt.PenStyle.DashLine))
        painter.setBrush(QBrush(QColor("#F5F5F5")))
        painter.drawRect(r)
        painter.setPen(ink)
        _font(painter, 6.5)
        root = pos.root_label(" ")
        kind = "SXM5" if pos.kind == "sxm" else f"Gen{pos.pcie_generation} x{pos.lanes}"
        if sxm:
            painter.drawText(QRectF(r.left(), r.bottom(), r.width(), 12), Qt.AlignmentFlag.AlignLeft,
                             f"Slot {pos.slot} · {root}")  # fmt: skip
        else:
            painter.drawText(QRectF(rect.left(), r.top(), label_w - 4, r.height()),
                             Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                             f"Slot {pos.slot}\n{kind} · {root}")  # fmt: skip


def _draw_cards(
    painter: QPainter, lay: _ChassisScale, build: Build, catalog: Catalog, chassis: ChassisSpec
) -> dict[int, QRectF]:
    """Each card in its slot at its real length and width (PCIe) or filling the module (SXM); their rects."""
    card_rects: dict[int, QRectF] = {}
    for placement in build.cards:
        card = catalog.cards.get(placement.card)
        if card is None:
            continue
        try:
            pos = chassis.position(placement.slot)
        except KeyError:
            continue
        r = lay.slot_rect(pos)
        if not lay.sxm and card.form_factor.kind == "pcie":
            width = max(int(card.form_factor.slot_width.value or 1), 1)
            r = QRectF(r.left() + 1.5, r.top() + 1, (card.form_factor.length_mm.value or 267.0) * lay.scale,
                       width * PITCH_MM * lay.scale - 2)  # fmt: skip
        else:
            r = r.adjusted(3, 3, -3, -3)
        card_rects[placement.slot] = r
        colour = card_colour(card.id)
        painter.setPen(QPen(colour.darker(160), 0.8))
        painter.setBrush(colour)
        painter.drawRoundedRect(r, 2, 2)
        painter.setPen(QColor(card_ink_hex(card.id)))  # near-black on NVIDIA green: white was 2.4:1
        text = f"{card.name.removeprefix('NVIDIA ')}\n{card.visible_gb:.1f} GB · {card.power.tdp_w.value or 0:.0f} W"
        if placement.mig:
            text += f" · {mig_words([m.profile for m in placement.mig])}"  # 'MIG 4 × 1g.24gb'
        _fit_text(painter, r.adjusted(4, 0, -4, 0), text)
    return card_rects


def draw_chassis(painter: QPainter, rect: QRectF, build: Build, catalog: Catalog) -> None:
    """The chassis to scale: slot positions with their PCIe roots, cards at their real width, bridges."""
    chassis = catalog.chassis.get(build.chassis)
    if chassis is None:
        return
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    lay = _chassis_scale(rect, chassis)
    _draw_slots(painter, lay, chassis, QColor("#222222"))
    card_rects = _draw_cards(painter, lay, build, catalog, chassis)
    for bridge in build.bridges:
        rs = [card_rects[s] for s in bridge.slots if s in card_rects]
        if len(rs) < 2:
            continue
        top, bottom, right = min(r.top() for r in rs), max(r.bottom() for r in rs), min(r.right() for r in rs)
        bar = QRectF(right - 22, top + 2, 9, bottom - top - 4)
        painter.setPen(QPen(QColor(BRIDGE_EDGE), 0.8))
        painter.setBrush(QColor(BRIDGE_FILL))
        painter.drawRect(bar)
    painter.restore()


def _y(plot: QRectF, top: float, v: float) -> float:
    """The plot's y for ``v`` GB on an axis from 0 to ``top``."""
    return plot.bottom() - v / top * plot.height()


def _draw_legend(painter: QPainter, rect: QRectF, axis_w: float, ink: QColor, capacity: str) -> None:
    """One swatch and label per memory component, then the capacity line's (``capacity``: its label)."""
    x = rect.left() + axis_w
    for _, label, colour in [*COMPONENTS, ("", capacity, "#212121")]:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawRect(QRectF(x, rect.top() + 3, 7, 7))
        painter.setPen(ink)
        painter.drawText(QPointF(x + 9, rect.top() + 9.5), label)
        x += 11 + painter.fontMetrics().horizontalAdvance(label) + 6


def _draw_axis(painter: QPainter, rect: QRectF, plot: QRectF, axis_w: float, top: float, ink: QColor) -> None:
    """The GB axis: its lines, gridlines at :func:`axis_step` and the rotated unit label."""
    step = axis_step(top)
    painter.setPen(QPen(QColor("#888888"), 0.5))
    painter.drawLine(QPointF(plot.left(), plot.top()), QPointF(plot.left(), plot.bottom()))
    painter.drawLine(QPointF(plot.left(), plot.bottom()), QPointF(plot.right(), plot.bottom()))
    for i in range(int(top / step) + 1):  # at most 6 gridlines (axis_step), whatever the magnitude
        v = i * step
        painter.setPen(QPen(QColor("#DDDDDD"), 0.3))
        painter.drawLine(QPointF(plot.left(), _y(plot, top, v)), QPointF(plot.right(), _y(plot, top, v)))
        painter.setPen(ink)
        painter.drawText(QRectF(rect.left(), _y(plot, top, v) - 5, axis_w - 3, 10), Qt.AlignmentFlag.AlignRight,
                         f"{v:g}")  # fmt: skip
    painter.save()
    painter.translate(rect.left() + 6, plot.center().y())
    painter.rotate(-90)
    painter.drawText(QRectF(-40, -6, 80, 10), Qt.AlignmentFlag.AlignCenter, "GB (10^9 bytes)")
    painter.restore()


def _draw_bar(painter: QPainter, plot: QRectF, top: float, cx: float, slot_w: float, r: CardMemory,
              ink: QColor) -> None:  # fmt: skip
    """One card's stacked memory, its capacity line, its headroom above and its slot and card below. The stack is
    what is alive at the card's peak (``at_peak``), so its top is the peak reserved the headroom is measured from
    (each kind's largest over the run, stacked, stood above it: 90.8 against 89.2 GB in the default build)."""
    bar_w = min(slot_w * 0.55, 60)
    base = 0.0
    for key, _, colour in COMPONENTS:
        h = _finite(at_peak(r, key))
        if h > 0:
            painter.setPen(QPen(QColor("white"), 0.3))
            painter.setBrush(QColor(colour))
            painter.drawRect(QRectF(cx - bar_w / 2, _y(plot, top, base + h), bar_w,
                                    _y(plot, top, base) - _y(plot, top, base + h)))  # fmt: skip
        base += h
    painter.setPen(QPen(QColor("#212121"), 1.2))
    cap = _finite(r.capacity_gb)
    painter.drawLine(QPointF(cx - bar_w * 0.8, _y(plot, top, cap)), QPointF(cx + bar_w * 0.8, _y(plot, top, cap)))
    colour = STATUS_INK.get(r.status, STATUS_INK["unknown"])
    painter.setPen(QColor(colour))
    _font(painter, 6.5, bold=True)
    text = headroom_label(r.headroom_gb, r.fits)
    painter.drawText(QRectF(cx - 40, _y(plot, top, max(base, cap)) - 11, 80, 10), Qt.AlignmentFlag.AlignCenter,
                     text)  # fmt: skip
    painter.setPen(ink)
    _font(painter, 6)
    where = f"slot {r.slot}" + (f" {r.mig}#{r.instance}" if r.mig else "")
    painter.drawText(QRectF(cx - slot_w / 2, plot.bottom() + 2, slot_w, 10), Qt.AlignmentFlag.AlignCenter, where)
    painter.drawText(QRectF(cx - slot_w / 2, plot.bottom() + 11, slot_w, 10), Qt.AlignmentFlag.AlignCenter,
                     r.card_name.removeprefix("NVIDIA "))  # fmt: skip


def draw_headroom(painter: QPainter, rect: QRectF, job: JobResult) -> None:
    """Stacked memory per card against its capacity line, headroom written on each bar (GB); the line's label says
    where a colocated vLLM leaves the training less than the card (rl_words.capacity_legend)."""
    rows: list[CardMemory] = job.cards
    capacity = capacity_legend(colocated_share(job))
    if not rows:
        return
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    legend_h, axis_w, bottom_h = 14.0, 34.0, 22.0
    plot = QRectF(rect.left() + axis_w, rect.top() + legend_h + 6, rect.width() - axis_w - 4,
                  rect.height() - legend_h - bottom_h - 6)  # fmt: skip
    top = max(max(sum(_finite(at_peak(r, k)) for k, _, _ in COMPONENTS), _finite(r.capacity_gb)) for r in rows)
    top = max(top, 1.0) * 1.15
    ink = QColor("#222222")
    _font(painter, 6)
    _draw_legend(painter, rect, axis_w, ink, capacity)
    _draw_axis(painter, rect, plot, axis_w, top, ink)
    slot_w = plot.width() / len(rows)
    for i, r in enumerate(rows):
        _draw_bar(painter, plot, top, plot.left() + (i + 0.5) * slot_w, slot_w, r, ink)
    painter.restore()
