"""Low-precision training: which recipe a card supports, what it keeps in memory, what it is measured to gain.

The rules live in lowprecision_rules.py, the memory in lowprecision_memory.py, the speed in lowprecision_speed.py;
this module holds the checks and the picker's choices and re-exports those modules' names (the old import path).

Which software versions and functions the support rules follow is in lowprecision_rules.py's docstring.

Memory follows the same TE pages: what each recipe keeps besides the BF16 weights and FP32 master weights that
mixed-bf16 already counts (engine/memory/precision.py). GB = 10^9 bytes.
"""

from __future__ import annotations

from configurator.catalog.cards import CardSpec
from configurator.engine.lowprecision.memory import (
    AMAX_HISTORY_BYTES_PER_LINEAR,
    AMAX_HISTORY_LEN,
    BF16,
    BLOCK_WEIGHT_SCALE,
    FP4,
    FP8,
    FP32,
    MXFP8_SCALE,
    NVFP4_SCALE,
    PER_TENSOR_SCALE,
    LowPrecisionBytes,
    bytes_per_copy,
    copies_per_weight,
    extra_bytes,
    fp8_base_bytes,
    linear_tensor_count,
)
from configurator.engine.lowprecision.rules import (
    DEFAULT_SOFTWARE,
    RECIPE_NAMES,
    RECIPES,
    RULES,
    TE_DOCS,
    TE_FILE,
    TE_VERSION_READ,
    Capability,
    Gate,
    Recipe,
    Rule,
    Software,
    Support,
    default_fp8_recipe,
    recipe_of,
    support,
    support_at,
    supported_recipes,
)
from configurator.engine.lowprecision.speed import (
    MEASUREMENTS,
    Measurement,
    RecipeTime,
    job_capability,
    measured_speedup,
    recipe_rate,
    recipe_time,
)
from configurator.engine.model.build import Job
from configurator.engine.model.result import Check

__all__ = [
    "AMAX_HISTORY_BYTES_PER_LINEAR", "AMAX_HISTORY_LEN", "BF16", "BLOCK_WEIGHT_SCALE", "DEFAULT_SOFTWARE", "FP4",
    "FP8", "FP32", "MEASUREMENTS", "MXFP8_SCALE", "NVFP4_SCALE", "PER_TENSOR_SCALE", "RECIPES", "RECIPE_NAMES",
    "RULES", "TE_DOCS", "TE_FILE", "TE_VERSION_READ", "Capability", "Gate", "LowPrecisionBytes", "Measurement",
    "Recipe", "RecipeTime", "Rule", "Software", "Support", "bytes_per_copy", "copies_per_weight",
    "default_fp8_recipe", "extra_bytes", "fp8_base_bytes", "job_capability", "linear_tensor_count",
    "measured_speedup", "precision_checks", "precision_choices", "recipe_of", "recipe_rate", "recipe_time",
    "support", "support_at", "supported_recipes",
]  # fmt: skip


def _wanted(job: Job, cards: list[tuple[int, CardSpec]]) -> list[tuple[int, CardSpec, Recipe, str]]:
    """(slot, card, recipe, what asks for it) for each recipe the job needs on each of its cards."""
    wanted: list[tuple[int, CardSpec, Recipe, str]] = []
    for slot, card in cards:
        recipe = recipe_of(job.precision, card.capability)
        if recipe is not None:
            wanted.append((slot, card, recipe, f"precision {job.precision}"))
        if job.base_weights == "fp8" and job.method == "lora":
            # TE quantized_model_init / torchao float8 weights: FP8 storage is read by FP8 GEMMs (or
            # dequantised); both need the FP8 support of _compute_fp8_support.
            wanted.append((slot, card, "fp8-current", "an FP8 base (base_weights: fp8)"))
    return wanted


