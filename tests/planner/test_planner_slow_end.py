"""The recommendation at the slow end of the engine's step-time band: the recommended fleet's own mix sized with
every engine service time x the band's high end (measured times kept), in PlanResult.slow_end, a `why` sentence,
`plan` text and `plan --json`."""

from __future__ import annotations

import json

import pytest

from configurator.cli import main
from configurator.engine.planner import Plan, PlanResult, load_plan, plan_service
from configurator.engine.time.steptime.band import step_band
from configurator.paths import resource

SEED_B = resource("plans", "seed-b-service.yaml")
RTX = "RTX"


@pytest.fixture(scope="module")
def seed_b() -> PlanResult:
    return plan_service(load_plan(SEED_B), base_dir=SEED_B.parent)


def test_slow_end_sizing_is_at_least_the_recommended_size(seed_b: PlanResult) -> None:
    se = seed_b.slow_end
    assert se is not None and se.factor == step_band().band.high
    best = seed_b.fleets[0]
    assert se.servers == best.totals.nodes
    assert se.scaled > 0 and se.measured == 0
    assert se.servers_needed is not None and se.servers_needed >= se.servers
    # seed B's fleet is sized to its targets at the engine's times: jobs se.factor times longer do not fit in it
    assert not se.targets_met and se.short and se.servers_needed > se.servers
    # the same mix: the recommended node types, MIG layout and MIG'd cards, only the count grown
    assert se.fleet_needed is not None and se.fleet_needed.removeprefix(f"{se.servers_needed} × ") == (
        best.label.removeprefix(f"{se.servers} × ")
    )
    # the best fleet of every server mix, grown the same way, no smaller than the search's at the engine's times
    assert {tuple(m.kinds) for m in se.mixes} == {tuple(a.kinds) for a in seed_b.recommendation.alternatives}  # type: ignore[union-attr]
    by_kinds = {tuple(a.kinds): a for a in seed_b.recommendation.alternatives}  # type: ignore[union-attr]
    assert all(m.servers is None or m.servers >= by_kinds[tuple(m.kinds)].nodes for m in se.mixes)


def _measured_plan(measured: bool) -> Plan:
    """One class on one node type: with ``measured``, its time on every device the matrix holds (the whole card
    and the card's MIG profiles) is measured."""
    cls = {"name": "7B LoRA", "model": "mistral-7b", "tokens_per_job": 20e6, "jobs_per_day": 40,
           "wait_target_hours": 1}  # fmt: skip
    if measured:
        cls["measured"] = [
            {"node": RTX, "device": d, "tokens_per_second": tps, "source": "test run"}
            for d, tps in (("whole card", 2500), ("1g.24gb", 700), ("2g.48gb", 1300), ("4g.96gb", 2400))
        ]
    return Plan.model_validate({
        "name": "measured", "assumptions": {"compute_rates": "estimated"}, "classes": [cls],
        "nodes": [{"name": RTX, "chassis": "supermicro-sys-521ge-tnrt", "card": "rtx-pro-6000-server",
                   "max_nodes": 6}],
    })  # fmt: skip


def test_measured_times_are_not_scaled() -> None:
    """A plan whose every time is measured has no slow-end change: the band is the engine's, not the runs'."""
    engine = plan_service(_measured_plan(measured=False)).slow_end
    assert engine is not None and engine.scaled == 4 and engine.measured == 0
    assert engine.servers_needed is not None and engine.servers_needed > engine.servers  # the engine's times scale
    se = plan_service(_measured_plan(measured=True)).slow_end
    assert se is not None and se.scaled == 0 and se.measured == 4
    assert se.targets_met and se.servers_needed == se.servers and not se.short
    assert se.words.startswith("Every service time is measured")


def test_the_sentence_is_in_the_plan_text_and_json(seed_b: PlanResult, capsys: pytest.CaptureFixture[str]) -> None:
    se = seed_b.slow_end
    assert se is not None and se.words in seed_b.recommendation.why  # type: ignore[union-attr]
    assert main(["plan", str(SEED_B)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the report wraps its lines: the sentences, not the breaks
    # the consequence first, what the band rests on last
    assert f"If jobs run at the slow end of the step-time band ({se.factor:.2f}× the engine's time), " in out
    assert se.words.endswith(f" The band: {se.basis}.")
    assert f"needs {se.servers_needed} servers instead of {se.servers} to keep its p95 targets" in out
    assert "Measuring each class's tokens/s on the chosen card" in out  # what narrows the band
    assert main(["plan", str(SEED_B), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["slow_end"]["servers_needed"] == se.servers_needed and data["slow_end"]["factor"] == se.factor
