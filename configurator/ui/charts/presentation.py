"""How a headroom chart is dressed: its type sizes and axis room (:class:`ChartLook`) and, optionally, who words its
bars (:class:`BarWords`). The main window uses the defaults; the kiosk passes screen-scaled sizes and its own
words through ``HeadroomChart.set_presentation`` / ``set_bar_words`` instead of reaching into the chart's items."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from configurator.engine.model.result import CardMemory

MAX_LEGEND_COLS = 4


@dataclass(frozen=True)
class ChartLook:
    """Type sizes (points) and axis room (px). ``None``: pyqtgraph's own size."""

    title_pt: float = 10.0
    tick_pt: float | None = None
    axis_label_pt: float | None = None
    bar_label_pt: float = 8.5
    legend_pt: float | None = None
    legend_cols: int = MAX_LEGEND_COLS  # at most; fewer where the width does not hold them
    legend_beside: bool = False  # the legend in one column right of the plot where it fits (the plot keeps the height)
    bottom_axis_px: int = 58  # "slot N" and a name on two lines
    left_axis_px: int | None = None


class BarWords(Protocol):
    """Words over and under a job's bars in place of the chart's own (headroom and 'slot N / job')."""

    def point_size(self, bars: int, plot_px: float) -> float:
        """The bar labels' type for ``bars`` bars across a plot ``plot_px`` wide."""
        ...

    def label(self, job: str, row: CardMemory, room_px: float) -> str | None:
        """The words over one bar (``room_px``: the plot's width per bar), or None for the chart's own."""
        ...

    def tick(self, job: str, row: CardMemory, bars: int, plot_px: float) -> str | None:
        """The words under one bar, or None for the chart's own."""
        ...