def _support_check(job: Job, slot: int, card: CardSpec, recipe: Recipe, what: str,
                   cards: list[tuple[int, CardSpec]]) -> Check | None:  # fmt: skip
    """PRECISION_UNSUPPORTED where the card refuses the recipe, PRECISION_NOTE where its rule has a note."""
    s = support(card, recipe)
    if not s.allowed:
        mixed = (
            " The job's cards together support: "
            + (", ".join(supported_recipes([c for _, c in cards])) or "no low-precision recipe")
            + "."
        )
        return Check(
            severity="error",
            code="PRECISION_UNSUPPORTED",
            slot=slot,
            job=job.name,
            message=(
                f"Job '{job.name}' asks for {what} ({RECIPE_NAMES[recipe]}), which {card.name} (compute "
                f'capability {s.capability_text}) does not support: "{s.reason}" ({s.source}).'
                + (mixed if len({c.id for _, c in cards}) > 1 else "")
                + " Choose a supported recipe, mixed-bf16, or another card."
            ),
        )
    if s.note:
        return Check(
            severity="info",
            code="PRECISION_NOTE",
            slot=slot,
            job=job.name,
            message=(
                f"Job '{job.name}': {RECIPE_NAMES[recipe]} on {card.name} (compute capability "
                f"{s.capability_text}): {s.note}"
            ),
        )
    return None


def _job_wide_checks(job: Job, cards: list[tuple[int, CardSpec]]) -> list[Check]:
    """A default FP8 recipe that differs between the job's cards; an FP8 base on a method that has none."""
    checks: list[Check] = []
    if job.precision == "fp8":
        defaults = {default_fp8_recipe(c.capability) for _, c in cards}
        if len(defaults) > 1:
            checks.append(
                Check(
                    severity="warning",
                    code="PRECISION_DEFAULT_DIFFERS",
                    job=job.name,
                    message=(
                        f"Job '{job.name}' uses the default FP8 recipe, which differs between its cards "
                        f"({', '.join(sorted(defaults))}; TE get_default_fp8_recipe): name one recipe for all ranks."
                    ),
                )
            )
    if job.base_weights == "fp8" and job.method != "lora":
        checks.append(
            Check(
                severity="info",
                code="PRECISION_NOTE",
                job=job.name,
                message=(
                    f"Job '{job.name}': base_weights applies to LoRA; "
                    + (
                        "QLoRA stores the base as its quantization says."
                        if job.method == "qlora"
                        else "a full fine-tune has no frozen base."
                    )
                    + " It is ignored."
                ),
            )
        )
    return checks


def precision_checks(job: Job, cards: list[tuple[int, CardSpec]]) -> list[Check]:
    """PRECISION_UNSUPPORTED errors for each card that cannot run the job's recipe (or its FP8 base), and the
    documented-or-not notes of the rules that allow it."""
    checks: list[Check] = []
    seen: set[tuple[str, str]] = set()
    for slot, card, recipe, what in _wanted(job, cards):
        if (card.id, recipe + what) in seen:
            continue
        seen.add((card.id, recipe + what))
        check = _support_check(job, slot, card, recipe, what, cards)
        if check is not None:
            checks.append(check)
    return checks + _job_wide_checks(job, cards)


def precision_choices(cards: list[CardSpec]) -> dict[str, str | None]:
    """For a job on ``cards``: every ``precision`` word, None where all the cards run it, else why not
    (each refusing card with its compute capability and the rule's source), for a picker to disable."""
    out: dict[str, str | None] = {"mixed-bf16": None, "pure-bf16": None}
    for word in ("fp8", *RECIPES):
        reasons = []
        for card in cards:
            recipe = recipe_of(word, card.capability)
            if recipe is None:
                continue
            s = support(card, recipe)
            if not s.allowed:
                reasons.append(f"{card.name} (compute capability {s.capability_text}): "
                               f"{s.reason or 'not supported'} [{s.source}]")  # fmt: skip
        out[word] = "; ".join(dict.fromkeys(reasons)) or None
    return out
