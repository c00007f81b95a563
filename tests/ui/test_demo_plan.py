"""The kiosk's service-plan scenario (issue 17.5): seed B's service through the planner, in a visitor's words.

Every figure on screen is compared with the planner's own result for the same plan (``plan_service``), before
and after each thing a visitor can press; the scenario file's words are checked to hold no typed-in number.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QGraphicsSimpleTextItem

from configurator.catalog.loader import default_catalog, load_catalog
from configurator.engine import evaluate
from configurator.engine.editing.kiosk import plan_mig, plan_servers, set_plan_mig, set_plan_month, set_plan_servers
from configurator.engine.model.buildcode import decode_build
from configurator.engine.model.buildfile import load_build
from configurator.engine.planner import Plan, PlanResult, load_plan, plan_service
from configurator.engine.planner.buildout import node_build
from configurator.paths import resource
from configurator.ui.base.settings import Settings
from configurator.ui.base.style import dark_palette
from configurator.ui.dnd.mime import card_mime
from configurator.ui.kiosk import DemoWindow, load_scenarios, planspec
from configurator.ui.kiosk.planscene import PlanResults, read_plan_figure, shown_build
from configurator.ui.kiosk.planspec import READS, check_plan_reads
from tests.helpers import seed_b_flip_back, seed_b_flip_back_plan
from tests.kiosk_helpers import assert_bar_words_apart, clipped_labels
from tests.shots import SCREENS

SEED_B = resource("plans", "seed-b-service.yaml")
RTX, H100 = "RTX PRO 6000 server", "HGX H100"
ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "out" / "screens"))


def planned(plan: Plan) -> PlanResult:
    return plan_service(plan, base_dir=SEED_B.parent)


@pytest.fixture(scope="module")
def shipped() -> Plan:
    return load_plan(SEED_B)


@pytest.fixture(scope="module")
def seed_b(shipped: Plan) -> PlanResult:
    return planned(shipped)


def plan_window(qtbot, tmp_path: Path, size: tuple[int, int] = (1920, 1080)) -> DemoWindow:  # type: ignore[no-untyped-def]
    """The kiosk at ``size``, shown, on its service-plan scenario."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    settings.q.setValue("demo/folder", str(tmp_path / "take-home"))
    window = DemoWindow(settings, idle_ms=600_000)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.show_scenario(plan_index(window))
    return window


@pytest.fixture
def demo(qtbot, tmp_path: Path) -> DemoWindow:  # type: ignore[no-untyped-def]
    return plan_window(qtbot, tmp_path)


def plan_index(window: DemoWindow) -> int:
    return next(i for i, s in enumerate(window.scenarios) if s.is_plan)


def more_texts(window: DemoWindow) -> list[str]:
    return [window.figure(m).text for m in window.scenario.more]


# ---- the scenario file --------------------------------------------------------------------------------------


def test_the_sixth_scenario_is_seed_b_s_plan(shipped: Plan) -> None:
    scenarios = load_scenarios()
    s = scenarios[5]
    assert s.is_plan and s.build_path is None and s.plan_path == SEED_B.resolve()
    assert s.plan == shipped
    # issue 24: the recommended fleet (and what ranks it), MIG, the p95 wait at the peak hour and the reversal
    assert [spec.kind for spec in (s.key, *s.more)] == ["fleet", "tenants", "wait", "reversal"]
    assert set(s.controls) == {"servers", "roadmap", "mig"}
    assert len(s.text.split()) > 40 and not any(ch.isdigit() for ch in s.text)


def test_result_fields_the_figures_read_exist() -> None:
    check_plan_reads()
    fleet_model = next(m for m in READS if m.__name__ == "FleetResult")
    broken = {**READS, fleet_model: ("totals.servers",)}
    planspec.READS, saved = broken, planspec.READS
    try:
        with pytest.raises(ValueError, match="no 'servers' in Totals"):
            check_plan_reads()
    finally:
        planspec.READS = saved


