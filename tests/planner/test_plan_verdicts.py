"""The plan's verdicts the kiosk shows are the planner's result's: a fleet's status over the roadmap with the
sentence that says why, and whether MIG pays for a class."""

from __future__ import annotations

import pytest

from configurator.engine.planner import PlanResult, load_plan, plan_service
from configurator.paths import resource

SEED_B = resource("plans", "seed-b-service.yaml")


@pytest.fixture(scope="module")
def seed_b() -> PlanResult:
    return plan_service(load_plan(SEED_B), base_dir=SEED_B.parent)


def test_roadmap_verdict_tells_the_first_problem(seed_b: PlanResult) -> None:
    f = seed_b.fleets[0]
    assert len(f.months) == seed_b.months
    ok = f.model_copy(update={"feasible": True, "stops_fitting_month": None, "out_of_capacity_month": None})
    assert ok.roadmap_verdict == ("fits", f"Keeps up for all {seed_b.months} months")
    both = ok.model_copy(update={"stops_fitting_month": 9, "out_of_capacity_month": 4})
    assert both.roadmap_verdict == ("tight", "Runs out of capacity in month 4")
    first = ok.model_copy(update={"stops_fitting_month": 3, "out_of_capacity_month": 4})
    assert first.roadmap_verdict == ("tight", "Stops fitting the largest job in month 3")
    no = ok.model_copy(update={"feasible": False, "unserved": ["70B LoRA"]})
    assert no.roadmap_verdict == ("does-not-fit", "Cannot serve 70B LoRA")


def test_mig_gain_status(seed_b: PlanResult) -> None:
    c = seed_b.classes[0]
    assert c.model_copy(update={"mig_gain": 1.6}).mig_gain_status == "fits"
    assert c.model_copy(update={"mig_gain": 0.8}).mig_gain_status == "tight"
    assert c.model_copy(update={"mig_gain": None}).mig_gain_status is None
    assert any(k.mig_gain_status == "fits" for k in seed_b.classes)  # seed B's small classes gain from MIG
