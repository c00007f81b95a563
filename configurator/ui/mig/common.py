"""MIG editor helpers: labels, text fitting, and the instance block and job chip items."""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QIcon,
    QPainter,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from configurator.catalog.cards import CardSpec, MigSpec, short_card_name
from configurator.engine.model.result import CardMemory, MigInstanceResult
from configurator.present.verdict import WORDS
from configurator.present.words import memory_label, mig_profile_gb
from configurator.ui.base import FIT_COLOUR, hidpi_canvas

DISPLAY_MODE_NOTE = (
    "Workstation and Max-Q editions: switch display mode to compute first "
    "(DisplayModeSelector --gpumode=compute, reboot); display outputs turn off."
)
EMPTY_TEXT = "No card in this build supports MIG"
PROFILE_ROLE = Qt.ItemDataRole.UserRole

ALLOWED = QColor(46, 125, 50, 120)
REFUSED = QColor(198, 40, 40, 120)
# Instance fills, one per profile of a card in the catalog's order (smallest first): 1g.18gb, 1g.18gb+me and 1g.35gb
# shared one blue when the fill went by compute slices, and 7g.141gb's #4A4A4A was 1.6:1 on the dark theme's base.
# Each has a relative luminance of 0.165: white text on it reads at 4.8:1 (WCAG 1.4.3) and it stands at 3.4:1 on
# the dark base #1F1F1F and 4.8:1 on white (1.4.11). No green or red: the jobs' fit chips sit on them.
PROFILE_COLOURS = ("#3E72BA", "#7462CB", "#2A7D7D", "#A449C2", "#C04180", "#996633", "#7A7429")
OTHER_PROFILE = "#767676"  # a profile the card's spec does not list


def profile_colour(spec: MigSpec, name: str) -> QColor:
    """The fill of profile ``name`` on a card of ``spec``: the palette's swatch and the diagram's block alike."""
    names = [p.name for p in spec.profiles]
    i = names.index(name) if name in names else -1
    return QColor(PROFILE_COLOURS[i % len(PROFILE_COLOURS)] if i >= 0 else OTHER_PROFILE)
MARGIN = 8.0
CAPTION_H = 24.0
HEADER_H = 18.0


def _short_name(card: CardSpec) -> str:
    return short_card_name(card.name, abbreviate=False)


def _size_order(spec: MigSpec, names: list[str] | tuple[str, ...]) -> list[str]:
    """Profile names largest first (grid size, compute slices), as ``enumerate_layouts`` lists them."""

    def key(name: str) -> tuple[int, int, str]:
        try:
            p = spec.profile(name)
        except KeyError:
            return (0, 0, name)
        return (-p.placement.size, -p.compute_slices, name)

    return sorted(names, key=key)


def layout_label(spec: MigSpec, names: list[str] | tuple[str, ...]) -> str:
    """'3g.71gb + 2g.35gb + 1g.18gb + 1g.18gb'."""
    return " + ".join(_size_order(spec, names))


def _count_label(spec: MigSpec, names: list[str] | tuple[str, ...]) -> str:
    """'3g.71gb + 2g.35gb + 2 × 1g.18gb' (compact, for the preset entries)."""
    counts: dict[str, int] = {}
    for n in _size_order(spec, names):
        counts[n] = counts.get(n, 0) + 1
    return " + ".join(n if c == 1 else f"{c} × {n}" for n, c in counts.items())


def _swatch(colour: QColor, size: int = 14) -> QIcon:
    pm, p = hidpi_canvas(size)
    p.setPen(colour.darker(150))
    p.setBrush(colour)
    p.drawRoundedRect(QRectF(1, 1, size - 2, size - 2), 3, 3)
    p.end()
    return QIcon(pm)


def _span_text(spec: MigSpec, start: int, size: int) -> str:
    unit = "slice" if spec.grid_units == 8 else "position"
    return f"{unit} {start}" if size == 1 else f"{unit}s {start}-{start + size - 1}"


@dataclass(frozen=True)
class JobInInstance:
    """A job placed in an instance, with the engine's memory row for it."""

    index: int  # position in build.jobs (for dragging it elsewhere)
    name: str
    row: CardMemory

    @property
    def headroom_gb(self) -> float:
        return self.row.headroom_gb

    @property
    def fits(self) -> bool:
        return self.row.fits

    @property
    def status(self) -> str:
        return self.row.status


def _fit_text(candidates: list[str], font: QFont, width: float) -> str:
    """The first candidate that fits ``width``, else the last one elided."""
    fm = QFontMetricsF(font)
    for text in candidates:
        if fm.horizontalAdvance(text) <= width:
            return text
    return fm.elidedText(candidates[-1], Qt.TextElideMode.ElideRight, width)


