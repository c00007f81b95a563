"""The kiosk's headroom chart: kiosk-sized type for the screen and the kiosk's words over the bars, set through
the chart's public presentation interface (``set_presentation``, ``set_title``, ``set_bar_words``)."""

from __future__ import annotations

from PySide6.QtGui import QFontMetrics

from configurator.engine.model.result import CardMemory
from configurator.present.words import headroom_label, to_unit
from configurator.ui.charts import ChartLook, HeadroomChart
from configurator.ui.kiosk.scenarios import CHART_WORDS, FigureSpec, Scenario, bar_text, chart_spec
from configurator.ui.kiosk.widgets import _font

BAR_WORDS_GAP = 10  # px between neighbouring bar labels, at 1920x1080
DEFAULT_WORDS = "free after activations"
# below this much plot width per bar (at 1920x1080) a tick is the slot number alone (the MIG instance under it)
DENSE_BAR_PX = 70


def kiosk_look(s: float) -> ChartLook:
    """The chart's type at screen scale ``s`` (1.0 at 1920x1080)."""
    # the legend in one column beside the plot where the chart is tall enough: above it, its ten entries took
    # three rows of a plot ~420 px high at 1920x1080, and the plot barely grew from 1280x800 (issue 26)
    return ChartLook(title_pt=16 * s, tick_pt=15 * s, axis_label_pt=16 * s, bar_label_pt=16 * s, legend_pt=12 * s,
                     legend_cols=5, legend_beside=True, bottom_axis_px=round(60 * s),
                     left_axis_px=round(80 * s))  # fmt: skip


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
        chart.set_presentation(self.look)
        chart.set_title(f"Over each bar: {DEFAULT_WORDS}")
        chart.setMinimumHeight(300)

    def set_scale(self, s: float) -> None:
        self.scale = s
        self.look = kiosk_look(s)
        self.chart.set_presentation(self.look)
        self.chart.setMinimumHeight(round(300 * s))

    def show(self, scenario: Scenario) -> None:
        """Word the bars for ``scenario`` (from the chart's next drawing on: call before update_result)."""
        self.spec = chart_spec(scenario)
        words = CHART_WORDS[self.spec.field] if self.spec is not None else DEFAULT_WORDS
        self.chart.set_title(f"Over each bar: {words}")
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
        size = 16 if not self._compact(bars, plot_px) else 12 if bars < 12 else 9
        return size * self.scale

    def label(self, job: str, row: CardMemory, room_px: float) -> str | None:
        bars = len(self.chart.rows)
        plot_px = room_px * max(bars, 1)
        if self.spec is not None:
            text = bar_text(float(getattr(row, self.spec.field)), self.spec, self.unit)
        elif not self._compact(bars, plot_px):
            return None  # the chart's own headroom words
        else:
            # eight bars (a plan's node) take whole GB, so neighbouring labels do not touch
            digits = 0 if bars >= 8 or abs(to_unit(row.headroom_gb, self.unit)) >= 100 else 1
            text = headroom_label(row.headroom_gb, row.fits, self.unit, digits)
        # the axis names the unit: a label wider than its bar drops it (the MIG scenario's four '13.3 GB' ran into
        # each other at 1024x768)
        font = _font(self.point_size(bars, plot_px), True)
        if QFontMetrics(font).horizontalAdvance(text) > room_px - BAR_WORDS_GAP * self.scale:
            text = text.replace(f" {self.unit}", "", 1)
        return text

    def tick(self, job: str, row: CardMemory, bars: int, plot_px: float) -> str | None:
        if not self._compact(bars, plot_px):
            return None
        if plot_px / max(bars, 1) < DENSE_BAR_PX * self.scale:  # a plan's node: 14 bars, names ran into each other
            return f"{row.slot}" + (f"\n#{row.instance}" if row.mig else "")
        text = job if row.mig else f"slot {row.slot}"
        font = _font(self.look.tick_pt or 15 * self.scale)
        if QFontMetrics(font).horizontalAdvance(text) > plot_px / max(bars, 1) - BAR_WORDS_GAP * self.scale:
            text = text.replace(" ", "\n")  # a word a line: 'Tenant A' ran into 'Tenant B' at 1024x768
        return text
