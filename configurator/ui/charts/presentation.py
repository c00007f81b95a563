"""How a headroom chart is dressed: its type sizes and axis room (:class:`ChartLook`) and, optionally, who words its
bars (:class:`BarWords`). The main window uses the defaults; the kiosk passes screen-scaled sizes and its own
words through ``HeadroomChart.set_presentation`` / ``set_bar_words`` instead of reaching into the chart's items."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QGraphicsLayoutItem

from configurator.engine.model.result import CardMemory

MAX_LEGEND_COLS = 4
BESIDE_BAR_PX = 24  # the least plot width per bar that a legend beside the plot leaves (else it goes above)


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
    beside_bar_px: int = BESIDE_BAR_PX  # the least plot width per bar a legend beside the plot leaves


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

    def tick_point_size(self, bars: int, plot_px: float) -> float | None:
        """The words under the bars in this type (points) for ``bars`` bars across ``plot_px``; None: the
        look's ``tick_pt``."""
        ...


# ---- the legend beside or above the plot ----


def legend_width(legend: pg.LegendItem) -> float:
    """One legend column's width: its widest label, its sample and the spacing."""
    return max((label.item.boundingRect().width() for _, label in legend.items), default=0.0) + 48


def legend_fits_beside(legend: pg.LegendItem, look: ChartLook, width: float, height: float, title_h: float,
                       bars: int) -> bool:  # fmt: skip
    """Whether a chart ``width`` x ``height`` holds ``legend`` in one column beside its plot (the plot's title and
    axes included) with the bars at least half the legend's height, the plot two thirds of the width and each of
    ``bars`` bars ``look.beside_bar_px``."""
    if not legend.items:
        return False
    rows = sum(max(label.item.boundingRect().height(), 18.0) for _, label in legend.items)
    plot_h = height - title_h - look.bottom_axis_px - 16
    column = legend_width(legend)
    per_bar = (width - column - (look.left_axis_px or 60) - 10) / max(bars, 1)
    tall = height - 16 >= rows and plot_h >= rows / 2
    return tall and column <= width / 3 and per_bar >= look.beside_bar_px


def place_legend(layout: pg.GraphicsLayout, legend: pg.LegendItem, beside: bool) -> bool:
    """``legend`` above the plot (row 0) or right of it (row 1, column 1) in the chart's layout; whether it moved."""
    where = (1, 1) if beside else (0, 0)
    if layout.items.get(legend) == [where]:
        return False
    layout.removeItem(legend)
    layout.addItem(legend, row=where[0], col=where[1])
    if beside:
        layout.layout.setColumnStretchFactor(0, 1)  # the plot takes the width the legend leaves
        layout.layout.setColumnStretchFactor(1, 0)
    return True


def settle_layout(view: pg.GraphicsLayoutWidget, items: Iterable[QGraphicsLayoutItem]) -> None:
    """Tell pyqtgraph's layout that ``items`` changed size (it keeps the minimum width of old, larger type)."""
    for item in items:
        item.updateGeometry()
    view.ci.layout.invalidate()
    view.ci.setGeometry(QRectF(view.viewport().rect()))
