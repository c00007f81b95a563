"""The planner's charts (pyqtgraph): demand against capacity over the roadmap months for the best fleets,
utilisation per device type, and cost per job per fleet (energy per job where the plan has no prices, and
the chart says so). Every item is created once; an update only calls ``setData`` / ``setOpts``.
"""

from __future__ import annotations

import math
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QVBoxLayout, QWidget

from configurator.catalog.richtext import escape_rich
from configurator.engine.planner import PlanResult
from configurator.present.colours import readable
from configurator.ui.charts import DARK_BACKGROUND, DARK_INK, LIGHT_INK, palette_is_dark, wrap_label

# Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008), one colour per ranked fleet
FLEET_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
SHOWN_FLEETS = 4  # fleets drawn in the roadmap and utilisation charts (the table lists all)
MAX_BARS = 16  # fleets in the cost chart
MAX_NODE_TYPES = 12
INK = LIGHT_INK  # the main window's charts' ink and, in the dark theme, DARK_INK on DARK_BACKGROUND
OTHER_FLEETS = "#9E9E9E"  # the cost chart's bars for the fleets past SHOWN_FLEETS
ROADMAP_TITLE = "Demand (dashed) against capacity (solid), card-hours per day"  # one line at 1024 px
LEGEND_PT = 9  # the legend's text, as pyqtgraph's LegendItem wrote it
LEGEND_GAP = "&nbsp;&nbsp;&nbsp; "  # between two entries: wider than a word's space, and a place to break the line
SOLID_SAMPLE, DASHED_SAMPLE = "━━", "━&nbsp;━"  # a capacity line's legend sample: solid, or long dashes (on another)
# A capacity line that lies on an earlier fleet's is drawn in long dashes with gaps as long (in pen widths), so the
# line under it shows between its dashes: the two colours alternate along the line instead of one hiding the other.
DASH = 4.0  # pen widths


def capacity_pen(i: int, on: dict[int, int]) -> QPen:
    """Fleet ``i``'s capacity pen: solid, or long dashes where its line lies on an earlier fleet's (``on``: fleet ->
    the fleet it lies on). Dash and gap alternate with the line under it; with k lines on one, each is a dash in
    k + 1 and the next starts where the last ended, so every colour shows in turn."""
    pen = QPen(pg.mkPen(FLEET_COLOURS[i], width=2.5))
    if i in on:
        base = on[i]
        over = sorted(k for k, j in on.items() if j == base)
        pen.setDashPattern([DASH, DASH * len(over)])
        pen.setDashOffset(DASH * over.index(i))
    return pen


def _plot(view: pg.GraphicsLayoutWidget, row: int, col: int, title: str, colspan: int = 1) -> pg.PlotItem:
    plot = view.addPlot(row=row, col=col, colspan=colspan)
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.setTitle(escape_rich(title), color=INK, size="10pt")  # pyqtgraph titles are HTML
    for side in ("left", "bottom"):
        ax = plot.getAxis(side)
        ax.setTextPen(INK)
        ax.setPen("#888")
        ax.enableAutoSIPrefix(False)  # plain numbers: a label "(x1e-06)" beside 2.5 read as a misprint
    return plot


def legend_entry(colour: str, sample: str, text: str) -> str:
    """One legend entry as HTML: its sample in the fleet's colour, then ``text`` (already HTML). The sample and the
    rank stay on one line; the rest of the entry breaks where the line ends."""
    rank, _, rest = text.partition(" ")
    return f'<span style="color:{colour}">{sample}</span>&nbsp;<b>{rank}</b> {rest}'


