"""Published peak-memory measurements used to check the memory model (each run names its public source).

Each case states its settings as a Job and the counter it measured. ``model_error`` runs the memory
model on a case; the spread of those errors is the uncertainty band the engine reports around its
peak (``MODEL_ERROR_MIN`` / ``MODEL_ERROR_MAX``), and tests/engine/test_calibration.py holds every case
within 15 % and the band to the spread actually found. ``HELD_OUT_RUNS`` are further published runs
that no constant was fitted to: they check the model, they do not shape it. The runs themselves live
in engine/calibration/runs.py (re-exported here, the old import path); this module scores the model on them and
derives the bands.
"""

from __future__ import annotations

import functools
import math
import re
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from configurator.catalog.errors import FileError, Problem
from configurator.catalog.loader import default_catalog, specs_dir
from configurator.catalog.models import ModelSpec
from configurator.catalog.sourced import Strict
from configurator.catalog.yamlio import parse_yaml, read_text, validate_as
from configurator.engine.calibration.runs import (  # re-exported: the report and the tests read them from here
    FSDP_SETUP_POOL_MEASURED,
    GIB,
    HELD_APART_RUNS,
    HELD_OUT_RUNS,
    MEASURED_RUNS,
    NEW_RUNS,
    RTX_3090_BYTES,
    Counter,
    MeasuredRun,
)
from configurator.engine.memory.breakdown import MemoryBreakdown
from configurator.engine.memory.estimate import FSDP_SETUP_UNIT_COPIES, AllocatorConstants, memory_for_card
from configurator.engine.memory.states import sharding
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM

__all__ = [  # the names re-exported from runs.py (this module's own names are public as defined)
    "FSDP_SETUP_POOL_MEASURED",
    "GIB",
    "HELD_APART_RUNS",
    "HELD_OUT_RUNS",
    "MEASURED_RUNS",
    "NEW_RUNS",
    "RTX_3090_BYTES",
    "Counter",
    "MeasuredRun",
]


def run_cards(run: MeasuredRun) -> int:
    """The cards a run ran on, as far as the memory model tells them apart: its shard group, or two for a
    strategy that needs several cards and shards nothing (DDP's replicas; the sources do not always count them)."""
    return max(run.shards, 2 if PARALLELISM[run.job.parallelism].multi_card else 1)


def _keeps_buckets(run: MeasuredRun) -> bool:
    """DDP's gradient buckets, by the one rule the engine sizes every job with (states.sharding)."""
    return sharding(run.job, run_cards(run)).ddp


def predicted_bytes(run: MeasuredRun, model: ModelSpec) -> float:
    mem = memory_for_card(model, run.job, shards=run.shards, ddp=_keeps_buckets(run))
    return _counter(mem, run)


def _counter(mem: MemoryBreakdown, run: MeasuredRun) -> float:
    if run.counter == "allocated":
        return mem.peak_allocated
    pool = mem.allocator_reserved
    if run.device_bytes is not None:  # never past the card, never under the live peak
        pool = max(mem.peak_allocated, min(pool, run.device_bytes - mem.cuda_context))
    if run.counter == "unnamed":
        # The figure is one of torch's counters, we do not know which: the model's prediction is the range from
        # its peak allocated (active is the same bytes, held a little longer) to its reserved pool, and a figure
        # inside that range is met; outside it, the nearer end is the prediction.
        return min(max(run.measured_bytes, mem.peak_allocated), pool)
    return pool if run.counter == "reserved" else pool + mem.cuda_context


def model_error(run: MeasuredRun, model: ModelSpec) -> float:
    """Relative error of the model on one case: (predicted - measured) / measured."""
    return predicted_bytes(run, model) / run.measured_bytes - 1.0


# ---------------------------------------------------------------- the bands are data: specs/bands.yaml
class _Spread(Strict):
    err_min: float = Field(le=0)
    err_max: float = Field(ge=0)


class _Method(Strict):
    coverage: float = Field(gt=0, le=1)
    min_runs: int = Field(ge=1)
    few_runs_widening: float = Field(ge=1)
    no_run_widening: float = Field(ge=1)
    derived_by: str = Field(min_length=1)


class _InSample(_Spread):
    derived_by: str = Field(min_length=1)


