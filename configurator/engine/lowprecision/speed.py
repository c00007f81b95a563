"""Low-precision training, speed: the published whole-step speed-ups a recipe is measured to gain, and the step
time they give. (engine/lowprecision/checks.py re-exports every name here.)
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.catalog.cards import CardSpec
from configurator.engine.lowprecision.rules import RECIPE_NAMES, Capability, Recipe, recipe_of
from configurator.engine.model.build import Job

# ---- speed -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measurement:
    recipe: Recipe
    capability: Capability  # the measured card's; applied to cards of the same major version
    card: str
    speedup: float  # whole training step, tokens/s over the BF16 baseline, minus 1
    source: str
    workload: str = "Llama3-8B pretraining"  # what was measured (another model or a LoRA job may gain less)


# Whole-step measurements (not GEMM-only): torchao docs/source/workflows/training.md, Llama3-8B pretraining with
# torchtitan, 8 GPUs, batch 1, sequence 8192, torch.compile, FSDP2, per-op SAC.
_TORCHAO = "torchao docs/source/workflows/training.md"
MEASUREMENTS: tuple[Measurement, ...] = (
    Measurement(
        "fp8-current",
        (9, 0),
        "8x H100",
        0.2503,
        f"{_TORCHAO} (e2e training benchmarks, NVIDIA H100): float8 tensorwise with float8 all-gather, "
        "7689.5 vs 6150 tokens/s, +25.03 %",
    ),
    Measurement(
        "fp8-current",
        (10, 0),
        "8x B200",
        0.254,
        f"{_TORCHAO} (Training e2e benchmarks on NVIDIA B200): float8 tensorwise, 10417.0 vs 8307.5 tokens/s, +25.4 %",
    ),
    Measurement(
        "mxfp8",
        (10, 0),
        "8x B200",
        0.200,
        f"{_TORCHAO} (Training e2e benchmarks on NVIDIA B200): mxfp8_cublas, 9969.0 vs 8307.5 tokens/s, +20.0 %",
    ),
    # Transformer Engine's own delayed-scaling recipe, the default on Hopper (get_default_fp8_recipe below 12.0):
    # its Hugging Face Llama fine-tuning tutorial times ten steps (after five warm-up) of the same TE
    # TransformerLayer model in BF16 and in FP8, through Accelerate's FP8RecipeKwargs(backend="te"), which builds
    # te.recipe.DelayedScaling (accelerate/utils/transformer_engine.py apply_fp8_autowrap); the tutorial's
    # benchmarks ran on H100 (NVIDIA/TransformerEngine PR #615). Llama 2 7B reads 185 vs 160 ms, +15.6 %.
    Measurement(
        "fp8-delayed",
        (9, 0),
        "1x H100",
        217 / 185 - 1,
        "NVIDIA/TransformerEngine docs/examples/te_llama/tutorial_accelerate_hf_llama_finetuning_with_te.ipynb "
        "(30f979b, Llama 3 8B): TE TransformerLayer in BF16 217 ms per step, in FP8 (DelayedScaling) 185 ms, +17.3 %",
        "Llama 3 8B full fine-tuning on one H100, batch 8 of at most 256 tokens",
    ),
)
# Also found, not applied: LLaMA-Factory's TE backend (hiyouga/LlamaFactory PR #9705, Accelerate's DelayedScaling
# on an H100 80GB, Qwen2.5-7B) 1.02 s vs 0.90 s per step, +13 %; torchao's own delayed scaling on H100 for a 1.5B
# GPT (pytorch/ao issue 1297) +3.6 to +4.3 %, where TE's delayed recipe read 493.17 vs 501.2 TFLOP/s, +1.6 %: small
# GEMMs, far from the 8B shapes the tutorial measured.
# torchao's float8 rowwise (+10.05 % on H100, +4.0 % on B200) has no Transformer Engine recipe of the same
# granularity here, so it is not applied to any recipe.


def measured_speedup(recipe: Recipe, cards: list[CardSpec]) -> Measurement | None:
    """A published whole-step speed-up for ``recipe`` on the job's slowest architecture, or None (unknown)."""
    found: list[Measurement] = []
    for c in cards:
        cc = c.capability
        m = next((m for m in MEASUREMENTS if m.recipe == recipe and cc is not None and cc[0] == m.capability[0]), None)
        if m is None:
            return None
        found.append(m)
    return min(found, key=lambda m: m.speedup) if found else None


