"""The step time's band from the throughput runs (specs/steptime-band.yaml; loaded by time/steptime/band.py): the
derivation the file's figures come from, in calibration beside the memory band's, which it shares its trimming
with (band.covering_range)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from configurator.engine.calibration.band import covering_range
from configurator.engine.time.steptime.validation import Scored


@dataclass(frozen=True)
class DerivedBand:
    """What specs/steptime-band.yaml holds, as the rows give it (before rounding)."""

    low: float
    high: float
    runs: int
    sources: int
    seen: int  # of the runs, those whose source had the model changed after its score was seen
    largest_source: str
    largest_source_runs: int
    methods: tuple[str, ...]
    frameworks: tuple[str, ...]  # the stack profiles the runs are timed on


def step_band_from(rows: list[Scored], coverage: float) -> DerivedBand:
    """The range holding ``coverage`` of the scored held-apart rows, as actual step time over the model's
    (predicted / measured tokens/s), the one farthest from the median dropped first; with what the pool is made of.
    The calibration rows set the fitted constants, so they are in-sample and left out."""
    held = [r for r in rows if r.scored and r.held_apart]
    lo, hi = covering_range([r.error for r in held], coverage)
    (top, top_n), = Counter(r.source for r in held).most_common(1)
    return DerivedBand(1 + lo, 1 + hi, len(held), len({r.source for r in held}), sum(r.seen for r in held), top,
                       top_n, tuple(sorted({r.method for r in held})),
                       tuple(sorted({r.framework for r in held})))  # fmt: skip