@pytest.mark.parametrize(
    ("figure", "error"),
    [
        ({"kind": "fleet", "label": "{fleet}: the best of 754 fleets"}, "types a number in"),
        ({"kind": "fleet", "label": "{fleets}"}, "no {fleets} here"),
        ({"kind": "tenants", "job_class": "7B LoRA", "label": "x"}, "names 1 node type"),
        ({"kind": "cards", "label": "of {kinds}"}, "the others name one"),
        ({"kind": "wait", "label": "{p95}"}, "the others name one"),
        ({"kind": "reversal", "job_class": "7B LoRA", "label": "{summary}"}, "names no job_class"),
        ({"kind": "wait", "job_class": "7B LoRA", "label": "p95 {p95}"}, "types a number in"),
        ({"kind": "cards", "job_class": "13B LoRA", "label": "of {kinds}"}, "no class '13B LoRA'"),
        ({"kind": "fits", "job_class": "30B LoRA", "nodes": [RTX, "DGX B200"], "label": "x"}, "no node type 'DGX"),
    ],
)
def test_bad_plan_figures_fail_the_load(tmp_path: Path, figure: dict, error: str) -> None:  # type: ignore[type-arg]
    import yaml

    data = {"scenarios": [{"title": "t", "plan": str(SEED_B), "text": "words", "key": figure}]}
    path = tmp_path / "scenarios.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match=error):
        load_scenarios(path)


# ---- the figures are the planner's ----------------------------------------------------------------------------


def test_figures_equal_the_planners(shipped: Plan, seed_b: PlanResult) -> None:
    """Seed B through the planner: each figure against the cells and fleet it reads, read independently."""
    catalog = default_catalog()
    s = load_scenarios()[5]
    key, tenants, wait, rev = (read_plan_figure(spec, shipped, seed_b, catalog) for spec in (s.key, *s.more))
    best = seed_b.fleets[0]
    # the recommended fleet: the first ranked, serving every class all roadmap long. Which server kinds it buys
    # is the planner's answer (ranked by cost per job at the plan's street prices), not the scenario's
    assert key.value == best.totals.nodes and key.number == f"{best.totals.nodes} servers"
    assert {n.node for n in best.nodes} <= {RTX, H100}
    assert key.label == (f"{best.label}: the best of {seed_b.search.candidates:,} fleets "
                         "by cost per job")  # fmt: skip
    assert best.feasible and best.out_of_capacity_month is None and key.words == "Keeps up for all 18 months"
    # "a 7B low-rank fine-tune fits in a 24 GB instance ... the same card serves four such jobs", with its gain
    slice_ = seed_b.cell("7B LoRA", f"{RTX} / 1g.24gb")
    assert slice_.fits and tenants.value == slice_.devices_per_card == 4 and slice_.mig_gain is not None
    assert tenants.text == (f"4 tenants per RTX PRO 6000 Server, {slice_.capacity_gb:.1f} GB each: "
                            f"{slice_.mig_gain:.2f}× the 7B LoRA jobs a day (est.)")  # fmt: skip
    # the p95 wait at the peak hour, against its target
    info = next(c for c in seed_b.classes if c.name == "7B LoRA")
    assert info.wait_p95_h is not None and wait.value == info.wait_p95_h
    words = "7B LoRA wait at the busiest hour for nineteen jobs in twenty (target met)"
    assert wait.text == f"{info.wait_p95_h:.2f} h {words}"
    # the reversal: the month the recommended servers change, or that they do not (seed B: they do not)
    assert seed_b.recommendation is not None and seed_b.recommendation.reversal is not None
    r = seed_b.recommendation.reversal
    assert r.month is None and r.sized == best.kinds
    assert rev.number == "No change" and rev.label == f"{mix(best.kinds)} stays best all roadmap long"
    # the kinds best by the sizing month are the planner's (Reversal.sized), not re-derived from the ranked fleets:
    # a result that lists no fleet still says them
    bare = read_plan_figure(s.more[2], shipped, seed_b.model_copy(update={"fleets": []}), catalog)
    assert bare.text == rev.text


