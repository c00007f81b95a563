"""Analysis tabs: fit frontier, step time, roofline and the link topology of the build.

Each chart creates its plot items once and updates them with ``setData`` / ``setOpts`` on every
``BuildDocument.changed``; text labels come from small fixed pools. No axis grids (pyqtgraph repaints
them as a QPicture on every frame). Every number drawn comes from the engine (the result or
``engine.sweep.fit_frontier``); the drawing code only places it.
"""

from __future__ import annotations

import html
import math
import re
import time
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.cards import short_card_name
from configurator.catalog.loader import Catalog
from configurator.engine import Build, BuildResult
from configurator.engine.compute import attainable_tflops, bf16_rate, ridge_intensity
from configurator.engine.resolver import ModelResolver
from configurator.engine.result import JobResult
from configurator.engine.sweep import Frontier, fit_frontier
from configurator.ui.shell.style import to_unit

LIGHT_INK, DARK_INK = "#222222", "#e6e6e6"
LIGHT_ALERT, DARK_ALERT = "#C62828", "#FF6F6F"  # "does not fit", communication dominates
LABEL_PT = 8.5

# Link kinds as the engine names them (Collective.link), coloured like the topology grid:
# NVLink green, PCIe inside a switch yellowish, through a CPU orange, across CPUs red.
LINK_STYLE: dict[str, tuple[str, str]] = {
    "nvlink": ("NVLink", "#2E9E4F"),
    "nvswitch": ("NVSwitch", "#00796B"),
    "pcie-pix": ("PCIe, one switch (PIX)", "#D4B000"),
    "pcie-pxb": ("PCIe, switches (PXB)", "#E69F00"),
    "pcie-node": ("PCIe, one CPU (NODE)", "#EF6C00"),
    "pcie-sys": ("PCIe across CPUs (SYS)", "#C62828"),
}
OTHER_LINK = ("Other link", "#8D6E63")
COMPUTE_MATMUL = ("Compute: matmuls", "#0072B2")
COMPUTE_MEMORY = ("Compute: memory-bound", "#7FA7C9")

RATE_BASIS = {
    "measured": "measured (typical nccl-tests busbw)",
    "nominal": "nominal (datasheet, per direction)",
    "calibrated": "calibrated (your nccl-tests)",
}

# Topology cells: (background, short meaning). Text on them is always dark.
TOPO_COLOURS = {
    "X": "#CFCFCF",
    "NV": "#A5D6A7",
    "PIX": "#FFF59D",
    "PXB": "#FFE082",
    "NODE": "#FFB74D",
    "SYS": "#EF9A9A",
}

METHOD_NAMES = {"lora": "LoRA", "qlora": "QLoRA", "full": "full"}
MB_COLOURS = {1: "#0072B2", 2: "#009E73", 4: "#CC79A7", 8: "#E69F00"}
COMPARE_STYLES = [Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine]
ROOF_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"]


def _font(size: float = LABEL_PT, bold: bool = False) -> QFont:
    f = QFont()
    f.setPointSizeF(size)
    f.setBold(bold)
    return f