def _wrap(text: str, font: QFont, width: float) -> list[str]:
    """Greedy word wrap to ``width``; a word longer than the width is elided. ' · ' never ends or starts a line."""
    fm = QFontMetricsF(font)
    if fm.horizontalAdvance(text) <= width:
        return [text]
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if fm.horizontalAdvance(trial) <= width or not line:
            line = trial
        else:
            lines.append(line)
            line = word
    lines.append(line)
    lines = [ln.removesuffix(" ·").removeprefix("· ") for ln in lines if ln not in ("·", "")]
    return [fm.elidedText(ln, Qt.TextElideMode.ElideRight, width) for ln in lines]


def _add_lines(parent: QGraphicsItem, rows: list[tuple[str, QFont, QBrush]], x: float, y: float,
               width: float) -> float:  # fmt: skip
    """Draw ``rows`` wrapped to ``width`` from (x, y) as children of ``parent``; returns the y below them."""
    for text, font, brush in rows:
        step = QFontMetricsF(font).height()
        for line in _wrap(text, font, width):
            item = QGraphicsSimpleTextItem(line, parent)
            item.setFont(font)
            item.setBrush(brush)
            item.setPos(x, y)
            y += step
    return y


def _lines_height(rows: list[tuple[str, QFont, QBrush]], width: float) -> float:
    return sum(len(_wrap(text, font, width)) * QFontMetricsF(font).height() for text, font, _ in rows)


class JobChip(QGraphicsRectItem):
    """A job inside an instance block: its name and headroom, coloured by fit."""

    PAD = 3.0

    def __init__(self, job: JobInInstance, rect: QRectF, rows: list[tuple[str, QFont, QBrush]],
                 parent: QGraphicsItem, unit: str = "GB") -> None:  # fmt: skip
        super().__init__(rect, parent)
        self.job = job
        self.colour = QColor(FIT_COLOUR.get(job.status, FIT_COLOUR["unknown"]))
        self.setBrush(QBrush(self.colour))
        self.setPen(QPen(self.colour.darker(140), 1))
        self.lines = [text for text, _, _ in rows]
        _add_lines(self, rows, rect.left() + self.PAD, rect.top() + self.PAD, rect.width() - 2 * self.PAD)
        row, u = job.row, unit
        verdict = WORDS.get(job.status, job.status)
        self.setToolTip(
            f"{html.escape(job.name)}: {memory_label(row.peak_reserved_gb, u)} peak of "
            f"{memory_label(row.capacity_gb, u)}, {memory_label(job.headroom_gb, u, sign=True)} headroom "
            f"({verdict}). Drag it onto another instance to move it."
        )

    @staticmethod
    def rows(job: JobInInstance, font: QFont, bold: QFont, width: float | None = None, unit: str = "GB",
             ) -> list[tuple[str, QFont, QBrush]]:  # fmt: skip
        """The chip's lines: the fullest set whose every line fits ``width`` on one line, down to the job's name
        alone (a 52 px chip at 1024x768 wrapped 'tena…' 'A' '+13.3' 'GB' 'fits'); the colour says the fit and the
        tooltip keeps the whole sentence."""
        ink = QBrush(QColor("#1a1a1a") if job.status == "tight" else QColor("white"))
        verdict = WORDS.get(job.status, job.status)  # the verdict's words (present/verdict.py)
        h = memory_label(job.headroom_gb, unit, sign=True)  # the view's unit, as the headroom chart's
        small = _smaller(font)
        name = job.name
        levels = [
            [(name, bold), (f"{h} headroom", font), (verdict, font)],
            [(name, bold), (f"{h} free", font), (verdict, font)],
            [(name, bold), (h, font), (verdict, font)],
            [(name, bold), (h, font)],
            [(name, font), (h, small)],
            [(name, bold)],
            [(name, font)],
            [(name, small)],
        ]
        return [(text, f, ink) for text, f in _first_fitting(levels, width)]


def _smaller(font: QFont) -> QFont:
    """``font`` at 85 %: the last size tried before a line is wrapped."""
    small = QFont(font)
    small.setPointSizeF(font.pointSizeF() * 0.85)
    return small


def _first_fitting(levels: list[list[tuple[str, QFont]]], width: float | None) -> list[tuple[str, QFont]]:
    """The first of ``levels`` (fullest first) whose every line fits ``width`` on one line, else the last
    (wrapped and elided by _add_lines); all of the first with no width."""
    if width is None:
        return levels[0]
    for level in levels:
        if all(QFontMetricsF(f).horizontalAdvance(text) <= width for text, f in level):
            return level
    return levels[-1]