def recipe_rate(card: CardSpec, recipe: Recipe) -> float | None:
    """The card's dense tensor rate for the recipe's GEMMs (TFLOPS): FP8 for the FP8 recipes, FP4 for NVFP4."""
    spec = card.fp4_dense_tflops if recipe == "nvfp4" else card.fp8_dense_tflops
    return float(spec.value) if spec.value else None


def job_capability(cards: list[CardSpec]) -> Capability | None:
    """The lowest compute capability among a job's cards: it sets the recipe ``fp8`` resolves to and the copies
    counted (Hopper/Ada keep transposes), the larger memory of a mixed job."""
    known = [c.capability for c in cards if c.capability is not None]
    return min(known) if known else None


@dataclass(frozen=True)
class RecipeTime:
    """Compute time under a low-precision recipe: the recipe's peak bound and the measured whole-step figure."""

    recipe: Recipe | None
    recipe_tflops: float | None = None  # slowest card's dense rate for the recipe (MIG: its share)
    peak_matmul_seconds: float | None = None  # matmuls at the recipe's peak rate: a bound, not a prediction
    speedup: float | None = None  # published whole-step speed-up applied (None: unknown)
    speedup_source: str | None = None
    seconds: float | None = None  # the BF16 step divided by (1 + speedup); None when no measurement exists
    notes: tuple[str, ...] = ()


def recipe_time(job: Job, cards: list[tuple[CardSpec, float]], flops: float, utilization: float,
                bf16_seconds: float | None) -> RecipeTime:  # fmt: skip
    """Step time for the job's recipe. The step speeds up by a published whole-step measurement of the same
    recipe on the same architecture (MEASUREMENTS), never by the peak-rate ratio; without one it is unknown."""
    specs = [c for c, _ in cards]
    recipe = recipe_of(job.precision, job_capability(specs))
    if recipe is None:
        return RecipeTime(None, seconds=bf16_seconds)
    rates = [(recipe_rate(c, recipe) or 0.0) * share for c, share in cards]
    slowest = min(rates) if rates and min(rates) > 0 else None
    peak = flops / (slowest * 1e12 * utilization) if slowest else None
    notes: list[str] = []
    m = measured_speedup(recipe, specs)
    if m is None:
        near = [x for x in MEASUREMENTS if any(c.capability and c.capability[0] == x.capability[0] for c in specs)]
        notes.append(
            f"Step time under {RECIPE_NAMES[recipe]} is unknown: no published whole-step measurement of this recipe "
            f"on {', '.join(sorted({c.name for c in specs}))}; the peak-rate ratio is not a prediction."
            + (" Measured on this architecture: " + "; ".join(f"{x.recipe} +{x.speedup:.1%} ({x.card})" for x in near)
               + "." if near else "")
        )  # fmt: skip
        return RecipeTime(recipe, slowest, peak, notes=tuple(notes))
    seconds = bf16_seconds / (1 + m.speedup) if bf16_seconds is not None else None
    notes.append(
        f"{RECIPE_NAMES[recipe]}: step time is the BF16 step over 1 + {m.speedup:.1%}, the whole-step speed-up "
        f"measured on {m.card} ({m.source}); measured on {m.workload}, so a different model or a LoRA job may gain "
        "less."
    )
    return RecipeTime(recipe, slowest, peak, m.speedup, m.source, seconds, tuple(notes))
