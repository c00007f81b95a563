"""The kiosk's headroom chart: kiosk-sized type for the screen and the kiosk's words over the bars, set through
the chart's public presentation interface (``set_presentation``, ``set_title``, ``set_bar_words``)."""

from __future__ import annotations

from operator import is_

from PySide6.QtGui import QFontMetrics

from configurator.engine.model.result import BuildResult, CardMemory
from configurator.present.words import headroom_label, to_unit
from configurator.ui.charts import ChartLook, HeadroomChart
from configurator.ui.kiosk.scenarios import CHART_WORDS, FigureSpec, Scenario, bar_text, chart_spec
from configurator.ui.kiosk.widgets import _font

BAR_WORDS_GAP = 10  # px between neighbouring bar labels, at 1920x1080
# the least type of the legend and the bars' words on any screen: 14 px at 96 dpi, read from a stand's distance
# (scaled with the screen, 12 pt read 11 px at 1366x768)
LEAST_PT = 10.5
DEFAULT_WORDS = "free after activations"
# below this much plot width per bar (at 1920x1080) a tick is the slot number alone: a MIG card's slices each show
# its slot, as the chassis beside names it with its MIG layout ("#0".."#3" under them meant nothing to a visitor)
DENSE_BAR_PX = 70
# the least type of dense ticks (at 1920x1080; the bars' words over them go down to 9)
DENSE_TICK_PT = 11.0
# the least width a bar keeps beside the legend (at 1920x1080): a tick '#0' at DENSE_TICK_PT (22 px) and
# BAR_WORDS_GAP
DENSE_ROOM_PX = 32


def kiosk_look(s: float) -> ChartLook:
    """The chart's type at screen scale ``s`` (1.0 at 1920x1080)."""
    # the legend in one column beside the plot where the chart is tall enough: above it, its ten entries took
    # three rows of a plot ~420 px high at 1920x1080, and the plot barely grew from 1280x800 (issue 26)
    # the room a bar keeps beside the legend is what its tick needs, at the screen's scale: at 1280x800 and
    # 1366x768 the plan's fourteen bars had 20-22 px each against an unscaled 24, the legend went above in three
    # rows and the plot kept 90-130 px of height
    return ChartLook(title_pt=16 * s, tick_pt=15 * s, axis_label_pt=16 * s, bar_label_pt=16 * s,
                     legend_pt=max(12 * s, LEAST_PT), legend_cols=5, legend_beside=True,
                     bottom_axis_px=round(60 * s), left_axis_px=round(80 * s),
                     beside_bar_px=round(DENSE_ROOM_PX * s))  # fmt: skip


