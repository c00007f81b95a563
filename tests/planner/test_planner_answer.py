"""Seed B's question answered the way a platform team needs it (issue 24): ranked by cost with sourced prices,
or by cards and energy with idle draw modelled; the best fleet of each server mix beside the recommendation;
per class its waits at the peak hour, MIG gain and devices; the reversal month and class; all in `plan` text
and `plan --json`."""

from __future__ import annotations

import json

import pytest

from configurator.catalog.loader import default_catalog
from configurator.cli import main
from configurator.engine.planner import Plan, PlanResult, load_plan, plan_service
from configurator.paths import resource
from configurator.report.plan_text import render_plan
from tests.helpers import seed_b_flip_back

SEED_B = resource("plans", "seed-b-service.yaml")


@pytest.fixture(scope="module")
def seed_b() -> PlanResult:
    return plan_service(load_plan(SEED_B), base_dir=SEED_B.parent)


def test_seed_b_plan_carries_sourced_dated_prices_and_pue() -> None:
    plan = load_plan(SEED_B)
    assert plan.currency == "USD" and plan.service.power_price_per_kwh and plan.service.pue > 1
    for card in ("rtx-pro-6000-server", "h100-sxm", "h200-nvl"):
        src = plan.price_sources[card]
        assert card in plan.prices and src.startswith("street price, ") and "https://" in src
        assert "2026" in src  # dated
    for platform in ("supermicro-sys-521ge-tnrt", "hgx-8"):
        assert plan.price_sources[platform].startswith("ASSUMPTION")
    assert "eia" in plan.price_sources["power"].lower() and plan.service.hourly_arrivals is not None


def test_seed_b_recommendation_says_why(seed_b: PlanResult) -> None:
    rec = seed_b.recommendation
    assert rec is not None and rec.fleet == seed_b.fleets[0].label
    assert rec.ranked_by.startswith("cost per job") and seed_b.fleets[0].ranked_by == rec.ranked_by
    # pure fleets ranked beside mixed ones: one alternative per mix of server kinds the search tried
    kinds = {tuple(a.kinds) for a in rec.alternatives}
    assert {("RTX PRO 6000 server",), ("HGX H100",), ("RTX PRO 6000 server", "HGX H100")} <= kinds
    assert rec.alternatives[0].kinds == seed_b.fleets[0].kinds
    assert any("cards against" in w and "kWh a job against" in w for w in rec.why)
    assert rec.reversal is not None
    assert rec.reversal.words.startswith(("The reversal", "No reversal", "No lasting reversal"))


def test_seed_b_waits_and_mig_gain_per_class(seed_b: PlanResult) -> None:
    for c in seed_b.classes:
        assert c.routed_to, c.name
        assert c.wait_mean_h is not None and c.wait_p95_h is not None and not c.peak_unstable
        assert c.wait_target_hours is not None and c.wait_target_met, c.name
    small = next(c for c in seed_b.classes if c.name == "7B LoRA")
    assert small.mig_gain is not None and small.mig_gain_device is not None
    full = next(c for c in seed_b.classes if c.name == "8B full fine-tune")
    assert full.mig_gain is None and (full.cards_per_job or 0) >= 2


def test_plan_text_leads_with_the_answer(seed_b: PlanResult) -> None:
    text = " ".join(render_plan(seed_b).split())  # the report wraps its lines: the sentences, not the breaks
    assert text.index("Recommendation: ") < text.index("Job classes")
    assert "Best fleet of each server mix" in text
    assert "wait at the peak hour: mean" in text and "p95" in text and "MIG gain" in text
    assert seed_b.recommendation is not None and seed_b.recommendation.reversal is not None
    assert seed_b.recommendation.reversal.words in text
    assert "street price, NewGearHub" in text
    # the answer is for any plan a customer writes: the project's seed article is a source, not words to show
    assert "seed B" not in text and "seed b" not in text.lower()


def test_plan_json_carries_the_issues_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(SEED_B), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for c in out["classes"]:
        assert {"wait_mean_h", "wait_p95_h", "mig_gain"} <= set(c)
    assert all(f["ranked_by"] for f in out["fleets"])


