"""What the views used to work out for themselves, now fields of the planner's result: a fleet's label in fewer
characters for a chart's legend (the planner window's legend shortened the engine's label with a regex), and the
server kinds best at the sizing month beside the reversal (the kiosk re-derived them from the ranked fleets; its
tests are with the reversal's, in test_planner_answer.py). Both are in `plan --json` beside the fields they add
to, which stay."""

from __future__ import annotations

import json

import pytest

from configurator.cli import main
from configurator.engine.planner import PlanResult, load_plan, plan_service
from configurator.paths import resource

SEED_B = resource("plans", "seed-b-service.yaml")


@pytest.fixture(scope="module")
def seed_b() -> PlanResult:
    return plan_service(load_plan(SEED_B), base_dir=SEED_B.parent)


def test_a_fleets_short_label_says_the_same_in_fewer_characters(seed_b: PlanResult) -> None:
    first, mixed = seed_b.fleets[0], next(f for f in seed_b.fleets if len(f.kinds) > 1)
    assert first.label == "13 × RTX PRO 6000 server (2 of 8 cards in each as 4×1g.24gb)"
    assert first.short_label == "13×RTX PRO 6000 server (2 of 8 each as 4×1g.24gb)"
    assert mixed.short_label.endswith(" + 2×HGX H100") and "cards" not in mixed.short_label
    for f in seed_b.fleets:
        assert len(f.short_label) < len(f.label)
        # nothing left out: every count, server kind and MIG profile of the label is in the short form
        for node in f.nodes:
            assert f"{node.count}×{node.node}" in f.short_label
        assert f.label.replace("×", " ").replace("cards in each", "each").split() == (
            f.short_label.replace("×", " ").split())
    # two fleets never read alike in short where they differ in full
    assert len({f.short_label for f in seed_b.fleets}) == len({f.label for f in seed_b.fleets})


def test_plan_json_adds_the_short_forms_and_keeps_the_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(SEED_B), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for f in out["fleets"]:
        assert f["label"] and f["short_label"] and len(f["short_label"]) < len(f["label"])
    rev = out["recommendation"]["reversal"]
    assert {"month", "job_class", "before", "after", "words", "settled"} <= set(rev)
    assert rev["sized"] == out["fleets"][0]["kinds"]
