"""What would make a job that does not fit its card fit: the smallest change, found by the memory model.

The advice a "does not fit" check gives must be about *this* job: a job that already uses QLoRA and
checkpointing is not told to use them, and a 1,050 GB shortfall is not answered with a shorter sequence.
Each candidate change is run through the same memory model (``memory_for_card``) and the same verdict
rule the build result uses (passed in as ``fits``), so the advice can never disagree with the chart.

Candidates are tried in order of how much they change the run (cheapest first):
1. gradient checkpointing (same result, about a third more compute: Chen et al. 2016, "Training Deep Nets
   with Sublinear Memory Cost", one extra forward per step),
2. a chunked loss (same result; the full logits are never held at once),
3. a smaller micro-batch with gradient accumulation (same effective batch, same result),
4. 8-bit Adam for a full fine-tune (seed A: 16 -> 10 bytes per parameter),
5. QLoRA instead of LoRA (the base in NF4: Dettmers et al. 2023),
6. LoRA or QLoRA instead of a full fine-tune,
7. last, a shorter sequence (the largest that fits; changes what the model sees).
If no single change fits, the result-keeping changes (1-3) are combined with each of the others in turn.
Independently, the number of cards of the same kind that FSDP would need is reported (seed A: "needs two
cards of either kind").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel

from configurator.catalog.models import ModelSpec
from configurator.catalog.units import GB
from configurator.engine.lowprecision.checks import Capability
from configurator.engine.memory.estimate import memory_for_card, sharding
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.stack import stack_of

MAX_CARDS = 64  # the largest group the build schema allows in one chassis slot map
MIN_SEQUENCE = 128  # below this a fine-tune is not a useful run


class FitAdvice(BaseModel):
    """The smallest change that makes a job fit its card, and how many such cards FSDP would need."""

    change: str | None = None  # words: "turn on gradient checkpointing"; None when no change on this card fits
    fields: dict[str, object] = {}  # the job fields that change, as a Job edit would set them
    peak_gb: float | None = None  # peak reserved with the change
    cards_needed: int | None = None  # FSDP over this many cards of this kind fits; None: not up to MAX_CARDS
    # a cheaper change that holds the peak but leaves it inside the model's uncertainty (tight), if any
    tight_change: str | None = None
    tight_peak_gb: float | None = None
    shortfall_gb: float = 0.0

    def sentence(self) -> str:
        """One sentence a buyer can act on."""
        parts = []
        if self.tight_change is not None and self.tight_peak_gb is not None:
            parts.append(f"{self.tight_change[0].upper()}{self.tight_change[1:]} brings it to "
                         f"{self.tight_peak_gb:.1f} GB, inside the model's uncertainty for this card.")  # fmt: skip
        if self.change is not None and self.peak_gb is not None:
            parts.append(f"Smallest change that fits: {self.change} (peak {self.peak_gb:.1f} GB).")
        else:
            parts.append("No change of settings makes it fit this card.")
        if self.cards_needed is not None:
            parts.append(f"Or run it with FSDP over {self.cards_needed} cards of this kind.")
        else:
            parts.append(f"FSDP over up to {MAX_CARDS} cards of this kind does not hold it at these settings either.")
        return " ".join(parts)


@dataclass(frozen=True)
class _Candidate:
    words: str
    fields: dict[str, object]


def _peak(model: ModelSpec, job: Job, n_cards: int, on_mig: bool, capability: Capability | None = None,
          critic: ModelSpec | None = None) -> float:  # fmt: skip
    """The changed job's peak; infinite when the change cannot run (e.g. LoRA targets the model lacks)."""
    split = sharding(job, n_cards, on_mig)
    try:
        mem = memory_for_card(model, job, shards=split.shards, tp=split.tp, ddp=split.ddp, ep=split.ep,
                              capability=capability, critic=critic)
    except ValueError:  # a full job switched to LoRA whose targets name no module of this model
        return math.inf
    return mem.peak_reserved