def test_without_prices_it_ranks_by_cards_then_energy_with_idle_draw() -> None:
    plan = load_plan(SEED_B)
    plan = plan.model_copy(update={"prices": {}, "currency": None})
    result = plan_service(plan, base_dir=SEED_B.parent)
    best = result.fleets[0]
    assert best.ranked_by.startswith("cards, then energy per job") and "idle draw modelled" in best.ranked_by
    assert result.recommendation is not None
    assert any("Without prices" in w for w in result.recommendation.why)
    cards = [f.totals.cards for f in result.fleets if f.feasible]
    assert cards == sorted(cards)
    cat = default_catalog()
    t = best.totals
    platform = sum(
        c.count * (cat.chassis["supermicro-sys-521ge-tnrt" if c.node.startswith("RTX") else "hgx-8"]
                   .platform_power_w.value or 0) for c in best.nodes)  # fmt: skip
    idle_cards = sum(c.count * c.cards_per_node * (34 if c.node.startswith("RTX") else 70) for c in best.nodes)
    assert t.idle_kw == pytest.approx((platform + idle_cards) / 1000)
    assert t.idle_kw < t.power_kw
    assert any("measured idle draw" in n for n in result.notes)


def _reversal_plan() -> Plan:
    """Two one-card RTX PRO 6000 nodes can hold the 7B LoRA; the 70B LoRA from month 4 needs three cards of a
    node: only the HGX holds it."""
    return Plan.model_validate({
        "name": "reversal",
        "currency": "USD",
        "prices": {"rtx-pro-6000-server": 8565, "h100-sxm": 27500, "supermicro-sys-521ge-tnrt": 10000,
                   "hgx-8": 30000},
        "assumptions": {"compute_rates": "estimated"},
        "service": {"power_price_per_kwh": 0.1},
        "classes": [{"name": "7B LoRA", "model": "mistral-7b", "tokens_per_job": 20e6, "jobs_per_day": 20},
                    {"name": "70B LoRA", "model": "llama-3.3-70b", "tokens_per_job": 5e6, "jobs_per_day": 1,
                     "from_month": 4}],
        "nodes": [{"name": "RTX", "chassis": "supermicro-sys-521ge-tnrt", "card": "rtx-pro-6000-server",
                   "cards_per_node": 1, "max_nodes": 6},
                  {"name": "HGX", "chassis": "hgx-8", "card": "h100-sxm", "max_nodes": 2}],
        "roadmap": {"months": 6},
        "search": {"size_for_month": 6},
    })  # fmt: skip


def test_reversal_names_the_month_and_the_class() -> None:
    result = plan_service(_reversal_plan())
    rev = result.recommendation.reversal  # type: ignore[union-attr]
    assert rev is not None and rev.month == 4 and rev.job_class == "70B LoRA"
    assert rev.before == ["RTX"] and "HGX" in rev.after
    assert "until month 3" in rev.words and "from month 4, when 70B LoRA arrives" in rev.words
    # a sentence says the method as seed B does (engine/model/labels.method_phrase)
    assert "(low-rank (LoRA) fine-tuning of Llama 3.3 70B (70.6 B parameters), 3 cards a job)" in rev.words
    # the class by its name, not a rounded size ('71B-class' beside 'Llama 3.3 70B')
    assert "once the roadmap includes 70B LoRA" in rev.words and "71B" not in rev.words
    assert "and it stays so to month 6" in rev.words


def test_the_reversal_carries_the_kinds_best_at_the_sizing_month() -> None:
    """Seed B with a cheaper H100 (helpers.seed_b_flip_back): the best fleet turns into a mix in month 12 and is
    RTX-only again by month 18, the sizing month (Reversal.sized: the kiosk re-derived it from the ranked fleets)."""
    flip = seed_b_flip_back()
    rev = flip.recommendation.reversal
    assert rev is not None and rev.month == 12 and rev.month != flip.size_for_month
    assert rev.sized == flip.fleets[0].kinds == rev.before != rev.after
    assert rev.undone_by_sizing and rev.sized_as_before


def test_seed_b_has_no_reversal_within_its_roadmap(seed_b: PlanResult) -> None:
    """Seed B as shipped: RTX-only is the best fleet at every month searched, and the words say so (not a month)."""
    rev = seed_b.recommendation.reversal  # type: ignore[union-attr]
    assert rev is not None and rev.month is None and rev.before == rev.after == rev.sized == seed_b.fleets[0].kinds
    assert rev.words.startswith("No reversal within the 18-month roadmap: RTX PRO 6000 server only stays the best")


