"""Charts: the headroom chart and the analysis tabs (fit frontier, step time, roofline, topology).

The other rooms of ui/ import the charts through these names only (an import-linter contract in
pyproject.toml)."""

from configurator.ui.base import install_pg_guard
from configurator.ui.charts.common import DARK_BACKGROUND, DARK_INK, LIGHT_INK, fit_legend, palette_is_dark, wrap_label
from configurator.ui.charts.fit_frontier import FitFrontierChart
from configurator.ui.charts.headroom import HeadroomChart, free_cards
from configurator.ui.charts.presentation import BarWords, ChartLook
from configurator.ui.charts.roofline import RooflineChart
from configurator.ui.charts.step_time import StepTimeChart
from configurator.ui.charts.tabs import AnalysisTabs
from configurator.ui.charts.topology import TopologyGrid, topo_colour

install_pg_guard()  # before any chart is built (base/pg_guard.py says why)

__all__ = [
    "DARK_BACKGROUND",
    "DARK_INK",
    "LIGHT_INK",
    "AnalysisTabs",
    "BarWords",
    "ChartLook",
    "FitFrontierChart",
    "HeadroomChart",
    "RooflineChart",
    "StepTimeChart",
    "TopologyGrid",
    "fit_legend",
    "free_cards",
    "palette_is_dark",
    "topo_colour",
    "wrap_label",
]
