"""Planner timings (pytest-benchmark; `make bench`).

Target (issue "Service planner"): a search over 5,000 candidate fleets under 2 s on 2 cores. The class x
device matrix is evaluated once per plan (and cached across edits of demand and prices); the search is
arithmetic on it.
"""

from __future__ import annotations

from configurator.engine.planner import Plan, load_plan, plan_service
from configurator.engine.planner.search import candidate_count
from configurator.engine.planner.service import prepare
from configurator.paths import resource


def _plan() -> Plan:
    """Seed B's service with the search widened to over 5,000 fleets: up to 6 RTX PRO 6000 servers in
    25 shapes each (whole cards, or 1-8 cards in each of three MIG layouts) x up to 4 HGX H100 in 9 shapes."""
    plan = load_plan(resource("plans", "seed-b-service.yaml"))
    nodes = [plan.nodes[0].model_copy(update={"max_nodes": 6}),
             plan.nodes[1].model_copy(update={"max_nodes": 4, "mig_layouts": ["all-3g"]})]  # fmt: skip
    return plan.model_copy(update={"nodes": nodes})


def test_search_5000_candidates(benchmark) -> None:  # type: ignore[no-untyped-def]
    plan = _plan()
    prepared = prepare(plan, base_dir=resource("plans"))
    assert candidate_count(prepared.model) >= 5000
    plan_service(plan)  # warm: the matrix is cached, as in the app while the user edits demand
    result = benchmark.pedantic(plan_service, args=(plan,), rounds=3, iterations=1)
    assert result.search.candidates >= 5000
    print(f"\n{result.search.candidates:,} candidates: search {result.search.seconds:.3f} s, "
          f"plan_service median {benchmark.stats.stats.median:.3f} s")  # fmt: skip
    assert result.search.seconds < 2.0
    assert benchmark.stats.stats.median < 2.0
