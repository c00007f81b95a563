"""The headroom chart against the engine's own per-card numbers: the band, the tooltip, hovering, extremes."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication, QToolTip

from configurator.catalog.richtext import escape_rich
from configurator.engine.model.buildfile import load_build
from configurator.ui.base.document import BuildDocument
from configurator.ui.charts import HeadroomChart

ROOT = Path(__file__).resolve().parents[2]
BUILDS = ROOT / "resources" / "builds"
EIGHT = BUILDS / "seed-70b-lora-8x-h200-nvl.yaml"


def make_chart(qtbot, result):  # type: ignore[no-untyped-def]
    chart = HeadroomChart()
    qtbot.addWidget(chart)
    chart.resize(1000, 420)
    chart.show()
    qtbot.waitExposed(chart)
    chart.update_result(result)
    return chart


def test_band_is_drawn_as_an_error_bar_around_peak_reserved(qtbot) -> None:  # type: ignore[no-untyped-def]
    result = BuildDocument(load_build(EIGHT)).result
    chart = make_chart(qtbot, result)
    rows = [r for j in result.jobs for r in j.cards]
    opts = chart.band.opts
    assert list(opts["y"]) == pytest.approx([r.peak_reserved_gb for r in rows])
    assert list(np.asarray(opts["y"]) + opts["top"]) == pytest.approx([r.band_high_gb for r in rows])
    assert list(np.asarray(opts["y"]) - opts["bottom"]) == pytest.approx([r.band_low_gb for r in rows])


def test_tooltip_names_peak_phase_band_basis_and_tight(qtbot) -> None:  # type: ignore[no-untyped-def]
    result = BuildDocument(load_build(EIGHT)).result
    job = result.jobs[0]
    row = job.cards[0].model_copy(update={"status": "tight", "peak_phase": "optimizer-step"})
    job = job.model_copy(update={"name": "<b>evil</b> & co", "cards": [row], "offload": "cpu", "host_memory_gb": 321.0})
    chart = make_chart(qtbot, result.model_copy(update={"jobs": [job]}))
    tip = chart.tooltip_for(0)
    assert "optimizer-step" in tip
    assert f"{row.band_low_gb:.1f}–{row.band_high_gb:.1f} GB" in tip
    assert row.band_basis and row.band_basis in tip
    assert "Host memory" in tip and "321.00 GB" in tip
    assert "&lt;b&gt;evil&lt;/b&gt; &amp; co" in tip and "<b>evil</b>" not in tip
    assert chart.labels[0].textItem.toPlainText().startswith("tight")


def test_tooltip_stays_up_while_the_mouse_rests(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Qt's resting-mouse tooltip event (700 ms) used to hide the breakdown before it could be read."""
    from tests.gui_helpers import hover_tooltip

    result = BuildDocument(load_build(EIGHT)).result
    chart = make_chart(qtbot, result)
    row = result.jobs[0].cards[0]
    tip = hover_tooltip(chart.view, chart.plot, 0.0, row.weights_gb / 2)
    assert result.jobs[0].name in tip
    qtbot.wait(1500)
    QApplication.processEvents()
    assert QToolTip.isVisible() and result.jobs[0].name in QToolTip.text()


def test_a_job_needing_ten_thousand_gb_draws_with_a_readable_axis(qtbot) -> None:  # type: ignore[no-untyped-def]
    result = BuildDocument(load_build(EIGHT)).result
    job = result.jobs[0]
    big = job.cards[0].model_copy(
        update={
            "activations_gb": 10_000.0,
            "peak_reserved_gb": 10_100.0,
            "band_low_gb": 9_000.0,
            "band_high_gb": 11_000.0,
            "headroom_gb": -9_960.0,
            "fits": False,
            "status": "does-not-fit",
        }
    )
    chart = make_chart(qtbot, result.model_copy(update={"jobs": [job.model_copy(update={"cards": [big]})]}))
    chart.grab()
    hi = chart.plot.vb.viewRange()[1][1]
    assert hi >= 11_000.0
    labels = chart.plot.getAxis("left").tickStrings([5000.0, 10000.0], 1.0, 5000.0)
    assert labels == ["5,000", "10,000"]


