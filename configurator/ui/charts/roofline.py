"""Roofline chart: each card's compute roofs and where each job sits under them."""

from __future__ import annotations

import html
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import (
    QWidget,
)

from configurator.catalog.cards import short_card_name
from configurator.catalog.loader import Catalog
from configurator.engine import Build, BuildResult
from configurator.engine.model.result import JobResult
from configurator.engine.time.compute import attainable_tflops, bf16_rate, ridge_intensity
from configurator.present.colours import readable
from configurator.ui.charts.common import (
    DARK_BACKGROUND,
    ROOF_COLOURS,
    _Chart,
    _decade_label,
    _shorten,
)
from configurator.ui.charts.label_spots import Rect, Segment, free_spot, label_spots, leader_end


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
        self._under: _Roof | None = None
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
        # the job's card's FP8 and FP4 roofs (JobResult.compute.card_fp8_tflops / card_fp4_tflops), dashed
        self.lp_roofs = [pg.PlotDataItem([], []) for _ in range(2)]
        for r in self.lp_roofs:
            self.plot.addItem(r)
        self._lp: list[_Roof] = []
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
        for r in [*self._roofs, *self._lp]:
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
        roofs, missing = self._card_roofs(build, catalog)
        job: JobResult | None = result.job(build.jobs[job_index].name) if 0 <= job_index < len(build.jobs) else None
        if not roofs:
            self._show_no_roofs(catalog, missing)
            return
        self._hide_empty()
        roofs, slow, on_instance = self._job_roof(job, roofs)
        self._roofs, self._slow = roofs, slow
        lp, under = self._low_precision_roofs(job, slow, on_instance)
        self._lp, self._under = lp, under
        left = "Attainable (TFLOPS, log)" if lp else "Attainable BF16 (TFLOPS, log)"
        if self._axis_titles[1] != left:  # the FP8 / FP4 roofs are drawn too: the axis is not BF16 only
            self._set_axes(self._axis_titles[0], left)
        self._place_operations(job, slow, under)
        # ranges (log10)
        xs = [p[1] for p in self._points] + [r.ridge for r in [*roofs, *lp]]
        x_lo = math.floor(math.log10(min([0.1, *[x / 2 for x in xs]])))
        x_hi = math.ceil(math.log10(max([1e4, *[x * 4 for x in xs]])))
        peak_hi = max(r.peak_tflops for r in [*roofs, *lp])
        y_min = min([r.attainable(10**x_lo) for r in roofs] + [p[2] for p in self._points])
        y_lo = math.floor(math.log10(y_min) - 0.15)
        y_hi = math.log10(peak_hi) + 0.75
        xa, xb = x_lo - 0.1, x_hi + 0.1  # room for the end ticks' labels
        self._ranges = (xa, xb, y_lo, y_hi)
        self._draw_series(roofs, lp, slow, under)
        self._collect_labels(roofs)
        self.plot.setXRange(xa, xb, padding=0)
        self.plot.setYRange(y_lo, y_hi, padding=0)
        ax = self.plot.getAxis("bottom")
        ax.setTicks([[(k, _decade_label(k)) for k in range(x_lo, x_hi + 1)]])
        self.plot.getAxis("left").setTicks([[(k, _decade_label(k)) for k in range(y_lo, math.ceil(y_hi) + 1)]])
        self._set_caption(job, slow, on_instance, [short_card_name(catalog.cards[c].name) for c in missing])
        self._place_labels()

    def _card_roofs(self, build: Build, catalog: Catalog) -> tuple[list[_Roof], list[str]]:
        """One roof per card type in the build (at most ``MAX_CARDS``), and the card ids without a rate."""
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
        return roofs[: self.MAX_CARDS], missing

    def _show_no_roofs(self, catalog: Catalog, missing: list[str]) -> None:
        self._lp, self._under = [], None
        for item in (*self.roofs, *self.lp_roofs, self.ridges, self.compute_pts, self.memory_pts, self.leaders):
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

    def _job_roof(self, job: JobResult | None, roofs: list[_Roof]) -> tuple[list[_Roof], _Roof | None, bool]:
        """The job's slowest card (lowest peak) among those with a roofline, or its MIG instance's roof:
        (roofs to draw, that roof, whether it is an instance's)."""
        job_ids = {row.card for row in job.cards} if job else set()
        on_job = [r for r in roofs if r.card_id in job_ids]
        slow = min(on_job, key=lambda r: r.peak_tflops) if on_job else None
        rate = job.compute.bf16_tflops if job and job.compute else None
        on_instance = (
            slow is not None
            and job is not None
            and any(row.card == slow.card_id and row.mig for row in job.cards)
            and rate is not None
            and bool(rate)
            and rate < slow.peak_tflops * (1 - 1e-9)
        )
        if on_instance:
            # a MIG instance: the engine rated the job at its share of the card (rate and bandwidth alike);
            # draw the roof the engine used and place the operations on it
            assert job is not None and job.compute is not None and slow is not None and rate is not None
            bandwidth = job.compute.memory_bandwidth_gb_s or slow.bandwidth_gb_s
            profile = next((row.mig for row in job.cards if row.card == slow.card_id and row.mig), "instance")
            slow = _Roof(slow.card_id, f"{slow.name} {profile}", rate, bandwidth)
            roofs = [*roofs[: self.MAX_CARDS - 1], slow]
        return roofs, slow, on_instance

    @staticmethod
    def _low_precision_roofs(
        job: JobResult | None, slow: _Roof | None, on_instance: bool
    ) -> tuple[list[_Roof], _Roof | None]:
        """Low-precision roofs of the job's slowest card, at its published dense FP8 / FP4 rates and the
        same memory bandwidth; a job running an FP8 (or NVFP4) recipe sits under that roof: (roofs, it)."""
        lp: list[_Roof] = []
        comp = job.compute if job is not None else None
        if slow is not None and comp is not None and not on_instance:
            for tag, rates in (("FP8", comp.card_fp8_tflops), ("FP4", comp.card_fp4_tflops)):
                lp_rate = rates.get(slow.card_id)
                if lp_rate:
                    lp.append(_Roof(slow.card_id, f"{slow.name} {tag}", float(lp_rate), slow.bandwidth_gb_s))
        recipe = (comp.recipe or "") if comp is not None else ""
        want = "FP4" if "fp4" in recipe else "FP8" if "fp8" in recipe else None
        return lp, next((r for r in lp if want and r.name.endswith(want)), None)

    def _place_operations(self, job: JobResult | None, slow: _Roof | None, under: _Roof | None) -> None:
        """The job's matrix multiplies on the roof they run under, each classed compute- or memory-bound."""
        place = under or slow
        ops = job.compute.matmuls if job and job.compute and slow else []
        ops = ops[: self.MAX_POINTS]
        self._points = [(m.name, m.intensity, place.attainable(m.intensity)) for m in ops] if place else []
        if under is not None:  # under the recipe's FP8 / FP4 roof: the engine's bound there
            self._bounds = [m.recipe_bound.get(under.card_id, m.bound.get(under.card_id, "memory")) for m in ops]
        else:
            self._bounds = [m.bound.get(slow.card_id, "compute" if m.intensity >= slow.ridge else "memory")
                            for m in ops] if slow else []  # fmt: skip

    def _draw_series(self, roofs: list[_Roof], lp: list[_Roof], slow: _Roof | None, under: _Roof | None) -> None:
        """The roofs (the job's card wider), the low-precision roofs, the ridges, the points and the legend."""
        xa, xb = self._ranges[0], self._ranges[1]
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
        slow_colour = ROOF_COLOURS[roofs.index(slow) % len(ROOF_COLOURS)] if slow in roofs else self.ink
        for item, style, lr in zip(
            self.lp_roofs, (Qt.PenStyle.DashLine, Qt.PenStyle.DotLine), [*lp, None, None], strict=False
        ):
            if lr is None:
                item.setData([], [])
                continue
            item.setData([10**xa, lr.ridge, 10**xb], [lr.attainable(10**xa), lr.peak_tflops, lr.peak_tflops],
                         pen=pg.mkPen(slow_colour, width=2.6 if lr is under else 1.6, style=style))  # fmt: skip
            entries.append(
                (item, f"{lr.name}: {lr.peak_tflops:.4g} TFLOPS" + (" (this job's recipe)" if lr is under else ""))
            )
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

    def _collect_labels(self, roofs: list[_Roof]) -> None:
        """The labels to place: ridges first, then operations (same point: one label, names on lines)."""
        placing: list[tuple[pg.TextItem, str, float, float, str, str]] = []
        for i, r in enumerate(roofs):
            # the roof's hue, made to read at 4.5:1 on the theme's panel (the dark theme's #0072B2 was 3.2:1)
            colour = readable(ROOF_COLOURS[i % len(ROOF_COLOURS)], DARK_BACKGROUND if self.dark else "#ffffff")
            placing.append((self.ridge_labels[i], f"ridge {r.ridge:.0f} FLOP/B", r.ridge, r.peak_tflops, colour,
                            "ridge"))  # fmt: skip
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

    def _set_caption(self, job: JobResult | None, slow: _Roof | None, on_instance: bool, missing: list[str]) -> None:
        """The title (job and card) and the note (which rate the operations sit at, cards without one)."""
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
            note += " No BF16 rate: " + ", ".join(missing) + "."
        self._set_title(title)
        self._set_note(note)

    def _place_labels(self, *_: object) -> None:
        """Greedy placement in pixels: each label tries a few spots around its point (which depend on
        whether the point sits on the flat or the sloped part of the roof), then spots further down; the
        first inside the plot that overlaps no point and no label placed before, that no roof or leader passes
        through and whose leader crosses no label wins (else the one with the fewest of those). A thin leader
        joins every label to its point."""
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

        # the markers and the roofs are obstacles; each label placed, and its leader, one for those after it. The
        # ridges' labels first, or the operations' (the one with fewer conflicts wins)
        markers = [(u - 6, v - 6, u + 6, v + 6) for u, v in (px(m[2], m[3]) for m in self._placing)]
        roofs: list[tuple[float, float, float, float]] = []
        for r in [*self._roofs, *self._lp]:
            corners = [px(10**x_lo, r.attainable(10**x_lo)), px(r.ridge, r.peak_tflops), px(10**x_hi, r.peak_tflops)]
            roofs += [(*a, *b) for a, b in itertools.pairwise(corners)]
        ridges = [k for k, m in enumerate(self._placing) if m[5] == "ridge"]
        ops = [k for k, m in enumerate(self._placing) if m[5] != "ridge"]
        layouts = [self._layout_labels([*ridges, *ops], markers, roofs, px, (w, h))]
        if layouts[0][0] and ops and ridges:
            layouts.append(self._layout_labels([*ops, *ridges], markers, roofs, px, (w, h)))
        rects = min(layouts, key=lambda layout: layout[0])[1]
        lead_x: list[float] = []
        lead_y: list[float] = []
        for k, best in rects.items():
            item, x, y = self._placing[k][0], self._placing[k][2], self._placing[k][3]
            item.setAnchor((0.0, 0.0))
            item.setPos(*view(best[0], best[1]))
            item.setVisible(True)
            # a leader from the point to the nearest point of the label's box, for every label: near-coincident
            # points' labels read as whose they are
            u, v = px(x, y)
            nu, nv = leader_end((u, v), best)
            if math.hypot(nu - u, nv - v) > 3:
                for a, b in ((u, v), (nu, nv)):
                    lx, ly = view(a, b)
                    lead_x.append(10**lx)
                    lead_y.append(10**ly)
        self.leaders.setData(lead_x, lead_y)

    def _layout_labels(self, order: list[int], markers: list[Rect], roofs: list[Segment],
                       px: Callable[[float, float], tuple[float, float]], area: tuple[float, float]
                       ) -> tuple[int, dict[int, Rect]]:  # fmt: skip
        """The labels placed greedily in ``order`` (indices into the labels to place): their boxes in pixels and the
        conflicts left (free_spot)."""
        placed, lines, labels = list(markers), list(roofs), list[Rect]()
        rects: dict[int, Rect] = {}
        total = 0
        for k in order:
            item, text, x, y, colour, kind = self._placing[k]
            self._set_text(item, text, colour)
            box = item.textItem.boundingRect()  # as drawn (an estimate from the characters left roofs through it)
            tw, th = box.width(), box.height()
            u, v = px(x, y)
            rect, conflicts = free_spot(label_spots(u, v, tw, th, kind), placed, (u, v), (tw, th), area, lines, labels)
            total += conflicts
            placed.append(rect)
            labels.append(rect)
            nu, nv = leader_end((u, v), rect)
            lines.append((u, v, nu, nv))
            rects[k] = rect
        return total, rects

    def set_dark(self, dark: bool) -> None:
        super().set_dark(dark)
        if hasattr(self, "_last"):
            self.update_document(*self._last)
