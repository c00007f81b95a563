"""Job edits: add, copy, remove, rename, change fields, and put a job on cards or a MIG instance.

A job the editor names itself carries a generated name ("70B LoRA", "8B full fine-tune": ``job_title``); such a name
follows the job's model and method when they change (``update_job_titled``), a name the user typed stays.
"""

from __future__ import annotations

import re
from typing import Any

from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.models import ModelSpec
from configurator.engine.editing.base import EditRefused
from configurator.engine.model.build import Build, InstanceRef, Job, with_stack_defaults
from configurator.engine.model.labels import method_name, parameters_label
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.resolver import ModelResolver

DEFAULT_MODEL = "llama-3.1-8b"  # what Add puts in a new job: an 8B LoRA
LEGACY_NAME = "New job"  # what Add called every job before names were generated: a placeholder, not a choice
# How a generated name said a method before the name came from model/labels.METHOD_NAMES ('8B full FT'): a build
# saved then still holds such names, and they are generated, so they follow the job's model and method.
LEGACY_METHOD_WORDS = {"full": "full FT"}
# the size a model is published under, in its name: "Llama 3.3 70B", "Qwen3-32B", "Mixtral 8x7B", "qwen2.5-0.5b"
# (not "A3B" in "Qwen3-30B-A3B": the active parameters, preceded by a letter)
_SIZE = re.compile(r"(?<![\w.])(\d+x)?\d+(?:\.\d+)?b\b", re.IGNORECASE)
_NUMBERED = re.compile(r"^(?P<base>.*) \((?P<n>\d+)\)$")


def update_job(build: Build, index: int, **changes: Any) -> Build:
    """Change fields of one job, validated like a loaded file (pydantic raises on bad values)."""
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    job = Job.model_validate({**build.jobs[index].model_dump(), **changes})
    jobs = [*build.jobs[:index], job, *build.jobs[index + 1 :]]
    return build.model_copy(update={"jobs": jobs})


def unique_job_name(build: Build, base: str, skip: int | None = None) -> str:
    """``base``, or ``base (2)``, ``base (3)``... : the first no job of ``build`` (but job ``skip``) is called."""
    names = {j.name for i, j in enumerate(build.jobs) if i != skip}
    if base not in names:
        return base
    n = 2
    while f"{base} ({n})" in names:
        n += 1
    return f"{base} ({n})"


def size_label(spec: ModelSpec | None) -> str | None:
    """The model's size as people name it: from its published name ('Llama 3.3 70B' -> '70B', 'Mixtral 8x7B'
    -> '8x7B'), else rounded from its parameter count (3.82e9 -> '3.8B', 4.9e8 -> '494M'); None if unknown."""
    if spec is None:
        return None
    found = _SIZE.search(spec.name)
    if found:
        return found.group(0).upper().replace("X", "x")
    p = spec.total_params
    return parameters_label(p) if p else None


def job_title(spec: ModelSpec | None, method: str) -> str:
    """The name the editor gives a job: its model's size and its method ('70B LoRA', '8B full fine-tune'; without
    a size 'Full fine-tune job')."""
    size = size_label(spec)
    return f"{size} {method_name(method, capital=False)}" if size else f"{method_name(method)} job"


def _legacy_title(title: str) -> str:
    """``title`` as an older version generated it: '8B full fine-tune' -> '8B full FT', 'Full fine-tune job' ->
    'full FT job'."""
    for method, old in LEGACY_METHOD_WORDS.items():
        title = title.replace(method_name(method, capital=False), old).replace(method_name(method), old)
    return title


def is_generated_name(name: str, title: str) -> bool:
    """Whether ``name`` was generated for a job whose settings give ``title`` (the title itself, or the title
    made unique, 'title (2)', also as an older version worded it: '8B full FT'), or is the old placeholder
    'New job'; a name the user typed is neither."""
    m = _NUMBERED.match(name)
    base = m.group("base") if m else name
    return base in (title, _legacy_title(title), LEGACY_NAME)


def follow_title(build: Build, index: int, old_title: str, new_title: str) -> Build:
    """Job ``index`` renamed to ``new_title`` (unique in the build) when its name was generated for
    ``old_title``; a typed name, or a title that did not change, leaves the build as it is."""
    job = build.jobs[index]
    if old_title == new_title and not job.name.startswith(LEGACY_NAME):
        return build
    if not is_generated_name(job.name, old_title):
        return build
    name = unique_job_name(build, new_title, skip=index)
    return build if name == job.name else update_job(build, index, name=name)


