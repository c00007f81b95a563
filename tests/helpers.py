"""Small builders for tests: one job on some cards, evaluated through the public API."""

from __future__ import annotations

from typing import Any

from configurator.catalog.loader import default_catalog
from configurator.engine import Build, evaluate
from configurator.engine.model.build import Job
from configurator.engine.model.result import BuildResult, JobResult


def single_job(
    model: Any,
    method: str,
    card: str = "h200-nvl",
    chassis: str = "generic-server-8",
    n: int = 1,
    bridges: list[list[int]] | None = None,
    assumptions: dict[str, Any] | None = None,
    mig: list[str] | None = None,
    **job: Any,
) -> tuple[BuildResult, JobResult]:
    slots = list(range(1, n + 1))
    cards = [{"slot": s, "card": card, **({"mig": mig} if mig and s == 1 else {})} for s in slots]
    job.setdefault("cards", slots)
    job.setdefault("parallelism", "single" if n == 1 else "fsdp")
    data = {
        "name": "test",
        "chassis": chassis,
        "cards": cards,
        "bridges": [{"slots": b} for b in bridges or []],
        "assumptions": assumptions or {},
        "jobs": [{"name": "job", "model": model, "method": method, **job}],
    }
    result = evaluate(Build.model_validate(data))
    return result, result.jobs[0]


def mig_spec(card: str):
    spec = default_catalog().card(card).mig
    assert spec is not None
    return spec


def lora_8b_job(**fields: Any) -> Job:
    """A Llama 3.1 8B LoRA job named "j" with ``fields`` on top (the RL tests' starting point)."""
    return Job.model_validate({"name": "j", "model": "llama-3.1-8b", "method": "lora", **fields})