def test_a_flip_back_reads_as_the_planner_says_it() -> None:
    """Seed B with a cheaper H100 (helpers.seed_b_flip_back): the mix is best from month 12, and by the month the
    fleet is sized for the RTX PRO 6000 servers alone are best again; the short form says what the planner's sentence
    says, no more (it said "from then on")."""
    plan, result, catalog = seed_b_flip_back_plan(), seed_b_flip_back(), default_catalog()
    s = load_scenarios()[5]
    rev = read_plan_figure(s.more[2], plan, result, catalog)
    r = result.recommendation.reversal
    best = result.fleets[0]
    assert r is not None
    assert (r.month, r.job_class, r.before, r.after, best.kinds) == (12, "30B full fine-tune", [RTX], [RTX, H100],
                                                                     [RTX])  # fmt: skip
    assert "is best again by month" in r.words
    assert rev.text == f"Month 12 30B full fine-tune arrives: {RTX} + {H100} is best; by month 18, {RTX} alone again"
    assert "from then on" not in rev.text
    bare = read_plan_figure(s.more[2], plan, result.model_copy(update={"fleets": []}), catalog)
    assert bare.text == rev.text


def mix(kinds: list[str]) -> str:
    return f"{kinds[0]} alone" if len(kinds) == 1 else " + ".join(kinds)


def test_fit_and_card_figures_still_read_seed_b() -> None:
    """The fits and cards kinds the scenario used before issue 24, read from seed B's result."""
    from configurator.ui.kiosk.planspec import PlanFigureSpec

    shipped = load_plan(SEED_B)
    seed_b = planned(shipped)
    catalog = default_catalog()
    words = "for a {class} job: the {card} {verdict}, the {other} {other_verdict}"
    spec = PlanFigureSpec(kind="fits", job_class="30B LoRA", nodes=[RTX, H100], digits=0, label=words)
    fits = read_plan_figure(spec, shipped, seed_b, catalog)
    rtx, h100 = seed_b.cell("30B LoRA", f"{RTX} / whole card"), seed_b.cell("30B LoRA", f"{H100} / whole card")
    assert rtx.fits and not h100.fits
    assert (
        fits.text
        == f"{rtx.peak_gb:.0f} GB for a 30B LoRA job: the RTX PRO 6000 Server holds it, the H100 SXM is too tight"
    )
    spec = PlanFigureSpec(kind="cards", job_class="8B full fine-tune", label="of {kinds} hold one {class} ({peak})")
    cards = read_plan_figure(spec, shipped, seed_b, catalog)
    whole = seed_b.cell("8B full fine-tune", f"{RTX} / whole card")
    assert (
        cards.value == 2 and cards.text == f"2 cards of either kind hold one 8B full fine-tune ({whole.peak_gb:.1f} GB)"
    )


def test_every_button_gives_figures_that_read(shipped: Plan) -> None:
    """Qt-free: every combination of servers, sizing month and MIG plans, shows a build the engine evaluates
    cleanly, and reads every figure with its placeholders filled."""
    catalog = default_catalog()
    s = load_scenarios()[5]
    for node, month, mig in itertools.product([None, RTX, H100], [1, 18], [True, False]):
        plan = set_plan_mig(set_plan_month(set_plan_servers(shipped, shipped, node), month), shipped, mig)
        assert plan_servers(plan, shipped) == node and plan_mig(plan) == mig and plan.search.size_for_month == month
        result = planned(plan)
        assert result.fleets and not result.errors, (node, month, mig)
        build = shown_build(plan, result, catalog, SEED_B.parent)
        assert build is not None and not evaluate(build, catalog).errors
        assert {c.card for c in build.cards} <= {"rtx-pro-6000-server", "h100-sxm"}
        for spec in (s.key, *s.more):
            figure = read_plan_figure(spec, plan, result, catalog)
            assert figure.value is not None and "{" not in figure.label, (node, month, mig, spec.kind)


