"""Job edits: add, copy, remove, rename, change fields, and put a job on cards or a MIG instance."""

from __future__ import annotations

from typing import Any

from configurator.catalog.loader import Catalog
from configurator.engine.build import Build, InstanceRef, Job
from configurator.engine.editing.base import EditRefused


def update_job(build: Build, index: int, **changes: Any) -> Build:
    """Change fields of one job, validated like a loaded file (pydantic raises on bad values)."""
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    job = Job.model_validate({**build.jobs[index].model_dump(), **changes})
    jobs = [*build.jobs[:index], job, *build.jobs[index + 1 :]]
    return build.model_copy(update={"jobs": jobs})


def unique_job_name(build: Build, base: str) -> str:
    names = {j.name for j in build.jobs}
    if base not in names:
        return base
    n = 2
    while f"{base} ({n})" in names:
        n += 1
    return f"{base} ({n})"


def add_job(build: Build, job: Job | None = None) -> Build:
    """Append a job (a default 8B LoRA on the first card when none is given); names stay unique."""
    if job is None:
        first = [build.cards[0].slot] if build.cards else []
        job = Job(name="New job", model="llama-3.1-8b", method="lora", cards=first)
    job = job.model_copy(update={"name": unique_job_name(build, job.name)})
    return build.model_copy(update={"jobs": [*build.jobs, job]})


def remove_job(build: Build, index: int) -> Build:
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    return build.model_copy(update={"jobs": [j for i, j in enumerate(build.jobs) if i != index]})


def duplicate_job(build: Build, index: int) -> Build:
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    copy = build.jobs[index].model_copy(update={"name": unique_job_name(build, f"{build.jobs[index].name} copy")})
    jobs = [*build.jobs[: index + 1], copy, *build.jobs[index + 1 :]]
    return build.model_copy(update={"jobs": jobs})


def rename_job(build: Build, index: int, name: str) -> Build:
    name = name.strip()
    if not name:
        raise EditRefused("a job needs a name")
    if any(j.name == name for i, j in enumerate(build.jobs) if i != index):
        raise EditRefused(f"another job is already called '{name}'")
    return update_job(build, index, name=name)


def assign_job(build: Build, catalog: Catalog, index: int, slot: int, instance: int | None = None,
               add: bool = False) -> Build:  # fmt: skip
    """Put job ``index`` on a card (or one MIG instance of it); ``add`` keeps its other cards (multi-card jobs)."""
    if build.card_in(slot) is None:
        raise EditRefused(f"slot {slot} holds no card")
    placement = build.card_in(slot)
    assert placement is not None
    if instance is None and placement.mig:
        raise EditRefused(f"slot {slot} is split into MIG instances: drop the job on one of them")
    if instance is not None and (not placement.mig or instance >= len(placement.mig)):
        raise EditRefused(f"slot {slot} has no MIG instance {instance}")
    ref: int | InstanceRef = slot if instance is None else InstanceRef(slot=slot, instance=instance)
    job = build.jobs[index]
    if instance is not None:
        cards: list[int | InstanceRef] = [ref]  # NCCL does not run across MIG instances: one instance per job
    elif add:
        keep = [c for c in job.cards if isinstance(c, int) and c != slot]
        cards = list(sorted([*keep, slot]))
    else:
        cards = [ref]
    return set_job_cards(build, index, cards)


def parallelism_for(job: Job, n_cards: int) -> str:
    """The parallelism a job gets on ``n_cards``: one card runs single; several need a strategy, FSDP unless
    the job has one already (DDP, FSDP, TP); no card leaves it as it is."""
    if n_cards == 1:
        return "single"
    if n_cards > 1 and job.parallelism == "single":
        return "fsdp"
    return job.parallelism


def set_job_cards(build: Build, index: int, cards: list[int | InstanceRef]) -> Build:
    """Run job ``index`` on exactly ``cards`` (whole cards or MIG instances), its parallelism following."""
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    job = build.jobs[index]
    return update_job(build, index, cards=cards, parallelism=parallelism_for(job, len(cards)))


def toggle_job_card(build: Build, index: int, slot: int, instance: int | None, on: bool) -> Build:
    """Tick or untick one card (or MIG instance) of job ``index`` in its card list. A MIG instance replaces
    the job's cards (NCCL does not run across MIG instances); a whole card joins or leaves the others."""
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    job = build.jobs[index]
    cards: list[int | InstanceRef]
    if instance is not None:
        cards = [InstanceRef(slot=slot, instance=instance)] if on else []
    else:
        whole = [c for c in job.cards if isinstance(c, int) and c != slot]
        cards = list(sorted([*whole, slot] if on else whole))
    return set_job_cards(build, index, cards)


def set_parallelism(build: Build, index: int, parallelism: str) -> Build:
    """Change job ``index``'s parallelism; choosing tensor parallel on several cards with a degree of 1
    spreads the model over all of them (a TP degree of 1 is no tensor parallelism)."""
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    job = build.jobs[index]
    changes: dict[str, Any] = {"parallelism": parallelism}
    if parallelism == "tp" and job.tensor_parallel == 1 and len(job.cards) > 1:
        changes["tensor_parallel"] = len(job.cards)
    return update_job(build, index, **changes)
