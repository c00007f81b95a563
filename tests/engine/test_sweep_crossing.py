"""The fit frontier's "fits up to": where the headroom crosses zero (engine/sweep.py crossing), not the last point
of the ~14% log grid (review of a6a1e7f: the gpt-oss build's dot sat at +11 GB, 9,216 tokens, with the curve
crossing near 10.5k)."""

from __future__ import annotations

import math

import pytest

from configurator.catalog.loader import default_catalog
from configurator.catalog.units import GB
from configurator.engine import sweep
from configurator.engine.model.buildfile import load_build
from configurator.engine.sweep import crossing, fit_frontier
from tests.paths import BUILDS

CAT = default_catalog()


@pytest.mark.parametrize("name", ["moe-gpt-oss-20b-lora-h100.yaml", "default.yaml"])
def test_fits_up_to_is_where_the_headroom_crosses_zero(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    build = load_build(BUILDS / name)
    calls: list[int] = []
    real = sweep.memory_for_card

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs["sequence_length"])
        return real(*args, **kwargs)

    monkeypatch.setattr(sweep, "memory_for_card", counted)
    frontier = fit_frontier(build, 0, CAT)
    assert frontier is not None
    swept = sum(len(c.lengths) for c in frontier.curves)
    # a handful of extra memory evaluations per curve, not a bisection's dozen
    assert len(calls) - swept <= 6 * len(frontier.curves), (len(calls), swept)
    own = next(c for c in frontier.curves if c.is_job)
    assert own.max_fitting_length is not None and own.fits_up_to is not None
    after = own.lengths[own.lengths.index(own.max_fitting_length) + 1]
    assert own.max_fitting_length < own.fits_up_to < after  # the crossing lies between two swept lengths

    def headroom(s: int) -> float:
        job = build.jobs[0]
        split = sweep.sharding(job, len(job.cards), on_mig=False)
        capability = sweep.job_capability([CAT.cards[build.card_in(job.cards[0]).card]])
        mem = real(CAT.model(job.model), job, shards=split.shards, tp=split.tp, ddp=split.ddp, ep=split.ep,
                   sequence_length=s, capability=capability)  # fmt: skip
        return frontier.capacity_gb - mem.peak_reserved / GB

    assert headroom(own.fits_up_to) == pytest.approx(own.fits_up_to_headroom_gb)
    assert headroom(own.fits_up_to) >= 0 > headroom(own.fits_up_to + 1)
    assert own.fits_up_to_headroom_gb is not None and own.fits_up_to_headroom_gb < 0.1


@pytest.mark.parametrize("shape", ["linear", "quadratic", "step", "cliff"])
def test_crossing_finds_the_longest_whole_length_that_fits(shape: str) -> None:
    f = {
        "linear": lambda s: 40.0 - 0.004 * s,
        "quadratic": lambda s: 40.0 - 1e-6 * s * s,
        "step": lambda s: 5.0 - 10.0 * (s // 512 >= 13),  # flat, then a drop: false position stalls, halving ends it
        "cliff": lambda s: 1e6 if s < 9000 else -1.0,
    }[shape]
    lo, hi = 4096, 12288
    seen: list[int] = []

    def probe(s: int) -> float:
        seen.append(s)
        return f(s)

    best, head = crossing(lo, f(lo), hi, f(hi), probe)
    expected = max(s for s in range(lo, hi) if f(s) >= 0)
    assert best == expected and head == f(best)
    assert len(seen) <= 2 * math.ceil(math.log2(hi - lo)) + 2, seen