class InstanceBlock(QGraphicsRectItem):
    """One GPU instance spanning its grid units."""

    PAD = 4.0

    def __init__(self, spec: MigSpec, inst: MigInstanceResult, rect: QRectF, jobs: list[JobInInstance],
                 fonts: tuple[QFont, QFont, QFont], unit: str = "GB") -> None:  # fmt: skip
        super().__init__(rect)
        font, bold, title = fonts
        self.instance = inst
        self.index = inst.index
        self.profile = inst.profile
        self.start, self.size = inst.start, inst.size
        self.capacity_gb, self.nominal_gb = inst.capacity_gb, mig_profile_gb(inst.profile, inst.capacity_nominal_gb)
        self.colour = profile_colour(spec, inst.profile)
        self.setBrush(QBrush(self.colour))
        self.setPen(QPen(self.colour.darker(150), 1.5))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setZValue(2)
        span = _span_text(spec, inst.start, inst.size)
        cap, nom = inst.capacity_gb, mig_profile_gb(inst.profile, inst.capacity_nominal_gb)
        # the driver's capacity in the view's unit; the nominal figure is the profile name's (24 in 1g.24gb), kept in GB
        # as the name prints it (capacity_label's rule for a card's datasheet figure)
        shown = memory_label(cap, unit)
        self.lines = [inst.profile, shown, f"{nom:g} GB nominal", f"instance {inst.index} · {span}"]
        width = rect.width() - 2 * self.PAD
        white = QBrush(QColor("white"))
        pale = QBrush(QColor(255, 255, 255, 205))
        small = _smaller(font)
        # the profile is the block's name: a narrower type before it is cut (1g.24gb in a 12-unit card's column)
        name_font = next((f for f in (title, bold, font) if QFontMetricsF(f).horizontalAdvance(inst.profile) <= width),
                         small)  # fmt: skip
        where = f"instance {inst.index} · {span}"
        name = (inst.profile, name_font)
        # the fullest set of lines that each fit on one line, down to the profile alone: at 1024x768 a 52 px block
        # showed '1g.24…' 'insta…' 'positi…', at 1366x768 its words wrapped into six lines; the tooltip has them all
        levels = [
            [name, (f"{shown} · {nom:g} GB nominal", font), (where, font)],
            [name, (shown, font), (f"nominal {nom:g} GB", font), (where, font)],
            [name, (shown, font), (f"#{inst.index} · {span}", font)],
            [name, (shown, font), (f"#{inst.index}", font)],
            [name, (shown, font)],
            [name, (shown, small)],
            [name],
        ]
        pale_words = {where, f"nominal {nom:g} GB", f"#{inst.index} · {span}", f"#{inst.index}"}
        rows = [(text, f, pale if text in pale_words else white) for text, f in _first_fitting(levels, width)]
        self.shown = [text for text, _, _ in rows]  # what the block writes (``lines``: all it could)
        y = _add_lines(self, rows, rect.left() + self.PAD, rect.top() + self.PAD, width) + 4
        self.chips: list[JobChip] = []
        chip_w = rect.width() - 2 * self.PAD + 2
        for k, job in enumerate(jobs):
            chip_rows = JobChip.rows(job, font, bold, chip_w - 2 * JobChip.PAD, unit)
            chip_h = _lines_height(chip_rows, chip_w - 2 * JobChip.PAD) + 2 * JobChip.PAD
            if y + chip_h > rect.bottom() - self.PAD:
                _add_lines(self, [(f"+{len(jobs) - k} more", font, white)], rect.left() + self.PAD,
                           min(y, rect.bottom() - QFontMetricsF(font).height() - 2), width)  # fmt: skip
                break
            chip = JobChip(job, QRectF(rect.left() + self.PAD - 1, y, chip_w, chip_h), chip_rows, self, unit)
            self.chips.append(chip)
            y += chip_h + 3
        self.jobs = jobs
        placed = ", ".join(f"{html.escape(j.name)} ({memory_label(j.headroom_gb, unit, sign=True)})"
                           for j in jobs) or "no job"  # fmt: skip
        self.setToolTip(
            f"Instance {inst.index}: {inst.profile} at {span}; {shown} as the driver shows it "
            f"({nom:g} GB nominal). Jobs: {placed}. Drop a job here to run it in this instance; "
            "Delete removes the instance."
        )

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(self.brush())
        painter.setPen(QPen(QColor("#FFD54F"), 3) if self.isSelected() else self.pen())
        painter.drawRoundedRect(self.rect(), 5, 5)
