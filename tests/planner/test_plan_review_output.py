"""The plan's output as a platform team reads it (review 2 of the planner's text, PDF and JSON): no
"Recommended" for a fleet that cannot carry the demand, the cost inputs printed, a reversal that does not
contradict the recommendation, the labels and splits each fleet's own."""

from __future__ import annotations

import pytest

from configurator.engine.planner import PlanResult, load_plan, plan_service
from configurator.paths import resource
from configurator.report.plan_text import answer_html, render_plan
from tests.helpers import seed_b_flip_back

SEED_B = resource("plans", "seed-b-service.yaml")


@pytest.fixture(scope="module")
def seed_b() -> PlanResult:
    return plan_service(load_plan(SEED_B), base_dir=SEED_B.parent)


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_no_fleet_serving_the_demand_is_never_recommended() -> None:
    """A million 7B LoRA jobs a day: no fleet within max_nodes carries it. The answer says so and what to raise,
    and gives no utilisation or cost a job spread over jobs the fleet cannot run."""
    plan = load_plan(SEED_B)
    classes = [c.model_copy(update={"jobs_per_day": 1e6}) if c.name == "7B LoRA" else c for c in plan.classes]
    result = plan_service(plan.model_copy(update={"classes": classes}), base_dir=SEED_B.parent)
    rec = result.recommendation
    assert rec is not None and not rec.serves and not result.fleets[0].feasible
    text, html = _flat(render_plan(result)), answer_html(result)
    assert "Recommended" not in html and "Recommendation: none" in text
    assert "max_nodes" in text and "RTX PRO 6000 server: 16" in text and "max_nodes" in html
    assert "busy" not in " ".join(rec.why)  # no utilisation of a fleet 10,000x short
    assert all(f.totals.cost_per_job is None and f.totals.kwh_per_job is None for f in result.fleets)
    assert all(a.cost_per_job is None for a in rec.alternatives if not a.feasible)
    assert rec.reversal is None
    # the nearest first: the most cards the plan lets it buy (the cheapest short fleet was the smallest, 1 server)
    cards = [f.totals.cards for f in result.fleets]
    assert cards == sorted(cards, reverse=True) and cards[0] >= 16 * 8, cards


def test_each_alternative_states_its_own_capital_share(seed_b: PlanResult) -> None:
    rec = seed_b.recommendation
    assert rec is not None
    best = seed_b.fleets[0].totals
    assert best.capital_per_month is not None and best.cost_per_month
    mine = f"{best.capital_per_month / best.cost_per_month:.0%}"
    against = [w for w in rec.why if w.startswith("Against ")]
    assert len(against) >= 2
    shares = {w.split("against ")[-1] for w in against}
    assert len(shares) == len(against)  # each alternative its own split, not the recommended fleet's repeated
    assert all(f"Capital is {mine} of the recommended fleet's monthly cost" in w for w in against)


def test_the_cost_inputs_are_printed_as_numbers_in_text_json_and_pdf(seed_b: PlanResult) -> None:
    """Capital 1,182,240 USD = 12 x (8 x 8,565 + 30,000): a reader checks it from the figures the plan prints."""
    from configurator.report.plan_sheet import plan_html

    c = seed_b.costs
    assert c is not None
    units = {u.part: u.price for u in c.unit_prices}
    assert units["rtx-pro-6000-server"] == 8565 and units["h100-sxm"] == 27500 and units["hgx-8"] == 30000
    assert all(u.source for u in c.unit_prices)  # each with its source
    assert (c.pue, c.power_price_per_kwh, c.service_life_years, c.utilisation_target) == (1.3, 0.0929, 4, 0.7)
    rtx = next(n for n in c.nodes if n.node == "RTX PRO 6000 server")
    assert rtx.capital == 8 * 8565 + 30000
    js = seed_b.model_dump(mode="json")["costs"]
    assert js["pue"] == 1.3 and js["power_price_per_kwh"] == 0.0929 and js["service_life_years"] == 4
    text = _flat(render_plan(seed_b))
    for words in ("8,565 USD; street price, NewGearHub", "27,500 USD", "PUE: 1.3", "0.0929 USD per kWh",
                  "service life: 4 years", "utilisation target 70%", "98,520 USD a server"):  # fmt: skip
        assert words in text, words
    html = plan_html(seed_b)
    assert "8,565 USD" in html and "PUE: 1.3" in html and "service life: 4 years" in html


