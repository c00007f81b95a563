"""The kiosk's chart in its layout: the key card's balance (balance_top) settles the chart only when what it reads
changed, the chart settles itself when its width changes (the kiosk's event filter did it for the kiosk alone),
the kiosk's chart type is built once per screen scale, and the service plan's fourteen bars get legible ticks and
a plot with room at 1280x800 and 1366x768."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, QSettings, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QApplication

from configurator.engine.model.buildfile import load_build
from configurator.ui.base.document import BuildDocument
from configurator.ui.base.settings import Settings
from configurator.ui.charts import HeadroomChart
from configurator.ui.charts.presentation import settle_layout
from configurator.ui.kiosk import DemoWindow
from configurator.ui.kiosk.scaling import scale_for
from configurator.ui.kiosk.widgets import HEADING_MOST_SHARE
from tests.kiosk_helpers import assert_bar_words_apart
from tests.paths import ROOT
from tests.ui.dialogs_probe import settle

EIGHT = ROOT / "resources" / "builds" / "seed-70b-lora-8x-h200-nvl.yaml"


def open_kiosk(qtbot, tmp_path: Path, size: tuple[int, int]) -> DemoWindow:  # type: ignore[no-untyped-def]
    window = DemoWindow(Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), idle_ms=600_000)
    qtbot.addWidget(window)
    window.allow_close = True
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    return window


def wait_settled(window: DemoWindow) -> None:
    settle(QApplication.instance(), window, lambda w: w.chart.geometry(), lambda w: w.ui.key_panel.geometry(),
           lambda w: w.chart.plot.vb.size())  # fmt: skip


def count_settles(chart: HeadroomChart, monkeypatch) -> list[int]:  # type: ignore[no-untyped-def]
    calls: list[int] = []
    real = chart.settle

    def counted() -> None:
        calls.append(chart.width())
        real()

    monkeypatch.setattr(chart, "settle", counted)
    return calls


def test_balance_top_settles_nothing_when_nothing_it_reads_changed(qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every resize of the stage balanced the top row, and every balance settled the chart's graphics layout (to
    read its least width) before it looked whether anything had changed. A taller window at the same scale and
    width changes nothing balance_top reads: no settle, the same balance (a named record of what it balanced)."""
    demo = open_kiosk(qtbot, tmp_path, (1920, 1080))
    wait_settled(demo)
    before = demo.ui._top_state
    demo.resize(1920, 1200)  # the same scale (the width's): a taller stage
    wait_settled(demo)
    calls = count_settles(demo.chart, monkeypatch)
    for _ in range(3):  # as the stage's resizes call it
        demo.ui.balance_top()
    assert calls == [], calls
    after = demo.ui._top_state
    assert before is not None and after == before
    assert after.key_w == after.chart_w == demo.ui.key_panel.width() == demo.chart.width()