def _shorten(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _wrap(text: str, width: int, lines: int = 2) -> str:
    """Word-wrap ``text`` at ``width`` characters into at most ``lines`` lines (the last one shortened)."""
    out: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    out.append(line)
    if len(out) > lines:
        out = [*out[: lines - 1], _shorten(" ".join(out[lines - 1 :]), width)]
    return "\n".join(out)


def _length_label(v: float) -> str:
    v = int(v)
    return f"{v // 1024}k" if v >= 1024 and v % 1024 == 0 else f"{v:,}"


def _decade_label(k: int) -> str:
    v = 10.0**k
    if v >= 1000:
        return f"{v / 1000:g}k"
    return f"{v:g}"


class _Chart(QWidget):
    """A GraphicsLayoutWidget with a legend row above the plot, a note row below it and an empty-state text."""

    def __init__(self, name: str, legend_cols: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.max_legend_cols = legend_cols
        self.ink = LIGHT_INK
        self.alert = LIGHT_ALERT
        self.dark = False
        self._title = ""
        self._legend_key: tuple = ()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground("w")
        self.view.setAccessibleName(name)
        self.view.ci.setContentsMargins(4, 2, 8, 2)
        self.view.ci.setSpacing(0)
        layout.addWidget(self.view)
        self.legend = pg.LegendItem(colCount=legend_cols, labelTextColor=self.ink, horSpacing=12,
                                    labelTextSize=f"{LABEL_PT}pt", verSpacing=-6)  # fmt: skip
        self.view.addItem(self.legend, row=0, col=0)
        self.plot = self.view.addPlot(row=1, col=0)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.note = pg.LabelItem("", size=f"{LABEL_PT}pt", color=self.ink, justify="left")
        self.view.addItem(self.note, row=2, col=0)
        self.empty = pg.TextItem("", anchor=(0.5, 0.5), color="#777")
        self.empty.setFont(_font(10))
        self.empty.setZValue(50)
        self.plot.addItem(self.empty)
        self.empty.setVisible(False)
        self._empty_text = ""
        self._filled: list[pg.TextItem] = []
        self._blank_ticks = False

    # ---- pieces ----
    def _label(self, anchor: tuple[float, float] = (0.5, 1.0), bold: bool = False, fill: bool = False,
               size: float = LABEL_PT) -> pg.TextItem:  # fmt: skip
        t = pg.TextItem("", anchor=anchor, color=self.ink)
        t.setFont(_font(size, bold))
        t.setZValue(20)
        t.setVisible(False)
        if fill:  # a backing in the background colour keeps the text readable over curves
            t.fill = pg.mkBrush(self._backing())
            self._filled.append(t)
        self.plot.addItem(t)
        return t

    def _backing(self) -> QColor:
        c = QColor("#1f1f1f" if self.dark else "#ffffff")
        c.setAlpha(215)
        return c

    def _set_text(self, item: pg.TextItem, text: str, colour: str | None = None, centred: bool = False) -> None:
        """setText / setHtml re-render the item: only when something changed."""
        colour = colour or self.ink
        key = (text, colour, centred)
        if getattr(item, "_key", None) == key:
            return
        item._key = key  # type: ignore[attr-defined]
        if centred:
            body = "<br>".join(html.escape(line) for line in text.split("\n"))
            item.textItem.setTextWidth(-1)
            item.textItem.setHtml(f"<div align='center' style='color:{colour};'>{body}</div>")
            item.textItem.setTextWidth(item.textItem.document().idealWidth())
            item.updateTextPos()
        else:
            item.setText(text, color=colour)

    def _show_tip(self, pos: QPointF, text: str | None) -> None:
        """Show ``text`` as a tooltip at the scene position ``pos`` (or hide the tooltip)."""
        if text:
            where = self.view.mapToGlobal(self.view.mapFromScene(pos))  # scene -> widget -> screen
            QToolTip.showText(where, text, self.view)
        else:
            QToolTip.hideText()

    @property
    def title_text(self) -> str:
        """The chart's title as drawn above the plot."""
        return self._title

    def _set_title(self, title: str) -> None:
        if title != self._title:
            self._title = title
            self.plot.setTitle(title, color=self.ink, size="10pt")

    def _set_note(self, text: str) -> None:
        if text != getattr(self, "_note_html", None):
            self._note_html = text
            self.note.setText(text, color=self.ink)

    def _set_legend(self, entries: list[tuple[object, str]]) -> None:
        key = tuple((id(item), label) for item, label in entries)
        if key == self._legend_key:
            return
        same_items = [k[0] for k in key] == [k[0] for k in self._legend_key]
        self._legend_key = key
        if same_items:  # only a label changed: retext it (a rebuild costs a few ms)
            for (_, label_item), (_, text) in zip(self.legend.items, entries, strict=True):
                if label_item.text != text:
                    label_item.setText(text, color=self.ink)
        else:
            self.legend.clear()
            for item, label in entries:
                self.legend.addItem(item, label)
        self._fit_legend()

    def _fit_legend(self) -> None:
        """As many legend columns as the width holds: a legend wider than the widget would push the plot
        past the right edge."""
        if not self.legend.items:
            return
        # entries fill rows left to right; a column is as wide as its widest label + sample + spacing
        widths = [label.item.boundingRect().width() + 40 for _, label in self.legend.items]
        room = self.width() - 24
        cols = 1
        for c in range(min(self.max_legend_cols, len(widths)), 1, -1):
            if sum(max(widths[j::c]) for j in range(c)) <= room:
                cols = c
                break
        self.legend.setColumnCount(cols)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._fit_legend()

    def _set_axes(self, bottom: str, left: str) -> None:
        self._axis_titles = (bottom, left)
        self.plot.setLabel("bottom", bottom, color=self.ink)
        self.plot.setLabel("left", left, color=self.ink)
        for side in ("left", "bottom"):
            ax = self.plot.getAxis(side)
            ax.setTextPen(self.ink)
            ax.setPen("#888")
            ax.label.setFont(_font(9))
            ax.enableAutoSIPrefix(False)

    def _show_empty(self, text: str) -> None:
        """Hide the data, say why, keep the axes."""
        self._empty_text = text
        self._set_text(self.empty, text, "#8a8a8a")
        self.plot.setXRange(0, 1, padding=0)
        self.plot.setYRange(0, 1, padding=0)
        self.empty.setPos(0.5, 0.5)
        self.empty.setVisible(True)
        if not self._blank_ticks:  # no numbers on an empty chart
            self._blank_ticks = True
            for side in ("left", "bottom"):
                self.plot.getAxis(side).setTicks([[], []])

    def _hide_empty(self) -> None:
        self._empty_text = ""
        self.empty.setVisible(False)
        if self._blank_ticks:
            self._blank_ticks = False
            for side in ("left", "bottom"):
                self.plot.getAxis(side).setTicks(None)

    def is_empty(self) -> bool:
        return self.empty.isVisible()

    def empty_text(self) -> str:
        return self._empty_text

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        self.ink = DARK_INK if dark else LIGHT_INK
        self.alert = DARK_ALERT if dark else LIGHT_ALERT
        self.view.setBackground("#1f1f1f" if dark else "w")
        title, self._title = self._title, ""
        self._set_title(title)
        self.legend.setLabelTextColor(self.ink)
        for _, label in self.legend.items:
            label.setText(label.text, color=self.ink)
        note, self._note_html = getattr(self, "_note_html", ""), None
        self._set_note(note)
        for t in self._filled:
            t.fill = pg.mkBrush(self._backing())
            t.update()
        if hasattr(self, "_axis_titles"):
            self._set_axes(*self._axis_titles)


# ====================================================================================================
# Fit frontier
# ====================================================================================================


class FitFrontierChart(_Chart):
    """Headroom on the job's smallest card against sequence length: one curve per micro-batch, the
    comparison methods dashed, the 0 GB line and the longest length that fits marked."""

    MAX_CURVES = 10

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Fit frontier chart", legend_cols=4, parent=parent)
        self.plot.setLogMode(x=True, y=False)
        self.frontier: Frontier | None = None
        self._marked: int | None = None
        self._key: object = None
        self.below = pg.LinearRegionItem(values=(-1, 0), orientation="horizontal", movable=False,
                                         brush=pg.mkBrush(198, 40, 40, 26), pen=pg.mkPen(None))  # fmt: skip
        self.below.setZValue(-10)
        for line in self.below.lines:
            line.setPen(pg.mkPen(None))
            line.setHoverPen(pg.mkPen(None))
        self.below.setHoverBrush(pg.mkBrush(198, 40, 40, 26))
        self.plot.addItem(self.below)
        self.curves = [pg.PlotDataItem([], []) for _ in range(self.MAX_CURVES)]
        for c in self.curves:
            self.plot.addItem(c)
        self.zero = pg.PlotDataItem([], [], pen=pg.mkPen("#C62828", width=1.5, style=Qt.PenStyle.DashLine))
        self.plot.addItem(self.zero)
        self.current = pg.PlotDataItem([], [], pen=pg.mkPen("#777", width=1.2, style=Qt.PenStyle.DotLine))
        self.plot.addItem(self.current)
        self.marker = pg.PlotDataItem([], [], pen=None, symbol="o", symbolSize=11, symbolBrush="#C62828",
                                      symbolPen=pg.mkPen("w", width=1.5))  # fmt: skip
        self.marker.setZValue(15)
        self.plot.addItem(self.marker)
        self.marker_label = self._label((0.5, 1.15), bold=True, fill=True)
        self.zero_label = self._label((0.0, -0.05))
        self._marker_frac = 0.5
        self.plot.vb.sigResized.connect(self._anchor_marker)
        self.current_label = self._label((0.0, 0.0))
        self.unit = "GB"  # the view state's display unit (View > Units)
        self._set_axes("Sequence length (tokens, log scale)", f"Headroom ({self.unit})")
        self._drawn: list[tuple[str, list[int], list[float]]] = []  # (legend label, lengths, headroom in unit)
        self._current_range: tuple[float, float, float, float] | None = None  # x0, x1, y_lo, y_hi of the last draw
        self._y_span = 1.0
        self.plot.scene().sigMouseMoved.connect(self._hover)

    def set_unit(self, unit: str) -> None:
        """Headroom in GB or GiB: the axis, the curves, the labels and the tooltips."""
        if unit == self.unit:
            return
        self.unit = unit
        self._set_axes("Sequence length (tokens, log scale)", f"Headroom ({unit})")
        if hasattr(self, "_last"):
            self._draw(*self._last)

    def tooltip_at(self, tokens: float, headroom_gb: float) -> str | None:
        """The curve nearest (tokens, headroom) within a few % of the chart's height: its label, the
        sampled length nearest the pointer (log scale) and the headroom there."""
        if not self._drawn or tokens <= 0:
            return None
        best: tuple[float, str, int, float] | None = None
        for label, lengths, heads in self._drawn:
            i = min(range(len(lengths)), key=lambda k: abs(math.log(lengths[k] / tokens)))
            gap = abs(heads[i] - headroom_gb)
            if best is None or gap < best[0]:
                best = (gap, label, lengths[i], heads[i])
        if best is None or best[0] > 0.04 * self._y_span:
            return None
        _, label, length, head = best
        verdict = "fits" if head >= 0 else "does not fit"
        return f"<b>{html.escape(label)}</b><br>{length:,} tokens: headroom {head:+.1f} {self.unit} ({verdict})"

    def _hover(self, pos: QPointF) -> None:
        if self.is_empty() or not self._drawn:
            return
        point = self.plot.vb.mapSceneToView(pos)
        self._show_tip(pos, self.tooltip_at(10 ** point.x(), point.y()))

    def point_of_no_fit(self) -> int | None:
        """The length marked on the chart: the job's own curve's longest length that still fits."""
        return self._marked

    def update_document(self, build: Build, catalog: Catalog, job_index: int,
                        models: ModelResolver | None = None) -> None:  # fmt: skip
        """``models``: the document's resolver, so a relative config.json resolves from the build's folder."""
        job = build.jobs[job_index] if 0 <= job_index < len(build.jobs) else None
        placements = tuple(build.card_in(s) for s, _ in job.card_keys) if job is not None else ()
        # the sweep covers every length itself, so moving the job's own sequence length only moves the
        # "now" marker: keep the sweep (a few ms) out of the slider's frame
        swept = job.model_copy(update={"sequence_length": 1}) if job is not None else None
        key = (job_index, swept, placements)
        new_sweep = key != self._key or self.frontier is None
        if new_sweep:
            self._key = key
            sweep = fit_frontier(build, job_index, catalog, models=models) if job is not None else None
            self.frontier = sweep
        self._last = (build, job_index)
        if new_sweep or self._current_range is None or job is None:
            self._draw(build, job_index)
        else:  # same sweep, same curves: only the "now" line moves
            self._draw_current(job.sequence_length)

    def _draw_current(self, s: int) -> None:
        """The vertical 'now' line at the job's own sequence length (hidden outside the swept range)."""
        assert self._current_range is not None
        x0, x1, y_lo, y_hi = self._current_range
        if x0 <= s <= x1:
            self.current.setData([s, s], [y_lo, y_hi])
            self._set_text(self.current_label, f"now {_length_label(s)}", "#8a8a8a" if self.dark else "#666")
            self.current_label.setPos(math.log10(s), y_hi)
            self.current_label.setVisible(True)
        else:
            self.current.setData([], [])
            self.current_label.setVisible(False)

    def _draw(self, build: Build, job_index: int) -> None:
        f = self.frontier
        job = build.jobs[job_index] if 0 <= job_index < len(build.jobs) else None
        if f is None or job is None or not f.curves:
            for item in (*self.curves, self.zero, self.marker, self.current):
                item.setData([], [])
            for t in (self.marker_label, self.zero_label, self.current_label):
                t.setVisible(False)
            self.below.setVisible(False)
            self._marked = None
            self._drawn = []
            self._current_range = None
            self._set_legend([])
            self._set_title("Fit frontier")
            self._set_note("")
            if job is None:
                why = "Add a job to see how long its sequences can grow"
            elif not job.cards:
                why = f"Assign cards to '{_shorten(job.name, 40)}' to see its fit frontier"
            else:
                why = "No memory sweep for this job: the model has only a\nparameter count, or its cards are unknown"
            self._show_empty(why)
            return
        self._hide_empty()
        self.below.setVisible(True)
        entries: list[tuple[object, str]] = []
        lengths = f.curves[0].lengths
        x0, x1 = float(lengths[0]), float(lengths[-1])
        dash = 0
        own = None
        shown = f.curves[: self.MAX_CURVES]
        u = self.unit
        heads = [[to_unit(h, u) for h in c.headroom_gb] for c in shown]  # display unit from here on
        for item, curve, head_u in zip(self.curves, shown, heads, strict=False):
            if curve.is_job or curve.label.split(",")[0] == job.method:
                colour = MB_COLOURS.get(curve.micro_batch, "#56B4E9")
                pen = pg.mkPen(colour, width=3.2 if curve.is_job else 1.4)
                label = f"{METHOD_NAMES.get(job.method, job.method)}, micro-batch {curve.micro_batch}" + (
                    " (this job)" if curve.is_job else ""
                )
                if curve.is_job:
                    own = curve
                    item.setZValue(10)
                else:
                    item.setZValue(5)
            else:
                c = QColor("#9a9a9a" if self.dark else "#7a7a7a")
                pen = pg.mkPen(c, width=1.6, style=COMPARE_STYLES[dash % len(COMPARE_STYLES)])
                dash += 1
                label = f"{curve.label} (compare)"
                item.setZValue(3)
            item.setData(curve.lengths, head_u, pen=pen)
            entries.append((item, label))
        for item in self.curves[len(shown) :]:
            item.setData([], [])
        self._drawn = [
            (label, list(c.lengths), h) for (_, label), c, h in zip(entries, shown, heads, strict=True)
        ]
        cap = to_unit(f.capacity_gb, u)
        top = max(max(max(h) for h in heads), 0.0)
        y_hi = max(top * 1.18, cap * 0.12, 5.0)
        y_lo = -max(0.45 * y_hi, 10.0)
        self._y_span = y_hi - y_lo
        self.below.setRegion((y_lo * 2, 0))
        self.zero.setData([x0, x1], [0.0, 0.0])
        entries.append((self.zero, f"0 {u}: does not fit below"))
        lx0, lx1 = math.log10(x0), math.log10(x1)
        self._set_text(self.zero_label, "does not fit", self.alert)
        self.zero_label.setPos(lx0 + 0.02 * (lx1 - lx0), 0.0)
        self.zero_label.setVisible(True)
        # the job's own sequence length
        self._current_range = (x0, x1, y_lo, y_hi)
        self._draw_current(job.sequence_length)
        # the longest length that fits on the job's own curve
        self._marked = own.max_fitting_length if own else None
        if own is not None and self._marked is not None:
            head = to_unit(own.headroom_gb[own.lengths.index(self._marked)], u)
            self.marker.setData([self._marked], [head])
            lx = math.log10(self._marked)
            self._set_text(self.marker_label, f"fits up to {self._marked:,} tokens", self.alert)
            self.marker_label.setPos(lx, head)
            self._marker_frac = (lx - lx0) / max(lx1 - lx0, 1e-9)
            self._anchor_marker()
            self.marker_label.setVisible(True)
            entries.append((self.marker, "longest length that fits"))
        else:
            self.marker.setData([], [])
            text = f"does not fit even at {lengths[0]:,} tokens" if own is not None else ""
            self._set_text(self.marker_label, text, self.alert)
            self.marker_label.setAnchor((0.0, 1.2))
            self.marker_label.setPos(lx0 + 0.02 * (lx1 - lx0), y_hi * 0.85)
            self.marker_label.setVisible(bool(text))
        self._set_legend(entries)
        self._set_title(f"{_shorten(job.name, 44)} — headroom on {short_card_name(f.card)} ({cap:.1f} {u})")
        off = [c.label for c, h in zip(shown, heads, strict=True) if max(h) < y_lo]
        self._set_note(f"Below the chart at every length (never fits): {', '.join(off)}." if off else "")
        self.plot.setXRange(lx0, lx1, padding=0.045)  # room for the end ticks' labels
        self.plot.setYRange(y_lo, y_hi, padding=0)
        ticks = [(math.log10(v), _length_label(v)) for v in (2**k for k in range(6, 21)) if x0 <= v <= x1]
        self.plot.getAxis("bottom").setTicks([ticks])

    def _anchor_marker(self, *_: object) -> None:
        """Centre the "fits up to" label over its marker unless that would run it off either side."""
        w = max(self.plot.vb.width(), 100.0)
        half = self.marker_label.textItem.boundingRect().width() / 2 + 4
        u = self._marker_frac * w
        ax = 1.0 if u + half > w else 0.0 if u - half < 0 else 0.5
        self.marker_label.setAnchor((ax, 1.15))

    def set_dark(self, dark: bool) -> None:
        super().set_dark(dark)
        self.zero.setPen(pg.mkPen(self.alert, width=1.5, style=Qt.PenStyle.DashLine))
        self.marker.setSymbolBrush(self.alert)
        self.marker.setSymbolPen(pg.mkPen("#1f1f1f" if dark else "w", width=1.5))
        if hasattr(self, "_last"):
            self._draw(*self._last)


# ====================================================================================================
# Step time
# ====================================================================================================

BAR_WIDTH = 0.56


def _short_collective(name: str) -> str:
    """'forward all-gather of the frozen base' -> 'fwd all-gather'."""
    name = name.split(" of the ")[0]
    name = re.sub(r" \(.*\)", "", name)
    return name.replace("forward ", "fwd ").replace("backward ", "bwd ")


def _text_on(background: str) -> str:
    """Dark or white text, whichever reads on ``background``."""
    c = QColor(background)
    return "#111111" if 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue() > 150 else "#ffffff"


@dataclass
class _Segment:
    y0: float
    y1: float
    text: str


class StepTimeChart(_Chart):
    """One stacked bar per job: compute (matmuls, then memory-bound work) and each collective on top,
    coloured by the link it runs over; the step time and comm/compute ratio written above each bar."""

    MAX_LABELS = 16
    MAX_SEGMENT_LABELS = 24

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Step time chart", legend_cols=4, parent=parent)
        pen = pg.mkPen("w", width=0.8)
        self.bars: dict[str, pg.BarGraphItem] = {}
        self.styles: dict[str, tuple[str, str]] = {
            "matmul": COMPUTE_MATMUL, "memory": COMPUTE_MEMORY, **LINK_STYLE, "other": OTHER_LINK,
        }  # fmt: skip
        for key, (_, colour) in self.styles.items():
            bar = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, y0=[], brush=colour, pen=pen)
            self.plot.addItem(bar)
            self.bars[key] = bar
        self.step_marks = pg.PlotDataItem([], [], pen=pg.mkPen(self.ink, width=2.5), connect="pairs")
        self.step_marks.setZValue(12)
        self.plot.addItem(self.step_marks)
        self.labels = [self._label((0.5, 1.0)) for _ in range(self.MAX_LABELS)]
        self.seg_labels = [self._label((0.5, 0.5)) for _ in range(self.MAX_SEGMENT_LABELS)]
        self._seg_names: list[tuple[int, float, float, str, str]] = []
        self._x_range = (-0.6, 0.6)
        self._y_hi = 1.0
        self.plot.vb.sigResized.connect(self._place_segment_labels)
        self.segments: list[list[_Segment]] = []
        self._totals: list[float] = []
        self._comm: list[float] = []
        self._set_axes("", "Time per optimizer step (s)")
        self.plot.getAxis("bottom").setHeight(40)
        self.plot.scene().sigMouseMoved.connect(self._hover)

    def bar_totals(self) -> list[float]:
        """Per job: compute seconds plus every collective's seconds (the height of its bar)."""
        return list(self._totals)

    def comm_seconds(self) -> list[float]:
        """Every collective's seconds, job after job, in the order the engine lists them."""
        return list(self._comm)

    def update_result(self, result: BuildResult) -> None:
        self._result = result
        jobs = result.jobs
        data: dict[str, tuple[list[float], list[float], list[float]]] = {k: ([], [], []) for k in self.bars}
        totals: list[float] = []
        comm: list[float] = []
        segments: list[list[_Segment]] = []
        marks_x: list[float] = []
        marks_y: list[float] = []
        kinds_used: set[str] = set()

        seg_names: list[tuple[int, float, float, str, str]] = []

        def put(key: str, i: int, y0: float, h: float, name: str) -> None:
            data[key][0].append(float(i))
            data[key][1].append(h)
            data[key][2].append(y0)
            kinds_used.add(key)
            seg_names.append((i, y0, y0 + h, f"{name} {h:.2f} s", _text_on(self.styles[key][1])))

        for i, job in enumerate(jobs):
            y = 0.0
            segs: list[_Segment] = []
            comp = job.compute
            if comp is not None:
                for key, seconds, what in (
                    ("matmul", comp.matmul_seconds, "matrix multiplies"),
                    ("memory", comp.memory_bound_seconds, "memory-bound work (optimizer step, dequantisation)"),
                ):
                    if seconds:
                        put(key, i, y, seconds, "compute" if key == "matmul" else "memory-bound")
                        est = (
                            "<br>at an UNCONFIRMED estimated rate"
                            if key == "matmul" and comp.bf16_rate_estimated
                            else ""
                        )
                        segs.append(_Segment(y, y + seconds,
                                             f"<b>Compute</b>: {what}<br>{seconds:.3f} s per step{est}"))  # fmt: skip
                        y += seconds
            for c in job.communication.collectives:
                key = c.link if c.link in LINK_STYLE else "other"
                put(key, i, y, c.seconds, _short_collective(c.name))
                segs.append(_Segment(y, y + c.seconds, (
                    f"<b>{c.name}</b> ({c.kind}, ×{c.count_per_step})<br>"
                    f"{c.bytes_per_card / 1e9:.1f} GB per card over {c.link} at {c.rate_gb_s:g} GB/s "
                    f"({c.rate_basis})<br>{c.seconds:.3f} s per step")))  # fmt: skip
                comm.append(c.seconds)
                y += c.seconds
            totals.append(y)
            segments.append(segs)
            if job.step_seconds is not None and job.communication.collectives:
                # ticks either side of the bar, clear of the segment names
                marks_x += [i - BAR_WIDTH / 2 - 0.14, i - BAR_WIDTH / 2, i + BAR_WIDTH / 2, i + BAR_WIDTH / 2 + 0.14]
                marks_y += [job.step_seconds] * 4
        self._totals, self._comm, self.segments, self._seg_names = totals, comm, segments, seg_names
        for key, bar in self.bars.items():
            xs, hs, y0s = data[key]
            bar.setOpts(x=np.array(xs), height=np.array(hs), y0=np.array(y0s), width=BAR_WIDTH)
        self.step_marks.setData(marks_x, marks_y)

        n = len(jobs)
        top = max(totals, default=0.0)
        if n == 0 or top <= 0:
            for t in (*self.labels, *self.seg_labels):
                t.setVisible(False)
            self.plot.getAxis("bottom").setTicks([[]])
            self._set_legend([])
            self._set_title("Step time")
            self._set_note("")
            self._show_empty("Add a job to see its step time" if n == 0 else
                             "No compute or communication time known for these jobs")  # fmt: skip
            return
        self._hide_empty()
        y_hi = top * 1.32
        for i, label in enumerate(self.labels):
            if i >= n:
                label.setVisible(False)
                continue
            job = jobs[i]
            ratio = job.communication.ratio_to_compute
            if job.step_seconds is None:
                text = "step time unknown"
                if job.compute is not None and job.compute.notes:
                    text += "\n(no compute rate)"
                colour = "#8a8a8a"
            else:
                if ratio is not None:
                    text = f"step {job.step_seconds:.2f} s\ncomm/compute = " + (
                        f"{ratio:.2f}" if ratio >= 0.01 else "< 0.01"
                    )
                else:
                    text = f"step {job.step_seconds:.2f} s\nno communication"
                if job.compute is not None and job.compute.bf16_rate_estimated:
                    text = text.replace(" s\n", " s (estimated rate)\n", 1)
                colour = self.alert if ratio is not None and ratio > 1 else self.ink
            self._set_text(label, text, colour, centred=True)
            label.setPos(float(i), totals[i])
            label.setVisible(True)
        ticks = [(float(i), _wrap(j.name, 26 if n <= 3 else 16)) for i, j in enumerate(jobs)]
        self.plot.getAxis("bottom").setTicks([ticks])
        entries: list[tuple[object, str]] = [(self.bars[k], self.styles[k][0]) for k in self.styles if k in kinds_used]
        if marks_x:
            entries.append((self.step_marks, "step time (after overlap)"))
        self._set_legend(entries)
        self._set_title("Time per optimizer step, per job")
        self._set_note(self._basis_note(result))
        span = max(n - 0.4 - -0.6, 2.4)  # one or two jobs: bars no wider than a third of the plot
        mid = (n - 1) / 2
        self._x_range = (mid - span / 2, mid + span / 2)
        self._y_hi = y_hi
        self.plot.setXRange(*self._x_range, padding=0)
        self.plot.setYRange(0, y_hi, padding=0)
        self._place_segment_labels()

    def _place_segment_labels(self, *_: object) -> None:
        """Name the segments that are tall and wide enough on screen to hold their name."""
        pool = self.seg_labels
        shown = 0
        if not self.is_empty() and self._seg_names:
            w = max(self.plot.vb.width(), 200.0)
            h = max(self.plot.vb.height(), 120.0)
            x_lo, x_hi = self._x_range
            bar_px = BAR_WIDTH / (x_hi - x_lo) * w
            for i, y0, y1, text, colour in self._seg_names:
                if shown >= len(pool):
                    break
                if (y1 - y0) / self._y_hi * h < 15 or len(text) * 6.2 + 8 > bar_px:
                    continue
                t = pool[shown]
                self._set_text(t, text, colour)
                t.setPos(float(i), (y0 + y1) / 2)
                t.setVisible(True)
                shown += 1
        for t in pool[shown:]:
            t.setVisible(False)

    @staticmethod
    def _basis_note(result: BuildResult) -> str:
        rates: dict[str, tuple[float, str]] = {}
        for job in result.jobs:
            for c in job.communication.collectives:
                rates[c.link] = (c.rate_gb_s, c.rate_basis)
        bases = sorted({b for _, b in rates.values()}) or [result.link_rates]
        words = " + ".join(RATE_BASIS.get(b, b) for b in bases)
        per_link = ", ".join(f"{link} {rate:g} GB/s" for link, (rate, _) in rates.items())
        return f"<b>Link rates: {words}</b>" + (f" — {per_link}" if per_link else "")

    # ---- hover ----
    def tooltip_for(self, index: int, y: float) -> str | None:
        if not 0 <= index < len(self.segments):
            return None
        for seg in self.segments[index]:
            if seg.y0 <= y <= seg.y1:
                return seg.text
        return None

    def _hover(self, pos: QPointF) -> None:
        if not self.segments or self.is_empty():
            return
        point = self.plot.vb.mapSceneToView(pos)
        i = round(point.x())
        text = self.tooltip_for(i, point.y()) if abs(point.x() - i) <= BAR_WIDTH / 2 else None
        self._show_tip(pos, text)

    def set_dark(self, dark: bool) -> None:
        super().set_dark(dark)
        self.step_marks.setPen(pg.mkPen(self.ink, width=2.5))
        for bar in self.bars.values():
            bar.setOpts(pen=pg.mkPen("#1f1f1f" if dark else "w", width=0.8))
        if hasattr(self, "_result"):
            self.update_result(self._result)


# ====================================================================================================
# Roofline
# ====================================================================================================


@dataclass
class _Roof:
    card_id: str
    name: str
    peak_tflops: float
    bandwidth_gb_s: float

    @property
    def ridge(self) -> float:
        """FLOP/byte where memory stops being the limit."""
        return ridge_intensity(self.peak_tflops, self.bandwidth_gb_s)

    def attainable(self, intensity: float) -> float:
        return attainable_tflops(self.peak_tflops, self.bandwidth_gb_s, intensity)


class RooflineChart(_Chart):
    """Attainable BF16 TFLOPS against arithmetic intensity, one roofline per card in the build, with the
    selected job's main operations placed on its slowest card's roofline (or, for a job in a MIG instance,
    on the instance's share of that card). Cards without a published rate get a roof only when the build
    asks for estimated compute rates, and their name says so."""

    MAX_CARDS = 6
    MAX_POINTS = 12

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Roofline chart", legend_cols=2, parent=parent)
        self.plot.setLogMode(x=True, y=True)
        self.roofs = [pg.PlotDataItem([], []) for _ in range(self.MAX_CARDS)]
        for r in self.roofs:
            self.plot.addItem(r)
        self.ridges = pg.PlotDataItem([], [], pen=None, symbol="d", symbolSize=11, symbolBrush="#555",
                                      symbolPen=pg.mkPen("w", width=1))  # fmt: skip
        self.ridges.setZValue(8)
        self.plot.addItem(self.ridges)
        self.compute_pts = pg.PlotDataItem([], [], pen=None, symbol="o", symbolSize=10, symbolBrush="#0072B2",
                                           symbolPen=pg.mkPen("w", width=1.2))  # fmt: skip
        self.memory_pts = pg.PlotDataItem([], [], pen=None, symbol="s", symbolSize=9, symbolBrush="#D55E00",
                                          symbolPen=pg.mkPen("w", width=1.2))  # fmt: skip
        for p in (self.compute_pts, self.memory_pts):
            p.setZValue(10)
            self.plot.addItem(p)
        self.leaders = pg.PlotDataItem([], [], pen=pg.mkPen("#9a9a9a", width=1), connect="pairs")
        self.plot.addItem(self.leaders)
        self.ridge_labels = [self._label((0.5, 1.0)) for _ in range(self.MAX_CARDS)]
        self.point_labels = [self._label((0.5, 0.0)) for _ in range(self.MAX_POINTS)]
        self._points: list[tuple[str, float, float]] = []
        self._bounds: list[str] = []
        self._placing: list[tuple[pg.TextItem, str, float, float, str, str]] = []
        self._ranges = (0.0, 1.0, 0.0, 1.0)
        self._set_axes("Arithmetic intensity (FLOP/byte, log)", "Attainable BF16 (TFLOPS, log)")
        self.plot.vb.sigResized.connect(self._place_labels)
        self._roofs: list[_Roof] = []
        self._slow: _Roof | None = None
        self.plot.scene().sigMouseMoved.connect(self._hover)

    def tooltip_at(self, intensity: float, tflops: float) -> str | None:
        """The operation or ridge point nearest (intensity, TFLOPS), within 0.12 decades on both axes."""
        if intensity <= 0 or tflops <= 0:
            return None
        x, y = math.log10(intensity), math.log10(tflops)
        near = 0.12
        best: tuple[float, str] | None = None
        for (name, px, py), bound in zip(self._points, self._bounds, strict=True):
            d = max(abs(math.log10(px) - x), abs(math.log10(py) - y))
            if d <= near and (best is None or d < best[0]):
                where = self._slow.name if self._slow else "its card"
                best = (d, f"<b>{html.escape(name)}</b><br>{px:,.1f} FLOP/byte, {py:,.1f} TFLOPS attainable<br>"
                           f"{bound}-bound on {html.escape(where)}")  # fmt: skip
        for r in self._roofs:
            d = max(abs(math.log10(r.ridge) - x), abs(math.log10(r.peak_tflops) - y))
            if d <= near and (best is None or d < best[0]):
                best = (d, f"<b>{html.escape(r.name)}</b> ridge point<br>{r.ridge:,.0f} FLOP/byte: "
                           f"{r.peak_tflops:,.1f} TFLOPS peak over {r.bandwidth_gb_s / 1000:.3g} TB/s")  # fmt: skip
        return best[1] if best else None

    def _hover(self, pos: QPointF) -> None:
        if self.is_empty() or not self._roofs:
            return
        point = self.plot.vb.mapSceneToView(pos)
        self._show_tip(pos, self.tooltip_at(10 ** point.x(), 10 ** point.y()))

    def points(self) -> list[tuple[str, float, float]]:
        """(operation, intensity FLOP/byte, attainable TFLOPS) for each operation on the chart."""
        return list(self._points)

    def bounds(self) -> list[str]:
        """'compute' or 'memory' per point, as the engine classed it on the job's slowest card."""
        return list(self._bounds)

    def update_document(self, build: Build, result: BuildResult, catalog: Catalog, job_index: int) -> None:
        self._last = (build, result, catalog, job_index)
        roofs: list[_Roof] = []
        missing: list[str] = []
        for placement in build.cards:
            card = catalog.cards.get(placement.card)
            if card is None or any(r.card_id == card.id for r in roofs) or card.id in missing:
                continue
            peak = bf16_rate(card, build.assumptions.compute_rates == "estimated")  # as the step time uses
            bw = card.memory_bandwidth_gb_s.value
            if peak and bw:
                name = short_card_name(card.name) + ("" if card.bf16_dense_tflops.value else " (estimate)")
                roofs.append(_Roof(card.id, name, float(peak), float(bw)))
            else:
                missing.append(card.id)
        roofs = roofs[: self.MAX_CARDS]
        job: JobResult | None = result.job(build.jobs[job_index].name) if 0 <= job_index < len(build.jobs) else None
        if not roofs:
            for item in (*self.roofs, self.ridges, self.compute_pts, self.memory_pts, self.leaders):
                item.setData([], [])
            for t in (*self.ridge_labels, *self.point_labels):
                t.setVisible(False)
            self._points, self._bounds, self._placing = [], [], []
            self._roofs, self._slow = [], None
            self._set_legend([])
            self._set_title("Roofline")
            self._set_note("")
            names = ", ".join(short_card_name(catalog.cards[c].name) for c in missing)
            self._show_empty("Place a card to see its roofline" if not missing else
                             f"No published BF16 rate for {names}:\nno roofline to draw")  # fmt: skip
            return
        self._hide_empty()
        # the job's slowest card (lowest peak) among those with a roofline
        job_ids = {row.card for row in job.cards} if job else set()
        on_job = [r for r in roofs if r.card_id in job_ids]
        slow = min(on_job, key=lambda r: r.peak_tflops) if on_job else None
        rate = job.compute.bf16_tflops if job and job.compute else None
        on_instance = (
            slow is not None
            and job is not None
            and any(row.card == slow.card_id and row.mig for row in job.cards)
            and bool(rate)
            and rate < slow.peak_tflops * (1 - 1e-9)
        )
        if on_instance:
            # a MIG instance: the engine rated the job at its share of the card (rate and bandwidth alike);
            # draw the roof the engine used and place the operations on it
            assert job.compute is not None
            bandwidth = job.compute.memory_bandwidth_gb_s or slow.bandwidth_gb_s
            profile = next((row.mig for row in job.cards if row.card == slow.card_id and row.mig), "instance")
            slow = _Roof(slow.card_id, f"{slow.name} {profile}", rate, bandwidth)
            roofs = [*roofs[: self.MAX_CARDS - 1], slow]
        self._roofs, self._slow = roofs, slow
        ops = job.compute.matmuls if job and job.compute and slow else []
        ops = ops[: self.MAX_POINTS]
        self._points = [(m.name, m.intensity, slow.attainable(m.intensity)) for m in ops] if slow else []
        self._bounds = [m.bound.get(slow.card_id, "compute" if m.intensity >= slow.ridge else "memory")
                        for m in ops] if slow else []  # fmt: skip
        # ranges (log10)
        xs = [p[1] for p in self._points] + [r.ridge for r in roofs]
        x_lo = math.floor(math.log10(min([0.1, *[x / 2 for x in xs]])))
        x_hi = math.ceil(math.log10(max([1e4, *[x * 4 for x in xs]])))
        peak_hi = max(r.peak_tflops for r in roofs)
        y_min = min([r.attainable(10**x_lo) for r in roofs] + [p[2] for p in self._points])
        y_lo = math.floor(math.log10(y_min) - 0.15)
        y_hi = math.log10(peak_hi) + 0.75
        xa, xb = x_lo - 0.1, x_hi + 0.1  # room for the end ticks' labels
        self._ranges = (xa, xb, y_lo, y_hi)
        entries: list[tuple[object, str]] = []
        for i, item in enumerate(self.roofs):
            if i < len(roofs):
                r = roofs[i]
                colour = ROOF_COLOURS[i % len(ROOF_COLOURS)]
                width = 3.0 if slow is not None and r is slow else 2.0
                item.setData([10**xa, r.ridge, 10**xb], [r.attainable(10**xa), r.peak_tflops, r.peak_tflops],
                             pen=pg.mkPen(colour, width=width))  # fmt: skip
                entries.append((item, f"{r.name}: {r.peak_tflops:.4g} TFLOPS, {r.bandwidth_gb_s / 1000:.4g} TB/s"))
            else:
                item.setData([], [])
        self.ridges.setData([r.ridge for r in roofs], [r.peak_tflops for r in roofs])
        entries.append((self.ridges, "ridge point"))
        cx = [p[1] for p, b in zip(self._points, self._bounds, strict=True) if b == "compute"]
        cy = [p[2] for p, b in zip(self._points, self._bounds, strict=True) if b == "compute"]
        mx = [p[1] for p, b in zip(self._points, self._bounds, strict=True) if b != "compute"]
        my = [p[2] for p, b in zip(self._points, self._bounds, strict=True) if b != "compute"]
        self.compute_pts.setData(cx, cy)
        self.memory_pts.setData(mx, my)
        if cx:
            entries.append((self.compute_pts, "compute-bound operation"))
        if mx:
            entries.append((self.memory_pts, "memory-bound operation"))
        self._set_legend(entries)
        # labels to place: ridges first, then operations (same point: one label, names on lines)
        placing: list[tuple[pg.TextItem, str, float, float, str, str]] = []
        for i, r in enumerate(roofs):
            placing.append((self.ridge_labels[i], f"ridge {r.ridge:.0f} FLOP/B", r.ridge, r.peak_tflops,
                            ROOF_COLOURS[i % len(ROOF_COLOURS)], "ridge"))  # fmt: skip
        groups: dict[tuple[float, float], tuple[list[str], str]] = {}
        for (name, x, y), bound in zip(self._points, self._bounds, strict=True):
            groups.setdefault((round(x, 6), round(y, 6)), ([], bound))[0].append(name)
        for i, ((x, y), (names, bound)) in enumerate(groups.items()):
            placing.append((self.point_labels[i], "\n".join(names), x, y, self.ink, bound))
        used = {id(p[0]) for p in placing}
        for t in (*self.ridge_labels, *self.point_labels):
            if id(t) not in used:
                t.setVisible(False)
        self._placing = placing
        self.plot.setXRange(xa, xb, padding=0)
        self.plot.setYRange(y_lo, y_hi, padding=0)
        ax = self.plot.getAxis("bottom")
        ax.setTicks([[(k, _decade_label(k)) for k in range(x_lo, x_hi + 1)]])
        self.plot.getAxis("left").setTicks([[(k, _decade_label(k)) for k in range(y_lo, math.ceil(y_hi) + 1)]])
        if job is None:
            title, note = "Roofline (no job selected)", ""
        elif slow is None:
            title = f"Roofline — {_shorten(job.name, 40)}"
            note = "This job's cards have no published BF16 rate: its operations are not placed."
        else:
            title = f"Roofline — {_shorten(job.name, 40)} on {slow.name}"
            note = (
                "Operations at the MIG instance's share of its card's peak rate (before utilisation)."
                if on_instance
                else "Operations at the job's slowest card's peak rate (before utilisation)."
            )
        if missing:
            note += " No BF16 rate: " + ", ".join(short_card_name(catalog.cards[c].name) for c in missing) + "."
        self._set_title(title)
        self._set_note(note)
        self._place_labels()

    def _place_labels(self, *_: object) -> None:
        """Greedy placement in pixels: each label tries a few spots around its point (which depend on
        whether the point sits on the flat or the sloped part of the roof), then spots further down; the
        first inside the plot that overlaps no point and no label placed before wins. A thin leader joins
        a label placed away from its point."""
        if not self._placing or self.is_empty():
            self.leaders.setData([], [])
            return
        x_lo, x_hi, y_lo, y_hi = self._ranges
        w = max(self.plot.vb.width(), 200.0)
        h = max(self.plot.vb.height(), 120.0)

        def px(x: float, y: float) -> tuple[float, float]:
            return ((math.log10(x) - x_lo) / (x_hi - x_lo) * w, (y_hi - math.log10(y)) / (y_hi - y_lo) * h)

        def view(u: float, v: float) -> tuple[float, float]:
            return (x_lo + u / w * (x_hi - x_lo), y_hi - v / h * (y_hi - y_lo))

        # the markers themselves are obstacles
        placed: list[tuple[float, float, float, float]] = []
        for _, _, x, y, _, _ in self._placing:
            u, v = px(x, y)
            placed.append((u - 6, v - 6, u + 6, v + 6))
        lead_x: list[float] = []
        lead_y: list[float] = []
        for item, text, x, y, colour, kind in self._placing:
            lines = text.split("\n")
            tw = max(len(s) for s in lines) * 6.3 + 6
            th = len(lines) * 14 + 2
            u, v = px(x, y)
            below = [(u - tw / 2, v + 9 + k * 15) for k in range(0, 8)]
            if kind == "ridge":
                first = [(u - tw - 8, v - th - 2), (u + 8, v + 4), (u - tw / 2, v - th - 8)]
            elif kind == "memory":
                first = [(u + 9, v + 1), (u - tw - 9, v - th - 1), (u + 9, v + 16)]
            else:
                first = [(u - tw / 2, v + 9), (u - tw / 2, v - th - 9)]
            candidates = [*first, *below, *[(u + 10, v + 9 + k * 15) for k in range(6)],
                          *[(u - tw - 10, v + 9 + k * 15) for k in range(6)]]  # fmt: skip
            best = None
            for cu, cv in candidates:
                cu = min(max(cu, 2.0), w - tw - 2)
                if cv < 2 or cv + th > h - 2:
                    continue
                rect = (cu, cv, cu + tw, cv + th)
                if all(rect[2] <= a or rect[0] >= c or rect[3] <= b or rect[1] >= d for a, b, c, d in placed):
                    best = rect
                    break
            if best is None:
                cu = min(max(u - tw / 2, 2.0), w - tw - 2)
                best = (cu, min(v + 9, h - th - 2), cu + tw, min(v + 9, h - th - 2) + th)
            placed.append(best)
            item.setAnchor((0.0, 0.0))
            self._set_text(item, text, colour)
            item.setPos(*view(best[0], best[1]))
            item.setVisible(True)
            # leader from the point to the nearest point of the label's box
            nu, nv = min(max(u, best[0]), best[2]), min(max(v, best[1]), best[3])
            if math.hypot(nu - u, nv - v) > 14:
                for a, b in ((u, v), (nu, nv)):
                    lx, ly = view(a, b)
                    lead_x.append(10**lx)
                    lead_y.append(10**ly)
        self.leaders.setData(lead_x, lead_y)

    def set_dark(self, dark: bool) -> None:
        super().set_dark(dark)
        if hasattr(self, "_last"):
            self.update_document(*self._last)


# ====================================================================================================
# Topology
# ====================================================================================================


def topo_colour(label: str) -> str:
    if label.startswith("NV"):
        return TOPO_COLOURS["NV"]
    return TOPO_COLOURS.get(label, "#E0E0E0")


class _DomainDelegate(QStyledItemDelegate):
    """Paints the cell, then a thick border around each NVLink domain's block."""

    def __init__(self, grid: TopologyGrid) -> None:
        super().__init__(grid.table)
        self.grid = grid

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:  # type: ignore[no-untyped-def]
        super().paint(painter, option, index)
        dom = self.grid.domain_of
        r, c = index.row(), index.column()
        d = dom.get(r)
        if d is None or dom.get(c) != d:
            return

        def inside(rr: int, cc: int) -> bool:
            return dom.get(rr) == d and dom.get(cc) == d

        rect: QRect = option.rect  # lines drawn just inside the cell, so no neighbour paints over them
        left, top, right, bottom = rect.left(), rect.top(), rect.right(), rect.bottom()
        painter.save()
        painter.setPen(QPen(QColor(self.grid.outline), 3))
        if not inside(r - 1, c):
            painter.drawLine(left, top + 1, right, top + 1)
        if not inside(r + 1, c):
            painter.drawLine(left, bottom - 1, right, bottom - 1)
        if not inside(r, c - 1):
            painter.drawLine(left + 1, top, left + 1, bottom)
        if not inside(r, c + 1):
            painter.drawLine(right - 1, top, right - 1, bottom)
        painter.restore()


class TopologyGrid(QWidget):
    """The nvidia-smi ``topo -m`` matrix of the placed cards as a coloured grid, NVLink domains outlined."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.outline = "#111111"
        self.domain_of: dict[int, int] = {}  # row/column index -> NVLink domain index
        self._matrix: list[list[str]] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.title = QLabel()
        self.title.setFont(_font(10, bold=True))
        layout.addWidget(self.title)
        self.table = QTableWidget()
        self.table.setAccessibleName("Topology grid")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setShowGrid(True)
        self.table.setItemDelegate(_DomainDelegate(self))
        for header in (self.table.horizontalHeader(), self.table.verticalHeader()):
            header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
            header.setMinimumSectionSize(18)
        layout.addWidget(self.table, 0, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.legend)
        self.empty = QLabel()
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet("color: #8a8a8a; font-size: 11pt;")
        layout.addWidget(self.empty, 1)
        self.empty.setVisible(False)
        layout.addStretch(0)
        self._legend_html = ""

    def cell_text(self, row: int, col: int) -> str:
        item = self.table.item(row, col)
        return item.text() if item is not None else ""

    def is_empty(self) -> bool:
        return not self.table.isVisibleTo(self)

    def empty_text(self) -> str:
        return self.empty.text() if self.is_empty() else ""

    def update_document(self, build: Build, result: BuildResult, catalog: Catalog) -> None:
        topo = result.topology
        if topo is None or not topo.slots:
            self.table.setVisible(False)
            self.legend.setVisible(False)
            self.title.setText("Topology")
            self.empty.setText("Place cards in a chassis to see how they connect")
            self.empty.setVisible(True)
            self._matrix = []
            return
        self.table.setVisible(True)
        self.legend.setVisible(True)
        self.empty.setVisible(False)
        slots, matrix = topo.slots, topo.matrix
        n = len(slots)
        self._matrix = matrix
        if self.table.rowCount() != n:
            self.table.setRowCount(n)
            self.table.setColumnCount(n)
        names = []
        for s in slots:
            placement = build.card_in(s)
            card = catalog.cards.get(placement.card) if placement else None
            names.append(short_card_name(card.name) if card else (placement.card if placement else "empty"))
        for i, s in enumerate(slots):
            h = self.table.horizontalHeaderItem(i) or QTableWidgetItem()
            h.setText(f"Slot {s}")
            h.setToolTip(f"Slot {s}: {names[i]}")
            self.table.setHorizontalHeaderItem(i, h)
            v = self.table.verticalHeaderItem(i) or QTableWidgetItem()
            v.setText(f"Slot {s} · {_shorten(names[i], 20)}")
            v.setToolTip(f"Slot {s}: {names[i]}")
            self.table.setVerticalHeaderItem(i, v)
        index = {s: i for i, s in enumerate(slots)}
        self.domain_of = {index[s]: d for d, dom in enumerate(topo.nvlink_domains) for s in dom if s in index}
        bold = _font(9.5, bold=True)
        for r in range(n):
            for c in range(n):
                label = matrix[r][c]
                item = self.table.item(r, c)
                if item is None:
                    item = QTableWidgetItem()
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                    item.setFont(bold)
                    item.setForeground(QColor("#111111"))
                    self.table.setItem(r, c, item)
                item.setText(label)
                item.setBackground(QColor(topo_colour(label)))
                item.setToolTip(self._explain(label, slots[r], slots[c], topo.legend))
        self.title.setText(f"Link topology — {n} card{'s' if n != 1 else ''} (nvidia-smi topo -m)")
        self._set_legend_html(topo.legend, topo.nvlink_domains, {m for row in matrix for m in row}, n)
        self._fit_sections()
        self.table.viewport().update()

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._fit_sections()

    def _fit_sections(self) -> None:
        """Square-ish cells that fill the tab up to a comfortable size (one card is not a 600 px cell)."""
        n = self.table.rowCount()
        if n == 0 or not self.table.isVisibleTo(self):
            return
        vh, hh = self.table.verticalHeader(), self.table.horizontalHeader()
        frame = 2 * self.table.frameWidth()
        margins = self.layout().contentsMargins()
        room_w = self.width() - margins.left() - margins.right()
        legend_h = self.legend.heightForWidth(room_w) if self.legend.isVisibleTo(self) else 0
        spacing = self.layout().spacing()
        room_h = (self.height() - margins.top() - margins.bottom() - self.title.sizeHint().height()
                  - max(legend_h, 0) - 3 * spacing)  # fmt: skip
        head_w, head_h = vh.sizeHint().width(), hh.sizeHint().height()
        cw = int(max(40, min((room_w - head_w - frame) / n, 120)))
        rh = int(max(20, min((room_h - head_h - frame) / n, 46)))
        hh.setDefaultSectionSize(cw)
        vh.setDefaultSectionSize(rh)
        w = min(head_w + cw * n + frame, room_w)
        h = min(head_h + rh * n + frame, max(room_h, 60))
        self.table.setFixedSize(w, h)

    @staticmethod
    def _explain(label: str, a: int, b: int, legend: dict[str, str]) -> str:
        if label == "X":
            return f"Slot {a}: {legend.get('X', 'self')}"
        key = "NV#" if label.startswith("NV") else label
        text = legend.get(key, label)
        if label.startswith("NV"):
            text = text.replace("#", label[2:])
        return f"Slot {a} ↔ slot {b}: <b>{label}</b> — {text}"

    def _set_legend_html(self, legend: dict[str, str], domains: list[list[int]], present: set[str], n: int) -> None:
        order = ["NV#", "PIX", "PXB", "NODE", "SYS", "X"]
        parts = []
        for key in order:
            if key == "NV#":
                shown = any(p.startswith("NV") for p in present)
                colour = TOPO_COLOURS["NV"]
            else:
                shown = key in present
                colour = TOPO_COLOURS[key]
            if not shown:
                continue
            parts.append(f"<span style='background:{colour}; color:#111;'>&nbsp;{key}&nbsp;</span>&nbsp;"
                         f"{legend.get(key, '')}")  # fmt: skip
        if domains:
            doms = " · ".join(
                f"slots {d[0]}–{d[-1]}" if d == list(range(d[0], d[-1] + 1)) else "slots " + ", ".join(map(str, d))
                for d in domains
            )
            parts.append(f"<b>NVLink domains (outlined): {doms}</b>")
        elif n > 1:
            parts.append("<b>No NVLink domains:</b> every pair talks over PCIe")
        else:
            parts.append("One card: no links between cards")
        text = "&nbsp;&nbsp; ".join(parts[:-1]) + "<br>" + parts[-1] if len(parts) > 1 else parts[0]
        if text != self._legend_html:
            self._legend_html = text
            self.legend.setText(text)
            self.legend.setToolTip("<br>".join(f"<b>{k}</b>: {v}" for k, v in legend.items()))

    def set_dark(self, dark: bool) -> None:
        """The cells keep their light colours in both themes, so the dark outline reads on either."""
        self.outline = "#111111"
        self.table.viewport().update()


# ====================================================================================================
# The tabs
# ====================================================================================================


class AnalysisTabs(QTabWidget):
    """Fit frontier, step time, roofline and topology of the document's build, updated on every change."""

    def __init__(self, document, parent: QWidget | None = None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(parent)
        self.doc = document
        self._job = 0
        self.last_update_ms = 0.0
        self.frontier = FitFrontierChart()
        self.step_time = StepTimeChart()
        self.roofline = RooflineChart()
        self.topology = TopologyGrid()
        self.addTab(self.frontier, "Fit frontier")
        self.addTab(self.step_time, "Step time")
        self.addTab(self.roofline, "Roofline")
        self.addTab(self.topology, "Topology")
        self.setTabToolTip(0, "Headroom against sequence length for the selected job, per micro-batch")
        self.setTabToolTip(1, "Compute and communication per optimizer step, per job")
        self.setTabToolTip(2, "Where the selected job's operations sit against the cards' peak rates")
        self.setTabToolTip(3, "How the placed cards connect: NVLink, PCIe switch, CPU root, across CPUs")
        document.changed.connect(self._changed)
        self._stale: set[QWidget] = set()
        self.currentChanged.connect(self._tab_changed)
        self.refresh()

    @property
    def job_index(self) -> int:
        return self._job

    def set_job(self, index: int) -> None:
        """Show ``index``'s frontier and roofline (clamped to the jobs there are)."""
        n = len(self.doc.build.jobs)
        index = min(max(int(index), 0), max(n - 1, 0))
        if index == self._job:
            return
        self._job = index
        build, result = self.doc.build, self.doc.result
        self.frontier.update_document(build, self.doc.catalog, self._job, self.doc.models)
        self.roofline.update_document(build, result, self.doc.catalog, self._job)

    def _changed(self, build: Build, result: BuildResult) -> None:
        self.refresh(only_visible=True)

    def _tab_changed(self, *_: object) -> None:
        if self._stale:
            self.refresh(only_visible=True)

    def refresh(self, only_visible: bool = False) -> None:
        """Update the tabs from the document. While editing, only the visible tab is redrawn (the fit
        frontier's sweep alone is a few ms); the others catch up when they are shown."""
        t0 = time.perf_counter()
        build, result, catalog = self.doc.build, self.doc.result, self.doc.catalog
        self._job = min(max(self._job, 0), max(len(build.jobs) - 1, 0))
        current = self.currentWidget()
        updates = [
            (self.frontier, lambda: self.frontier.update_document(build, catalog, self._job, self.doc.models)),
            (self.step_time, lambda: self.step_time.update_result(result)),
            (self.roofline, lambda: self.roofline.update_document(build, result, catalog, self._job)),
            (self.topology, lambda: self.topology.update_document(build, result, catalog)),
        ]
        self._stale = set()
        for widget, update in updates:
            if only_visible and widget is not current:
                self._stale.add(widget)
            else:
                update()
        self.last_update_ms = (time.perf_counter() - t0) * 1000

    def set_unit(self, unit: str) -> None:
        """The view state's display unit: the fit frontier's headroom (the other tabs show no memory)."""
        self.frontier.set_unit(unit)

    def set_dark(self, dark: bool) -> None:
        self.frontier.set_dark(dark)
        self.step_time.set_dark(dark)
        self.roofline.set_dark(dark)
        self.topology.set_dark(dark)
