"""Words for DPO / GRPO / PPO jobs, shared by the text report, the sheet and the planner views: one builder for
each sentence, every figure and the generation's bound from the engine (engine/model/result.py RLResult)."""

from __future__ import annotations

from collections.abc import Iterable

from configurator.engine.model.labels import method_label as method_label  # the engine's words, shown here too
from configurator.engine.model.result import RLResult

# what bounds a generation round's decode (time/steptime/generation.py Generation.bound), in words
BOUND_WORDS = {
    "memory": "decode, memory-bound",
    "compute": "decode, compute-bound",
    "launch": "decode, bound by kernel launches from the host",
}


def percent(share: float) -> str:
    """0.3 -> '30 %' (the sheet's spacing)."""
    return f"{share * 100:.0f} %"


def capacity_legend(share: float) -> str:
    """The headroom chart's capacity line: the card's visible memory, or what a colocated vLLM leaves the training
    (the line sat at 59.9 GB of an 85.5 GB card, labelled as the card's visible capacity)."""
    return "Capacity (visible)" if not share else f"Capacity for training (after vLLM's {percent(share)})"


def capacity_legend_of(shares: Iterable[float]) -> str:
    """The capacity line's label for the bars of several jobs, each line its own job's (``shares``: each job's
    colocated share; the window's chart): ``capacity_legend`` where they take one share, as the sheet's chart of one
    job says it; else that each line is the visible memory or what a colocated vLLM leaves."""
    distinct = set(shares) or {0.0}
    if len(distinct) == 1:
        return capacity_legend(distinct.pop())
    if 0.0 in distinct:
        return "Capacity (visible, or for training after a colocated vLLM's share)"
    return "Capacity for training (after each job's colocated vLLM share)"


def share_phrase(share: float) -> str:
    """The verdict's qualifier: headroom measured against the training's share, not the whole card ('' without)."""
    return "" if not share else f", of the {percent(1 - share)} of it left to training beside the colocated vLLM"


def capacity_note(share: float) -> str:
    """Under a memory table: whose capacity and headroom the rows are where a colocated vLLM shares the cards ('':
    the whole card's)."""
    return ("" if not share else f"capacity and headroom are the training's: what the colocated vLLM's "
            f"{percent(share)} of each card leaves")  # fmt: skip


def generation_sentence(r: RLResult) -> str | None:
    """Where the job generates, what the engine holds there, and what one round needs (None: no generation)."""
    if not r.generation:
        return None
    held = ""
    if r.generation_share_gb is not None and r.generation_weights_gb is not None and r.kv_cache_gb is not None:
        held = (f": {r.generation_share_gb:.1f} GB with {r.generation_weights_gb:.1f} GB of weights and a "
                f"{r.kv_cache_gb:.1f} GB KV cache")  # fmt: skip
    return (f"{r.generation}{held}; one round of {r.sequences} sequences per engine needs "
            f"{r.kv_needed_gb or 0:.1f} GB of KV cache per card")  # fmt: skip


def step_split(r: RLResult) -> str | None:
    """The RL step split into training, generation (with what bounds it) and the extra passes (None: untimed)."""
    if r.training_seconds is None:
        return None
    parts = [f"training {r.training_seconds:.3f} s"]
    if r.generation_seconds is not None:
        bound = f" ({BOUND_WORDS[r.generation_bound]})" if r.generation_bound else ""
        parts.append(f"generation {r.generation_seconds:.3f} s{bound}")
    parts += [f"{k} {v:.3f} s" for k, v in r.extra_seconds.items()]
    return ", ".join(parts)
