"""The RL sizing checked on published GRPO / DPO memory figures (specs/rl-runs.yaml): each run loaded and validated,
sized by the engine the way the file's header fixes, and its error reported. Every run is held apart: no constant
is fitted to them."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field

from configurator.catalog.fileio import safe_read_text
from configurator.catalog.loader import default_catalog, specs_dir
from configurator.catalog.models import ModelSpec
from configurator.catalog.sourced import Strict
from configurator.engine.evaluate import evaluate
from configurator.engine.memory import rl
from configurator.engine.memory.estimate import training_activations
from configurator.engine.model.build import Build, Job
from configurator.engine.model.resolver import ModelResolver

UNITS = {"GB": 1e9, "GiB": 2**30, "MiB": 2**20}


class Figure(Strict):
    value: float = Field(gt=0)
    unit: Literal["GB", "GiB", "MiB"]

    @property
    def bytes(self) -> float:
        return self.value * UNITS[self.unit]


class RLSource(Strict):
    url: str
    cite: str
    note: str = ""


class RLRun(Strict):
    label: str
    cites: str  # a key of the file's sources
    # held-apart: blind to the model; seen: held apart when collected, but the model was changed after its score
    # was seen (specs/rl-runs.yaml header): reported apart from the blind ones
    role: Literal["held-apart", "seen"]
    model: str  # catalog id, or a config.json path relative to specs/
    kind: Literal["device", "vllm-weights", "kv-cache", "logits"]
    measured: Figure
    quote: str = Field(min_length=1)
    settings: dict[str, Any] = {}
    card: str = "a100-80gb-pcie"
    tokens: int | None = Field(default=None, ge=1)  # kv-cache: the tokens cached
    note: str = ""


class RLRunsFile(Strict):
    schema_version: Literal[1]
    sources: dict[str, RLSource]
    runs: list[RLRun]


@dataclass(frozen=True)
class Scored:
    run: RLRun
    engine_gb: float
    measured_gb: float

    @property
    def error(self) -> float:
        return self.engine_gb / self.measured_gb - 1


def load_runs(path: Path | None = None) -> RLRunsFile:
    data = RLRunsFile.model_validate(yaml.safe_load(safe_read_text(path or specs_dir() / "rl-runs.yaml")))
    unknown = sorted({r.cites for r in data.runs} - set(data.sources))
    if unknown:
        raise ValueError(f"rl-runs.yaml: runs cite unknown sources {unknown}")
    return data


def _job(run: RLRun) -> Job:
    return Job.model_validate({"name": run.label, "model": run.model, "cards": [1], **run.settings})


def _model(run: RLRun, resolver: ModelResolver) -> ModelSpec:
    return resolver.resolve(run.model)


def engine_bytes(run: RLRun) -> float:
    """The engine's figure for ``run``, as specs/rl-runs.yaml's header defines it for the run's kind."""
    resolver = ModelResolver(default_catalog(), specs_dir())
    job = _job(run)
    model = _model(run, resolver)
    if run.kind == "vllm-weights":
        return rl.generation_budget(model, job, 1.0)[1]
    if run.kind == "kv-cache":
        assert run.tokens is not None, f"{run.label}: a kv-cache run names its tokens"
        return float(rl.kv_bytes_per_token(model) * run.tokens)
    if run.kind == "logits":
        return training_activations(model, rl.training_view(job)).loss_bytes  # as memory_for_card makes them
    build = Build.model_validate({"name": run.label, "chassis": "generic-server-8",
                                  "cards": [{"slot": 1, "card": run.card}], "jobs": [job.model_dump()]})  # fmt: skip
    result = evaluate(build, base_dir=specs_dir(), models=resolver)
    return result.jobs[0].cards[0].peak_reserved_gb * 1e9


def score(data: RLRunsFile | None = None) -> list[Scored]:
    data = data or load_runs()
    return [Scored(r, engine_bytes(r) / 1e9, r.measured.bytes / 1e9) for r in data.runs]


def table(scored: list[Scored]) -> str:
    """The validation table as the closing note quotes it: blind (held-apart) runs, then the seen ones, each
    group's median and worst."""
    lines = [f"{'run':58s} {'role':10s} {'kind':13s} {'measured GB':>12s} {'engine GB':>10s} {'error':>8s}"]
    for role, name in (("held-apart", "held apart (blind)"), ("seen", "seen (model changed after scoring)")):
        group = [s for s in scored if s.run.role == role]
        for s in group:
            lines.append(f"{s.run.label:58s} {role:10s} {s.run.kind:13s} {s.measured_gb:12.2f} {s.engine_gb:10.2f} "
                         f"{s.error:+8.1%}")  # fmt: skip
        errors = sorted(abs(s.error) for s in group)
        if errors:
            lines.append(f"{name} n={len(errors)}  median |error| {statistics.median(errors):.1%}  "
                         f"worst {errors[-1]:.1%}")  # fmt: skip
    return "\n".join(lines)
