"""Published peak-memory measurements the memory model is checked on: the loader of ``specs/runs/*.yaml``.

The runs are data (one YAML file per publishing project, each run with its source, the quoted line that gives the
figure, the counter it names and its stated settings; specs/runs/README.md describes the format). This module
validates them once (pydantic, unknown keys refused; a bad entry names its file, line and run) and builds the
cases calibration.py scores and re-exports (the old import path): ``MEASURED_RUNS`` are the runs the allocator
constants were fitted to; ``HELD_OUT_RUNS`` further published runs that no constant was fitted to; ``NEW_RUNS``
and ``HELD_APART_RUNS`` the runs collected for issue 12 (the second batch of them is engine/calibration/runs_extra.py's
``EXTRA_RUNS``). GiB = 2^30 bytes, GB = 10^9 bytes; every value is stored in bytes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from configurator.catalog.errors import FileError, Problem
from configurator.catalog.loader import specs_dir
from configurator.catalog.sourced import Strict
from configurator.catalog.units import GIB as GIB  # re-exported: runs_extra and calibration read it from here
from configurator.catalog.units import MIB
from configurator.catalog.yamlio import parse_yaml, read_text, validation_problems
from configurator.engine.model.build import Job

# device: what nvidia-smi shows (allocator pool + CUDA context); used where a source prints a device-level figure.
# unnamed: a source that prints "peak memory" without saying which counter; scored against the whole range the
# counters it could be span (calibration._counter), not against the one that suits the model best
Counter = Literal["allocated", "reserved", "device", "unnamed"]
# fitted: a run the allocator constants were fitted to; held-out: no constant was fitted to it, but it is in the
# cross-validated pool; pool: collected for issue 12, in the cross-validated pool; held-apart: out of every fit
# and every band, scored on its own
Role = Literal["fitted", "held-out", "pool", "held-apart"]
# The files in load order: each role's runs keep this order (the cross-validation and the tests walk them in it).
# A new source file is added here (tests/engine/test_runs_data.py checks that every file in specs/runs/ is listed).
RUN_FILES = ("litgpt", "peft", "answerai", "torchtune", "litgpt_hub", "liger", "fms", "schmid", "swift", "unsloth")
# Every run is sized as a Job named "case" on the catalog model its ``model`` names (Job.model is not read).
_JOB_NAME, _JOB_MODEL = "case", "x"
RTX_3090_BYTES = 24 * GIB  # GeForce RTX 3090: 24 GB GDDR6X (NVIDIA's specifications page), 24576 MiB


@dataclass(frozen=True)
class MeasuredRun:
    label: str
    source: str
    model_id: str
    job: Job
    shards: int
    counter: Counter  # allocated = max_memory_allocated; reserved = max_memory_reserved (no CUDA context)
    measured_bytes: float
    # memory of the card it ran on, where the model's pool comes near it: the caching allocator cannot map more,
    # so on a failed cudaMalloc it releases its cached segments and retries (c10/cuda/CUDACachingAllocator.cpp,
    # release_cached_blocks), and the pool it reports stays under the card less the CUDA context
    device_bytes: float | None = None


# ---------------------------------------------------------------- the file format (specs/runs/README.md)
_UNIT_BYTES = {"GiB": GIB, "MiB": MIB}


class Quantity(Strict):
    """A figure in the unit its source prints it in."""

    value: int | float = Field(gt=0)
    unit: Literal["GB", "GiB", "MiB", "bytes"]

    def bytes(self) -> float:
        """In bytes. GB is decimal: the figure as written times 10^9, rounded once (21.30 GB is 21.30e9)."""
        if self.unit == "GB":
            return float(Decimal(repr(self.value)) * 10**9)
        if self.unit == "bytes":
            return float(self.value)
        return self.value * _UNIT_BYTES[self.unit]


class Source(Strict):
    # the citation the calibration groups runs by (calibration.source_group): a GitHub URL or owner/name first
    cite: str = Field(min_length=1)
    url: str = Field(pattern=r"^https://\S+$")  # where the figure can be read
    # first: the runs the calibration started from; issue-12 / issue-12-second: the two batches collected for it
    batch: Literal["first", "issue-12", "issue-12-second"]
    settings: dict[str, Any] = {}  # Job settings every run citing this source shares (a run's own win)
    note: str = ""  # how the settings were read from the source's code, and why the role


class RunEntry(Strict):
    label: str = Field(min_length=1)
    source: str  # a key of the file's sources
    role: Role
    model: str = Field(min_length=1)  # catalog model id
    shards: int = Field(ge=1)  # cards the model state is sharded over
    counter: Counter
    measured: Quantity
    card_memory: Quantity | None = None  # the card's memory, where the run comes near it (MeasuredRun.device_bytes)
    quote: str = Field(min_length=1)  # the published line the figure is read from
    settings: dict[str, Any] = {}  # Job settings of this run (over its source's)
    note: str = ""  # what a setting means or where it was read

    @field_validator("quote", "label")
    @classmethod
    def _not_blank(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("must not be blank")
        return text


class Figure(Strict):
    """Another published figure the model is derived from (not a run): its value and quote."""

    measured: Quantity
    quote: str = Field(min_length=1)
    note: str = ""


class RunFile(Strict):
    schema_version: Literal[1]
    sources: dict[str, Source] = Field(min_length=1)
    runs: list[RunEntry] = Field(min_length=1)
    figures: dict[str, Figure] = {}
    left_out: list[str] = []  # published rows checked and left out, with the reason (and the model's error)


@dataclass(frozen=True)
class LoadedRun:
    """One validated run with its file's source: the fields calibration and runs_extra build on."""

    file: str
    entry: RunEntry
    source: Source
    job: Job

    def measured_run(self) -> MeasuredRun:
        e, card = self.entry, self.entry.card_memory
        device = None if card is None else card.bytes()
        return MeasuredRun(
            e.label, self.source.cite, e.model, self.job, e.shards, e.counter, e.measured.bytes(), device
        )


