"""Small builders for tests: one job on some cards, evaluated through the public API."""

from __future__ import annotations

from collections.abc import Callable
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


def spy_on_checks(monkeypatch, on_group: Callable[[int], None]) -> tuple[list[object], list[object]]:  # type: ignore[no-untyped-def]
    """Record verify's nccl groups and job checks as they run (the lists returned), calling ``on_group(n)`` as the
    n-th group starts: the verify-cancel tests set or hold a cancel there."""
    from configurator.engine.acceptance.verify_links import LinkChecks
    from configurator.engine.acceptance.verify_runs import RunChecks

    groups: list[object] = []
    jobs: list[object] = []
    real_nccl, real_job = LinkChecks.nccl, RunChecks.job

    def nccl(self, e):  # type: ignore[no-untyped-def]
        groups.append(e)
        on_group(len(groups))
        real_nccl(self, e)

    def job(self, e):  # type: ignore[no-untyped-def]
        jobs.append(e)
        real_job(self, e)

    monkeypatch.setattr(LinkChecks, "nccl", nccl)
    monkeypatch.setattr(RunChecks, "job", job)
    return groups, jobs


# A build whose job's method is misspelt ('loar'), on line BAD_LINE: the CLI's bad-input tests
BAD_BUILD = """\
name: bad
chassis: generic-server-8
cards:
  - {slot: 1, card: h200-nvl}
jobs:
  - name: j
    model: llama-3.1-8b
    method: loar
    cards: [1]
"""
BAD_LINE = 8


def seed_b_flip_back() -> Any:
    """Seed B's plan (its own file) with the H100 at 25,000 USD, not 27,500: its best fleet is RTX-only in month 1,
    a mix of RTX and HGX from month 12 (the 30B full fine-tune's arrival), and RTX-only again in month 18, the sizing
    month: a best-fleet change that flips back. Seed B itself keeps RTX-only throughout since PEFT's fp32 adapters
    are timed (its LoRA classes take more RTX cards); the flip-back logic is tested on this plan."""
    from configurator.engine.planner import plan_service
    from configurator.paths import resource

    return plan_service(seed_b_flip_back_plan(), base_dir=resource("plans", "seed-b-service.yaml").parent)


def seed_b_flip_back_plan() -> Any:
    """The plan of seed_b_flip_back: seed B's file with the H100 at 25,000 USD."""
    from configurator.engine.planner.planfile import load_plan
    from configurator.paths import resource

    plan = load_plan(resource("plans", "seed-b-service.yaml"))
    return plan.model_copy(update={"prices": {**plan.prices, "h100-sxm": 25000}})
