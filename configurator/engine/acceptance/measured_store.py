"""Measured runs of a machine, kept in the user's data folder and read back beside the prediction.

One JSON file per verified burn-in under ``FOLDER/measured/<build digest>/<UTC time>.json``: the build's name
and digest, the cards and versions measured with (driver, torch, ...), and the measured figures per job and
per nccl group. The folder is the caller's (the window passes its data folder, the CLI ``--store-dir`` or the
platform default), so the engine stays free of Qt's paths. ``stored_lines`` gives, per job, the sentences the
acceptance section and the verify report print beside the prediction: "measured on this machine".
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from configurator.catalog.errors import FileError
from configurator.catalog.fileio import atomic_write_text, safe_read_text
from configurator.engine.acceptance.collect import Measurements
from configurator.engine.acceptance.verify import VerifyReport

MAX_RUNS = 200  # read back at most this many runs per build (newest first)
_DIGEST = re.compile(r"^[0-9A-F]{6}$")


class StoredJob(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    peak_nvidia_smi_gb: float | None = Field(default=None, ge=0, le=10_000)
    peak_allocated_gb: float | None = Field(default=None, ge=0, le=10_000)
    step_seconds: float | None = Field(default=None, gt=0, le=1e6)


class StoredRun(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    format: int = 1
    when: str
    build_name: str = Field(max_length=200)
    build_digest: str
    cards: list[str] = Field(default=[], max_length=64)
    versions: dict[str, str] = {}
    verdict: str
    jobs: dict[str, StoredJob] = {}
    nccl_gb_s: dict[str, float] = {}


def _folder(root: Path, digest: str) -> Path:
    if not _DIGEST.match(digest):
        raise ValueError(f"not a build digest: {digest[:20]!r}")
    return root / "measured" / digest


def run_of(report: VerifyReport, measurements: Measurements, when: dt.datetime | None = None) -> StoredRun:
    jobs: dict[str, dict[str, float]] = {}
    for c in report.checks:
        if c.job is None or c.value is None or c.status == "missing":
            continue
        key = (
            "peak_nvidia_smi_gb"
            if "nvidia-smi" in c.figure or "FB used" in c.figure
            else "peak_allocated_gb"
            if "allocated" in c.figure
            else "step_seconds"
            if "step time" in c.figure
            else None
        )
        if key:
            jobs.setdefault(c.job, {})[key] = c.value
    nccl = {
        c.figure.removeprefix("all_reduce busbw, "): c.value
        for c in report.checks
        if c.category == "nccl" and c.value is not None
    }
    stamp = (when or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return StoredRun(
        when=stamp,
        build_name=report.build_name,
        build_digest=report.build_digest,
        cards=[g.name for g in measurements.gpus],
        versions=report.versions,
        verdict=report.verdict,
        jobs={k: StoredJob(**v) for k, v in jobs.items()},
        nccl_gb_s=nccl,
    )


def save(root: Path, run: StoredRun) -> Path:
    """Write ``run`` under ``root``; returns the file. FileError when the folder cannot be written."""
    folder = _folder(root, run.build_digest)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FileError(str(folder), []) from exc
    path = folder / (run.when.replace(":", "-") + ".json")
    atomic_write_text(path, run.model_dump_json(indent=2), what="the measured run")
    return path


def load(root: Path, digest: str) -> tuple[list[StoredRun], list[str]]:
    """The stored runs of the build with ``digest``, newest first, and a line per file that could not be read."""
    folder = _folder(root, digest)
    if not folder.is_dir():
        return [], []
    runs: list[StoredRun] = []
    problems: list[str] = []
    for path in sorted(folder.glob("*.json"), reverse=True)[:MAX_RUNS]:
        try:
            runs.append(StoredRun.model_validate(json.loads(safe_read_text(path))))
        except (FileError, ValueError, ValidationError) as exc:
            problems.append(f"{path.name}: {str(exc).splitlines()[0][:200]}")
    return runs, problems


def stored_lines(runs: list[StoredRun]) -> dict[str, list[str]]:
    """Per job: 'measured on this machine' sentences, newest run first (three at most)."""
    out: dict[str, list[str]] = {}
    for run in runs:
        versions = ", ".join(f"{k} {v}" for k, v in run.versions.items() if k in ("driver", "torch"))
        for name, job in run.jobs.items():
            parts = []
            if job.peak_nvidia_smi_gb is not None:
                parts.append(f"peak {job.peak_nvidia_smi_gb:.1f} GB as nvidia-smi shows it")
            if job.peak_allocated_gb is not None:
                parts.append(f"{job.peak_allocated_gb:.1f} GB allocated")
            if job.step_seconds is not None:
                parts.append(f"{job.step_seconds:.2f} s per step")
            if parts and len(out.setdefault(name, [])) < 3:
                out[name].append(
                    f"measured on this machine {run.when[:10]}: {', '.join(parts)}"
                    + (f" ({versions})" if versions else "")
                )
    return out
