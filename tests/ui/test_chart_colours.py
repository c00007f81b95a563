"""Text in the charts reads at 4.5:1 or more (WCAG 2.1 SC 1.4.3) on either theme's panel, computed from the colours
the charts draw with: status words, the roofline's ridge labels and the axis titles."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QColor

from configurator.engine.model.buildfile import load_build
from configurator.present.colours import contrast, readable
from configurator.ui.base.document import BuildDocument
from configurator.ui.charts import AnalysisTabs, HeadroomChart
from configurator.ui.charts.common import DARK_BACKGROUND

ROOT = Path(__file__).resolve().parents[2]
EIGHT = ROOT / "resources" / "builds" / "seed-70b-lora-8x-h200-nvl.yaml"
PANEL = {False: "#ffffff", True: DARK_BACKGROUND}


def text_colour(item) -> str:  # type: ignore[no-untyped-def]
    return str(item.textItem.defaultTextColor().name())


@pytest.mark.parametrize("dark", [False, True])
def test_headroom_status_words_and_axis_title_read_on_either_theme(qtbot, dark: bool) -> None:  # type: ignore[no-untyped-def]
    """The dark theme wrote 'short 13.0' in the light theme's #C62828 on #1f1f1f (2.9:1), 'tight' in amber
    #E69F00 on white (2.3:1), and the axis title took the axis line's grey (3.5:1 on white)."""
    result = BuildDocument(load_build(EIGHT)).result
    job = result.jobs[0]
    statuses = ["fits", "tight", "does-not-fit", "unknown"]
    rows = [job.cards[0].model_copy(update={"status": s, "fits": s == "fits"}) for s in statuses]
    chart = HeadroomChart()
    qtbot.addWidget(chart)
    chart.resize(1000, 420)
    chart.set_dark(dark)
    chart.show()
    chart.update_result(result.model_copy(update={"jobs": [job.model_copy(update={"cards": rows})]}))
    for label, status in zip(chart.labels, statuses, strict=False):
        assert contrast(text_colour(label), PANEL[dark]) >= 4.5, (status, text_colour(label))
    title = QColor(chart.plot.getAxis("left").labelStyle["color"]).name()
    assert contrast(title, PANEL[dark]) >= 4.5, title


@pytest.mark.parametrize("dark", [False, True])
def test_roofline_ridge_labels_and_axis_titles_read_on_either_theme(qtbot, dark: bool) -> None:  # type: ignore[no-untyped-def]
    """The ridge labels took the roof's colour whatever the theme (#0072B2 on #1f1f1f: 3.2:1)."""
    tabs = AnalysisTabs(BuildDocument(load_build(ROOT / "resources" / "builds" / "default.yaml")))
    qtbot.addWidget(tabs)
    tabs.resize(900, 420)
    tabs.view.set_dark(dark)
    tabs.show()
    tabs.setCurrentIndex(2)
    chart = tabs.roofline
    ridges = [t for t in chart.ridge_labels if t.isVisible()]
    assert ridges
    for label in ridges:
        assert contrast(text_colour(label), PANEL[dark]) >= 4.5, text_colour(label)
    for side in ("left", "bottom"):
        assert contrast(QColor(chart.plot.getAxis(side).labelStyle["color"]).name(), PANEL[dark]) >= 4.5


def test_readable_keeps_a_colour_that_reads_and_mends_one_that_does_not() -> None:
    assert readable("#222222", "#ffffff") == "#222222"
    for colour in ("#0072B2", "#E69F00", "#56B4E9"):
        for panel in ("#ffffff", DARK_BACKGROUND):
            assert contrast(readable(colour, panel), panel) >= 4.5