def _largest_fitting_int(lo: int, hi: int, ok: Callable[[int], bool]) -> int | None:
    """Largest value in [lo, hi] for which ``ok`` holds, assuming memory grows with it; None if none."""
    if hi < lo or not ok(lo):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _keeping_result(job: Job, fits_with: Callable[[dict[str, object]], bool]) -> list[_Candidate]:
    """Changes that train the same model on the same data: only time is paid."""
    out: list[_Candidate] = []
    if not job.gradient_checkpointing:
        out.append(_Candidate("turn on gradient checkpointing", {"gradient_checkpointing": True}))
    if stack_of(job).loss not in ("chunked", "fused"):  # the loss the job's framework really runs
        out.append(_Candidate("compute the loss in chunks", {"loss": "chunked"}))
    if job.micro_batch_size > 1:
        best = _largest_fitting_int(1, job.micro_batch_size - 1, lambda b: fits_with({"micro_batch_size": b})) or 1
        accumulation = job.gradient_accumulation_steps * -(-job.micro_batch_size // best)
        out.append(_Candidate(
            f"micro-batch {best} with {accumulation} accumulation steps (the same batch)",
            {"micro_batch_size": best, "gradient_accumulation_steps": accumulation},
        ))  # fmt: skip
    return out


def _changing_method(job: Job) -> list[_Candidate]:
    """Changes of method: smaller model states, a (usually small) change in what is learned."""
    out: list[_Candidate] = []
    if job.method == "full" and job.optimizer in ("adamw", "paged-adamw"):
        out.append(_Candidate("8-bit Adam", {"optimizer": "adamw-8bit"}))
    if job.method == "lora":
        out.append(_Candidate("QLoRA (the base in NF4)", {"method": "qlora"}))
    if job.method == "full":
        out.append(_Candidate("LoRA instead of a full fine-tune", {"method": "lora"}))
        out.append(_Candidate("QLoRA instead of a full fine-tune", {"method": "qlora"}))
    return out


def _merge(*cands: _Candidate) -> _Candidate:
    fields: dict[str, object] = {}
    for c in cands:
        fields.update(c.fields)
    return _Candidate(", ".join(c.words for c in cands), fields)


def _shorter_sequence(job: Job, keep: list[_Candidate], method: list[_Candidate],
                      fits_with: Callable[[dict[str, object]], bool]) -> _Candidate | None:  # fmt: skip
    """The longest sequence that fits, on top of the result-keeping changes (then each change of method)."""
    for base in [_merge(*keep)] + [_merge(*keep, m) for m in method]:
        def fits_at(s: int, b: _Candidate = base) -> bool:
            return fits_with({**b.fields, "sequence_length": s})

        best = _largest_fitting_int(MIN_SEQUENCE, job.sequence_length - 1, fits_at)
        if best is not None:
            seq = _Candidate(f"sequences of at most {best:,} tokens", {"sequence_length": best})
            return _merge(base, seq) if base.fields else seq
    return None


def _cards_needed(model: ModelSpec, job: Job, n_cards: int, fits: Callable[[float, Job], bool],
                  capability: Capability | None, critic: ModelSpec | None = None) -> int | None:  # fmt: skip
    """The fewest cards (more than now) the job fits on under FSDP, or None within MAX_CARDS."""
    sharded = job if PARALLELISM[job.parallelism].fsdp else job.model_copy(update={"parallelism": "fsdp"})

    def ok_cards(n: int) -> bool:
        return fits(_peak(model, sharded, n, False, capability, critic), sharded)

    # Per-card memory under FSDP only falls as the group grows (states / n), so search for the smallest n.
    lo, hi = max(2, n_cards + 1), MAX_CARDS
    if lo <= hi and ok_cards(hi):
        while lo < hi:
            mid = (lo + hi) // 2
            if ok_cards(mid):
                hi = mid
            else:
                lo = mid + 1
        return lo
    return None


def fit_advice(
    model: ModelSpec, job: Job, n_cards: int, on_mig: bool, peak_bytes: float, capacity_bytes: float,
    fits: Callable[[float, Job], bool], capability: Capability | None = None, critic: ModelSpec | None = None,
) -> FitAdvice:  # fmt: skip
    """Advice for ``job`` whose peak ``peak_bytes`` does not fit ``capacity_bytes`` on each of its cards.

    ``fits(peak_bytes, changed_job)`` is the build result's own verdict rule for this card (fits, not merely
    "tight"), given the job as changed: a change of method changes the model's band (calibration.band_for), so
    the verdict is the one the changed job will get.
    """
    advice = FitAdvice(shortfall_gb=max(0.0, (peak_bytes - capacity_bytes) / GB))

    def peak_with(fields: dict[str, object]) -> float:
        return _peak(model, job.model_copy(update=fields), n_cards, on_mig, capability, critic)

    def fits_with(fields: dict[str, object]) -> bool:
        return fits(peak_with(fields), job.model_copy(update=fields))

    keep = _keeping_result(job, fits_with)
    method = _changing_method(job)
    all_keep = [_merge(*keep)] if len(keep) > 1 else []
    # Cheapest first: one change that keeps the result, all of them, one change of method (alone, then
    # with the result-keeping ones), and last a shorter sequence on top of those.
    tries = keep + all_keep + method + [_merge(*keep, m) for m in method if keep]
    found = next((c for c in tries if fits_with(c.fields)), None)
    # Before the change that fits clearly: the first one that at least holds the peak (a tight verdict).
    for c in tries[: tries.index(found)] if found is not None else tries:
        held = peak_with(c.fields)
        if held <= capacity_bytes:
            advice = advice.model_copy(update={"tight_change": c.words, "tight_peak_gb": held / GB})
            break
    if found is None and job.sequence_length > MIN_SEQUENCE:
        found = _shorter_sequence(job, keep, method, fits_with)
    if found is not None:
        advice = advice.model_copy(
            update={"change": found.words, "fields": found.fields, "peak_gb": peak_with(found.fields) / GB}
        )
    if not on_mig:
        needed = _cards_needed(model, job, n_cards, fits, capability, critic)
        if needed is not None:
            advice = advice.model_copy(update={"cards_needed": needed})
    return advice