class _BandEntry(_Spread):
    runs: int = Field(ge=1)  # measured runs the band is taken over (tests/engine/test_calibration.py recounts them)
    note: str = ""


class BandFile(Strict):
    """specs/bands.yaml: the cross-validated bands with the method that derives them from the runs."""

    schema_version: Literal[1]
    method: _Method
    in_sample: _InSample
    bands: dict[str, _BandEntry]


def load_bands(path: Path | None = None) -> BandFile:
    """The bands of specs/bands.yaml, validated (a FileError names the file, line and field)."""
    path = path if path is not None else specs_dir() / "bands.yaml"
    data, lines = parse_yaml(read_text(path), str(path))
    parsed = validate_as(BandFile, data, lines, str(path))
    problems: list[Problem] = []
    if "*" not in parsed.bands:
        problems.append(Problem("bands", 'no "*" band (the all-runs band every other falls back to)'))
    for key, band in parsed.bands.items():
        family = key.split("/")[-1]
        if key != "*" and family not in ("adapter", "full"):
            problems.append(Problem(f"bands.{key}", "not '*', a method family (adapter, full) or framework/family",
                                    lines.get(("bands", key))))  # fmt: skip
        if key != "*" and band.runs < parsed.method.min_runs:
            problems.append(Problem(f"bands.{key}.runs", f"{band.runs} runs, under method.min_runs "
                                    f"({parsed.method.min_runs})", lines.get(("bands", key, "runs"))))  # fmt: skip
    if problems:
        raise FileError(str(path), problems)
    return parsed


BANDS = load_bands()  # read once, at import

# Spread of model_error over MEASURED_RUNS with the shipped constants (tests/engine/test_calibration.py checks it).
# The band the engine prints is the cross-validated one below, not this in-sample spread.
MODEL_ERROR_MIN = BANDS.in_sample.err_min
MODEL_ERROR_MAX = BANDS.in_sample.err_max


# ---------------------------------------------------------------- cross-validated band
# Leave-one-source-out: the runs are grouped by the project that published them (a repository's several
# documents are one source); for each source the allocator constants are refitted on the other sources' runs
# only, and that source's runs are scored with them. The band printed with every peak is the range holding
# BAND_COVERAGE of those out-of-source errors (the most extreme ones, farthest from the median, trimmed first;
# the runs left outside are named by tests/engine/test_calibration.py). Runs are pooled by method family (adapter:
# LoRA / QLoRA, whose states are a frozen base; full: every weight trained), since the families' misses have
# different causes; a framework gets its own band inside a family where it has at least BAND_MIN_RUNS runs
# there; a family with fewer runs takes the all-runs band; and a stack no measured run used (a framework,
# DeepSpeed ZeRO, FSDP2 or offload that no published run here measured) is widened by BAND_NO_RUN_WIDENING.
# Each band holds 92 % of its runs: the least share at which the bands, each used for its own jobs, still hold
# at least 90 % of all runs (the bar; tests/engine/test_calibration.py counts it).
BAND_COVERAGE = BANDS.method.coverage
BAND_MIN_RUNS = BANDS.method.min_runs
BAND_FEW_RUNS_WIDENING = BANDS.method.few_runs_widening
BAND_NO_RUN_WIDENING = BANDS.method.no_run_widening
# The grid the allocator fractions are refitted over (least squares on the relative errors).
FIT_STATIC = tuple(i / 100 for i in range(0, 9))
FIT_DYNAMIC = tuple(i / 100 for i in range(0, 13))
# The FSDP1 set-up pool's unit copies read from the code alone (flatten_tensors' unsharded flat parameter and
# the moved original parameters: two), used where the one published pool (Answer.AI's) is held out.
FSDP1_CODE_UNIT_COPIES = 2.0


def source_group(run: MeasuredRun) -> str:
    """The publishing project: the repository the source names first (owner/name, from a GitHub URL too),
    so one repository's several documents are one source."""
    first = run.source.split()[0]
    match = re.match(r"https?://github\.com/([^/]+/[^/]+)", first)
    return match.group(1) if match else first


def cv_runs() -> tuple[MeasuredRun, ...]:
    """Every measured run the cross-validation uses (runs held apart for a separate check excluded)."""
    return MEASURED_RUNS + HELD_OUT_RUNS + NEW_RUNS