def test_a_card_with_no_job_shows_as_free_capacity(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 15: a card no job uses did not appear on the Headroom chart at all."""
    from configurator.engine import editing
    from tests.gui_helpers import hover_tooltip, make_window

    window = make_window(qtbot, tmp_path, EIGHT)
    build = window.doc.build
    job = build.jobs[0]
    keep = job.cards[:-1] if job.cards else []
    assert keep, "the seed job runs on several cards"
    window.doc.edit("Drop a card from the job", lambda b: editing.update_job(b, 0, cards=keep))
    chart = window.chart
    assert chart.free and chart.free[0][0] == job.cards[-1]
    n = len(chart.rows)
    free_labels = [t.textItem.toPlainText() for t in chart.labels if t.isVisible()]
    assert any(text.startswith(("free ", "free\n")) for text in free_labels)  # its words over its number where narrow
    assert chart.free_bar.opts["height"][0] == pytest.approx(chart.free[0][2])
    tip = hover_tooltip(chart.view, chart.plot, float(n), chart.free[0][2] / 2)
    assert "No job on this card" in tip


def test_long_job_names_wrap_on_the_axis_instead_of_being_cut() -> None:
    from configurator.ui.charts.headroom import _tick_name

    assert _tick_name("70B LoRA, FSDP offload to CPU") == "70B LoRA, FSDP offload\nto CPU"
    assert _tick_name("short") == "short"


@pytest.mark.parametrize("height", [300, 360, 420])  # 300: the kiosk's minimum (~100 px of plot under the legend)
def test_bar_labels_stay_inside_a_short_plot(qtbot, height: int) -> None:  # type: ignore[no-untyped-def]
    """The headroom above each bar is text of a fixed pixel height: on the kiosk's short plot the range's 25 % head
    room was ~27 px, and the labels ran over the chart's title. The range now keeps their height free."""
    from PySide6.QtGui import QFont

    result = BuildDocument(load_build(EIGHT)).result
    chart = make_chart(qtbot, result)
    for label in chart.labels:
        label.setFont(QFont(label.textItem.font().family(), 16, QFont.Weight.Bold))  # the kiosk's bigger type
    chart.resize(1000, height)
    qtbot.wait(20)
    chart.update_result(result)
    QApplication.processEvents()
    view_top = chart.plot.vb.sceneBoundingRect().top()
    shown = [t for t in chart.labels if t.isVisible()]
    assert shown
    for label in shown:
        assert label.sceneBoundingRect().top() >= view_top - 1, (height, label.textItem.toPlainText())


@pytest.mark.parametrize("width", [440, 560, 1000])  # 440: the Headroom tab's chart for eight cards at 1024x768
def test_every_bar_keeps_a_tick_that_fits_under_it(qtbot, width: int) -> None:  # type: ignore[no-untyped-def]
    """Eight bars at 1024x768 had room for ~6 characters each, but a tick's name was cut no shorter than 8 ('LoRA,
    F…'): the names ran into each other and pyqtgraph dropped the first and last slots' ticks. Each tick's widest
    line now fits the spacing between bars, and every bar has one."""
    from PySide6.QtGui import QFontMetrics

    result = BuildDocument(load_build(EIGHT)).result
    chart = make_chart(qtbot, result)
    chart.resize(width, 420)
    qtbot.wait(20)
    QApplication.processEvents()
    axis = chart.plot.getAxis("bottom")
    ticks = [(x, t) for x, t in axis._tickLevels[0] if float(x).is_integer()]  # a bar's (a job's name may stand
    assert [x for x, _ in ticks] == [float(i) for i in range(8)]  # between bars, under its run)
    spacing = chart.plot.vb.width() / 8
    metrics = QFontMetrics(axis.style.get("tickFont") or axis.font())
    widest = max(metrics.horizontalAdvance(line) for _, text in ticks for line in text.split("\n"))
    assert widest <= spacing - 4, (width, spacing, ticks)
    assert all(text.startswith("slot ") for _, text in ticks)


@pytest.mark.parametrize("build", [ROOT / "resources" / "builds" / "default.yaml", EIGHT])
def test_the_stacked_bar_is_as_tall_as_the_peak_it_reports(qtbot, build: Path) -> None:  # type: ignore[no-untyped-def]
    """Each kind's own field is its largest over the run: stacked, they stood above the peak the bar reports
    (default build: 90.8 against 89.2 GB). The bar stacks what is alive at the peak (CardMemory.at_peak_gb)."""
    from configurator.ui.base import COMPONENTS

    result = BuildDocument(load_build(build)).result
    chart = make_chart(qtbot, result)
    rows = [r for j in result.jobs for r in j.cards]
    stacked = np.sum([chart.heights(key) for key, _, _ in COMPONENTS], axis=0)
    assert list(stacked) == pytest.approx([r.peak_reserved_gb for r in rows], abs=1e-6)
    assert "At the peak" in chart.tooltip_for(0) and "largest over the run" in chart.tooltip_for(0)


def crowded_result():  # type: ignore[no-untyped-def]
    """Eight bars of four jobs as at 1366x768 in the review: four that fit, two adjacent 13 GB short with a tall band,
    two single-card jobs."""
    result = BuildDocument(load_build(EIGHT)).result
    job = result.jobs[0]
    rows = job.cards
    cap = rows[0].capacity_gb
    short = {"status": "does-not-fit", "fits": False, "headroom_gb": -13.0, "peak_reserved_gb": cap + 13,
             "band_low_gb": cap, "band_high_gb": cap + 27}  # fmt: skip
    short_rows = [r.model_copy(update=short) for r in rows[4:6]]
    jobs = [
        job.model_copy(update={"name": "70B LoRA, FSDP over bridge A", "cards": rows[:4]}),
        job.model_copy(update={"name": "8B full fine-tune DDP", "cards": short_rows}),
        job.model_copy(update={"name": "70B QLoRA", "cards": rows[6:7]}),
        job.model_copy(update={"name": "8B QLoRA", "cards": rows[7:]}),
    ]
    return result.model_copy(update={"jobs": jobs})


@pytest.mark.parametrize("width", [440, 520, 760, 1000])  # 520: the Headroom tab at 1366x768
def test_bar_labels_never_overlap_keep_their_unit_and_clear_the_bands(qtbot, width: int) -> None:  # type: ignore[no-untyped-def]
    """At 1366x768 adjacent 'short 13.0' labels ran into each other ('short 13.Short 13.0'), the bands' whiskers ran
    into them, and narrow bars dropped the labels' unit and the x-axis the jobs' names."""
    from PySide6.QtCore import QPointF

    result = crowded_result()
    chart = make_chart(qtbot, result)
    chart.resize(width, 480)
    qtbot.wait(20)
    chart.update_result(result)
    QApplication.processEvents()
    shown = [(i, t) for i, t in enumerate(chart.labels[:8]) if t.isVisible()]
    assert len(shown) == 8, width  # room for all at these widths
    inks = []
    for _, t in shown:
        margin = t.textItem.document().documentMargin()
        inks.append(t.sceneBoundingRect().adjusted(margin, margin, -margin, -margin))
        assert t.toPlainText().endswith("GB"), t.toPlainText()
    for a, b in itertools.combinations(inks, 2):
        assert not a.intersects(b), (width, a, b)
    plot = chart.plot.vb.sceneBoundingRect()
    rows = [r for j in result.jobs for r in j.cards]
    for (i, _), ink in zip(shown, inks, strict=True):
        assert plot.contains(ink), (width, i, ink, plot)
        whisker = chart.plot.vb.mapViewToScene(QPointF(float(i), rows[i].band_high_gb))
        assert ink.bottom() <= whisker.y(), (width, i)  # the label stands above its band
    names = " ".join(text for _, text in chart.plot.getAxis("bottom")._tickLevels[0])
    for job in result.jobs:
        assert job.name.split()[0] in names, (width, names)


def test_the_legend_lists_what_is_drawn_as_it_is_drawn(qtbot) -> None:  # type: ignore[no-untyped-def]
    """'Capacity' and 'Peak band' had identical line samples (the band is drawn as an I-beam), and 'Free (no job)'
    was listed with no card free."""
    from PySide6.QtGui import QImage, QPainter

    result = BuildDocument(load_build(EIGHT)).result
    chart = make_chart(qtbot, result)
    texts = [label.text for _, label in chart.legend.items]
    assert "Free (no job)" not in texts and "Capacity" in texts and "Peak band" in texts

    def drawn(text: str) -> list[int]:
        sample = next(s for s, label in chart.legend.items if label.text == text)
        image = QImage(20, 20, QImage.Format.Format_ARGB32)
        image.fill(0)
        painter = QPainter(image)
        sample.paint(painter)
        painter.end()
        return [image.pixel(x, y) for x in range(20) for y in range(20)]

    assert drawn("Capacity") != drawn("Peak band")
    chart.update_result(result, free=[(9, "NVIDIA H200 NVL", 150.8)])
    texts = [label.text for _, label in chart.legend.items]
    assert "Free (no job)" in texts and texts.index("Free (no job)") < texts.index("Capacity")
    chart.update_result(result)
    assert "Free (no job)" not in [label.text for _, label in chart.legend.items]


def test_the_hover_tip_shows_its_breakdown_as_rich_text_and_the_job_name_as_typed(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The breakdown's <b> and <br> reach QToolTip as markup (TipKeeper escaped them all: the tip showed its tags),
    while a job named like markup is shown as typed."""
    from PySide6.QtGui import QTextDocument

    from tests.gui_helpers import hover_tooltip

    result = BuildDocument(load_build(EIGHT)).result
    job = result.jobs[0].model_copy(update={"name": "<b>evil</b> & co"})
    chart = make_chart(qtbot, result.model_copy(update={"jobs": [job]}))
    row = job.cards[0]
    tip = hover_tooltip(chart.view, chart.plot, 0.0, row.weights_gb / 2)
    assert tip
    shown = QTextDocument()
    shown.setHtml(tip)
    text = shown.toPlainText()
    assert "<br>" not in text and "</b>" not in text.replace("<b>evil</b>", "")  # the markup rendered
    assert "<b>evil</b> & co" in text  # the user's name as typed
    assert "\nAt the peak" in text  # one line per figure
    assert shown.begin().begin().fragment().charFormat().fontWeight() > 400  # the job's line in bold


def test_a_resize_sets_each_bar_label_s_words_once(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Each wording a bar's label might take was measured by setting it as the label's text (setText re-renders the
    item) on every resize: the words are measured from the font, and each label's text set at most once a layout
    (the range may be laid out twice: fit_labels), to the words it shows."""
    import pyqtgraph as pg

    result = BuildDocument(load_build(EIGHT)).result
    chart = make_chart(qtbot, result)
    chart.resize(520, 420)  # too narrow for 'short 13.0 GB' over eight bars: shorter words are tried
    QApplication.processEvents()
    texts: list[tuple[int, str]] = []
    real = pg.TextItem.setText

    def counted(item, text, *args, **kwargs):  # type: ignore[no-untyped-def]
        if any(item is label for label in chart.labels):
            texts.append((id(item), text))
        return real(item, text, *args, **kwargs)

    monkeypatch.setattr(pg.TextItem, "setText", counted)
    for width in (480, 620, 450):
        texts.clear()
        chart.resize(width, 420)
        QApplication.processEvents()
        layouts = 2  # fit_labels lays the labels out once more where a second row is needed
        assert len(texts) <= layouts * len(chart._label_spec), (width, texts)
        # and the size measured is the size drawn
        for label in chart.labels[: len(chart._label_spec)]:
            if label.isVisible():
                _, height = chart._label_size(label, label.toPlainText())
                assert height == label.textItem.boundingRect().height(), width


def test_legend_entries_listed_later_take_the_presentation_s_type_and_the_theme_s_ink(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The headroom legend kept its own copy of the charts' legend rebuild and restyle (common.set_legend,
    restyle_legend): 'Measured', listed after the kiosk's type and the dark theme were set, came in pyqtgraph's 9 pt
    and the light theme's ink."""
    from PySide6.QtGui import QColor

    from configurator.ui.charts.presentation import ChartLook

    result = BuildDocument(load_build(EIGHT)).result
    chart = make_chart(qtbot, result)
    chart.set_presentation(ChartLook(legend_pt=12.0))
    chart.set_dark(True)
    chart.update_result(result, free=[(9, "NVIDIA H200 NVL", 150.8)])
    chart.set_measured({result.jobs[0].name: 100.0})
    labels = {label.text: label for _, label in chart.legend.items}
    assert {"Measured", "Free (no job)", "Weights"} <= set(labels)
    for label in labels.values():
        assert label.opts["size"] == "12.0pt", label.text
        assert QColor(label.opts["color"]).name() == QColor(chart.ink).name(), label.text


@pytest.mark.parametrize("name", ["rl-grpo-8b-lora-vllm-h100.yaml", "default.yaml"])
def test_the_window_names_the_capacity_line_as_the_sheet_does(qtbot, tmp_path, name: str) -> None:  # type: ignore[no-untyped-def]
    """The window's chart called a colocated vLLM job's line 'Capacity' where the sheet says what it is: the 70 %
    vLLM leaves the training (rl_words.capacity_legend, report/pdf.py)."""
    from configurator.engine.memory.rl import colocated_share
    from configurator.present.rl_words import capacity_legend
    from tests.gui_helpers import make_window

    window = make_window(qtbot, tmp_path, BUILDS / name)
    sheet = capacity_legend(colocated_share(window.doc.build.jobs[0]))
    texts = [label.text for _, label in window.chart.legend.items]
    assert escape_rich(sheet) in texts, texts
    if name.startswith("rl-"):
        assert sheet == "Capacity for training (after vLLM's 30 %)"
        # and the bar's tooltip says whose capacity its figure is
        assert "the colocated vLLM's 30 % of each card leaves" in window.chart.tooltip_for(0)
    else:
        assert "vLLM" not in window.chart.tooltip_for(0)

