"""Stopping a plan part-way (the planner window's Stop, review 2 finding 11): the engine asks the caller's
``cancel`` between steps and raises PlanCancelled instead of returning a half-made result."""

from __future__ import annotations

import pytest

from configurator.engine.planner import PlanCancelled, load_plan, plan_service
from configurator.engine.planner.fleet_result import _roadmap
from configurator.engine.planner.search import _best, candidate_count
from configurator.engine.planner.service import prepare
from configurator.paths import resource

PLAN = resource("plans", "seed-b-service.yaml")


def _countdown(calls: int) -> tuple[list[int], object]:
    """A cancel that answers False ``calls`` times, then True; the list counts the questions."""
    asked = [0]

    def cancel() -> bool:
        asked[0] += 1
        return asked[0] > calls

    return asked, cancel


def test_cancel_at_once_raises_and_returns_nothing() -> None:
    plan = load_plan(PLAN)
    with pytest.raises(PlanCancelled):
        plan_service(plan, cancel=lambda: True)


@pytest.mark.parametrize("after", [1, 3, 10, 40])
def test_cancel_part_way_raises(after: int) -> None:
    """Asked many times along the way: a Stop at any of the first questions stops the plan."""
    plan = load_plan(PLAN)
    asked, cancel = _countdown(after)
    with pytest.raises(PlanCancelled):
        plan_service(plan, cancel=cancel)  # type: ignore[arg-type]
    assert asked[0] == after + 1  # raised at the first True, asked nothing more


def test_never_cancelled_is_the_same_plan() -> None:
    plan = load_plan(PLAN)
    asked, cancel = _countdown(10**9)
    a = plan_service(plan, cancel=cancel)  # type: ignore[arg-type]
    b = plan_service(plan)
    assert asked[0] > 10  # the steps ask it
    assert a.model_dump() | {"search": None} == b.model_dump() | {"search": None}  # search seconds differ


def test_search_and_roadmap_ask_cancel() -> None:
    """The search's candidate loop and a fleet's roadmap months each stop on a cancel."""
    plan = load_plan(PLAN)
    pre = prepare(plan)
    total = candidate_count(pre.model) + 1
    with pytest.raises(PlanCancelled):
        _best(pre.model, pre.month, 5, 0, total, lambda: True)
    ranked, *_ = _best(pre.model, pre.month, 5, 0, total)
    with pytest.raises(PlanCancelled):
        _roadmap(pre.model, ranked[0][1], pre.months, 0.7, lambda: True)