def test_a_chart_settles_itself_once_its_width_changes(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The chart owns the settle a new width needs (pyqtgraph keeps the last drawing's minimum): one settle after
    the resizes of one pass, none for a change of height alone. The kiosk's event filter did this for the kiosk's
    chart only."""
    chart = HeadroomChart()
    qtbot.addWidget(chart)
    chart.update_result(BuildDocument(load_build(EIGHT)).result)
    chart.resize(900, 420)
    chart.show()
    qtbot.waitExposed(chart)
    qtbot.wait(20)
    calls = count_settles(chart, monkeypatch)
    chart.resize(700, 420)
    chart.resize(600, 420)
    qtbot.waitUntil(lambda: len(calls) > 0, timeout=2000)
    qtbot.wait(20)
    assert calls == [600]
    chart.resize(600, 500)
    qtbot.wait(20)
    assert calls == [600]


def test_the_kiosk_builds_its_chart_look_once_per_scale(qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The kiosk's chart type (kiosk_look) was built again for every tick of every drawing (fourteen a drawing in
    the plan scenario); it is built when the screen's scale changes and reused."""
    from configurator.ui.kiosk import kioskchart

    scales: list[float] = []
    real = kioskchart.kiosk_look

    def counted(s: float):  # type: ignore[no-untyped-def]
        scales.append(round(s, 3))
        return real(s)

    monkeypatch.setattr(kioskchart, "kiosk_look", counted)
    demo = open_kiosk(qtbot, tmp_path, (1920, 1080))
    plan = next(i for i, s in enumerate(demo.scenarios) if s.is_plan)
    for i in (plan, 0, plan):
        demo.show_scenario(i)
        wait_settled(demo)
    demo.resize(1280, 800)
    wait_settled(demo)
    demo.resize(1366, 768)
    wait_settled(demo)
    assert scales == [round(scale_for(*size), 3) for size in ((1920, 1080), (1280, 800), (1366, 768))], scales


def test_the_chart_s_least_width_is_its_settled_drawing_s(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The least width the chart answers without settling is the one a settle gives: its title wraps to the width
    it has (not a change of its text), and a least width kept across that re-wrap left the 1280x800 build
    scenarios' cards 7 px wider or narrower than before (scenario 2's title then took two lines and its plot
    16 px)."""
    demo = open_kiosk(qtbot, tmp_path, (1280, 800))
    for i in range(demo.scenario_count()):
        demo.show_scenario(i)
        wait_settled(demo)
        answered = demo.chart.least_width()
        settle_layout(demo.chart.view, (demo.chart.legend, demo.chart.plot.titleLabel, demo.chart.plot))
        settled = math.ceil(demo.chart.view.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).width())
        assert answered == settled, i + 1


def plan_ticks(demo: DemoWindow) -> tuple[list[str], QFont, float]:
    """The plan chart's ticks as drawn: their texts, their type and the distance between neighbouring bars (px)."""
    axis = demo.chart.plot.getAxis("bottom")
    ticks = axis._tickLevels[0]  # what the chart gave the axis
    vb = demo.chart.plot.vb
    pitch = vb.mapViewToScene(QPointF(1, 0)).x() - vb.mapViewToScene(QPointF(0, 0)).x()
    return [text for _, text in ticks], QFont(axis.style["tickFont"]), pitch


def assert_plan_ticks_apart(demo: DemoWindow) -> None:
    """Every tick line under the plan's fourteen bars is narrower than the distance between bars by at least a
    space of its own type, in type no smaller than 11 pt at 1920x1080 (kioskchart.DENSE_TICK_PT) at the screen's
    scale. A MIG slice's tick is its card's slot, as a whole card's: '1' over '#0' meant nothing to a visitor; the
    chassis beside names its MIG layout, and the words over the bars are in the title's unit."""
    texts, font, pitch = plan_ticks(demo)
    assert len(texts) == 14
    assert texts == ["3", "4", "5", "6", "7", "8", "1", "1", "1", "1", "2", "2", "2", "2"], texts
    title = demo.chart.title
    assert title == f"Over each bar: {demo.unit} free after activations", title
    metrics = QFontMetrics(font)
    widest = max(metrics.horizontalAdvance(line) for text in texts for line in text.split("\n"))
    space = metrics.horizontalAdvance(" ")
    assert widest + space <= pitch, (demo.size(), widest, space, pitch, texts)
    assert font.pointSizeF() >= 11 * demo.scale - 0.01, (demo.size(), font.pointSizeF())


@pytest.mark.parametrize("size", [(1920, 1080), (2560, 1440)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_plan_chart_s_ticks_stand_apart(qtbot, tmp_path: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Under the plan's fourteen bars (six whole cards, two cards of four MIG instances) the instances' ticks read
    '#0#1#2#3' at 1920x1080: 29 px of text under bars 30 px apart (40 under 42 at 2560x1440). The ticks take a
    type that leaves a space between them, and the chart widens under the key card."""
    demo = open_kiosk(qtbot, tmp_path, size)
    demo.show_scenario(next(i for i, s in enumerate(demo.scenarios) if s.is_plan))
    wait_settled(demo)
    assert_plan_ticks_apart(demo)
    assert_bar_words_apart(demo)


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_plan_chart_s_plot_has_room_on_small_screens(qtbot, tmp_path: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """At 1280x800 and 1366x768 the plan chart's legend took three rows above its fourteen bars and the plot kept
    133 and 89 px of the chart's 331 and 269 (at 1920x1080: 263 px): the legend stands beside the plot (the
    chart widens under the key card for it), the plot keeps most of the chart's height, and the narrower bars'
    ticks and words still stand apart."""
    demo = open_kiosk(qtbot, tmp_path, size)
    demo.show_scenario(next(i for i, s in enumerate(demo.scenarios) if s.is_plan))
    wait_settled(demo)
    chart = demo.chart
    legend, plot = chart.legend.sceneBoundingRect(), chart.plot.vb.sceneBoundingRect()
    assert legend.left() >= plot.right() - 1, (legend, plot)
    assert chart.plot_height() >= 160, chart.plot_height()
    assert chart.plot_height() >= 0.6 * chart.height(), (chart.plot_height(), chart.height())
    assert chart.view.ci.geometry().width() <= chart.view.viewport().width() + 1  # the drawing inside its view
    assert_plan_ticks_apart(demo)
    assert_bar_words_apart(demo)
    slots = demo.chassis.slot_items.values()
    shown = QRect(QPoint(0, 0), demo.chassis.viewport().size()).adjusted(-1, -1, 1, 1)
    assert all(shown.contains(demo.chassis.mapFromScene(s.sceneBoundingRect()).boundingRect()) for s in slots)


def _px(points: float, demo: DemoWindow) -> float:
    return points * demo.logicalDpiY() / 72


def test_kiosk_text_reads_14_px_at_1366x768(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """At 1366x768 the chassis' line under its name read 7.7-10.5 px, the chart's legend 11 and its bars' words
    8.5-11: too small for a stand's distance. The legend and the bars' words read 14 px or more there (the bars'
    where fewer than twelve bars leave room), the chassis heading as the body text (test_the_chassis_heading_...),
    and the chart's title says its figure is room for activations, where the editor's bars give what is free after
    them."""
    demo = open_kiosk(qtbot, tmp_path, (1366, 768))
    for i in range(demo.scenario_count()):
        demo.show_scenario(i)
        wait_settled(demo)
        legend = [label for _, label in demo.chart.legend.items]
        assert all(_px(float(label.opts["size"].removesuffix("pt")), demo) >= 14 - 0.05 for label in legend), i + 1
        if len(demo.chart.rows) < 12:
            sizes = {label.textItem.font().pointSizeF() for label in demo.chart.labels if label.isVisible()}
            assert all(_px(p, demo) >= 14 - 0.05 for p in sizes), (i + 1, sizes)
    demo.show_scenario(0)
    wait_settled(demo)
    assert demo.chart.title == "Over each bar: room for activations"


@pytest.mark.parametrize("size", [(1024, 768), (1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_chassis_heading_reads_as_the_body_text(qtbot, tmp_path: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The chassis name and the line under it were drawn in the drawing and shrank with it: 10.5 px in the plan
    scenario at 1366x768 (its eight slots scale the drawing most) beside 17 px body text. They stand over the
    drawing now, in the body text's size, the drawing under them; its slot labels grow only as far as they stay
    clear of the next slot's (grown 35 % they ran into each other)."""
    demo = open_kiosk(qtbot, tmp_path, size)
    body = _px(demo.ui.text.font().pointSizeF(), demo)
    for i in range(demo.scenario_count()):
        demo.show_scenario(i)
        wait_settled(demo)
        view = demo.chassis
        heading = view.heading
        assert heading is not None and heading.isVisible() and heading.text(), i + 1
        assert heading.px() >= body - 0.05, (i + 1, heading.px(), body)
        chassis = demo.catalog.chassis[demo.doc.build.chassis]
        assert chassis.name in heading.text()
        # the specification where it leaves the drawing room; the name alone where it took a fifth of the view
        # (the plan scenario's four lines at 1366x768 left its slot labels at 8.6 px)
        full = "PSU" in heading.text()
        assert full or heading.heightForWidth(heading.width()) <= HEADING_MOST_SHARE * view.height(), i + 1
        assert view.label_px() >= 9 - 0.05, (i + 1, view.label_px())
        # outside the drawing: the viewport starts under it, and the drawing has no heading of its own
        assert view.viewport().geometry().top() >= heading.geometry().bottom(), i + 1
        assert not any(chassis.name in item.text() for item in view._texts)
        # the whole heading shows (its words wrap to the view)
        assert heading.height() >= heading.heightForWidth(heading.width()), i + 1
        labels = sorted((t.sceneBoundingRect() for t in view._texts if t.text().startswith("Slot ")),
                        key=lambda r: (r.left(), r.top()))  # fmt: skip
        for a, b in itertools.pairwise(labels):
            if abs(a.left() - b.left()) < 1:  # one column of labels: each clear of the next
                assert a.bottom() <= b.top() + 1, (i + 1, a, b)