def _predict(run: MeasuredRun, model: ModelSpec, constants: AllocatorConstants) -> float:
    mem = memory_for_card(model, run.job, shards=run.shards, ddp=_keeps_buckets(run), constants=constants)
    return _counter(mem, run)


@dataclass(frozen=True)
class CvScore:
    run: MeasuredRun
    error: float  # (predicted - measured) / measured with constants fitted without the run's source
    constants: AllocatorConstants


def cross_validate(models: dict[str, ModelSpec], runs: tuple[MeasuredRun, ...] | None = None) -> list[CvScore]:
    """Leave-one-source-out errors of every run (``models``: catalog models by id)."""
    runs = runs if runs is not None else cv_runs()
    groups = sorted({source_group(r) for r in runs})
    scores: list[CvScore] = []
    for held in groups:
        fit = [r for r in runs if source_group(r) != held]
        copies = (FSDP_SETUP_UNIT_COPIES if any(source_group(r) == source_group(MEASURED_RUNS[9]) for r in fit)
                  else FSDP1_CODE_UNIT_COPIES)  # fmt: skip
        best: tuple[float, AllocatorConstants] | None = None
        for sf in FIT_STATIC:
            for df in FIT_DYNAMIC:
                k = AllocatorConstants(sf, df, copies)
                sse = sum((_predict(r, models[r.model_id], k) / r.measured_bytes - 1) ** 2 for r in fit)
                if best is None or sse < best[0]:
                    best = (sse, k)
        assert best is not None
        for r in runs:
            if source_group(r) == held:
                scores.append(CvScore(r, _predict(r, models[r.model_id], best[1]) / r.measured_bytes - 1, best[1]))
    return scores


@dataclass(frozen=True)
class Band:
    """Relative error range of the model: the true peak lies in predicted / (1 + err_max) .. / (1 + err_min)."""

    err_min: float
    err_max: float
    basis: str

    def around(self, predicted: float) -> tuple[float, float]:
        return predicted / (1 + self.err_max), predicted / (1 + self.err_min)

    def widened(self, factor: float, basis: str) -> Band:
        return Band(self.err_min * factor, self.err_max * factor, basis)


def method_family(job: Job) -> str:
    """adapter (LoRA / QLoRA: a frozen base) or full (every weight trained)."""
    return "full" if job.method == "full" else "adapter"


def covering_range(errors: list[float], coverage: float = BAND_COVERAGE) -> tuple[float, float]:
    """The range holding ``coverage`` of ``errors``: the one farthest from the median is dropped until
    ceil(coverage x n) remain (so at least that share of the runs is inside, whatever n)."""
    e = sorted(errors)
    keep = math.ceil(coverage * len(e))
    med = statistics.median(e)
    lo, hi = 0, len(e) - 1
    while hi - lo + 1 > keep:
        if med - e[lo] >= e[hi] - med:
            lo += 1
        else:
            hi -= 1
    return e[lo], e[hi]


def bands_from(scores: list[CvScore]) -> dict[str, Band]:
    """The bands from cross-validated errors: '*' for all runs, a method family ('adapter', 'full') where it
    has BAND_MIN_RUNS runs, and 'framework/family' where a framework has that many in the family."""
    errors = [s.error for s in scores]
    out = {"*": Band(*covering_range(errors), f"{BAND_COVERAGE:.0%} of all {len(errors)} measured runs")}
    for fam in ("adapter", "full"):
        mine = [s for s in scores if method_family(s.run.job) == fam]
        if len(mine) >= BAND_MIN_RUNS:
            out[fam] = Band(*covering_range([s.error for s in mine]),
                            f"{BAND_COVERAGE:.0%} of {len(mine)} measured {fam} runs")  # fmt: skip
        for fw in sorted({s.run.job.framework for s in mine}):
            own = [s.error for s in mine if s.run.job.framework == fw]
            if len(own) >= BAND_MIN_RUNS:
                out[f"{fw}/{fam}"] = Band(*covering_range(own),
                                          f"{BAND_COVERAGE:.0%} of {len(own)} measured {fw} {fam} runs")  # fmt: skip
    return out


def pick_band(bands: dict[str, Band], job: Job) -> Band:
    """The most specific band a job has: its framework's in its family, its family's, or all runs'."""
    fam = method_family(job)
    return bands.get(f"{job.framework}/{fam}") or bands.get(fam) or bands["*"]


