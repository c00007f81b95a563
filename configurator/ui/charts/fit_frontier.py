"""Fit frontier chart: the largest model that fits, per micro-batch, against sequence length."""

from __future__ import annotations

import html
import itertools
import math

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QWidget,
)

from configurator.catalog.cards import short_card_name
from configurator.catalog.loader import Catalog
from configurator.engine import Build, Job
from configurator.engine.model.resolver import ModelResolver
from configurator.engine.sweep import Frontier, FrontierCurve, batch_label, fit_frontier
from configurator.ui.base import to_unit
from configurator.ui.charts.common import (
    COMPARE_STYLES,
    MB_COLOURS,
    _Chart,
    _length_label,
    _shorten,
)
from configurator.ui.charts.label_spots import Segment, free_spot, leader_end


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
        self.marker_label = self._label((0.0, 0.0), bold=True, fill=True)
        # from the marker to its label where the label stands away from it (_place_marker_label)
        self.marker_leader = pg.PlotDataItem([], [], pen=pg.mkPen("#9a9a9a", width=1))
        self.marker_leader.setZValue(14)
        self.plot.addItem(self.marker_leader)
        self.zero_label = self._label((0.0, -0.05))
        self._marker_at: tuple[float, float] | None = None  # the marker in view coordinates (log10 length, headroom)
        self.plot.vb.sigResized.connect(self._place_marker_label)
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
        """The length marked on the chart: the job's own curve's longest length that still fits (the engine's
        crossing of zero headroom, between two swept lengths)."""
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
            self._show_no_sweep(job)
            return
        self._hide_empty()
        self.below.setVisible(True)
        lengths = f.curves[0].lengths
        x0, x1 = float(lengths[0]), float(lengths[-1])
        shown = f.curves[: self.MAX_CURVES]
        u = self.unit
        heads = [[to_unit(h, u) for h in c.headroom_gb] for c in shown]  # display unit from here on
        entries, own = self._draw_curves(job, shown, heads)
        for item in self.curves[len(shown) :]:
            item.setData([], [])
        self._drawn = [(label, list(c.lengths), h) for (_, label), c, h in zip(entries, shown, heads, strict=True)]
        cap = to_unit(f.capacity_gb, u)
        top = max(max(max(h) for h in heads), 0.0)
        y_hi = max(top * 1.18, cap * 0.12, 5.0)
        y_lo = -max(0.45 * y_hi, 10.0)
        self._y_span = y_hi - y_lo
        self.below.setRegion((y_lo * 2, 0))
        # the legend lists what is drawn: a curve below the chart at every length is named in the note instead
        entries = [e for e, h in zip(entries, heads, strict=True) if max(h) >= y_lo]
        self.zero.setData([x0, x1], [0.0, 0.0])
        entries.append((self.zero, f"0 {u}: does not fit below"))
        lx0, lx1 = math.log10(x0), math.log10(x1)
        self._set_text(self.zero_label, "does not fit", self.alert)
        self.zero_label.setPos(lx0 + 0.02 * (lx1 - lx0), 0.0)
        self.zero_label.setVisible(True)
        # the job's own sequence length
        self._current_range = (x0, x1, y_lo, y_hi)
        self._draw_current(job.sequence_length)
        self._draw_marker(own, lengths[0], lx0, lx1, y_hi, entries)
        self._set_legend(entries)
        self._set_title(f"{_shorten(job.name, 44)} — headroom on {short_card_name(f.card)} ({cap:.1f} {u})")
        off = [c.label for c, h in zip(shown, heads, strict=True) if max(h) < y_lo]
        self._set_note(f"Below the chart at every length (never fits): {', '.join(off)}." if off else "")
        self.plot.setXRange(lx0, lx1, padding=0.045)  # room for the end ticks' labels
        self.plot.setYRange(y_lo, y_hi, padding=0)
        self._place_marker_label()
        ticks = [(math.log10(v), _length_label(v)) for v in (2**k for k in range(6, 21)) if x0 <= v <= x1]
        self.plot.getAxis("bottom").setTicks([ticks])

    def _show_no_sweep(self, job: Job | None) -> None:
        """Nothing to draw: clear every series and say why."""
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

    def _draw_curves(
        self, job: Job, shown: list[FrontierCurve], heads: list[list[float]]
    ) -> tuple[list[tuple[object, str]], FrontierCurve | None]:
        """One line per micro-batch of the job's method (its own thick), compare curves grey and dashed;
        returns the legend entries and the job's own curve."""
        entries: list[tuple[object, str]] = []
        dash = 0
        own = None
        for item, curve, head_u in zip(self.curves, shown, heads, strict=False):
            # The job's own settings at another micro-batch carry the sweep's exact label; a compare curve
            # ("Full fine-tune, 8-bit Adam") keeps its own label even when it shares the job's method.
            if curve.is_job or curve.label == batch_label(job.method, curve.micro_batch):
                colour = MB_COLOURS.get(curve.micro_batch, "#56B4E9")
                pen = pg.mkPen(colour, width=3.2 if curve.is_job else 1.4)
                label = curve.label + (" (this job)" if curve.is_job else "")
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
        return entries, own

    def _draw_marker(
        self,
        own: FrontierCurve | None,
        first: int,
        lx0: float,
        lx1: float,
        y_hi: float,
        entries: list[tuple[object, str]],
    ) -> None:
        """The longest length that fits on the job's own curve, or "does not fit even at" the shortest."""
        u = self.unit
        # the engine's crossing of zero headroom (sweep.py crossing), not the sweep's last fitting grid point
        self._marked = own.fits_up_to if own else None
        if own is not None and self._marked is not None:
            head = to_unit(own.fits_up_to_headroom_gb or 0.0, u)
            self.marker.setData([self._marked], [head])
            lx = math.log10(self._marked)
            self._set_text(self.marker_label, f"fits up to {self._marked:,} tokens", self.alert)
            self._marker_at = (lx, head)
            self.marker_label.setVisible(True)
            entries.append((self.marker, "longest length that fits"))
        else:
            self.marker.setData([], [])
            self._marker_at = None
            self.marker_leader.setData([], [])
            text = f"does not fit even at {first:,} tokens" if own is not None else ""
            self._set_text(self.marker_label, text, self.alert)
            self.marker_label.setAnchor((0.0, 1.2))
            self.marker_label.setPos(lx0 + 0.02 * (lx1 - lx0), y_hi * 0.85)
            self.marker_label.setVisible(bool(text))

    def _place_marker_label(self, *_: object) -> None:
        """The "fits up to" label at the first spot around its marker that no drawn curve crosses and that keeps off
        the marker (above right, above left, then further out and below), inside the plot; where every spot is
        crossed, the one crossed least (label_spots.free_spot, the roofline's rule). A leader joins it to the marker
        when it stands away. Its backing centred over the marker hid the curves exactly where they cross 0 GB."""
        if self._marker_at is None or not self.marker_label.isVisible():
            return
        vb = self.plot.vb
        (x0, x1), (y0, y1) = vb.viewRange()
        w, h = vb.width(), vb.height()
        if w <= 0 or h <= 0 or x1 <= x0 or y1 <= y0:
            return

        def px(x: float, y: float) -> tuple[float, float]:
            return ((x - x0) / (x1 - x0) * w, (y1 - y) / (y1 - y0) * h)

        lines: list[Segment] = []  # the drawn curves, segment by segment, in pixels
        for item in self.curves:
            xs, ys = item.getData()  # in view coordinates (log10 length)
            if xs is not None and len(xs):
                points = [px(float(x), float(y)) for x, y in zip(xs, ys, strict=True)]
                lines += [(*p, *q) for p, q in itertools.pairwise(points)]
        box = self.marker_label.textItem.boundingRect()
        tw, th = box.width(), box.height()
        u, v = px(*self._marker_at)
        spots = [(u + 8, v - th - 6), (u - tw - 8, v - th - 6), (u + 14, v - th - 26), (u - tw - 14, v - th - 26),
                 (u + 20, v - th - 50), (u - tw - 20, v - th - 50), (u + 8, v + 8), (u - tw - 8, v + 8),
                 (u - tw / 2, v - th - 70)]  # fmt: skip
        # the marker is an obstacle too: a spot slid inside the plot's edge (free_spot) must not cover it
        marker = (u - 6, v - 6, u + 6, v + 6)
        rect = free_spot(spots, [marker], (u, v), (tw, th), (w, h), lines)[0]
        left, top = rect[0], rect[1]
        self.marker_label.setPos(x0 + left / w * (x1 - x0), y1 - top / h * (y1 - y0))
        nu, nv = leader_end((u, v), rect)
        if math.hypot(nu - u, nv - v) > 10:
            ends = [(u, v), (nu, nv)]
            # lengths as the curves take them: the plot's log mode takes their log10 itself
            xs = [10 ** (x0 + a / w * (x1 - x0)) for a, _ in ends]
            self.marker_leader.setData(xs, [y1 - b / h * (y1 - y0) for _, b in ends])
        else:
            self.marker_leader.setData([], [])

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