def update_job_titled(build: Build, index: int, models: ModelResolver, **changes: Any) -> Build:
    """``update_job``, and a job whose name was generated follows its new model or method ('70B LoRA' set to
    a full fine-tune of an 8B becomes '8B full fine-tune'); ``models`` resolves the model references."""
    after = update_job(build, index, **changes)
    before_job, after_job = build.jobs[index], after.jobs[index]
    old = job_title(models.find(before_job.model), before_job.method)
    new = job_title(models.find(after_job.model), after_job.method)
    return follow_title(after, index, old, new)


def add_job(build: Build, job: Job | None = None, models: ModelResolver | None = None) -> Build:
    """Append a job: without one, an 8B LoRA on the first card, named for its model and method ('8B LoRA').
    The build's ``stack:`` defaults fill every stack key the job does not name (as when the file is read);
    names stay unique."""
    if job is None:
        first = [build.cards[0].slot] if build.cards else []
        models = models or ModelResolver(default_catalog())
        name = job_title(models.find(DEFAULT_MODEL), "lora")
        job = Job(name=name, model=DEFAULT_MODEL, method="lora", cards=first)
    job = with_stack_defaults(job, build.stack)
    job = job.model_copy(update={"name": unique_job_name(build, job.name)})
    return build.model_copy(update={"jobs": [*build.jobs, job]})


def remove_job(build: Build, index: int) -> Build:
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    return build.model_copy(update={"jobs": [j for i, j in enumerate(build.jobs) if i != index]})


def duplicate_job(build: Build, index: int, models: ModelResolver | None = None) -> Build:
    """A copy of job ``index`` after it: a generated name gets the next free number ('8B LoRA (2)', still
    generated, so it follows the copy's model), a typed one ' copy' ('mine copy')."""
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    job = build.jobs[index]
    title = job_title(models.find(job.model), job.method) if models is not None else None
    base = title if title is not None and is_generated_name(job.name, title) else f"{job.name} copy"
    copy = job.model_copy(update={"name": unique_job_name(build, base)})
    jobs = [*build.jobs[: index + 1], copy, *build.jobs[index + 1 :]]
    return build.model_copy(update={"jobs": jobs})


def rename_job(build: Build, index: int, name: str) -> Build:
    name = name.strip()
    if not name:
        raise EditRefused("a job needs a name")
    if any(j.name == name for i, j in enumerate(build.jobs) if i != index):
        raise EditRefused(f"another job is already called '{name}'")
    return update_job(build, index, name=name)


def check_assign(build: Build, slot: int, instance: int | None = None) -> str | None:
    """Why a job cannot be put on ``slot`` (or its MIG ``instance``); None when it can. A MIG-split card takes
    jobs only on its instances (the MIG editor places them): the chassis asks this while a job is dragged."""
    placement = build.card_in(slot)
    if placement is None:
        return f"slot {slot} holds no card"
    if instance is None and placement.mig:
        return f"slot {slot} is split into MIG instances: place the job on one of them in the MIG editor"
    if instance is not None and (not placement.mig or instance >= len(placement.mig)):
        return f"slot {slot} has no MIG instance {instance}"
    return None


def assign_job(build: Build, catalog: Catalog, index: int, slot: int, instance: int | None = None,
               add: bool = False) -> Build:  # fmt: skip
    """Put job ``index`` on a card (or one MIG instance of it); ``add`` keeps its other cards (multi-card jobs)."""
    reason = check_assign(build, slot, instance)
    if reason is not None:
        raise EditRefused(reason)
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
    if n_cards > 1 and not PARALLELISM[job.parallelism].multi_card:
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
    if PARALLELISM[parallelism].splits_layers and job.tensor_parallel == 1 and len(job.cards) > 1:
        changes["tensor_parallel"] = len(job.cards)
    elif not PARALLELISM[parallelism].splits_layers and job.tensor_parallel != 1:
        changes["tensor_parallel"] = 1  # a degree other parallelisms ignore (job_checks warns about one in a file)
    return update_job(build, index, **changes)