class FlowLegend(pg.LabelItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """The fleets' legend as one paragraph that wraps to the view's width, entry after entry: as a grid (pyqtgraph's
    LegendItem) seed B's five entries took one column of five rows at 1024x768 and 1280x800 (each label wider than
    half the view), and the demand plot under them kept 46 px of height."""

    is_legend = True  # tests/gui_helpers.chart_parts checks it lies inside its view, as a LegendItem

    def __init__(self) -> None:
        super().__init__("", size=f"{LEGEND_PT}pt", color=INK, justify="left")
        self.entries: list[str] = []  # each entry's HTML, without its sample

    def set_entries(self, entries: list[tuple[str, str, str]], ink: str) -> None:
        """``entries``: (colour, sample, HTML text) each."""
        self.entries = [text for _c, _s, text in entries]
        self.setText(LEGEND_GAP.join(legend_entry(*e) for e in entries), color=ink)


def same_capacity(series: list[list[float]]) -> list[tuple[int, int]]:
    """(i, j) for each drawn fleet i whose capacity line lies on an earlier fleet j's, month by month: drawn on top
    of it, one of the two colours was hidden with nothing to say so."""
    pairs = []
    for i, ys in enumerate(series):
        j = next((j for j in range(i) if ys and len(series[j]) == len(ys) and np.allclose(series[j], ys)), None)
        if j is not None:
            pairs.append((i, j))
    return pairs


class PlannerCharts(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground("w")
        self.view.setAccessibleName("Planner charts")
        layout.addWidget(self.view)

        self._build_roadmap()
        self._build_utilisation()
        self._build_cost()
        grid = self.view.ci.layout
        grid.setRowStretchFactor(0, 0)  # the legend row takes only its own height
        # the demand plot takes the larger share: at 1024x768 it had 96 px under a three-line legend and a
        # two-line title while the bar charts below had more (review 2 finding 23)
        grid.setRowStretchFactor(1, 5)
        grid.setRowStretchFactor(2, 3)
        grid.setVerticalSpacing(2)
        # the fleets ranked past SHOWN_FLEETS are drawn grey in the cost chart: the legend names them too (it had
        # 4 entries beside 8 bars)
        self.names: list[str] = []
        self.showing_energy = False
        self._legend_entries: list[tuple[str, str, str]] = []
        self._tick_cache: dict[int, list[tuple[float, str]]] = {}
        self._title_cache = ""
        self.dark = False
        self.ink = INK
        self.roadmap_title = ROADMAP_TITLE
        self._follow_palette()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._follow_palette()

    def _follow_palette(self) -> None:
        """The main window's View > Dark theme sets the application's palette: the charts follow it (they stayed
        a white panel in the dark window)."""
        self.set_dark(palette_is_dark(self))

    def set_dark(self, dark: bool) -> None:
        """Dark or light background and ink for every title, axis, axis label and legend entry."""
        if dark == self.dark:
            return
        self.dark = dark
        self.ink = DARK_INK if dark else INK
        self.view.setBackground(DARK_BACKGROUND if dark else "w")
        for plot in (self.roadmap, self.util, self.cost):
            plot.setTitle(plot.titleLabel.text, color=self.ink, size="10pt")  # the text as set (escaped)
            for side in ("left", "bottom"):
                axis = plot.getAxis(side)
                axis.setTextPen(self.ink)
                if axis.labelText:
                    axis.setLabel(axis.labelText, **{**axis.labelStyle, "color": self.ink})
        self.roadmap_legend.set_entries(self._legend_entries, self.ink)
        # the words drawn on the panel in a fixed colour, readable on it (#777 and #C62828 were 3-4:1 on dark)
        panel = DARK_BACKGROUND if dark else "#ffffff"
        self.empty.setColor(readable("#777777", panel))
        self.target_line.label.setColor(readable("#C62828", panel))
        self._fit_texts()

    def _build_roadmap(self) -> None:
        """Demand against capacity, month by month, with the fleets' legend."""
        # the fleets' legend in its own row above the plots, so it never covers a line
        self.roadmap_legend = FlowLegend()
        self.view.addItem(self.roadmap_legend, row=0, col=0, colspan=2)
        self.roadmap = _plot(self.view, 1, 0, ROADMAP_TITLE, colspan=2)
        self.roadmap.setLabel("bottom", "Roadmap month", color=INK)
        self.roadmap.setLabel("left", "card-hours / day", color=INK)
        self.demand: list[pg.PlotDataItem] = []
        self.capacity: list[pg.PlotDataItem] = []
        for i in range(SHOWN_FLEETS):
            colour = FLEET_COLOURS[i]
            cap = pg.PlotDataItem([], [], pen=pg.mkPen(colour, width=2.5), stepMode=None)
            dem = pg.PlotDataItem([], [], pen=pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine))
            self.roadmap.addItem(cap)
            self.roadmap.addItem(dem)
            self.capacity.append(cap)
            self.demand.append(dem)
        self.sizing_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#888", width=1, style=Qt.PenStyle.DotLine))
        self.roadmap.addItem(self.sizing_line)

    def _build_utilisation(self) -> None:
        """The utilisation bars per device type, with the target line."""
        self.util = _plot(self.view, 2, 0, "Utilisation per device type")
        self.util.setLabel("left", "busy / capacity (%)", color=INK)
        self.util_bars: list[pg.BarGraphItem] = []
        for i in range(SHOWN_FLEETS):
            bar = pg.BarGraphItem(x=[], height=[], width=0.2, brush=FLEET_COLOURS[i], pen=pg.mkPen("w", width=0.5))
            self.util.addItem(bar)
            self.util_bars.append(bar)
        self.target_line = pg.InfiniteLine(
            angle=0,
            pen=pg.mkPen("#C62828", width=1.5, style=Qt.PenStyle.DashLine),
            label="target",
            labelOpts={"color": "#C62828", "position": 0.93},
        )
        self.util.addItem(self.target_line)

    def _build_cost(self) -> None:
        """The cost (or energy) per job per fleet."""
        self.cost = _plot(self.view, 2, 1, "Cost per job")
        self.cost_bars = pg.BarGraphItem(x=[], height=[], width=0.6, brushes=[], pen=pg.mkPen("w", width=0.5))
        self.cost.addItem(self.cost_bars)
        self.cost.setLabel("bottom", "Fleet (rank)", color=INK)
        self.empty = pg.TextItem("", anchor=(0.5, 0.5), color="#777")
        self.cost.addItem(self.empty)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._fit_texts()

    def _fit_texts(self) -> None:
        """Titles and the legend wrap, the legend's row as tall as its lines: a long title or legend widened the
        scene past the view (at 1024x768 the right half of every chart was cut)."""
        width = self.width()
        legend = self.roadmap_legend
        wrap_label(legend, width - 40)
        height = math.ceil(legend.itemRect().height()) + 4 if legend.entries else 0
        self.view.ci.layout.setRowMaximumHeight(0, height)
        self.view.ci.layout.setRowMinimumHeight(0, height)
        wrap_label(self.roadmap.titleLabel, width - 90, centred=True)
        for plot in (self.util, self.cost):
            # half the view, or the plot's own width where the layout already gave it less (its axis labels)
            laid = plot.geometry().width()
            wrap_label(plot.titleLabel, min(width / 2 - 80, laid - 40) if laid > 120 else width / 2 - 80, centred=True)
        # the view was resized before its texts wrapped: the layout kept the width the unwrapped texts asked for
        # (shrunk from 1920 to 1024 px, the charts stayed 1539 px wide in a 683 px view), so lay it out again
        self.view.ci.setGeometry(self.view.range)

    def _ticks(self, plot: pg.PlotItem, ticks: list[tuple[float, str]]) -> None:
        if self._tick_cache.get(id(plot)) != ticks:  # new ticks re-lay the axis: only when they change
            plot.getAxis("bottom").setTicks([ticks])
            self._tick_cache[id(plot)] = ticks

    # ---- data ----
    def update_result(self, result: PlanResult, utilisation_target: float) -> None:
        self._draw_roadmap(result)
        self._draw_utilisation(result, utilisation_target)
        self._draw_cost(result)

    def _draw_roadmap(self, result: PlanResult) -> None:
        """Demand against capacity month by month, one colour per fleet, and the legend."""
        fleets = result.fleets
        shown = min(SHOWN_FLEETS, len(fleets))
        # a legend entry is HTML: the engine's short label (FleetResult.short_label), escaped
        on = dict(same_capacity([
            [p.capacity_card_hours_per_day for p in f.months] for f in fleets[:shown]
        ]))  # fmt: skip
        entries = [
            (FLEET_COLOURS[i], DASHED_SAMPLE if i in on else SOLID_SAMPLE,
             f"#{f.rank}: {escape(f.short_label)}"
             + (f" (on #{fleets[on[i]].rank}'s line: dashes)" if i in on else ""))
            for i, f in enumerate(fleets[:shown])
        ]  # fmt: skip
        more = min(len(fleets), MAX_BARS)
        if more > shown:
            entries.append((OTHER_FLEETS, "■", f"#{shown + 1}–#{more}: cost chart, Fleets tab"))
        if entries != self._legend_entries:  # re-laying the legend: only when its text changes
            self._legend_entries = entries
            self.roadmap_legend.set_entries(entries, self.ink)
            self._fit_texts()
        for i in range(SHOWN_FLEETS):
            cap, dem = self.capacity[i], self.demand[i]
            if i < len(fleets):
                f = fleets[i]
                months = np.array([p.month for p in f.months], dtype=float)
                cap.setData(months, np.array([p.capacity_card_hours_per_day for p in f.months], dtype=float))
                dem.setData(months, np.array([p.demand_card_hours_per_day for p in f.months], dtype=float))
            else:
                cap.setData([], [])
                dem.setData([], [])
            cap.setVisible(i < len(fleets))
            dem.setVisible(i < len(fleets))
            cap.setPen(capacity_pen(i, on))
        self.sizing_line.setPos(result.size_for_month)
        self.roadmap.setXRange(0.5, max(result.months, 1) + 0.5, padding=0)
        peak = max((max(self.capacity_series(i) + self.demand_series(i), default=0.0)
                    for i in range(min(SHOWN_FLEETS, len(fleets)))), default=0.0)  # fmt: skip
        self.roadmap.setYRange(0, (peak or 1.0) * 1.1, padding=0)

    def _draw_utilisation(self, result: PlanResult, utilisation_target: float) -> None:
        """Utilisation per node type: node types on x, one bar per fleet beside each other."""
        fleets = result.fleets
        shown = min(SHOWN_FLEETS, len(fleets))
        names: list[str] = []
        for d in result.devices:
            if d.node not in names:
                names.append(d.node)
        names = names[:MAX_NODE_TYPES]
        self.names = names
        width = 0.8 / max(shown, 1)
        for i, bar in enumerate(self.util_bars):
            if i < shown:
                use = {u.node: u.utilisation for u in fleets[i].use}
                xs = [k - 0.4 + width * (i + 0.5) for k, n in enumerate(names) if n in use]
                hs = [use[n] * 100 for n in names if n in use]
                bar.setOpts(x=np.array(xs, dtype=float), height=np.array(hs, dtype=float), width=width * 0.9)
            else:
                bar.setOpts(x=np.array([]), height=np.array([]))
            bar.setVisible(i < shown)
        self._ticks(self.util, [(float(k), n) for k, n in enumerate(names)])
        self.util.setXRange(-0.6, max(len(names) - 0.4, 0.6), padding=0)
        self.util.setYRange(0, 110, padding=0)
        self.target_line.setPos(utilisation_target * 100)

    def _draw_cost(self, result: PlanResult) -> None:
        """Cost per job per fleet, or energy per job when any cost is unknown."""
        fleets = result.fleets
        ranked = fleets[:MAX_BARS]
        costs = [f.totals.cost_per_job for f in ranked]
        self.showing_energy = not ranked or any(c is None for c in costs)
        if self.showing_energy:
            values = [f.totals.kwh_per_job for f in ranked]
            title = ("Energy per job (kWh): cost unknown, the plan lacks some node prices"
                     if any(f.feasible for f in ranked) or not ranked
                     else "No fleet within the search's bounds serves the plan: no cost per job")  # fmt: skip
            left = "kWh per job"
        else:
            values = costs
            title = f"Cost per job ({result.currency or 'plan currency'}): capital over the life + energy"
            left = f"{result.currency or ''} per job"
        if title != self._title_cache:
            self.cost.setTitle(escape_rich(title), color=self.ink, size="10pt")
            self.cost.setLabel("left", escape_rich(left), color=self.ink)
            self._title_cache = title
            self._fit_texts()
        xs = [float(f.rank) for f, v in zip(ranked, values, strict=True) if v is not None]
        hs = [float(v) for v in values if v is not None]
        brushes = [FLEET_COLOURS[(int(x) - 1) % len(FLEET_COLOURS)] if x <= SHOWN_FLEETS else OTHER_FLEETS for x in xs]
        self.cost_bars.setOpts(x=np.array(xs), height=np.array(hs), brushes=brushes, width=0.6)
        self._ticks(self.cost, [(x, f"#{int(x)}") for x in xs])
        top = max(hs, default=1.0) * 1.15 or 1.0
        self.cost.setXRange(0.4, max(len(ranked), 1) + 0.6, padding=0)
        self.cost.setYRange(0, top, padding=0)
        empty = "" if hs else "No fleet serves this plan"
        if self.empty.textItem.toPlainText() != empty:
            self.empty.setText(empty)
        self.empty.setPos((len(ranked) + 1) / 2, top / 2)

    # ---- read back, for tests and exports ----
    def demand_series(self, fleet: int = 0) -> list[float]:
        _x, y = self.demand[fleet].getData()
        return [] if y is None else [float(v) for v in y]

    def capacity_series(self, fleet: int = 0) -> list[float]:
        _x, y = self.capacity[fleet].getData()
        return [] if y is None else [float(v) for v in y]

    def cost_values(self) -> list[float]:
        h = self.cost_bars.opts.get("height")
        return [] if h is None else [float(v) for v in h]

    def utilisation_values(self, fleet: int = 0) -> list[float]:
        h = self.util_bars[fleet].opts.get("height")
        return [] if h is None else [float(v) for v in h]