def test_on_screen_figures_are_the_planners(demo: DemoWindow, seed_b: PlanResult) -> None:
    best = seed_b.fleets[0]
    assert demo.ui.key_number.text() == f"{best.totals.nodes} servers"
    assert demo.ui.key_label.text() == (
        f"{best.label.replace(' x ', ' × ')}: the best of {seed_b.search.candidates:,} fleets by cost per job"
    )
    assert demo.ui.key_status.text() == "Keeps up for all 18 months"
    for label, text in zip(demo.ui.more_labels, more_texts(demo), strict=False):
        assert label.isVisibleTo(demo) and text.split(" ", 2)[-1] in label.text()
    assert more_texts(demo)[0].startswith("4 tenants")
    assert "wait at the busiest hour for nineteen jobs in twenty" in more_texts(demo)[1]
    # the palette and the build knobs give way to the plan's buttons
    assert not demo.ui.pal_box.isVisibleTo(demo) and demo.plans.box.isVisibleTo(demo)
    assert not demo.ui.seq_box.isVisibleTo(demo) and not demo.ui.method_box.isVisibleTo(demo)
    plans = demo.plans
    assert plans.server_buttons[None].isChecked() and plans.month_buttons[18].isChecked()
    assert plans.mig_button.isChecked()


# ---- the visitor's buttons ------------------------------------------------------------------------------------


def test_mig_off_and_on_changes_the_tenants_per_card(demo: DemoWindow, shipped: Plan, qtbot) -> None:  # type: ignore[no-untyped-def]
    """MIG off: one 7B tenant per card (the whole-card cell); on: four (the 1g.24gb cell), seed B's 'up to 4x'."""
    qtbot.mouseClick(demo.plans.mig_button, Qt.MouseButton.LeftButton)
    off = set_plan_mig(shipped, shipped, False)
    assert demo.plans.plan_doc.plan == off and not demo.plans.mig_button.isChecked()
    result = planned(off)
    whole = result.cell("7B LoRA", f"{RTX} / whole card")
    tenants = demo.figure(demo.scenario.more[0])
    assert tenants.value == whole.devices_per_card == 1
    assert tenants.text == "1 tenant per RTX PRO 6000 Server without MIG: one 7B LoRA job holds the whole card"
    assert f"{result.search.candidates:,} fleets" in demo.ui.key_label.text()
    assert result.search.candidates < planned(shipped).search.candidates  # no MIG layout left to search
    qtbot.mouseClick(demo.plans.mig_button, Qt.MouseButton.LeftButton)
    assert demo.plans.plan_doc.plan == shipped and demo.figure(demo.scenario.more[0]).value == 4


@pytest.mark.parametrize("node", [RTX, H100])
def test_picking_the_servers_changes_the_fleet_and_the_build(demo: DemoWindow, shipped: Plan, node: str, qtbot) -> None:  # type: ignore[no-untyped-def]
    qtbot.mouseClick(demo.plans.server_buttons[node], Qt.MouseButton.LeftButton)
    plan = set_plan_servers(shipped, shipped, node)
    assert demo.plans.plan_doc.plan == plan and demo.plans.server_buttons[node].isChecked()
    result = planned(plan)
    best = result.fleets[0]
    assert [n.node for n in best.nodes] == [node]
    assert demo.ui.key_number.text() == f"{best.totals.nodes} servers"
    assert demo.ui.key_label.text().startswith(best.label.replace(" x ", " × "))
    # the chassis shows the planner's node of that fleet, as "Open as build" would open it
    assert demo.doc.build == node_build(plan, best, node, base_dir=SEED_B.parent)
    assert demo.chassis.scene() is not None and set(demo.chassis.card_items) == {c.slot for c in demo.doc.build.cards}
    qtbot.mouseClick(demo.plans.server_buttons[None], Qt.MouseButton.LeftButton)
    assert demo.plans.plan_doc.plan == shipped


