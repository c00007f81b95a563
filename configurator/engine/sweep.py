"""Sweeps for the fit-frontier chart: headroom against sequence length (and micro-batch), per method.

Uses the same memory model as ``evaluate``; a 200-point sweep runs in a few ms (benchmarks/).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from configurator.catalog.loader import Catalog
from configurator.catalog.models import ModelSpec
from configurator.catalog.units import GB
from configurator.engine.evaluate import capacity_of  # the main result's capacity rule
from configurator.engine.lowprecision.checks import Capability, job_capability
from configurator.engine.memory import rl
from configurator.engine.memory.estimate import Sharding, job_parameters, memory_for_card, sharding
from configurator.engine.mig.layout import MigRequest, place_layout
from configurator.engine.model.build import Build, Job
from configurator.engine.model.labels import method_name
from configurator.engine.model.resolver import RESOLVE_ERRORS, ModelResolver

# The comparison methods drawn dimmed beside the job's own (seed A's cases), labelled as the legend names them.
COMPARE_METHODS: list[tuple[str, dict[str, str]]] = [
    (f"{method_name('full')}, 8-bit Adam", {"method": "full", "optimizer": "adamw-8bit"}),
    (method_name("lora"), {"method": "lora"}),
    (method_name("qlora"), {"method": "qlora"}),
]


def batch_label(method: str, micro_batch: int) -> str:
    """A curve of the job's own method at one micro-batch, as the legend names it: "LoRA, micro-batch 2"."""
    return f"{method_name(method)}, micro-batch {micro_batch}"


@dataclass(frozen=True)
class FrontierCurve:
    label: str
    micro_batch: int
    lengths: list[int]
    headroom_gb: list[float]
    max_fitting_length: int | None  # longest swept length that still fits; None when none does
    is_job: bool  # the job's own settings (drawn solid) or a comparison (dimmed)
    # where the headroom crosses zero: the longest whole length that fits, searched between max_fitting_length and
    # the next swept length (which does not fit); max_fitting_length itself when none lies beyond it, None with it
    fits_up_to: int | None = None
    fits_up_to_headroom_gb: float | None = None  # the headroom at fits_up_to


@dataclass(frozen=True)
class Frontier:
    job: str
    card: str
    capacity_gb: float
    curves: list[FrontierCurve]


def default_lengths(top: int = 131072, points: int = 48) -> list[int]:
    """Log-spaced sequence lengths from 256 to ``top``."""
    lo, hi = 256, max(top, 512)
    step = (hi / lo) ** (1 / (points - 1))
    return sorted({int(round(lo * step**i / 64) * 64) or 64 for i in range(points)})


def crossing(lo: int, head_lo: float, hi: int, head_hi: float, headroom: Callable[[int], float]) -> tuple[int, float]:
    """The longest whole length in [lo, hi) that fits, and its headroom: ``lo`` fits (``head_lo`` >= 0), ``hi``
    does not (``head_hi`` < 0). Headroom falls smoothly with length (linear, or quadratic where attention keeps
    s x s scores), so a round probes where the chord between the bracket's ends meets zero and that length's
    neighbour (false position on whole lengths): a round or two, a handful of memory evaluations. Once a round
    fails to halve the bracket (a curve with a step in it), plain bisection finishes: never much more than a
    bisection's evaluations."""
    chord = True
    while hi - lo > 1:
        width = hi - lo
        if chord:
            guess = min(max(lo + int(width * head_lo / (head_lo - head_hi)), lo + 1), hi - 1)
        else:
            guess = (lo + hi) // 2
        head = headroom(guess)
        if head >= 0:
            lo, head_lo = guess, head
        else:
            hi, head_hi = guess, head
        if chord and hi - lo > 1:  # the guess's neighbour on the far side: if it lands across zero, done
            near = lo + 1 if head >= 0 else hi - 1
            head = headroom(near)
            if head >= 0:
                lo, head_lo = near, head
            else:
                hi, head_hi = near, head
        chord = chord and hi - lo <= width // 2
    return lo, head_lo


