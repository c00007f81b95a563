"""The kiosk's chart in its layout: the key card's balance (balance_top) settles the chart only when what it reads
changed, the chart settles itself when its width changes (the kiosk's event filter did it for the kiosk alone),
the kiosk's chart type is built once per screen scale, and the service plan's fourteen bars get legible ticks and
a plot with room at 1280x800 and 1366x768."""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from configurator.engine.model.buildfile import load_build
from configurator.ui.base.document import BuildDocument
from configurator.ui.base.settings import Settings
from configurator.ui.charts import HeadroomChart
from configurator.ui.charts.presentation import settle_layout
from configurator.ui.kiosk import DemoWindow
from configurator.ui.kiosk.scaling import scale_for
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