# The result of bands_from(cross_validate(...)) over cv_runs(), rounded outward to 0.5 % (specs/bands.yaml);
# tests/engine/test_calibration.py recomputes it and holds these figures to it.
CV_BANDS: dict[str, tuple[float, float]] = {key: (b.err_min, b.err_max) for key, b in BANDS.bands.items()}


def _stack_key(job: Job) -> tuple[str, int, str]:
    return job.parallelism, job.fsdp_version if PARALLELISM[job.parallelism].fsdp else 0, job.offload


@functools.cache
def _measured_stacks() -> frozenset[tuple[str, int, str]]:
    return frozenset(_stack_key(r.job) for r in cv_runs())


def _measured_stack(job: Job) -> bool:
    """Whether some measured run used this sharding engine and offload (else the band is widened)."""
    # tensor parallel: the single-card model, split
    return _stack_key(job) in _measured_stacks() or PARALLELISM[job.parallelism].splits_layers


def band_for(job: Job | None) -> Band:
    """The band printed around a job's peak (None: the all-runs band)."""
    if job is None:
        return _printed("*")
    return _band_for(job.framework, method_family(job), *_stack_key(job))


def _printed(key: str) -> Band:
    lo, hi = CV_BANDS[key]
    parts = key.split("/")
    what = "all measured runs" if key == "*" else " ".join(["measured", *parts, "runs"])
    return Band(lo, hi, f"{BAND_COVERAGE:.0%} of {what}")


@functools.cache
def _band_for(framework: str, family: str, parallelism: str, fsdp_version: int, offload: str) -> Band:
    job = Job(name="band", model="x", framework=framework, parallelism=parallelism,
              method="full" if family == "full" else "lora",
              fsdp_version=fsdp_version or 2, offload=offload)  # fmt: skip
    key = f"{framework}/{family}" if f"{framework}/{family}" in CV_BANDS else family if family in CV_BANDS else "*"
    band = _printed(key)
    if not any(r.job.framework == framework for r in cv_runs()):
        return band.widened(BAND_NO_RUN_WIDENING, f"{band.basis}, widened ×{BAND_NO_RUN_WIDENING:g}: no measured "
                            f"{framework} run")  # fmt: skip
    if not _measured_stack(job):
        return band.widened(BAND_NO_RUN_WIDENING, f"{band.basis}, widened ×{BAND_NO_RUN_WIDENING:g}: no measured "
                            "run with this sharding / offload")  # fmt: skip
    return band


def uncertainty_band(predicted: float, job: Job | None = None) -> tuple[float, float]:
    """Range the true peak falls in: the cross-validated band for the job's stack."""
    return band_for(job).around(predicted)


# ---------------------------------------------------------------- what the build sheet says of the checks
@dataclass(frozen=True)
class CalibrationSummary:
    """The checks behind every printed band, in the words a reader of the sheet needs (counts and errors)."""

    runs: int  # measured runs the band is cross-validated on
    sources: int  # projects they come from
    within_15: int  # of those, within 15 % with the shipped constants
    median_abs_error: float  # over those runs, shipped constants
    held_apart: int  # runs kept out of every fit and band
    held_apart_sources: int
    held_apart_within_15: int
    held_apart_median_abs_error: float
    held_apart_max_abs_error: float


@functools.cache
def summary() -> CalibrationSummary:
    """Counts and errors of the model on the runs it holds (~60 ms once: one memory_for_card per run)."""
    models = default_catalog().models
    fitted = [abs(model_error(r, models[r.model_id])) for r in cv_runs()]
    held = [abs(model_error(r, models[r.model_id])) for r in HELD_APART_RUNS]
    return CalibrationSummary(
        runs=len(fitted),
        sources=len({source_group(r) for r in cv_runs()}),
        within_15=sum(e <= 0.15 for e in fitted),
        median_abs_error=statistics.median(fitted),
        held_apart=len(held),
        held_apart_sources=len({source_group(r) for r in HELD_APART_RUNS}),
        held_apart_within_15=sum(e <= 0.15 for e in held),
        held_apart_median_abs_error=statistics.median(held) if held else 0.0,
        held_apart_max_abs_error=max(held, default=0.0),
    )

