"""Headroom chart: per card (and MIG instance) per job, stacked memory components against the memory
the driver shows, with the headroom written on each bar. Items are created once and updated with
``setOpts`` / ``setData`` on every change, so a drag repaints within a frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.LegendItem import ItemSample
from PySide6.QtCore import QPoint, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QTextOption
from PySide6.QtWidgets import QMenu, QVBoxLayout, QWidget

from configurator.catalog.cards import short_card_name
from configurator.catalog.loader import Catalog
from configurator.catalog.richtext import escape_rich
from configurator.engine import Build
from configurator.engine.model.labels import band_words
from configurator.engine.model.result import BuildResult, CardMemory
from configurator.present.colours import status_ink
from configurator.present.memory_words import at_peak, reserved_basis_note
from configurator.present.rl_words import capacity_legend_of, capacity_note
from configurator.present.verdict import colocated_share
from configurator.present.words import headroom_label
from configurator.ui.base import COMPONENTS, ViewState, to_unit
from configurator.ui.charts.common import (
    LegendKey,
    TipKeeper,
    axis_number,
    fit_legend,
    restyle_legend,
    set_legend,
    wrap_label,
)
from configurator.ui.charts.presentation import (
    MAX_LEGEND_COLS,
    BarWords,
    ChartLook,
    legend_fits_beside,
    legend_width,
    place_legend,
    settle_layout,
)

BAR_WIDTH = 0.6
MAX_LABELS = 64
LABEL_GAP_PX = 4  # between a bar's label and the top of the plot
MIN_BAR_PX = 20  # a plot shorter than a label and this keeps the plain 25 % head room (labels may then overlap)
TITLE = "Memory per card against what the driver shows"
FREE_FILL = QColor(120, 144, 156, 70)  # a card with no job: its whole capacity, drawn pale
Box = tuple[float, float, float, float]  # left, top, right, bottom in pixels


def free_cards(build: Build, catalog: Catalog, result: BuildResult) -> list[tuple[int, str, float | None]]:
    """(slot, card name, driver-visible GB or None when unpublished) for each placed card no job uses."""
    used = {row.slot for job in result.jobs for row in job.cards}
    out: list[tuple[int, str, float | None]] = []
    for placement in build.cards:
        card = catalog.cards.get(placement.card)
        if placement.slot in used or card is None:
            continue
        try:
            capacity: float | None = card.visible_gb
        except ValueError:  # visible memory not published: say unknown, never guess
            capacity = None
        out.append((placement.slot, card.name, capacity))
    return out


class HeadroomChart(QWidget):
    trace_requested = Signal(str)  # a bar's context menu asks to trace its job exactly (the Jobs tab runs it)

    def __init__(self, parent: QWidget | None = None, unit: str = "GB") -> None:
        super().__init__(parent)
        self.unit = unit
        self.dark = False
        self.ink = "#222"
        self.rows: list[tuple[str, CardMemory]] = []
        self.free: list[tuple[int, str, float | None]] = []  # cards with no job (free_cards)
        self._highest = 1.0  # the tallest bar, band or capacity drawn (the value axis starts at 0)
        self.max_legend_cols = MAX_LEGEND_COLS  # the kiosk allows 5 on a large screen
        self.look = ChartLook()  # type sizes and axis room (set_presentation)
        self.title = TITLE
        self.bar_words: BarWords | None = None  # the kiosk's words over and under the bars (set_bar_words)
        self._floor = 0.0  # a top the value axis reaches at least (share_value_range: charts side by side)
        self.host_gb: dict[str, float | None] = {}  # per job: host memory its offloaded states take
        # per job: what a colocated vLLM takes of each card (update_result's name_capacity); None: the line is not
        # named (the kiosk's chart, whose layout is made for the plain 'Capacity')
        self.shares: dict[str, float] | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # Legend in its own row above the plot, so it never covers a bar.
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground("w")
        self.view.setAccessibleName("Headroom chart")
        layout.addWidget(self.view)
        self.legend = pg.LegendItem(colCount=4, labelTextColor="#222", horSpacing=14)
        self.view.addItem(self.legend, row=0, col=0)
        self.plot = self.view.addPlot(row=1, col=0)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setTitle(TITLE, color="#222", size=f"{self.look.title_pt:.1f}pt")
        # No axis grid: pyqtgraph redraws it as a QPicture on every repaint (10 ms at 1920x1080 in software
        # rendering, measured in benchmarks/test_bench_gui.py); the capacity lines are the reference.
        self.bars: dict[str, pg.BarGraphItem] = {}
        for key, _, colour in COMPONENTS:
            bar = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, y0=[], brush=colour, pen=pg.mkPen("w", width=0.5))
            self.plot.addItem(bar)
            self.bars[key] = bar
        self.free_bar = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, brush=FREE_FILL, pen=pg.mkPen("#78909C"))
        self.plot.addItem(self.free_bar)  # in the legend only while a card is free (_sync_legend)
        self.capacity = pg.PlotDataItem([], [], pen=pg.mkPen("#212121", width=2.5), connect="pairs")
        self.plot.addItem(self.capacity)
        # The engine's band around peak reserved (CardMemory.band_low_gb..band_high_gb) as an error bar.
        self.band = pg.ErrorBarItem(x=np.array([]), y=np.array([]), beam=0.18, pen=pg.mkPen("#222", width=1.5))
        self.plot.addItem(self.band)
        self.band_sample = _BandSample(self.band)  # an I-beam, as drawn: not a line like Capacity
        # bar labels, made as bars need them (up to MAX_LABELS) and reused: creating all 64 up front was a
        # third of the window's start-up
        self.labels: list[pg.TextItem] = []
        self._label_spec: list[tuple[list[str], float]] = []  # per label: its words, longest first, and its stand
        self._label_font = QFont()
        self._label_font.setPointSizeF(8.5)
        self._label_font.setBold(True)
        self.empty = pg.TextItem("Place a card and assign a job to see its memory", anchor=(0.5, 0.5), color="#777")
        self.plot.addItem(self.empty)
        self._set_axes()
        self.plot.scene().sigMouseMoved.connect(self._hover)
        self.tips = TipKeeper(self.view)
        self.plot.vb.sigResized.connect(self._rewrap)  # tick names wrap to the width a bar has
        # a job's traced figure for its bar's tooltip, and the sign the chart can trace (the main window sets it;
        # read on hover, never while drawing)
        self.trace_note: Callable[[str], str | None] | None = None
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.measured: dict[str, float] = {}  # per job, a measured peak (GB) drawn beside its bar (set_measured)
        self.measured_item: pg.ScatterPlotItem | None = None
        self._settle_due = False  # a settle is posted for a change of width (resizeEvent)
        self._tick_pt: float | None = None  # the bottom axis's tick type (the look's, or the bar words')
        self._least: tuple[tuple[object, ...], int] | None = None  # least_width's last answer and its drawing
        self._free_listed = False  # 'Free (no job)' is listed (_sync_legend)
        self._legend_key: LegendKey = set_legend(self.legend, self._legend_entries(), ())  # what it lists

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        if self.window().isVisible():  # not while a closed window is torn down (its bar labels may be gone)
            self.fit_texts()
        if event.size().width() != event.oldSize().width() and not self._settle_due:
            # once the resize is handled (one for several resizes in a pass; dropped with the chart): a chart given
            # a new width (the kiosk's follows its key card's, which changes between scenarios) kept pyqtgraph's
            # minimum of the last drawing and drew 452 px in a 425 px widget at 1280x800, its legend cut
            self._settle_due = True
            QTimer.singleShot(0, self, self._settle_posted)

    def _settle_posted(self) -> None:
        self._settle_due = False
        self.settle()

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        self.fit_texts()  # sized while hidden: fitted now

    def fit_texts(self) -> None:
        """The legend takes as many columns as the width holds and the title wraps, so neither widens the
        scene past the view (at 1280x800 the 4-column legend cut slot 3's bar and the legend's right side)."""
        beside = self._legend_fits_beside()
        moved = place_legend(self.view.ci, self.legend, beside)
        if beside:
            if self.legend.columnCount != 1:
                self.legend.setColumnCount(1)
            wrap_label(self.plot.titleLabel, self.width() - 90 - legend_width(self.legend), centred=True)
        else:
            fit_legend(self.legend, self.width() - 24, self.max_legend_cols)
            wrap_label(self.plot.titleLabel, self.width() - 90, centred=True)
        if moved:
            self.settle()

    def _legend_fits_beside(self) -> bool:
        if not self.look.legend_beside:
            return False
        title = self.plot.titleLabel.item.boundingRect().height()
        return legend_fits_beside(self.legend, self.look, self.width(), self.height(), title,
                                  len(self.rows) + len(self.free))  # fmt: skip

    def set_dark(self, dark: bool) -> None:
        """Follow the window's light or dark theme."""
        self.dark = dark
        self.ink = "#e6e6e6" if dark else "#222"
        self.view.setBackground("#1f1f1f" if dark else "w")
        self.plot.setTitle(self.title, color=self.ink, size=f"{self.look.title_pt:.1f}pt")
        self.fit_texts()
        restyle_legend(self.legend, self.ink)
        self.capacity.setPen(pg.mkPen(self.ink, width=2.5))
        self.band.setData(pen=pg.mkPen(self.ink, width=1.5))
        self._set_axes()
        if self.rows or self.free:
            self.update_result_rows()

    def _set_axes(self) -> None:
        ink = self.ink
        self.plot.getAxis("bottom").setHeight(self.look.bottom_axis_px)  # "slot N" and a name on two lines
        for side in ("left", "bottom"):
            ax = self.plot.getAxis(side)
            ax.setTextPen(ink)
            if side == "left":
                ax.tickStrings = lambda values, scale, spacing: [axis_number(v * scale) for v in values]
            ax.setPen("#888")
        # after setPen, which writes the line's grey into the axis title's colour (3.5:1 on white)
        self.plot.setLabel("left", f"Memory ({self.unit})", color=ink)

    def follow(self, view: ViewState) -> None:
        """Take the unit and the theme from the view state and follow them (the main window's chart; the
        compare dialog's and the kiosk's set their own)."""
        self.set_unit(view.unit)
        if view.dark:  # light is how it starts
            self.set_dark(True)
        view.unit_changed.connect(self._unit_changed)
        view.theme_changed.connect(self.set_dark)

    def _unit_changed(self, unit: str) -> None:
        self.set_unit(unit)
        if self.rows or self.free:
            self.update_result_rows()

    def set_unit(self, unit: str, result: BuildResult | None = None) -> None:
        self.unit = unit
        self._set_axes()
        if result is not None:
            self.update_result(result)

    # ---- data ----
    def update_result(self, result: BuildResult, free: list[tuple[int, str, float | None]] | None = None,
                      name_capacity: bool = False) -> None:  # fmt: skip
        """Draw ``result``; ``free`` (from ``free_cards``) adds each card no job uses as free capacity;
        ``name_capacity`` names the capacity line as the PDF sheet does, after each job's colocated vLLM share
        (RLResult.colocated_share; without it the line is 'Capacity': the kiosk's layout is made for that)."""
        self.free = list(free or [])
        self.shares = {job.name: colocated_share(job) for job in result.jobs} if name_capacity else None
        self.rows = [(job.name, row) for job in result.jobs for row in job.cards]
        self.host_gb = {job.name: job.host_memory_gb for job in result.jobs if job.offload != "none"}
        if self.look.legend_beside:  # beside or above depends on the bars' count too
            self.fit_texts()
        self.update_result_rows()

    def update_result_rows(self) -> None:
        n = len(self.rows)
        xs = np.arange(n, dtype=float)
        base = np.zeros(n)
        for key, _, _ in COMPONENTS:
            h = np.array([to_unit(at_peak(r, key), self.unit) for _, r in self.rows], dtype=float)
            self.bars[key].setOpts(x=xs, height=h, y0=base.copy(), width=BAR_WIDTH)
            base += h
        caps = [to_unit(r.capacity_gb, self.unit) for _, r in self.rows]
        free = self.free[: max(MAX_LABELS - n, 0)]
        fx = [float(n + k) for k, (_, _, c) in enumerate(free) if c is not None]
        fcap = [to_unit(c, self.unit) for _, _, c in free if c is not None]
        self.free_bar.setOpts(x=np.array(fx), height=np.array(fcap), y0=np.zeros(len(fx)), width=BAR_WIDTH)
        cxs = np.array([*xs.tolist(), *fx])
        call = [*caps, *fcap]
        cx = np.repeat(cxs, 2) + np.tile([-0.42, 0.42], len(cxs)) if len(cxs) else np.array([])
        cy = np.repeat(call, 2) if len(cxs) else np.array([])
        self.capacity.setData(cx, cy)
        peak = np.array([to_unit(r.peak_reserved_gb, self.unit) for _, r in self.rows], dtype=float)
        low = np.array([to_unit(r.band_low_gb or r.peak_reserved_gb, self.unit) for _, r in self.rows], dtype=float)
        high = np.array([to_unit(r.band_high_gb or r.peak_reserved_gb, self.unit) for _, r in self.rows], dtype=float)
        self.band.setData(x=xs, y=peak, top=np.maximum(high - peak, 0.0), bottom=np.maximum(peak - low, 0.0))
        self._sync_legend(bool(free))
        self._label_bars(free, base, caps, high)
        total = n + len(free)
        self.empty.setVisible(total == 0)
        self._set_ticks(free)
        self._highest = max([*(base.tolist() if n else []), *(high.tolist() if n else []), *caps, *fcap, 1.0])
        self.plot.setXRange(-0.6, max(total - 0.4, 0.6), padding=0)
        top = self.fit_labels()
        if total == 0:
            self.empty.setPos(0, top / 2)
        self._place_measured()

    def _sync_legend(self, free: bool | None = None) -> None:
        """The legend lists what is drawn (_legend_entries); 'Free (no job)' only while a card is free (``free``: it
        was listed with no card free)."""
        if free is not None:
            self._free_listed = free
        listed, self._legend_key = self._legend_key, set_legend(self.legend, self._legend_entries(), self._legend_key)
        if self._legend_key != listed:
            self.fit_texts()

    def _legend_entries(self) -> list[tuple[object, str]]:
        """The components, the free cards' capacity while listed, the capacity line, the peak band and the measured
        points once there are any."""
        entries: list[tuple[object, str]] = [(self.bars[key], label) for key, label, _ in COMPONENTS]
        if self._free_listed:
            entries.append((self.free_bar, "Free (no job)"))
        # the sheet's words for the line (report/pdf.py): the card's visible memory, or what a colocated vLLM leaves
        shares = self.shares
        jobs = dict.fromkeys(job for job, _ in self.rows)
        capacity = "Capacity" if shares is None else capacity_legend_of(shares.get(job, 0.0) for job in jobs)
        entries += [(self.capacity, capacity), (self.band_sample, "Peak band")]
        if self.measured_item is not None:
            entries.append((self.measured_item, "Measured"))
        return entries

    def set_measured(self, values: dict[str, float]) -> None:
        """Measured peaks per job name (GB, as nvidia-smi shows them; a verify result) drawn as a point beside the
        job's first bar, next to the predicted bar and its band; {} removes them."""
        self.measured = dict(values)
        if self.measured_item is None and values:
            self.measured_item = pg.ScatterPlotItem(symbol="d", size=13, brush="#6A1B9A", pen=pg.mkPen("w", width=1))
            self.measured_item.setZValue(20)
            self.plot.addItem(self.measured_item)
            self._sync_legend()
        self._place_measured()

    def measured_points(self) -> list[tuple[float, float]]:
        """(x, value in the display unit) of the measured points drawn."""
        if self.measured_item is None:
            return []
        xs, ys = self.measured_item.getData()
        return [(float(x), float(y)) for x, y in zip(xs, ys, strict=True)]

    def _place_measured(self) -> None:
        if self.measured_item is None:
            return
        first: dict[str, int] = {}
        for i, (job, _) in enumerate(self.rows):
            first.setdefault(job, i)
        points = [(first[name] + 0.3, to_unit(gb, self.unit)) for name, gb in self.measured.items() if name in first]
        self.measured_item.setData(x=[p[0] for p in points], y=[p[1] for p in points])

    def fit_labels(self) -> float:
        """Set the value range so the bar labels fit above the highest bar, and lay them out (``_layout_labels``);
        returns the range's top. A caller that changes the labels' type after update_result (the kiosk does) calls it
        again. Where a label needs a second row (raised over its neighbour's, or on two lines) the range makes room
        for two."""
        top = self._fit_range(1)
        if not self._layout_labels():
            top = self._fit_range(2)
            self._layout_labels()
        return top

    def _fit_range(self, rows: int) -> float:
        highest = max(self._highest, self._floor)
        top = highest * 1.25
        # The labels above the bars are text of a fixed pixel height: on a short plot (the kiosk's, ~110 px) a
        # quarter of the range left them over the title. The range's top keeps ``rows`` lines of them free.
        spec = self._label_spec
        label_px = 0.0
        if spec:
            item = self.labels[0].textItem
            lines = max(forms[0].count("\n") + 1 for forms, _ in spec)
            label_px = QFontMetricsF(item.font()).lineSpacing() * lines * rows + 2 * item.document().documentMargin()
        plot_px = self.plot.vb.height()
        if label_px and plot_px > label_px + LABEL_GAP_PX + MIN_BAR_PX:
            top = max(top, highest * 1.01 * plot_px / (plot_px - label_px - LABEL_GAP_PX))
        self.plot.setYRange(0, top, padding=0)
        return top

    @property
    def highest(self) -> float:
        """The tallest bar, band or capacity drawn, in the chart's unit."""
        return self._highest

    def share_value_range(self, highest: float) -> None:
        """Reach at least ``highest`` on the value axis: two charts compared side by side read on one scale
        (the compare dialog's two charts had different ones)."""
        self._floor = highest
        self.fit_labels()

    def _ensure_labels(self, count: int) -> None:
        while len(self.labels) < count:
            t = pg.TextItem("", anchor=(0.5, 1.0), color="#222")
            t.setFont(self._label_font)
            t.setVisible(False)
            self.plot.addItem(t)
            self.labels.append(t)

    def _label_bars(
        self, free: list[tuple[int, str, float | None]], base: np.ndarray, caps: list[float], high: np.ndarray
    ) -> None:
        """Above each bar its headroom (or "tight"), above each free card its capacity: the words each label may
        take, longest first, and the value it stands on; ``_layout_labels`` picks one that overlaps nothing."""
        n = len(self.rows)
        total = n + len(free)
        self._ensure_labels(min(total, MAX_LABELS))
        bar_words = self.bar_words
        plot_px = self.plot.vb.width()
        if bar_words is not None:
            self._label_font.setPointSizeF(bar_words.point_size(total, plot_px))
        self._label_spec = []
        for i, label in enumerate(self.labels):
            if bar_words is not None:
                label.setFont(self._label_font)
            if i < n:
                job, r = self.rows[i]
                own = bar_words.label(job, r, plot_px / max(total, 1)) if bar_words is not None else None
                forms = [own] if own is not None else headroom_forms(r, self.unit)
                label.setColor(status_ink(r.status, self.dark))  # 4.5:1 or more on either theme's panel
                stand = max(base[i], caps[i], high[i])
            elif i < n + len(free):
                _, _, cap = free[i - n]
                forms = free_forms(cap, self.unit)
                label.setColor("#90A4AE" if self.dark else "#546E7A")  # 6.4:1 and 5.4:1
                stand = to_unit(cap, self.unit) if cap is not None else 0.0
            else:
                label.setVisible(False)
                continue
            self._label_spec.append((forms, float(stand)))  # its words are set as they are laid out (_layout_labels)
            label.setPos(float(i), stand)
            label.setVisible(True)

    @staticmethod
    def _set_label_text(label: pg.TextItem, text: str) -> None:
        if label.toPlainText() != text:  # setText re-renders: only on a change
            label.setText(text)
            # a label on two lines centred over its bar (a text width set is what makes Qt centre the lines)
            item = label.textItem
            option = QTextOption(Qt.AlignmentFlag.AlignHCenter)
            item.document().setDefaultTextOption(option)
            item.setTextWidth(-1)
            item.setTextWidth(item.document().idealWidth())
            label.updateTextPos()

    def _layout_labels(self) -> bool:
        """The bars' labels laid out so none overlaps another, a neighbour's capacity line, band or bar, or leaves the
        plot: every bar in the longest wording that fits them all (standing on their bars, else raised over each
        other); else each bar in its longest that fits, raised where it must; a bar with no room for any has none (its
        tooltip says it). Whether all stand on their bars in their first wording (else the caller makes room for a
        second row). Pixels, y down: 'short 13.0 GB' ran into its neighbour's 'short 13.0 GB' at 1366x768."""
        spec = self._label_spec
        vb = self.plot.vb
        w, h = float(vb.width()), float(vb.height())
        (x0, x1), (y0, y1) = (float(a) for a in vb.viewRange()[0]), (float(b) for b in vb.viewRange()[1])
        if not spec or w <= 0 or h <= 0 or x1 <= x0 or y1 <= y0:
            for label, (forms, _) in zip(self.labels, spec, strict=False):
                self._set_label_text(label, forms[0])
            return True

        def px(x: float) -> float:
            return (x - x0) / (x1 - x0) * w

        def py(y: float) -> float:
            return (y1 - y) / (y1 - y0) * h

        # each column (bar, band, capacity line) from its label's stand down
        columns = [(px(i - 0.42), py(stand), px(i + 0.42), h) for i, (_, stand) in enumerate(spec)]

        def place(i: int, text: str, lift: bool, placed: list[Box], chosen: dict[int, tuple[str, Box]]) -> bool:
            ink, height = self._label_size(self.labels[i], text)
            others = [c for j, c in enumerate(columns) if j != i]
            stand = py(spec[i][1])
            spot = _free_box(px(i), stand - LABEL_GAP_PX, ink, height, [*placed, *others], w, lift)
            if spot is None:
                return False
            placed.append(spot)
            chosen[i] = (text, spot)
            return True

        def show(chosen: dict[int, tuple[str, Box]]) -> None:
            """Each label in its chosen words (set once: setText re-renders), at its spot; the others hidden."""
            for i, label in enumerate(self.labels[: len(spec)]):
                if i not in chosen:
                    label.setVisible(False)  # a bar without room for its words: its tooltip says them
                    continue
                text, spot = chosen[i]
                self._set_label_text(label, text)
                centre = (spot[0] + spot[2]) / 2  # the bar's centre, or inside the plot's edge
                label.setPos(x0 + centre / w * (x1 - x0), y1 - spot[3] / h * (y1 - y0))
                label.setVisible(True)

        # one wording for every bar where one fits them all (the longest that does, standing on the bars before
        # raised over each other); else each bar its longest that fits, raised where it must, or none
        depth = max(len(forms) for forms, _ in spec)
        for lift in (False, True):
            for k in range(depth):
                placed: list[Box] = []
                chosen: dict[int, tuple[str, Box]] = {}
                if all(place(i, forms[min(k, len(forms) - 1)], lift, placed, chosen)
                       for i, (forms, _) in enumerate(spec)):  # fmt: skip
                    show(chosen)
                    return k == 0 and not lift
        placed, chosen = [], {}
        for i, (forms, _) in enumerate(spec):
            any(place(i, text, True, placed, chosen) for text in forms)
        show(chosen)
        return False

    @staticmethod
    def _label_size(label: pg.TextItem, text: str) -> tuple[float, float]:
        """The width of ``text``'s ink in ``label`` (its widest line, as its font lays it out: the item's bounding
        rect ran ~9 px wider in the kiosk's type, and the first of fourteen bars lost its words) and a px either side,
        and the item's full height: its document's lines, each its font's height rounded up to a whole pixel, inside
        the document's margin. Measured from the font, not by setting each wording tried (setText re-renders)."""
        metrics = QFontMetricsF(label.textItem.font())
        lines = text.split("\n")
        ink = max(metrics.horizontalAdvance(line) for line in lines) + 2
        return ink, len(lines) * math.ceil(metrics.height()) + 2 * label.textItem.document().documentMargin()

    def _set_ticks(self, free: list[tuple[int, str, float | None]]) -> None:
        """Under each bar its slot (and MIG instance) and job, or the free card's slot and name."""
        n = len(self.rows)
        total = n + len(free)
        self._ensure_labels(min(total, MAX_LABELS))
        ticks = []
        # characters per tick line that fit under one bar at the plot's current width (~6.5 px a character)
        room = self.plot.vb.width() / max(total, 1) / 7.5
        chars = max(8, min(26, int(room)))
        for i, (job, r) in enumerate(self.rows):
            own = self.bar_words.tick(job, r, total, self.plot.vb.width()) if self.bar_words is not None else None
            where = f"slot {r.slot}" + (f" {r.mig}#{r.instance}" if r.mig else "")
            if len(where) > room:  # 'slot 1 1g.24gb#0' ran into its neighbour's: the profile is in the tooltip
                where = f"slot {r.slot}" + (f" · #{r.instance}" if r.mig else "")
            ticks.append((float(i), own if own is not None else _tick(r.slot, r.instance if r.mig else None, room,
                                                                       f"{where}\n{_tick_name(job, chars)}")))
        if room < 8 and self.bar_words is None:  # the bars' ticks lost their names: a job's bars share one
            ticks = _job_names_under_runs(ticks, [job for job, _ in self.rows], room)
        ticks += [
            (float(n + k), _tick(slot, None, room, f"slot {slot}\n{_tick_name(short_card_name(name), chars)}"))
            for k, (slot, name, _) in enumerate(free)
        ]
        axis = self.plot.getAxis("bottom")
        size = self.bar_words.tick_point_size(total, self.plot.vb.width()) if self.bar_words is not None else None
        size = size if size is not None else self.look.tick_pt
        if size != self._tick_pt:  # the axis's height is the look's: the plot keeps its size
            self._tick_pt = size
            axis.setStyle(tickFont=_font(size) if size is not None else None)
        axis.setTicks([ticks])

    # ---- presentation (the kiosk's type and words, through these only) ----
    def set_presentation(self, look: ChartLook) -> None:
        """Type sizes and axis room: the title, axes, bar labels and legend in ``look``'s sizes, the legend above
        the plot in up to ``look.legend_cols`` columns or beside it in one; the layout settled for them."""
        self.look = look
        self.max_legend_cols = look.legend_cols
        self.plot.setTitle(self.title, color=self.ink, size=f"{look.title_pt:.1f}pt")
        for side in ("left", "bottom"):
            axis = self.plot.getAxis(side)
            if look.tick_pt is not None:
                axis.setStyle(tickFont=_font(look.tick_pt))
            if look.axis_label_pt is not None:
                axis.label.setFont(_font(look.axis_label_pt))
        self._tick_pt = look.tick_pt  # the bar words' tick type, if any, from the next drawing on (_set_ticks)
        self.plot.getAxis("bottom").setHeight(look.bottom_axis_px)
        if look.left_axis_px is not None:
            self.plot.getAxis("left").setWidth(look.left_axis_px)
        self._label_font.setPointSizeF(look.bar_label_pt)
        for label in self.labels:
            label.setFont(self._label_font)
        if look.legend_pt is not None:
            restyle_legend(self.legend, size=f"{look.legend_pt:.1f}pt")
        if not self._legend_fits_beside():
            self.legend.setColumnCount(min(MAX_LEGEND_COLS, look.legend_cols))
        self.fit_texts()
        self.settle()

    def set_title(self, text: str) -> None:
        """The plot's title, in the presentation's size and the theme's ink."""
        self.title = text
        self.plot.setTitle(text, color=self.ink, size=f"{self.look.title_pt:.1f}pt")
        wrap_label(self.plot.titleLabel, self.width() - 90, centred=True)

    def set_bar_words(self, words: BarWords | None) -> None:
        """Words over and under the job bars (None: the chart's own headroom words), used from the next drawing on
        (now, when ``words`` is new; on every update_result and resize)."""
        if words is self.bar_words:
            return
        self.bar_words = words
        if self.rows or self.free:
            self.update_result_rows()

    def bar_text(self, index: int) -> str:
        """The words drawn over bar ``index`` (a job row, then the free cards)."""
        return str(self.labels[index].textItem.toPlainText())

    def plot_height(self) -> float:
        """The plot's height in px (the bars' room, without title, legend and axes)."""
        return float(self.plot.vb.height())

    def settle(self) -> None:
        """pyqtgraph keeps the minimum width of the old, larger type until its layout is told: without this
        the kiosk's chart stayed 654 px wide in a 465 px widget after 1920 -> 1280 (legend and bars cut off). Notes
        the settled drawing's least width (least_width)."""
        settle_layout(self.view, (self.legend, self.plot.titleLabel, self.plot))
        least = math.ceil(float(self.view.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()))
        self._least = (self._drawing(), least)

    def least_width(self) -> int:
        """The narrowest width in px that holds its drawing as it now stands (legend, title, axes): a widget
        narrower than this cuts the legend's right side. As noted at the last settle; settled first when the
        drawing changed since (the kiosk asks on every resize of its stage)."""
        if self._least is None or self._least[0] != self._drawing():
            self.settle()
        assert self._least is not None
        return self._least[1]

    def _drawing(self) -> tuple[object, ...]:
        """What the drawing's least width follows: the type and axis room, the title and the width it wraps to
        (wrap_label), the legend's entries, columns and place, and the value axis's words."""
        legend_at = tuple(self.view.ci.items.get(self.legend, ()))
        entries = tuple(label.text for _, label in self.legend.items)
        title = self.plot.titleLabel
        return (self.look, title.text, title.item.textWidth(), self.legend.columnCount, legend_at, entries,
                self.plot.getAxis("left").labelText)  # fmt: skip

    def _rewrap(self, *_: object) -> None:
        if self.rows or self.free:
            self.update_result_rows()

    # ---- hover ----
    def tooltip_for(self, index: int) -> str:
        if index >= len(self.rows):
            slot, name, cap = self.free[index - len(self.rows)]
            u = self.unit
            shown = "unknown (not published)" if cap is None else f"{to_unit(cap, u):.2f} {u}"
            return f"<b>slot {slot} {escape_rich(name)}</b><br>No job on this card: free capacity {shown}"
        job, r = self.rows[index]
        u = self.unit
        e = escape_rich  # the user's words (job, card, phases) escaped, the markup kept: shown as rich text
        lines = [
            f"<b>{e(job)}</b> — slot {r.slot} {e(r.card_name)}"
            + (f" ({e(r.mig)} instance {r.instance})" if r.mig else "")
        ]
        # the bar: what is alive at the peak (adds up to peak reserved); then each kind's own largest over the run,
        # which need not coincide (the loss's buffers are gone before the last layer's transients exist)
        lines.append(f"At the peak ({e(r.at_peak_phase)}), as stacked:")
        lines += [f"{label}: {to_unit(at_peak(r, key), u):.2f} {u}" for key, label, _ in COMPONENTS]
        lines.append("Each kind's largest over the run: " + ", ".join(
            f"{label.lower()} {to_unit(getattr(r, key), u):.2f}" for key, label, _ in COMPONENTS
            if key != "overhead_gb") + f" {u}")  # fmt: skip
        lines += [
            f"Model states: {to_unit(r.model_states_gb, u):.2f} {u}",
            f"Peak allocated: {to_unit(r.peak_allocated_gb, u):.2f} {u}",
            f"Peak reserved (nvidia-smi): {to_unit(r.peak_reserved_gb, u):.2f} {u} (set by {e(r.peak_phase)})",
            f"Band: {band_words(to_unit(r.band_low_gb, u), to_unit(r.band_high_gb, u), u, 1)}"
            + (f" ({e(r.band_basis)})" if r.band_basis else ""),
            f"Capacity: {to_unit(r.capacity_gb, u):.2f} {u} · headroom {to_unit(r.headroom_gb, u):.2f} {u}"
            + (f" ({capacity_note(share)})" if (share := (self.shares or {}).get(job, 0.0)) else ""),
            f"Status: {r.status}"
            + (" — the band straddles the capacity: it may or may not fit" if r.status == "tight" else ""),
        ]
        if job in self.host_gb:
            host = self.host_gb[job]
            lines.append(
                "Host memory (offloaded states, whole job): "
                + ("unknown (NVMe staging)" if host is None else f"{to_unit(host, u):.2f} {u}")
            )
        if note := reserved_basis_note(r.reserved_set_by, r.fsdp_setup_pool_gb, u, digits=2):
            lines.append(note[0].upper() + note[1:])
        if self.trace_note is not None:  # the main window's chart (not the kiosk's, not the compare dialog's)
            traced = self.trace_note(job)
            lines.append(f"<b>{e(traced)}</b>" if traced else "Right-click: Trace exactly (the real code's peak)")
        return "<br>".join(lines)

    def bar_at(self, pos: QPointF) -> int | None:
        """The bar (job row or free card) under the scene position ``pos``, or None."""
        count = len(self.rows) + len(self.free)
        if not count:
            return None
        point = self.plot.vb.mapSceneToView(pos)
        i = round(point.x())
        return i if 0 <= i < count and abs(point.x() - i) <= BAR_WIDTH / 2 else None

    def _hover(self, pos: QPointF) -> None:
        if not (self.rows or self.free):
            return
        i = self.bar_at(pos)
        if i is not None:
            # scene -> widget -> screen: the plot is a graphics item, the layout widget maps to the screen
            self.tips.show(pos, self.tooltip_for(i), rich=True)  # tooltip_for escapes the user's words
        else:
            self.tips.hide()

    def menu_for(self, index: int | None) -> QMenu | None:
        """The context menu of a job's bar: Trace exactly (None for a free card, no bar, or a chart that cannot
        trace: the kiosk's and the compare dialog's set no ``trace_note``)."""
        if self.trace_note is None or index is None or not 0 <= index < len(self.rows):
            return None
        job = self.rows[index][0]
        menu = QMenu(self.view)
        action = menu.addAction(f"Trace exactly: {job}")
        action.setToolTip("Trace this job's training step on meta tensors for its exact allocated peak")
        action.triggered.connect(partial(self.trace_requested.emit, job))
        return menu

    def _context_menu(self, pos: QPoint) -> None:
        menu = self.menu_for(self.bar_at(self.view.mapToScene(pos)))
        if menu is not None:
            menu.exec(self.view.mapToGlobal(pos))
            menu.deleteLater()

    def bar_colour(self, key: str) -> QColor:
        return QColor(next(c for k, _, c in COMPONENTS if k == key))

    def heights(self, key: str) -> list[float]:
        """Bar heights of one component (what of it is alive at the card's peak, ``at_peak``), for tests and
        exports."""
        opts = self.bars[key].opts
        return [float(v) for v in (opts.get("height") if opts.get("height") is not None else [])]


