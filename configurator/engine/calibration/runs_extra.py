"""Further published peak-memory measurements for issue 12, from sources the calibration held no run of.

The runs are data: specs/runs/fms.yaml, swift.yaml and unsloth.yaml (the sources whose ``batch`` is
``issue-12-second``), loaded by engine/calibration/runs.py. Each keeps the published line its figure is read from
(``quote``) and the counter that line measured. runs.py turns them into calibration's MeasuredRun cases: a held-apart
run joins HELD_APART_RUNS (out of every fitted constant and every band, scored on its own), the others join the
cross-validated pool (NEW_RUNS). Which sources are held apart was decided by source before any run was scored:
fms-acceleration joins the pool; ms-swift and Unsloth stay held apart, the part the model's error is reported on
alone. GB = 10^9 bytes; GiB = 2^30 bytes; every value is stored in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.calibration.runs import GIB, Counter, LoadedRun, default_runs
from configurator.engine.model.build import Job

__all__ = ["EXTRA_RUNS", "GIB", "Counter", "PublishedRun"]


@dataclass(frozen=True)
class PublishedRun:
    label: str
    source: str  # the URL first (calibration.source_group reads the project from it), then card and date
    model_id: str
    job: Job
    shards: int
    counter: Counter
    measured_bytes: float
    quote: str  # the published line the figure is read from (table cells joined by " | " where it is a table)
    held_apart: bool


def _published(run: LoadedRun) -> PublishedRun:
    e = run.entry
    return PublishedRun(e.label, run.source.cite, e.model, run.job, e.shards, e.counter, e.measured.bytes(), e.quote,
                        e.role == "held-apart")  # fmt: skip


EXTRA_RUNS: tuple[PublishedRun, ...] = tuple(
    _published(r) for r in default_runs().runs if r.source.batch == "issue-12-second"
)