@dataclass(frozen=True)
class RunSet:
    runs: tuple[LoadedRun, ...]
    figures: dict[str, Figure]

    def role(self, role: Role) -> tuple[MeasuredRun, ...]:
        return tuple(r.measured_run() for r in self.runs if r.entry.role == role)


def load_run_file(path: Path) -> tuple[list[LoadedRun], dict[str, Figure]]:
    """One file's runs, validated; a FileError naming the file, line and run on anything wrong."""
    data, lines = parse_yaml(read_text(path), str(path))
    try:
        parsed = RunFile.model_validate(data)
    except ValidationError as exc:
        raise FileError(str(path), _named(validation_problems(exc, lines), data)) from None
    problems: list[Problem] = []
    out: list[LoadedRun] = []
    for i, run in enumerate(parsed.runs):
        where = f"runs[{i}] ({run.label!r})"
        source = parsed.sources.get(run.source)
        if source is None:
            known = ", ".join(parsed.sources)
            problems.append(Problem(f"{where}.source", f"unknown source {run.source!r} (this file has: {known})",
                                    lines.get(("runs", i, "source"))))  # fmt: skip
            continue
        settings = {**source.settings, **run.settings}
        try:
            job = Job(name=_JOB_NAME, model=_JOB_MODEL, **settings)
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                key = err["loc"][0] if err["loc"] else None
                if key in source.settings and key not in run.settings:  # the value is the source's: point there
                    at = lines.get(("sources", run.source, "settings", key))
                    message = f"{err['msg']} (for run {run.label!r})"
                    problems.append(Problem(f"sources.{run.source}.settings.{key}", message, at))
            for p in validation_problems(exc, lines, ("runs", i, "settings")):
                if not p.field.startswith(f"runs[{i}].settings.") or p.field.split(".")[2] in run.settings:
                    problems.append(Problem(p.field.replace(f"runs[{i}]", where, 1), p.message, p.line))
            continue
        except TypeError as exc:
            problems.append(Problem(f"{where}.settings", str(exc), lines.get(("runs", i, "settings"))))
            continue
        out.append(LoadedRun(path.stem, run, source, job))
    if problems:
        raise FileError(str(path), problems)
    return out, parsed.figures


def _named(problems: list[Problem], data: Any) -> list[Problem]:
    """Name the run a problem is in by its label, beside its index (runs[3] ('LitGPT ...'))."""
    runs = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(runs, list):
        return problems
    out = []
    for p in problems:
        field = p.field
        for i, run in enumerate(runs):
            if field.startswith(f"runs[{i}]") and isinstance(run, dict) and isinstance(run.get("label"), str):
                field = field.replace(f"runs[{i}]", f"runs[{i}] ({run['label']!r})", 1)
                break
        out.append(Problem(field, p.message, p.line))
    return out


def runs_dir() -> Path:
    return specs_dir() / "runs"


def load_runs(directory: Path | None = None) -> RunSet:
    """Every run file in RUN_FILES order; labels are unique across them."""
    root = directory if directory is not None else runs_dir()
    runs: list[LoadedRun] = []
    figures: dict[str, Figure] = {}
    for name in RUN_FILES:
        loaded, more = load_run_file(root / f"{name}.yaml")
        runs += loaded
        figures.update(more)
    seen: dict[str, str] = {}
    for r in runs:
        if r.entry.label in seen:
            raise FileError(
                str(root / f"{r.file}.yaml"),
                [Problem("runs", f"label {r.entry.label!r} is also in {seen[r.entry.label]}.yaml: labels are unique")],
            )
        seen[r.entry.label] = r.file
    return RunSet(tuple(runs), figures)


@functools.cache
def default_runs() -> RunSet:
    """The shipped runs, loaded and validated once per process."""
    return load_runs()


_RUNS = default_runs()
MEASURED_RUNS: tuple[MeasuredRun, ...] = _RUNS.role("fitted")
HELD_OUT_RUNS: tuple[MeasuredRun, ...] = _RUNS.role("held-out")
NEW_RUNS: tuple[MeasuredRun, ...] = _RUNS.role("pool")
HELD_APART_RUNS: tuple[MeasuredRun, ...] = _RUNS.role("held-apart")
# The one published FSDP set-up pool (specs/runs/answerai.yaml): memory.FSDP_SETUP_UNIT_COPIES is derived from it.
FSDP_SETUP_POOL_MEASURED = _RUNS.figures["fsdp-setup-pool"].measured.bytes()