class _BandSample(ItemSample):  # type: ignore[misc]  # pyqtgraph is untyped
    """The peak band's legend sample: an I-beam in the band's pen, as the chart draws it (pyqtgraph's sample of an
    error bar is a plain line, the same as the capacity's)."""

    def paint(self, p, *args) -> None:  # type: ignore[no-untyped-def]
        p.setPen(pg.mkPen(self.item.opts["pen"]))
        p.drawLine(QPointF(10, 3), QPointF(10, 17))
        p.drawLine(QPointF(6, 3), QPointF(14, 3))
        p.drawLine(QPointF(6, 17), QPointF(14, 17))


def headroom_forms(row: CardMemory, unit: str) -> list[str]:
    """A job bar's label, longest first, each with its unit: 'short 13.0 GB', then its words over the number
    ('short' / '13.0 GB'), then the number whole. 'tight': the engine's band straddles the capacity (it may or may
    not fit on the day)."""
    one = headroom_label(row.headroom_gb, row.fits, unit)
    whole = headroom_label(row.headroom_gb, row.fits, unit, digits=0)
    tight = "tight " if row.status == "tight" else ""
    if row.fits:
        return [tight + one, f"{tight}{one.replace(' ', chr(10), 1)}" if not tight else f"tight\n{one}",
                f"tight\n{whole}" if tight else whole]  # fmt: skip
    number, whole_number = one.removeprefix("short "), whole.removeprefix("short ")
    return [tight + one, f"{tight}short\n{number}", f"{tight}short\n{whole_number}"]


