"""The planner window, driven as a user would (offscreen): seed B's plan opened, a class's jobs per day
typed into its spin box, undo, save and reopen, "Open as build", and the main window's menu hook."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from configurator.engine import Build, evaluate
from configurator.engine.planner import load_plan
from configurator.engine.planner.editing import set_class, set_price
from configurator.paths import resource
from configurator.ui.base.plan_document import PlanDocument
from configurator.ui.planner import PlannerWindow
from tests.gui_helpers import open_seed_b_planner

SEED_B = Path(resource("plans", "seed-b-service.yaml"))
RTX = "RTX PRO 6000 server / whole card"
H100 = "HGX H100 / whole card"


@pytest.fixture
def planner(qtbot):  # type: ignore[no-untyped-def]
    builds: list[Build] = []
    window = open_seed_b_planner(qtbot, builds.append)
    window.opened_builds = builds
    return window


def _contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio of two colours."""
    from PySide6.QtGui import QColor

    def lum(name: str) -> float:
        c = QColor(name)
        f = [(v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4) for v in (c.redF(), c.greenF(), c.blueF())]
        return 0.2126 * f[0] + 0.7152 * f[1] + 0.0722 * f[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_table_cells_read_as_the_build_editor_and_in_the_dark(planner: PlannerWindow) -> None:
    """The matrix rounded memory to whole GB ('103 GB' where the editor shows 102.6), left '(not planned)'
    unexplained, drew two-line cells against the row borders, and wrote its verdicts in the chart fills, ~3:1 on
    the dark theme's table. Now: 0.1 GB, a tooltip that says why, room above and below, text inks of 4.5:1."""
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QApplication

    from configurator.ui.base import dark_palette

    table = planner.table
    assert planner.result is not None
    cell = planner.result.cell("30B LoRA", RTX)
    assert cell.capacity_gb is not None and cell.peak_gb is not None
    assert table.text_at("30B LoRA", RTX).startswith(f"fits {cell.peak_gb:.1f}/{cell.capacity_gb:.1f} GB")
    assert "102.6 GB" in table.text_at("30B LoRA", RTX)
    tip = table.item(table.devices.index(H100), table.classes.index("30B LoRA")).toolTip()
    assert "safety margin" in tip and "routes no job" in tip
    lines = QFontMetrics(table.font()).lineSpacing() * 2
    row = table.devices.index(RTX)
    assert table.rowHeight(row) >= lines + 6, (table.rowHeight(row), lines)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        for palette in (dark_palette(), app.style().standardPalette()):
            app.setPalette(palette)
            QApplication.processEvents()
            bases = (table.palette().base().color().name(), table.palette().alternateBase().color().name())
            for r in range(table.rowCount()):
                for col in range(table.columnCount()):
                    ink = table.item(r, col).foreground().color().name()
                    for base in bases:
                        assert _contrast(ink, base) >= 4.5, (table.item(r, col).text(), ink, base)
    finally:
        app.setPalette(app.style().standardPalette())


def _type_jobs_per_day(qtbot, window: PlannerWindow, class_name: str, value: str) -> None:  # type: ignore[no-untyped-def]
    panel = window.inputs
    panel.class_box.setCurrentIndex(panel.class_box.findText(class_name))
    box = panel.jobs_per_day
    box.setFocus()
    box.selectAll()
    qtbot.keyClicks(box, value)
    qtbot.keyClick(box, Qt.Key.Key_Return)


def test_table_shows_seed_b_fits(planner: PlannerWindow) -> None:
    # seed B: the 30B LoRA job fits an RTX PRO 6000 (96 GB) and not an H100 SXM (80 GB)
    assert planner.table.text_at("30B LoRA", RTX).startswith("fits")
    h100 = planner.table.text_at("30B LoRA", H100)
    assert not h100.startswith("fits") and h100.split("\n")[1] == "too tight to plan"
    # a 7B LoRA fits a 24 GB MIG instance, four to a card
    assert planner.table.text_at("7B LoRA", "RTX PRO 6000 server / 1g.24gb").startswith("fits")
    assert planner.result is not None
    assert planner.result.cell("7B LoRA", "RTX PRO 6000 server / 1g.24gb").devices_per_card == 4
    assert planner.table.horizontalHeaderItem(1).text() == "30B LoRA"
    assert planner.fleets.table.rowCount() == len(planner.result.fleets) > 0
    assert "ms" in planner.timing.text() and not planner.busy.isVisible()


def test_typed_jobs_per_day_changes_charts_and_undo_restores(qtbot, planner: PlannerWindow) -> None:  # type: ignore[no-untyped-def]
    demand = planner.charts.demand_series(0)
    energy = planner.charts.cost_values()
    assert len(demand) == 18 and all(v > 0 for v in demand)
    _type_jobs_per_day(qtbot, planner, "30B LoRA", "40")
    assert planner.doc.plan.classes[1].jobs_per_day == 40
    assert planner.busy.isVisibleTo(planner)  # planning runs on the worker, the indicator shows it
    planner.wait_for_plan()
    assert not planner.busy.isVisibleTo(planner)
    assert planner.result is not None and planner.result.classes[1].jobs_per_day > 40  # grown to month 18
    assert planner.charts.demand_series(0) != demand
    assert planner.charts.cost_values() != energy
    # the arrow key steps it by one, and those steps merge into the same undo step
    qtbot.keyClick(planner.inputs.jobs_per_day, Qt.Key.Key_Up)
    assert planner.doc.plan.classes[1].jobs_per_day == 41
    assert planner.doc.undo_stack.count() == 1
    planner.undo_action.trigger()
    assert planner.doc.plan.classes[1].jobs_per_day == 12
    assert planner.inputs.jobs_per_day.value() == 12
    planner.wait_for_plan()
    assert planner.charts.demand_series(0) == pytest.approx(demand)
    assert planner.charts.cost_values() == pytest.approx(energy)
    assert not planner.doc.modified


def test_latest_request_wins(planner: PlannerWindow) -> None:
    start = planner.runner._ticket
    for jobs in range(20, 30):
        planner.doc.edit("jobs", lambda p, j=jobs: set_class(p, 0, jobs_per_day=j))
    result = planner.wait_for_plan()
    assert result is not None and planner.result_plan == planner.doc.plan
    assert planner.runner._ticket - start <= 2  # the first edit and the newest; the eight between skipped
    assert planner.inputs.jobs_per_day.value() == 29


def test_power_price_says_its_currency(planner: PlannerWindow) -> None:
    """'Power price / kWh: 0.0929' said no currency; the row names the plan's (the planner's result's)."""
    result = planner.wait_for_plan()
    assert result is not None and result.currency == "USD"
    assert planner.inputs.power_price_label.text() == "Power price, USD / kWh:"
    assert "USD" in planner.inputs.power_price.toolTip()


def test_save_and_reopen_equals(qtbot, planner: PlannerWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _type_jobs_per_day(qtbot, planner, "7B LoRA", "150")
    planner.inputs.power_price.setFocus()
    planner.inputs.power_price.selectAll()
    qtbot.keyClicks(planner.inputs.power_price, "0.25")
    qtbot.keyClick(planner.inputs.power_price, Qt.Key.Key_Return)
    assert planner.doc.plan.service.power_price_per_kwh == 0.25
    target = tmp_path / "service.yaml"
    assert planner.save_to(target)
    assert not planner.doc.modified and planner.windowTitle().startswith(planner.doc.plan.name)
    edited = planner.doc.plan
    assert load_plan(target) == edited
    planner.new_plan()
    assert planner.doc.path is None and planner.doc.plan.name == "Untitled plan"
    assert planner.open_path(target)
    assert planner.doc.plan == edited and planner.doc.path == target
    assert planner.inputs.jobs_per_day.value() == 150
    assert planner.wait_for_plan() is not None


def test_bad_plan_keeps_current(planner: PlannerWindow, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nclasses: []\nnodes: []\n")
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a: shown.append(a[2]))
    before = planner.doc.plan
    assert not planner.open_path(bad)
    assert shown and "bad.yaml" in shown[0] and "classes" in shown[0]
    assert planner.doc.plan == before


def test_open_as_build_calls_back_with_valid_build(qtbot, planner: PlannerWindow) -> None:  # type: ignore[no-untyped-def]
    planner.tabs.setCurrentWidget(planner.fleets)
    planner.fleets.table.selectRow(0)
    assert planner.fleets.node_box.count() >= 1
    qtbot.mouseClick(planner.fleets.open_button, Qt.MouseButton.LeftButton)
    assert len(planner.opened_builds) == 1
    build = planner.opened_builds[0]
    assert Build.model_validate(build.model_dump()) == build
    assert build.jobs and build.cards
    result = evaluate(build)
    assert all(job.cards for job in result.jobs)


def test_cost_chart_says_energy_without_prices(planner: PlannerWindow) -> None:
    # the shipped plan carries street prices (issue 24); without them the chart shows energy per job
    planner.doc.edit("no prices", lambda p: p.model_copy(update={"prices": {}, "currency": None}))
    planner.wait_for_plan()
    assert planner.charts.showing_energy
    assert (
        "Energy per job" in planner.charts.cost.titleLabel.text
        and "cost unknown" in planner.charts.cost.titleLabel.text
    )

    def priced(p):  # type: ignore[no-untyped-def]
        for key, price in (("rtx-pro-6000-server", 9000), ("supermicro-sys-521ge-tnrt", 20000),
                           ("h100-sxm", 25000), ("hgx-8", 60000)):  # fmt: skip
            p = set_price(p, key, price)
        return p.model_copy(update={"currency": "EUR"})

    planner.doc.edit("prices", priced)
    planner.doc.edit("power", lambda p: p.model_copy(
        update={"service": p.service.model_copy(update={"power_price_per_kwh": 0.2})}))  # fmt: skip
    planner.wait_for_plan()
    assert not planner.charts.showing_energy
    assert "Cost per job (EUR)" in planner.charts.cost.titleLabel.text
    assert all(v > 0 for v in planner.charts.cost_values())


def test_problems_escape_user_text(planner: PlannerWindow) -> None:
    planner.doc.edit("rename", lambda p: set_class(p, 3, name="<b>70B</b> & co", activation_memory_gb=5000))
    planner.wait_for_plan()
    html = planner.problems.toHtml()
    assert "&lt;b&gt;70B&lt;/b&gt; &amp; co" in html  # shown as typed, never as markup


def test_node_names_shown_as_typed(planner: PlannerWindow) -> None:
    from configurator.engine.planner.editing import set_node

    # node 0: the recommended fleet's servers (RTX PRO 6000 since the plan carries prices), named in its tooltip
    planner.doc.edit("rename", lambda p: set_node(p, 0, name="<i>HGX</i> & co"))
    planner.wait_for_plan()
    legend = planner.charts.roadmap_legend.text
    assert "&lt;i&gt;HGX&lt;/i&gt; &amp; co" in legend  # the legend renders HTML: the name is escaped
    assert any("<i>HGX</i> & co /" in d for d in planner.table.devices)  # plain-text headers keep it as typed
    tip = planner.fleets.table.item(0, 1).toolTip()
    assert "<i>" not in tip and "&lt;i&gt;" in tip


def test_main_window_menu_opens_planner_and_takes_a_build(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.gui_helpers import make_window

    main = make_window(qtbot, tmp_path)
    main.menus.planner_action.trigger()
    planner = main._planner_window
    qtbot.addWidget(planner, before_close_func=lambda w: w.doc.undo_stack.setClean())
    assert planner.isVisible() and planner.wait_for_plan() is not None
    main.menus.planner_action.trigger()
    assert main._planner_window is planner  # one planner per editor, raised again
    planner.fleets.table.selectRow(0)
    build = planner.open_as_build(1, planner.fleets.node_box.currentText())
    assert build is not None and main.doc.build == build
    assert main.doc.result.jobs


def test_plan_no_fleet_serves_shows_empty_charts(planner: PlannerWindow) -> None:
    def no_nodes(p):  # type: ignore[no-untyped-def]
        return p.model_copy(update={"nodes": [n.model_copy(update={"max_nodes": 0}) for n in p.nodes]})

    planner.doc.edit("no nodes", no_nodes)
    result = planner.wait_for_plan()
    assert result is not None and result.fleets == []
    assert planner.charts.cost_values() == [] and planner.charts.demand_series(0) == []
    assert planner.charts.empty.textItem.toPlainText() == "No fleet serves this plan"
    assert planner.fleets.table.rowCount() == 0 and not planner.fleets.open_button.isEnabled()
    assert planner.table.rowCount() > 0  # the matrix does not depend on the fleets
    planner.undo_action.trigger()
    assert planner.wait_for_plan() is not None and planner.charts.cost_values()
    assert planner.charts.empty.textItem.toPlainText() == ""


def test_cli_planner_screenshot(tmp_path: Path) -> None:
    from configurator.cli import main

    out = tmp_path / "planner.png"
    assert main(["planner", str(SEED_B), "--screenshot", str(out), "--size", "1280x800"]) == 0
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
    assert main(["planner", str(tmp_path / "missing.yaml"), "--screenshot", str(out)]) == 2


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_cli_planner_screenshot_follows_the_saved_theme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       theme: str) -> None:  # fmt: skip
    """``configurator planner --screenshot`` drew a light window with the dark theme saved: it never read the
    setting, where the main window applies it (View > Dark theme). It now applies it the same way."""
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QApplication

    import configurator.ui.base as base
    from configurator.cli import main

    ini = tmp_path / "s.ini"
    base.Settings(QSettings(str(ini), QSettings.Format.IniFormat)).set("theme", theme)
    monkeypatch.setattr(base, "Settings", lambda: _saved(ini))  # the user's settings file, kept apart
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        out = tmp_path / "planner.png"
        assert main(["planner", str(SEED_B), "--screenshot", str(out), "--size", "1366x768"]) == 0
        window = QImage(str(out)).pixelColor(3, 400)  # the window's own background, left of the inputs
        assert (window.lightness() < 80) == (theme == "dark"), window.name()
        assert (app.palette().window().color().lightness() < 80) == (theme == "dark")
    finally:
        app.setPalette(app.style().standardPalette())


def _saved(ini: Path):  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings

    from configurator.ui.base.settings import Settings

    return Settings(QSettings(str(ini), QSettings.Format.IniFormat))


def test_no_propagate_size_hints_warning_on_show_and_resize(qtbot, qtlog) -> None:  # type: ignore[no-untyped-def]
    """Opening the planner offscreen logged "This plugin does not support propagateSizeHints()": the window's
    minimum came from its layout and changed on each relayout (issue 11). It now has an explicit minimum."""
    window = PlannerWindow(PlanDocument(load_plan(SEED_B), SEED_B))
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.show()
    qtbot.waitExposed(window)
    assert window.wait_for_plan() is not None
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        qtbot.wait(5)
    window.resize(1024, 700)
    window.resize(1920, 1080)
    qtbot.wait(20)
    assert not [r.message for r in qtlog.records if "propagateSizeHints" in r.message]


def test_padded_batches_of_a_class_slow_its_jobs_and_undo_restores(qtbot, planner: PlannerWindow) -> None:  # type: ignore[no-untyped-def]
    """A class whose batches are padded (its mask takes SDPA to the masked kernel over every tile) takes longer a
    job on every device: one undoable edit, shown in the box when the class is chosen again."""
    planner.wait_for_plan()
    before = planner.result
    assert before is not None
    index = planner.inputs.class_box.findText("8B full fine-tune")
    planner.inputs.class_box.setCurrentIndex(index)
    assert not planner.inputs.padded.isChecked()
    planner.inputs.padded.setChecked(True)
    assert planner.doc.plan.classes[index].padded_batches is True
    after = planner.wait_for_plan()
    assert after is not None
    name = planner.doc.plan.classes[index].name
    slower = [(b.service_hours, a.service_hours) for b, a in zip(before.matrix, after.matrix, strict=True)
              if b.job_class == name and b.service_hours is not None]  # fmt: skip
    assert slower and all(a > b for b, a in slower)
    planner.undo_action.trigger()
    assert planner.doc.plan.classes[index].padded_batches is False and not planner.inputs.padded.isChecked()