def _curve(model: ModelSpec, job: Job, label: str, lengths: list[int], capacity: float, split: Sharding,
           is_job: bool, capability: Capability | None = None, critic: ModelSpec | None = None,
           ) -> FrontierCurve:  # fmt: skip
    def headroom(s: int) -> float:
        mem = memory_for_card(model, job, shards=split.shards, tp=split.tp, ddp=split.ddp, ep=split.ep,
                              sequence_length=s, capability=capability, critic=critic)  # fmt: skip
        return (capacity - mem.peak_reserved) / GB

    heads = [headroom(s) for s in lengths]
    fitting = [i for i, head in enumerate(heads) if head >= 0]
    if not fitting:
        return FrontierCurve(label, job.micro_batch_size, lengths, heads, None, is_job)
    i = fitting[-1]
    up_to, head = lengths[i], heads[i]
    if i + 1 < len(lengths):  # the swept grid steps ~14%: the crossing lies somewhere between these two lengths
        up_to, head = crossing(lengths[i], heads[i], lengths[i + 1], heads[i + 1], headroom)
    return FrontierCurve(label, job.micro_batch_size, lengths, heads, lengths[i], is_job, up_to, head)


def fit_frontier(build: Build, job_index: int, catalog: Catalog, lengths: list[int] | None = None,
                 micro_batches: tuple[int, ...] = (1, 2, 4, 8),
                 models: ModelResolver | None = None) -> Frontier | None:  # fmt: skip
    """Headroom on the job's smallest card against sequence length, for each micro-batch, and the same
    curve (job's micro-batch) for the comparison methods. None when the job has no card or model.

    ``models``: the build's resolver (its folder, for a relative config.json), as ``evaluate`` uses."""
    if not 0 <= job_index < len(build.jobs):
        return None
    job = build.jobs[job_index]
    resolver = models or ModelResolver(catalog)
    try:
        model = resolver.resolve(job.model)
    except RESOLVE_ERRORS:  # evaluate reports the reason as JOB_MODEL_UNKNOWN
        return None
    try:
        critic = rl.critic_model(job, resolver)  # PPO's critic checkpoint, as evaluate sizes it
    except RESOLVE_ERRORS:  # evaluate reports it as RL_CRITIC_UNKNOWN and sizes the policy's architecture
        critic = None
    if model.is_params_only or not job.cards:
        return None
    try:
        job_parameters(model, job)  # unknown or fused LoRA targets (qv on Phi-3): no curve, the check says why
    except ValueError:
        return None
    caps = []
    specs = []
    for slot, instance in job.card_keys:
        placement = build.card_in(slot)
        card = catalog.cards.get(placement.card) if placement else None
        if card is None:
            continue
        specs.append(card)
        layout = None
        if instance is not None and placement and placement.mig and card.mig:
            layout = place_layout(card.mig, [MigRequest(r.profile, r.start) for r in placement.mig])
        try:
            caps.append((capacity_of(card, layout, instance)[0], card.name))
        except KeyError:
            continue
    if not caps:
        return None
    capacity, card_name = min(caps)
    cc = job_capability(specs)  # a low-precision recipe's copies depend on it (engine/lowprecision/checks.py)
    split = sharding(job, len(job.cards), on_mig=any(i is not None for _, i in job.card_keys))
    lengths = lengths or default_lengths()
    curves = [
        _curve(model, job.model_copy(update={"micro_batch_size": b}), batch_label(job.method, b), lengths,
               capacity, split, is_job=(b == job.micro_batch_size), capability=cc, critic=critic)
        for b in sorted(set(micro_batches) | {job.micro_batch_size})
    ]  # fmt: skip
    for label, changes in COMPARE_METHODS:
        if changes["method"] == job.method and changes.get("optimizer", job.optimizer) == job.optimizer:
            continue
        other = job.model_copy(update=changes)
        try:
            job_parameters(model, other)  # a full job's LoRA targets are checked only when LoRA is compared
        except ValueError:
            continue
        curves.append(_curve(model, other, label, lengths, capacity, split, is_job=False, capability=cc,
                             critic=critic))
    return Frontier(job.name, card_name, capacity / GB, curves)