def free_forms(capacity: float | None, unit: str) -> list[str]:
    """A free card's label, longest first (as ``headroom_forms``)."""
    if capacity is None:
        return ["free, capacity unknown", "free,\nunknown"]
    value = to_unit(capacity, unit)
    return [f"free {value:.1f} {unit}", f"free\n{value:.1f} {unit}", f"free\n{value:.0f} {unit}"]


def _free_box(u: float, bottom: float, tw: float, th: float, taken: list[tuple[float, float, float, float]],
              width: float, lift: bool) -> tuple[float, float, float, float] | None:  # fmt: skip
    """A ``tw`` x ``th`` box centred at ``u`` with its bottom at ``bottom`` (pixels, y down) that meets nothing
    ``taken`` and stays inside the plot (0..``width`` across, below its top): at the plot's edge it stands off
    centre, inside (the first of the kiosk's fourteen bars lost its words at 1280 px); with ``lift``, raised over
    what it meets until it meets nothing. None where there is no such box."""
    if tw > width:
        return None
    left = min(max(u - tw / 2, 0.0), width - tw)
    right = left + tw
    for _ in range(len(taken) + 1):
        box = (left, bottom - th, right, bottom)
        hits = [t for t in taken if box[0] < t[2] and box[2] > t[0] and box[1] < t[3] and box[3] > t[1]]
        if not hits:
            return box if box[1] >= 0 else None
        if not lift:
            return None
        bottom = min(t[1] for t in hits) - 2
    return None