def test_a_change_that_flips_back_is_not_the_reversal() -> None:
    """Of the months searched (1, each arrival and the month before it, the sizing month), seed B's month 12 best
    fleet is a mix once the H100 is cheaper (helpers.seed_b_flip_back) and month 18's RTX-only again: a step of whole
    server counts, not 'the reversal' of the RTX-only fleet the plan recommends. The words name the months searched
    (every month doubled a re-plan)."""
    flip = seed_b_flip_back()
    rec = flip.recommendation
    assert rec is not None and rec.reversal is not None
    words = rec.reversal.words
    assert not words.startswith("The reversal") and words.startswith("No lasting reversal")
    assert "Of the months searched (months 1, 9, 10, 11, 12 and 18" in words and "in month 12 (" in words
    assert "whole server counts" in words
    assert "no longer the right purchase" not in words
    text = _flat(render_plan(flip))
    assert "flips the moment a job needs two cards" not in text  # the fleet shown runs 2-, 3- and 6-card jobs


def test_the_full_fine_tune_above_13b_claim_is_tested_with_its_numbers(seed_b: PlanResult) -> None:
    rec = seed_b.recommendation
    assert rec is not None
    words = rec.full_ft_test
    assert words.startswith("Full fine-tuning above roughly 13B") and "is not reached in this plan" in words
    cell = seed_b.cell("30B full fine-tune", "RTX PRO 6000 server / 6 cards")
    hgx = seed_b.cell("30B full fine-tune", "HGX H100 / 7 cards")
    assert cell.service_hours is not None and hgx.service_hours is not None
    assert f"at least {cell.service_hours:.2f} h a job on RTX PRO 6000 server / 6 cards" in words
    assert f"at least {hgx.service_hours:.2f} h on HGX H100 / 7 cards" in words
    assert "jobs/day in month 18" in words and words in _flat(render_plan(seed_b))
    # a plan without such a class says it was not tested
    plan = load_plan(SEED_B)
    small = plan.model_copy(update={"classes": [c for c in plan.classes if c.name != "30B full fine-tune"]})
    other = plan_service(small, base_dir=SEED_B.parent).recommendation
    assert other is not None and "not tested" in other.full_ft_test


def test_lower_bound_times_are_marked_in_text_pdf_and_routes(seed_b: PlanResult) -> None:
    from configurator.report.plan_sheet import plan_html

    cell = seed_b.cell("30B LoRA", "RTX PRO 6000 server / whole card")
    assert cell.lower_bound and cell.service_hours is not None
    assert not seed_b.cell("7B LoRA", "RTX PRO 6000 server / whole card").lower_bound
    route = next(r for r in seed_b.fleets[0].routes if r.job_class == "30B LoRA")
    assert route.lower_bound
    text = render_plan(seed_b)
    assert f"≥ {cell.service_hours:.2f} h (est. rate)" in text and f"≥ {route.service_hours:.2f} h each" in text
    assert "≥: a lower bound" in text
    html = plan_html(seed_b)
    assert f"≥ {cell.service_hours:.2f} (est.)" in html and "≥: a lower bound" in html


def test_job_classes_say_the_month_their_demand_is_for_and_the_input(seed_b: PlanResult) -> None:
    small = next(c for c in seed_b.classes if c.name == "7B LoRA")
    assert small.jobs_per_day_input == 120 and small.growth_per_month == pytest.approx(0.06)
    assert small.jobs_per_day == pytest.approx(120 * 1.06**17)
    text = _flat(render_plan(seed_b))
    assert "Job classes (jobs/day in month 18, the month the fleet is sized for)" in text
    assert f"{small.jobs_per_day:,.1f} jobs/day in month 18 (input 120, +6 %/month)" in text
    assert "(input 1, +6 %/month from month 12)" in text  # 30B full fine-tune, grown from its first month
    from configurator.report.plan_sheet import plan_html

    assert "Jobs per day in month 18" in plan_html(seed_b) and "input 120, +6 %/month" in plan_html(seed_b)