class KioskChart:
    """The chart's kiosk words: each bar says what the big figure says (chart_spec: the same field, the same number
    format, the field's words in the title). Narrow bars get smaller labels and one-line ticks (the tenant for MIG
    slices, else the slot). Implements the chart's BarWords."""

    def __init__(self, chart: HeadroomChart, unit: str) -> None:
        self.chart = chart
        self.unit = unit
        self.scale = 1.0
        self.look = kiosk_look(self.scale)  # built once per scale (set_scale): every tick reads its type
        self.spec: FigureSpec | None = None
        # the dense ticks' type for the drawing's bars, width and tick words (_dense_size): asked once a tick
        self._dense_key: tuple[object, ...] | None = None
        self._dense_answer = (15.0, True)
        # whether the bars' words drop the unit and the plus, for the drawing's rows and width (_crowding)
        self._crowd_key: tuple[tuple[CardMemory, ...], tuple[object, ...]] | None = None
        self._crowd = (False, False)
        chart.set_presentation(self.look)
        chart.set_title(f"Over each bar: {DEFAULT_WORDS}")
        chart.setMinimumHeight(300)

    def set_scale(self, s: float) -> None:
        self.scale = s
        self.look = kiosk_look(s)
        self._dense_key = None
        self.chart.set_presentation(self.look)
        self.chart.setMinimumHeight(round(300 * s))

    def show(self, scenario: Scenario, result: BuildResult | None = None) -> None:
        """Word the bars for ``scenario`` and ``result``, the result about to be drawn (from the chart's next
        drawing on: call before update_result). Where the bars are many (compact: their words may drop the unit,
        "+21") the title names the unit."""
        self.spec = chart_spec(scenario)
        words = CHART_WORDS[self.spec.field] if self.spec is not None else DEFAULT_WORDS
        rows = sum(len(job.cards) for job in result.jobs) if result is not None else 0
        unit = f"{self.unit} " if self.spec is None and rows >= 4 else ""
        self.chart.set_title(f"Over each bar: {unit}{words}")
        self.chart.set_bar_words(self)

    def bar_text(self, row: CardMemory) -> str:
        """The words drawn over ``row``'s bar."""
        i = next(i for i, (_, r) in enumerate(self.chart.rows) if r is row)
        return self.chart.bar_text(i)

    # ---- BarWords ----
    def _compact(self, bars: int, plot_px: float) -> bool:
        return bars >= 4 or plot_px / max(bars, 1) < 190 * self.scale

    def point_size(self, bars: int, plot_px: float) -> float:
        # a plan's node with MIG slices can show twelve or more bars: smaller type still keeps the words apart
        if not self._compact(bars, plot_px):
            return 16 * self.scale
        # no smaller than LEAST_PT where the bars leave room (12 read 11 px at 1366x768)
        return max(12 * self.scale, LEAST_PT) if bars < 12 else 9 * self.scale

    def label(self, job: str, row: CardMemory, room_px: float) -> str | None:
        bars = len(self.chart.rows)
        plot_px = room_px * max(bars, 1)
        if self.spec is None and not self._compact(bars, plot_px):
            return None  # the chart's own headroom words
        text = self._words(row, bars)
        drop_unit, drop_plus = self._crowding(bars, plot_px, room_px)
        if drop_unit:
            text = text.replace(f" {self.unit}", "", 1)
        if drop_plus and text.startswith("+"):
            text = text[1:]
        return text

    def _crowding(self, bars: int, plot_px: float, room_px: float) -> tuple[bool, bool]:
        """Whether every bar's words drop the unit, then the plus, alike: where any bar's label is wider than its bar
        (the MIG scenario's four '13.3 GB' ran into each other at 1024x768, the plan's fourteen '+21' at 1280x800;
        '7 GB' beside '21' read as two kinds of figure). The axis names the unit and the title says "free". Asked
        once a drawing, not once a bar."""
        rows = tuple(r for _, r in self.chart.rows)  # held, and compared by identity: a new drawing's rows are new
        key = (round(room_px, 1), self.scale, self.spec)
        known = self._crowd_key
        if known is None or known[1] != key or len(known[0]) != len(rows) or not all(map(is_, known[0], rows)):
            metrics = QFontMetrics(_font(self.point_size(bars, plot_px), True))
            room = room_px - BAR_WORDS_GAP * self.scale
            every = [self._words(r, bars) for _, r in self.chart.rows]
            drop_unit = max((metrics.horizontalAdvance(t) for t in every), default=0) > room
            if drop_unit:
                every = [t.replace(f" {self.unit}", "", 1) for t in every]
            drop_plus = max((metrics.horizontalAdvance(t) for t in every), default=0) > room
            self._crowd_key, self._crowd = (rows, key), (drop_unit, drop_plus)
        return self._crowd

    def _words(self, row: CardMemory, bars: int) -> str:
        """A bar's figure in the kiosk's words: the scenario's field, or the headroom (whole GB over eight bars or
        more, so neighbouring labels do not touch)."""
        if self.spec is not None:
            return bar_text(float(getattr(row, self.spec.field)), self.spec, self.unit)
        digits = 0 if bars >= 8 or abs(to_unit(row.headroom_gb, self.unit)) >= 100 else 1
        return headroom_label(row.headroom_gb, row.fits, self.unit, digits)

    def _dense(self, bars: int, plot_px: float) -> bool:
        return plot_px / max(bars, 1) < DENSE_BAR_PX * self.scale

    def _dense_size(self, bars: int, plot_px: float) -> tuple[float, bool]:
        """Dense ticks' type (points) and whether a MIG instance keeps its '#': the look's type where the widest
        tick and a space of that type fit a bar's width, else smaller, down to DENSE_TICK_PT ('#0#1#2#3' ran
        together under the plan's fourteen bars at 1920x1080: 29 px of text under bars 30 px apart); below that
        the '#' goes. A bar's width is its share of the plot less a px: the plot keeps a fifth of a bar's width
        beyond the outer bars (0.5 px a bar at 1920x1080)."""
        lines = tuple(sorted({str(r.slot) for _, r in self.chart.rows}))
        key = (bars, round(plot_px), lines)
        if self._dense_key != key:
            pitch = plot_px / max(bars, 1) - 1

            def fits(points: float) -> bool:
                metrics = QFontMetrics(_font(points))
                widest = max((metrics.horizontalAdvance(line) for line in lines), default=0)
                return widest + metrics.horizontalAdvance(" ") <= pitch

            size, least = self.look.tick_pt or 15 * self.scale, DENSE_TICK_PT * self.scale
            while size > least and not fits(size):
                size = max(size - 0.5 * self.scale, least)
            self._dense_key, self._dense_answer = key, (size, fits(size))
        return self._dense_answer

    def tick_point_size(self, bars: int, plot_px: float) -> float | None:
        if not self._compact(bars, plot_px) or not self._dense(bars, plot_px):
            return None
        return self._dense_size(bars, plot_px)[0]

    def tick(self, job: str, row: CardMemory, bars: int, plot_px: float) -> str | None:
        if not self._compact(bars, plot_px):
            return None
        if self._dense(bars, plot_px):  # a plan's node: 14 bars, names ran into each other
            return str(row.slot)  # a MIG slice too: a bar a slice over its slot
        text = job if row.mig else f"slot {row.slot}"
        font = _font(self.look.tick_pt or 15 * self.scale)
        if QFontMetrics(font).horizontalAdvance(text) > plot_px / max(bars, 1) - BAR_WORDS_GAP * self.scale:
            text = text.replace(" ", "\n")  # a word a line: 'Tenant A' ran into 'Tenant B' at 1024x768
        return text