def _tick(slot: int, instance: int | None, room: float, full: str) -> str:
    """A bar's tick for ``room`` characters a bar: ``full`` (slot and name) where a name's shortest cut, 8
    characters, fits; else the slot alone, the bare number below 6 (eight bars at 1024x768 had 6 characters each:
    'LoRA, F…' ran into its neighbours and pyqtgraph dropped the first and last slots' ticks). The tooltip and
    the Jobs tab name the job."""
    if room >= 8:
        return full
    mig = f"\n#{instance}" if instance is not None else ""
    return (f"slot {slot}" if room >= 6 else f"{slot}") + mig


def _job_names_under_runs(ticks: list[tuple[float, str]], jobs: list[str], room: float) -> list[tuple[float, str]]:
    """``ticks`` (one a bar, its slot only) with each run of neighbouring bars of one job named once under the run,
    on the lines below the slots', cut to the run's width (``room`` characters a bar): eight bars at 1366x768 kept
    'slot N' alone and no job's name. A run centred on a bar adds its name to that bar's tick; else a tick between
    its middle bars."""
    out = list(ticks)
    start = 0
    for i in range(1, len(jobs) + 1):
        if i < len(jobs) and jobs[i] == jobs[start]:
            continue
        chars = int(room * (i - start))
        if chars >= 4:
            below = max(text.count("\n") for _, text in ticks[start:i]) + 1
            name = _tick_name(jobs[start], chars)
            if below > 1:  # a MIG instance's '#n' took the second line: the name gets the third alone
                name = name.split("\n")[0] + ("…" if "\n" in name else "")
            middle = (start + i - 1) / 2
            if middle.is_integer():
                k = int(middle)
                out[k] = (out[k][0], f"{out[k][1]}\n{name}")
            else:
                out.append((middle, "\n" * below + name))
        start = i
    return out


def _tick_name(text: str, width: int = 22) -> str:
    """A bar's name on at most two lines of ``width`` characters, broken at spaces; the full name is in
    the tooltip."""
    if len(text) <= width:
        return text
    cut = text.rfind(" ", 0, width + 1)
    first, rest = (text[:cut], text[cut + 1 :]) if cut > 0 else (text[:width], text[width:])
    return f"{first}\n{rest if len(rest) <= width else rest[: width - 1] + '…'}"


def _font(points: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPointSizeF(points)
    f.setBold(bold)
    return f