def test_slow_end_names_the_max_nodes_it_needs_raised(seed_b: PlanResult) -> None:
    se = seed_b.slow_end
    assert se is not None and se.servers_needed is not None and se.over_bounds == ["RTX PRO 6000 server"]
    assert se.over_bounds_max_nodes == [16] and se.grown_up_to > se.servers_needed
    assert "bound" not in se.model_dump()  # the JSON's unexplained 'bound': now grown_up_to, with its comment
    assert (f"needs {se.servers_needed} servers instead of {se.servers}" in se.words
            and "above this plan's max_nodes for RTX PRO 6000 server of 16: raise it" in se.words)  # fmt: skip
    assert "stops the search short" not in se.words


def test_mig_split_per_server_full_card_instance_and_worst_route(seed_b: PlanResult) -> None:
    rec = seed_b.recommendation
    assert rec is not None
    why = " ".join(rec.why)
    assert "MIG split: 2 of the 8 cards in each RTX PRO 6000 server (26 of its 104 cards) as 4×1g.24gb" in why
    lora = next(c for c in seed_b.classes if c.name == "30B LoRA")
    assert lora.mig_gain_full_card and lora.mig_gain_device == "RTX PRO 6000 server / 4g.96gb"
    assert "only the full-card instance (RTX PRO 6000 server / 4g.96gb) holds 30B LoRA" in why
    assert "30B LoRA runs 1.00×" not in why
    small = next(c for c in seed_b.classes if c.name == "7B LoRA")
    assert not small.mig_gain_full_card and len(set(small.routed_to)) == 2
    text = _flat(render_plan(seed_b))
    assert f"p95 {small.wait_p95_h:.2f} h on the worst of its 2 routes" in text
    assert "worst of 2 routes" in answer_html(seed_b)


def test_a_sizing_month_past_the_roadmap_is_a_problem() -> None:
    """The planner window's 'Size for month' 60 on an 18-month roadmap sized month 18 and said 'No problems.'."""
    plan = load_plan(SEED_B)
    late = plan.model_copy(update={"search": plan.search.model_copy(update={"size_for_month": 60})})
    result = plan_service(late, base_dir=SEED_B.parent)
    assert result.size_for_month == 18
    problem = next(p for p in result.problems if p.code == "SIZE_MONTH_PAST_ROADMAP")
    assert problem.field == "search.size_for_month" and problem.severity == "warning"
    assert "size_for_month 60 is past the roadmap (an 18-month roadmap); sized for month 18" in problem.message


def test_a_power_price_in_cents_is_warned_about() -> None:
    plan = load_plan(SEED_B)
    cents = plan.model_copy(update={"service": plan.service.model_copy(update={"power_price_per_kwh": 9.29})})
    result = plan_service(cents, base_dir=SEED_B.parent)
    problem = next(p for p in result.problems if p.code == "POWER_PRICE_IMPLAUSIBLE")
    assert "is it in cents?" in problem.message and "0.0929 per kWh" in problem.message
    assert not any(p.code == "POWER_PRICE_IMPLAUSIBLE" for p in plan_service(plan, base_dir=SEED_B.parent).problems)


def test_months_phrase_takes_the_spoken_article() -> None:
    from configurator.engine.planner.result import months_phrase
    from configurator.report.plan_sheet import plan_html

    assert [months_phrase(n) for n in (18, 8, 11, 12, 80, 1)] == [
        "an 18-month", "an 8-month", "an 11-month", "a 12-month", "an 80-month", "a 1-month"]  # fmt: skip
    assert "of an 18-month roadmap" in plan_html(plan_service(load_plan(SEED_B), base_dir=SEED_B.parent))


def test_text_and_pdf_show_the_same_sections_or_say_what_they_leave_out(seed_b: PlanResult) -> None:
    from configurator.report.plan_sheet import plan_html

    text = render_plan(seed_b)
    first = seed_b.fleets[0].months[0]
    assert "Roadmap of fleet #1" in text  # was in the PDF only: the month-1 load visible nowhere else
    assert f"month   1: {first.demand_card_hours_per_day:,.1f} / {first.capacity_card_hours_per_day:,.1f}" in text
    html = plan_html(seed_b)
    assert len(seed_b.fleets) > 3 and f"The first 3 of {len(seed_b.fleets)} ranked fleets are shown here" in html
    assert "Unserved" not in html  # an always-empty column: shown only where a month leaves a class unserved
