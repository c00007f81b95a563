"""The step time's uncertainty band: how far published runs held apart from the model fell from it.

Derived, not fitted: the range holding ``coverage`` of the held-apart throughput rows' errors (specs/throughput-
runs.yaml, scored by validation.score; the calibration rows are in-sample and left out), as actual step time over
the model's, rounded outward (specs/steptime-band.yaml; the derivation: calibration/step_band.py).
tests/engine/steptime/test_step_band.py recomputes it from the rows and fails when the file is not what they give:
a change to the rows or the model is followed by a change to the file, never the other way round.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, model_validator

from configurator.catalog.fileio import safe_read_text
from configurator.catalog.loader import specs_dir
from configurator.catalog.sourced import Strict
from configurator.engine.model.stack import PROFILES


class BandMethod(Strict):
    coverage: float = Field(gt=0, le=1)
    pool: Literal["held-apart"]
    derived_by: str = Field(min_length=1)


class StepBand(Strict):
    """Actual step time over the model's: ``low`` to ``high`` for ``coverage`` of ``runs`` held-apart runs."""

    low: float = Field(gt=0)
    high: float = Field(gt=0)
    runs: int = Field(gt=0)
    sources: int = Field(gt=0)
    seen: int = Field(ge=0)  # runs whose source had the model changed after its score was seen
    largest_source: str = Field(min_length=1)
    largest_source_runs: int = Field(gt=0)
    methods: tuple[str, ...] = Field(min_length=1)  # the training methods the runs cover (all BF16, whole cards)
    frameworks: tuple[str, ...] = Field(min_length=1)  # the stack profiles (specs/frameworks.yaml) they are timed on

    @model_validator(mode="after")
    def _ordered(self) -> StepBand:
        if not self.low <= 1.0 <= self.high:
            raise ValueError(f"the band {self.low}-{self.high} must hold the model's own time (1.0)")
        return self


class StepBandFile(Strict):
    schema_version: Literal[1]
    method: BandMethod
    band: StepBand

    def around(self, seconds: float) -> tuple[float, float]:
        return seconds * self.band.low, seconds * self.band.high

    @functools.cached_property
    def basis(self) -> str:
        """The band in words, with what it rests on: how many runs, how many were blind, how much of it one source
        is, and what the runs cover (a QLoRA, FP8 or MIG-slice job is outside them). Made once: the file is loaded
        once (step_band) and every job's band reads it."""
        b = self.band
        methods = " and ".join("full fine-tunes" if m == "full" else "LoRA" if m == "lora" else m for m in b.methods)
        # all of the runs are out of sample; the seen ones had been scored before a later change to the model, so
        # the sentence says which part that is rather than setting "23 scored blind" beside "28 not used to fit"
        blind = (f"all {b.runs} scored blind" if not b.seen else
                 f"{b.runs - b.seen} of them scored blind and {b.seen} seen: scored before a later change to the "
                 "model")  # fmt: skip
        return (f"{self.method.coverage:.0%} of {b.runs} published runs not used to fit the model took "
                f"{b.low:.2f}× to {b.high:.2f}× its time ({b.sources} sources, {b.largest_source_runs} of the runs "
                f"from {b.largest_source}; {blind}); the runs are BF16 {methods} on whole cards, timed on the "
                f"{' and '.join(PROFILES[f].label for f in b.frameworks)} stacks")  # fmt: skip


def rounded_outward(low: float, high: float) -> tuple[float, float]:
    """The band as the file keeps it: to 0.01, the low end down and the high end up."""
    return math.floor(low * 100 + 1e-9) / 100, math.ceil(high * 100 - 1e-9) / 100


@functools.lru_cache(maxsize=1)
def step_band(path: Path | None = None) -> StepBandFile:
    raw = yaml.safe_load(safe_read_text(path or specs_dir() / "steptime-band.yaml"))
    return StepBandFile.model_validate(raw)