def test_a_reversal_that_lasts_is_sized_as_after() -> None:
    result = plan_service(_reversal_plan())
    rev = result.recommendation.reversal  # type: ignore[union-attr]
    assert rev is not None and rev.month == 4
    assert rev.sized == result.fleets[0].kinds == rev.after
    assert not rev.undone_by_sizing and not rev.sized_as_before


def test_demo_figures_show_the_reversal_and_an_unstable_peak() -> None:
    """The kiosk's reversal figure names the month and the class; a wait figure never prints a finite wait
    for an unstable peak hour."""
    from configurator.ui.kiosk.planscene import read_plan_figure
    from configurator.ui.kiosk.planspec import PlanFigureSpec

    plan = _reversal_plan()
    result = plan_service(plan)
    cat = default_catalog()
    rev = read_plan_figure(PlanFigureSpec(kind="reversal", label="{summary}"), plan, result, cat)
    # the planner's own reversal, shortened: the class that arrives and the servers best from then (no "from then
    # on" the planner does not say: a later month may bring the first fleet back)
    assert rev.number == "Month 4" and rev.label.startswith("70B LoRA arrives: ") and "HGX" in rev.label
    assert "from then on" not in rev.label
    spec = PlanFigureSpec(kind="wait", job_class="7B LoRA", label="{class}: {mean}, {p95} ({verdict})")
    steady = read_plan_figure(spec, plan, result, cat)
    assert steady.value is not None and steady.status in ("fits", "tight")
    unstable = [c.model_copy(update={"peak_unstable": True, "wait_mean_h": None, "wait_p95_h": None})
                if c.name == "7B LoRA" else c for c in result.classes]  # fmt: skip
    shown = read_plan_figure(spec, plan, result.model_copy(update={"classes": unstable}), cat)
    assert shown.number == "unstable" and shown.status == "does-not-fit" and "unbounded" in shown.label
    assert not any(ch.isdigit() for ch in shown.label.replace("7B", ""))


def test_answer_html_and_sheet_lead_with_the_answer(seed_b: PlanResult) -> None:
    from configurator.report.plan_sheet import plan_html
    from configurator.report.plan_text import answer_html

    html = answer_html(seed_b)
    assert html.startswith("<h3>Recommended: ") and "p95" in html and "MIG gain" in html
    assert seed_b.recommendation is not None and seed_b.recommendation.reversal is not None
    assert seed_b.recommendation.reversal.words.split(":")[0] in html
    sheet = plan_html(seed_b)
    assert sheet.index("<h2>Answer</h2>") < sheet.index("<h2>Job classes</h2>")


def test_one_card_limits_state_seed_bs_criterion_as_sizes(seed_b: PlanResult) -> None:
    """Seed B: 'decide by whether any single job needs more than one card'. Full-parameter training at ~16 B
    per parameter: a 102.6 GB RTX PRO 6000 holds under 6.4B, an 85.5 GB H100 under 5.3B; LoRA holds far more;
    the larger card always holds the larger model."""
    rec = seed_b.recommendation
    assert rec is not None and len(rec.one_card) == 3
    rtx, h100, tail = rec.one_card
    assert "RTX PRO 6000" in rtx and "H100" in h100 and "needs several cards" in tail

    def size(line: str, method: str) -> float:
        part = line.split(method + " up to about ")[1]
        return float(part.split("B")[0])

    assert 4.0 < size(rtx, "full-parameter fine-tuning") < 6.4
    assert 3.5 < size(h100, "full-parameter fine-tuning") < size(rtx, "full-parameter fine-tuning")
    assert size(h100, "low-rank (LoRA) fine-tuning") < size(rtx, "low-rank (LoRA) fine-tuning")


def test_a_reversal_that_does_not_last_says_where_the_sizing_month_ends() -> None:
    """Seed B with a cheaper H100: the 30B full fine-tune makes month 12's best fleet a mix, yet month 18 (the sizing
    month) is RTX-only again; the words must not leave the reader thinking the recommendation contradicts the
    reversal."""
    result = seed_b_flip_back()
    rev = result.recommendation.reversal
    assert rev is not None and rev.month is not None
    best = result.fleets[0]
    if best.kinds == rev.before:
        assert f"in month {result.size_for_month}, the month the fleet is sized for" in rev.words
        assert rev.words.startswith("No lasting reversal") and "again" in rev.words
    else:
        assert best.kinds == rev.after