@pytest.mark.parametrize("node", [RTX, H100])
def test_the_planners_server_is_drawn_without_overlapping_words(demo: DemoWindow, node: str) -> None:
    """The chassis drawing of each server kind: no two of its words overlap (the HGX H100's socket labels,
    'SXM5 socket · CPU0 · plx0', ran into the next socket's)."""
    assert demo.set_plan_servers(node)
    texts = [i for i in demo.chassis.scene().items() if isinstance(i, QGraphicsSimpleTextItem) and i.isVisible()]
    assert len(texts) > len(demo.doc.build.cards)
    for a, b in itertools.combinations(texts, 2):
        assert not a.sceneBoundingRect().intersects(b.sceneBoundingRect()), (a.text(), b.text())


def test_sizing_for_today_says_the_month_the_fleet_runs_out(demo: DemoWindow, shipped: Plan, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Seed B: 'size to the eighteen-month roadmap'. Sized for today's jobs, the best fleet runs out of capacity
    in the month the planner reports; sized for month 18 it keeps up all the way."""
    qtbot.mouseClick(demo.plans.month_buttons[1], Qt.MouseButton.LeftButton)
    today = planned(set_plan_month(shipped, 1))
    best = today.fleets[0]
    # it runs out of capacity first (a month-12 class that needs whole cards may also stop fitting later)
    assert best.out_of_capacity_month is not None
    assert best.stops_fitting_month is None or best.stops_fitting_month > best.out_of_capacity_month
    assert demo.ui.key_status.text() == f"Runs out of capacity in month {best.out_of_capacity_month}"
    assert demo.key_figure().status == "tight"
    assert demo.ui.key_number.text() == f"{best.totals.nodes} servers"
    assert best.totals.nodes < planned(shipped).fleets[0].totals.nodes
    qtbot.mouseClick(demo.plans.month_buttons[18], Qt.MouseButton.LeftButton)
    assert demo.ui.key_status.text() == "Keeps up for all 18 months" and demo.key_figure().status == "fits"


def test_start_over_drops_the_visitors_plan(demo: DemoWindow, shipped: Plan) -> None:
    assert demo.set_plan_servers(H100) and demo.set_plan_month(1) and demo.set_plan_mig(False)
    demo.ui.reset_button.click()
    assert demo.plans.plan_doc.plan == shipped
    plans = demo.plans
    assert plans.server_buttons[None].isChecked() and plans.month_buttons[18].isChecked()
    assert plans.mig_button.isChecked()


def test_the_planners_server_cannot_be_dragged_into(demo: DemoWindow) -> None:
    """The chassis is the planner's node: a drag into it is refused and the visitor is sent to the buttons."""
    view = demo.chassis
    before = demo.doc.build
    mime = card_mime("h200-nvl")
    point = view.mapFromScene(view.slot_items[1].rect().center())
    enter = QDragEnterEvent(
        point, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(view.viewport(), enter)
    assert not enter.isAccepted()
    drop = QDropEvent(
        QPointF(point), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(view.viewport(), drop)
    del mime
    assert demo.doc.build == before and "buttons below" in demo.ui.message.text()
    # the other scenarios' chassis take drops again
    demo.show_scenario(0)
    assert not demo.chassis.locked


def test_a_refusal_floats_over_the_views_without_moving_them(demo: DemoWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The message takes no room while empty (it kept a ~44 px line below the views); shown, it lies over the
    views' top edge, whole, and the chassis does not move under the visitor's finger."""
    from tests.ui.dialogs_probe import settle

    ui = demo.ui
    assert not ui.message.isVisibleTo(demo) and ui.stage.layout().indexOf(ui.message) == -1
    # the key card's width is balanced after the scenario shows (a deferred relayout): read the views once settled
    settle(QApplication.instance(), demo, lambda w: w.chassis.geometry(), lambda w: w.chart.geometry())
    chassis, chart = demo.chassis.geometry(), demo.chart.geometry()
    # what a drag into the planner's node says, at its longest: two lines
    demo.say("Cannot change the planner's server here: use the buttons below. " * 3)
    qtbot.wait(30)
    assert demo.chassis.geometry() == chassis and demo.chart.geometry() == chart
    shown = ui.message.geometry()
    assert ui.message.isVisibleTo(demo) and chassis.united(chart).contains(shown), (shown, chassis, chart)
    assert shown.top() < chassis.top() + 0.1 * chassis.height()  # over the heading, not the slots
    assert clipped_labels(demo) == []
    demo.resize(1280, 800)  # it follows the views as the window is rescaled
    qtbot.wait(30)
    assert demo.chassis.geometry().united(demo.chart.geometry()).contains(ui.message.geometry())
    assert clipped_labels(demo) == []
    demo.show_scenario(0)  # a new scenario clears it
    assert not ui.message.isVisibleTo(demo)


def test_take_home_is_the_shown_node(demo: DemoWindow, shipped: Plan, seed_b: PlanResult) -> None:
    code = demo.take_home()
    assert code
    saved = load_build(Path(demo.settings.get("demo/folder")) / f"{code}.yaml")
    node = node_build(shipped, seed_b.fleets[0], seed_b.fleets[0].nodes[0].node, base_dir=SEED_B.parent)
    assert saved.model_copy(update={"name": node.name}) == node
    assert decode_build(demo.take_home_flow.code_panel.build_code) == saved


def test_planning_stays_live(demo: DemoWindow, shipped: Plan) -> None:
    """Each button plans on the GUI thread: measured here (seed B, 754 candidate fleets), and a plan seen before
    comes from the cache."""
    # the process's results are shared by every demo window: plan these afresh, the shipped one as at start-up
    demo.plans.plan_results.clear()
    first = next(s for s in demo.scenarios if s.plan is not None)
    assert first.plan is not None and first.plan_path is not None
    demo.plans.plan_results.planned(first.plan, first.plan_path.parent)
    for make in (lambda: demo.set_plan_month(1), lambda: demo.set_plan_servers(RTX), lambda: demo.set_plan_mig(False)):
        assert make()  # the time from button to figures: benchmarks/test_bench_limits.py
    kept = len(demo.plans.plan_results)
    demo.ui.reset_button.click()
    assert len(demo.plans.plan_results) == kept  # the shipped plan was planned before: no new plan


def test_a_demo_opened_again_does_not_plan_the_shipped_plan_again(demo: DemoWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The results live for the process, per catalog: the editor's Demo mode opened a second time answers the
    shipped plan from them (the first window planned it once its event loop ran)."""
    qtbot.wait(10)  # the first window's deferred plan
    kept = len(demo.plans.plan_results)
    assert kept >= 1
    settings = Settings(QSettings(str(tmp_path / "s2.ini"), QSettings.Format.IniFormat))
    again = DemoWindow(settings, idle_ms=600_000)
    qtbot.addWidget(again)
    assert again.plans.plan_results is demo.plans.plan_results is PlanResults.shared(demo.catalog)
    again.show()
    qtbot.wait(10)
    assert len(again.plans.plan_results) == kept
    assert PlanResults.shared(load_catalog()) is not demo.plans.plan_results  # another catalog, its own results


def test_plan_results_forget_the_oldest(shipped: Plan) -> None:
    cache = PlanResults(default_catalog(), limit=2)
    first = cache.planned(shipped, SEED_B.parent)
    cache.planned(set_plan_month(shipped, 1), SEED_B.parent)
    assert cache.planned(shipped, SEED_B.parent) is first
    cache.planned(set_plan_mig(shipped, shipped, False), SEED_B.parent)
    assert len(cache) == 2 and cache.planned(shipped, SEED_B.parent) is not first


# ---- layout and screenshots -----------------------------------------------------------------------------------


def test_bar_words_survive_a_resize(demo: DemoWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The chart re-labels its bars on a resize; the kiosk's words come back (they went to the chart's own
    '+50.3' after 1920 -> 1280 until the next change)."""
    assert_bar_words_apart(demo)
    demo.resize(1280, 800)
    qtbot.wait(30)
    assert_bar_words_apart(demo)


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
def test_screenshots_in_both_themes(qtbot, tmp_path: Path, size: tuple[int, int], dark: bool) -> None:  # type: ignore[no-untyped-def]
    """The plan scenario with the application in the light or the dark theme (View > Dark theme of the main
    window sets the application palette the kiosk inherits): no clipped text, the kiosk's own colours kept."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = app.palette()
    if dark:
        app.setPalette(dark_palette())
    try:
        window = plan_window(qtbot, tmp_path, size)
        qtbot.wait(30)
        assert clipped_labels(window) == []
        image = window.grab().toImage()
        SHOTS.mkdir(parents=True, exist_ok=True)
        image.save(str(SHOTS / f"demo-plan-{size[0]}x{size[1]}-{'dark' if dark else 'light'}.png"))
        assert_bar_words_apart(window)
        # the kiosk paints its own background and ink whatever the application palette
        corner = image.pixelColor(QPoint(4, 4))
        assert corner.name().upper() == "#F4F6F3"
        assert window.chassis.height() >= 300 * window.scale - 1 and window.chart.height() >= 300 * window.scale - 1
        # the views get the height the words and buttons do not need: at 1920x1080 they had 318 px and the
        # chassis's slot labels 11.7 px (an empty message line, layout margins, a key card taller than its words
        # needed); then 380 px and 13.5 px; 12.4 px since the chassis heading stands over the drawing in the body
        # text's size (it read 15.4 and 10.9 px in the drawing)
        assert window.chassis.height() >= 360 * window.scale, window.chassis.height()
        assert window.chassis.label_px() >= 12 * window.scale, window.chassis.label_px()
        # one margin all round the stage: the key card ends where the chart ends, the words start where the
        # chassis starts (the top row had Qt's default layout margins on top of the window's)
        ui = window.ui
        card, words = ui.key_panel.geometry(), ui.words_box.geometry()
        card.moveTo(ui.key_panel.mapTo(window, QPoint(0, 0)))
        words.moveTo(ui.words_box.mapTo(window, QPoint(0, 0)))
        assert card.right() == window.chart.mapTo(window, QPoint(window.chart.width() - 1, 0)).x()
        assert words.left() == window.chassis.mapTo(window, QPoint(0, 0)).x()
        left = ui.scenario_buttons[0].mapTo(window, QPoint(0, 0)).x()  # the side column's edge
        assert window.width() - 1 - card.right() == left == round(24 * window.scale), (card, left)
    finally:
        app.setPalette(before)


@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_each_view_starts_under_its_own_column(qtbot, tmp_path: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The plan scenario's key card stands ~100 px taller than its paragraph whatever its width (1920x1080): in a
    row of words and card the chassis started under the card, below a band of empty background under the words.
    Each view now starts one layout gap under its own column's top block, and the chart is as wide as the card
    over it and keeps its drawing inside its widget."""
    from tests.ui.dialogs_probe import settle

    window = plan_window(qtbot, tmp_path, size)
    ui = window.ui
    settle(QApplication.instance(), window, lambda w: ui.words_box.geometry(), lambda w: ui.key_panel.geometry(),
           lambda w: w.chassis.geometry(), lambda w: w.chart.geometry())  # fmt: skip
    gap = round(14 * window.scale)  # the columns' spacing

    def top(widget) -> int:  # type: ignore[no-untyped-def]
        return widget.mapTo(window, QPoint(0, 0)).y()

    words_bottom = top(ui.words_box) + ui.words_box.height()
    card_bottom = top(ui.key_panel) + ui.key_panel.height()
    assert top(window.chassis) - words_bottom <= gap + 1, (words_bottom, top(window.chassis))
    assert top(window.chart) - card_bottom <= gap + 1, (card_bottom, top(window.chart))
    # the words end where their text does (no empty band under them)
    assert ui.words_box.height() <= max(ui.words_box.heightForWidth(ui.words_box.width()), ui.words_box.minimumHeight())
    assert window.chart.width() == ui.key_panel.width()
    assert window.chart.view.ci.geometry().width() <= window.chart.view.viewport().width() + 1
