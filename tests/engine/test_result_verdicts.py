"""The verdicts views print are the engine's: the build's fit (its worst job's), the count of jobs per status,
the supply's state, and the ranking a comparison of two builds uses; present/ and ui/ only word and colour them."""

from __future__ import annotations

from pathlib import Path

from configurator.catalog.loader import default_catalog
from configurator.engine import evaluate
from configurator.engine.compare import compare
from configurator.engine.model.buildfile import load_build
from configurator.engine.model.result import FIT_RANK, BuildResult, Power, worst_status
from configurator.present.verdict import build_verdict

CAT = default_catalog()
BUILDS = Path(__file__).resolve().parents[2] / "resources" / "builds"


def _power(**kw: float | None) -> Power:
    base: dict[str, float | None] = dict(cards_w=1000, platform_w=500, total_w=1500, psu_capacity_w=2000,
                                         margin_w=500, tight_above_w=1800, transient_demand_w=2000,
                                         transient_capacity_w=None)  # fmt: skip
    return Power.model_validate({**base, **kw})


def test_psu_state() -> None:
    assert _power().psu_state == "ok"
    assert _power(total_w=1900, margin_w=100).psu_state == "tight"
    assert _power(total_w=2100, margin_w=-100).psu_state == "over"
    assert _power(psu_capacity_w=None, margin_w=None, tight_above_w=None).psu_state == "unpublished"


def test_build_status_is_the_worst_job() -> None:
    assert worst_status([]) == "unknown"
    assert worst_status(["fits", "tight"]) == "tight" and worst_status(["unknown", "does-not-fit"]) == "does-not-fit"
    assert worst_status(["fits", "unknown"]) == "unknown"
    r = evaluate(load_build(BUILDS / "mixed-with-errors.yaml"), CAT)
    counts = r.status_counts
    assert sum(counts.values()) == len(r.jobs) and set(counts) == set(FIT_RANK)
    assert r.status == min((j.status for j in r.jobs), key=FIT_RANK.__getitem__)
    assert build_verdict(r).status == r.status


def test_comparison_ranks_fits_by_the_same_order() -> None:
    r = evaluate(load_build(BUILDS / "default.yaml"), CAT)

    def one(status: str) -> BuildResult:
        return r.model_copy(update={"jobs": [r.jobs[0].model_copy(update={"status": status})]})

    fit = next(d for d in compare(one("unknown"), one("does-not-fit")) if d.what == "fit")
    assert fit.better == "left"  # not sized beats cannot fit, as in the build's verdict
    fit = next(d for d in compare(one("tight"), one("fits")) if d.what == "fit")
    assert fit.better == "right"


def test_communication_dominates_above_compute() -> None:
    r = evaluate(load_build(BUILDS / "default.yaml"), CAT)
    comm = r.jobs[0].communication
    assert comm.model_copy(update={"ratio_to_compute": 1.3}).dominates
    assert not comm.model_copy(update={"ratio_to_compute": 0.34}).dominates
    assert not comm.model_copy(update={"ratio_to_compute": None}).dominates
