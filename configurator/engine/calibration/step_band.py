"""The step time's band from the throughput runs (specs/steptime-band.yaml; loaded by time/steptime/band.py): the
derivation the file's figures come from, in calibration beside the memory band's, which it shares its trimming
with (band.covering_range)."""

from __future__ import annotations

from configurator.engine.calibration.band import covering_range
from configurator.engine.time.steptime.validation import Scored


def step_band_from(rows: list[Scored], coverage: float) -> tuple[float, float, int, int]:
    """(low, high, runs, sources): the range holding ``coverage`` of the scored held-apart rows, as actual step time
    over the model's (predicted / measured tokens/s), the one farthest from the median dropped first. The
    calibration rows set the fitted constants, so they are in-sample and left out."""
    held = [r for r in rows if r.scored and r.held_apart]
    lo, hi = covering_range([r.error for r in held], coverage)
    return 1 + lo, 1 + hi, len(held), len({r.source for r in held})
