"""Low-precision training: which recipe a card supports, what it keeps in memory, what it is measured to gain.

Support follows the software's own checks, rule by rule, at the versions read:
- Transformer Engine (TE) main at commit d0067d0 (2.20.0.dev0), ``transformer_engine/pytorch/quantization.py``:
  ``_compute_fp8_support``, ``_compute_fp8_block_scaling_support``, ``_compute_mxfp8_support``,
  ``_compute_nvfp4_support`` and ``get_default_fp8_recipe``; history from the repository's tags.
- torchao 0.19.0 at commit 36027d8: ``torchao/utils.py`` (``is_sm_at_least_89`` / ``is_sm_at_least_100``),
  ``torchao/float8/config.py``, ``torchao/prototype/mx_formats/kernels.py``.
Where the code's gate and NVIDIA's documentation ("Supported devices" on each recipe's page under TE's
``docs/features/low_precision_training/``) disagree, the rule follows the code and says so in its note.

Memory follows the same TE pages: what each recipe keeps besides the BF16 weights and FP32 master weights that
mixed-bf16 already counts (engine/precision.py). GB = 10^9 bytes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal, get_args

from configurator.catalog.cards import CardSpec
from configurator.catalog.models import ModelSpec
from configurator.engine.build import Job
from configurator.engine.result import Check

Recipe = Literal["fp8-delayed", "fp8-current", "fp8-block", "mxfp8", "nvfp4"]
RECIPES: tuple[Recipe, ...] = get_args(Recipe)
Software = Literal["transformer-engine", "torchao"]
DEFAULT_SOFTWARE: Software = "transformer-engine"
TE_VERSION_READ = (2, 20)  # 2.20.0.dev0, the TE main branch the rules were read from
Capability = tuple[int, int]

# What each recipe is in TE (transformer_engine/common/recipe/__init__.py) and in torchao.
RECIPE_NAMES: dict[Recipe, str] = {
    "fp8-delayed": "FP8 delayed scaling (TE DelayedScaling)",
    "fp8-current": "FP8 current scaling (TE Float8CurrentScaling; torchao float8 tensorwise)",
    "fp8-block": "FP8 block scaling, 1x128 / 128x128 (TE Float8BlockScaling)",
    "mxfp8": "MXFP8, one E8M0 scale per 32 values (TE MXFP8BlockScaling; torchao mxfp8)",
    "nvfp4": "NVFP4, one E4M3 scale per 16 values and an FP32 per tensor (TE NVFP4BlockScaling)",
}

TE_FILE = "TransformerEngine transformer_engine/pytorch/quantization.py"
TE_DOCS = "TransformerEngine docs/features/low_precision_training"


@dataclass(frozen=True)
class Gate:
    """One branch of a support check, in the order the code tests them: capabilities in [low, below) get
    ``allowed`` and, when refused, the code's own message."""

    low: Capability
    below: Capability | None
    allowed: bool
    message: str = ""
    note: str = ""  # a disagreement with the docs, or a prerequisite the configurator cannot see (CUDA version)


@dataclass(frozen=True)
class Rule:
    recipe: Recipe
    software: Software
    source: str  # file and function (or doc page) of the check
    gates: tuple[Gate, ...]  # first match wins; no match: refused with ``otherwise``
    otherwise: str
    since: tuple[int, int] | None = None  # first software version with the recipe (TE)
    history: tuple[tuple[tuple[int, int], tuple[Gate, ...]], ...] = ()  # (until version, gates) for older versions


_NVFP4_DOCS = (
    "TE's code gate passes here (compute capability >= 10.0), but TE's NVFP4 page (nvfp4.rst, 'Supported "
    "devices') lists training for SM 10.0 and SM 10.3 only: outside them it is undocumented."
)

RULES: tuple[Rule, ...] = (
    Rule(
        "fp8-delayed",
        "transformer-engine",
        f"{TE_FILE}: _compute_fp8_support (check_recipe_support)",
        (
            Gate((9, 0), None, True),
            Gate((8, 9), (9, 0), True, note="Ada needs CUDA >= 12.1 and cuBLASLt >= 12.1.3 (same check)."),
        ),
        "Device compute capability 8.9 or higher required for FP8 execution.",
        since=(0, 8),
    ),
    Rule(
        "fp8-current",
        "transformer-engine",
        f"{TE_FILE}: _compute_fp8_support (check_recipe_support)",
        (
            Gate((9, 0), None, True),
            Gate((8, 9), (9, 0), True, note="Ada needs CUDA >= 12.1 and cuBLASLt >= 12.1.3 (same check)."),
        ),
        "Device compute capability 8.9 or higher required for FP8 execution.",
        since=(2, 2),
    ),
    Rule(
        "fp8-block",
        "transformer-engine",
        f"{TE_FILE}: _compute_fp8_block_scaling_support",
        (
            Gate(
                (9, 0),
                (10, 0),
                True,
                note="Needs CUDA >= 12.9 (same check); on Hopper the block-scaled GEMMs are "
                "software-emulated (TE fp8_blockwise_scaling.rst).",
            ),
            Gate(
                (10, 0),
                (12, 0),
                True,
                note="Needs CUDA >= 12.9; TE emulates the recipe with MXFP8 on Blackwell "
                "(fp8_blockwise_scaling.rst) and prefers MXFP8 there.",
            ),
            Gate(
                (12, 0),
                None,
                True,
                note="TE's code gate passes here (compute capability >= 9.0, CUDA >= 12.9), but "
                "its docs say Blackwell runs this recipe through MXFP8, which the same file refuses on 12.0+ "
                "(_compute_mxfp8_support): undocumented and untested here.",
            ),
        ),
        "FP8 block scaled GEMM requires compute capability 9.0 or higher and CUDA >= 12.9.",
        since=(2, 3),
        history=(((2, 8), (Gate((9, 0), (10, 0), True, note="Needs CUDA >= 12.9."),)),),
    ),
    Rule(
        "mxfp8",
        "transformer-engine",
        f"{TE_FILE}: _compute_mxfp8_support",
        (
            Gate((12, 0), None, False, "MXFP8 (for all gemm layouts) is not supported on 12.0+ architectures yet."),
            Gate((10, 0), (12, 0), True),
        ),
        "Device compute capability 10.0 or higher required for MXFP8 execution.",
        since=(2, 0),
        history=(((2, 5), (Gate((10, 0), None, True),)),),
    ),
    Rule(
        "nvfp4",
        "transformer-engine",
        f"{TE_FILE}: _compute_nvfp4_support",
        (
            Gate((10, 0), (10, 1), True),
            Gate((10, 3), (10, 4), True),
            Gate((10, 0), None, True, note=_NVFP4_DOCS),
        ),
        "Device compute capability 10.0 or higher required for NVFP4 execution.",
        since=(2, 9),
    ),
    # torchao: dynamic scaling only (torchao/float8/config.py ScalingType has DYNAMIC and DISABLED), so no
    # delayed scaling, and no 128x128 block recipe for nn.Linear training.
    Rule(
        "fp8-current",
        "torchao",
        "torchao torchao/float8 (tensorwise); torchao/utils.py is_sm_at_least_89",
        (
            Gate(
                (8, 9),
                None,
                True,
                note="torchao's float8 training has no gate of its own; its FP8 GEMM "
                "(torch._scaled_mm) needs FP8 tensor cores, compute capability 8.9+ (torchao/utils.py "
                "is_sm_at_least_89).",
            ),
        ),
        "FP8 needs compute capability 8.9 or higher (torchao/utils.py is_sm_at_least_89).",
    ),
    Rule(
        "mxfp8",
        "torchao",
        "torchao torchao/prototype/mx_formats/kernels.py (is_sm_at_least_100, CUDA >= 12.8)",
        (
            Gate((10, 0), (12, 0), True, note="Prototype (torchao docs/source/workflows/training.md, mxfp8)."),
            Gate(
                (12, 0),
                None,
                True,
                note="torchao's gate (is_sm_at_least_100) passes on 12.0+, but its docs "
                "measure MXFP8 training on B200 only; Transformer Engine refuses MXFP8 here: undocumented.",
            ),
        ),
        "MXFP8 needs compute capability 10.0 or higher (torchao/utils.py is_sm_at_least_100).",
    ),
    Rule(
        "nvfp4",
        "torchao",
        "torchao torchao/prototype/mx_formats (is_sm_at_least_100)",
        (
            Gate(
                (10, 0),
                None,
                True,
                note="torchao's docs rate NVFP4 training performance red (emulated, not "
                "optimised; docs/source/workflows/training.md, nvfp4).",
            ),
        ),
        "NVFP4 needs compute capability 10.0 or higher (torchao/utils.py is_sm_at_least_100).",
    ),
)


@dataclass(frozen=True)
class Support:
    recipe: Recipe
    card: str  # card name
    capability: Capability | None
    allowed: bool
    reason: str  # the software's refusal message, or ''
    source: str
    note: str = ""

    @property
    def capability_text(self) -> str:
        return f"{self.capability[0]}.{self.capability[1]}" if self.capability else "unknown"


def _rule(recipe: Recipe, software: Software) -> Rule | None:
    return next((r for r in RULES if r.recipe == recipe and r.software == software), None)


def support(
    card: CardSpec, recipe: Recipe, software: Software = DEFAULT_SOFTWARE, version: tuple[int, int] = TE_VERSION_READ
) -> Support:
    """Whether ``software`` (at ``version``, TE only) trains ``recipe`` on ``card``, with the rule's source."""
    return support_at(card.capability, recipe, software, version, card.name)


@functools.cache  # pure in its (hashable) arguments; asked for every card of every job on every edit
def support_at(
    cc: Capability | None,
    recipe: Recipe,
    software: Software = DEFAULT_SOFTWARE,
    version: tuple[int, int] = TE_VERSION_READ,
    card: str = "",
) -> Support:
    """As ``support``, for a compute capability."""
    rule = _rule(recipe, software)
    if rule is None:
        return Support(
            recipe,
            card,
            cc,
            False,
            f"{software} has no {RECIPE_NAMES[recipe]} recipe.",
            "torchao torchao/float8/config.py (ScalingType: DYNAMIC, DISABLED)",
        )
    if cc is None:
        return Support(recipe, card, cc, False, "compute capability unknown", rule.source)
    if software == "transformer-engine" and rule.since and version < rule.since:
        return Support(
            recipe,
            card,
            cc,
            False,
            f"Transformer Engine {version[0]}.{version[1]} predates the recipe "
            f"(first in {rule.since[0]}.{rule.since[1]}).",
            rule.source,
        )
    gates = rule.gates
    for until, older in rule.history:
        if software == "transformer-engine" and version <= until:
            gates = older
            break
    for g in gates:
        if cc >= g.low and (g.below is None or cc < g.below):
            return Support(recipe, card, cc, g.allowed, g.message, rule.source, g.note)
    return Support(recipe, card, cc, False, rule.otherwise, rule.source)


def default_fp8_recipe(cc: Capability | None) -> Recipe:
    """TE get_default_fp8_recipe(): MXFP8 where _compute_mxfp8_support passes, current scaling on 12.0+
    ("a temporary restriction until MXFP8 is supported for all gemm layouts"), else delayed scaling.
    Unknown capability: delayed scaling (what the function returns below 10.0)."""
    if support_at(cc, "mxfp8").allowed:
        return "mxfp8"
    if cc is not None and cc >= (12, 0):
        return "fp8-current"
    return "fp8-delayed"


def recipe_of(precision: str, cc: Capability | None) -> Recipe | None:
    """The recipe a job precision runs on a card of capability ``cc``: None for mixed-bf16 / pure-bf16."""
    if precision == "fp8":
        return default_fp8_recipe(cc)
    return precision if precision in RECIPES else None  # type: ignore[return-value]


def supported_recipes(cards: list[CardSpec], software: Software = DEFAULT_SOFTWARE) -> list[Recipe]:
    """Recipes every card supports (a job across mixed cards gets the intersection)."""
    return [r for r in RECIPES if cards and all(support(c, r, software).allowed for c in cards)]


def precision_checks(job: Job, cards: list[tuple[int, CardSpec]]) -> list[Check]:
    """PRECISION_UNSUPPORTED errors for each card that cannot run the job's recipe (or its FP8 base), and the
    documented-or-not notes of the rules that allow it."""
    checks: list[Check] = []
    seen: set[tuple[str, str]] = set()
    wanted: list[tuple[int, CardSpec, Recipe, str]] = []
    for slot, card in cards:
        recipe = recipe_of(job.precision, card.capability)
        if recipe is not None:
            wanted.append((slot, card, recipe, f"precision {job.precision}"))
        if job.base_weights == "fp8" and job.method == "lora":
            # TE quantized_model_init / torchao float8 weights: FP8 storage is read by FP8 GEMMs (or
            # dequantised); both need the FP8 support of _compute_fp8_support.
            wanted.append((slot, card, "fp8-current", "an FP8 base (base_weights: fp8)"))
    for slot, card, recipe, what in wanted:
        s = support(card, recipe)
        if (card.id, recipe + what) in seen:
            continue
        seen.add((card.id, recipe + what))
        if not s.allowed:
            mixed = (
                " The job's cards together support: "
                + (", ".join(supported_recipes([c for _, c in cards])) or "no low-precision recipe")
                + "."
            )
            checks.append(
                Check(
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
            )
        elif s.note:
            checks.append(
                Check(
                    severity="info",
                    code="PRECISION_NOTE",
                    slot=slot,
                    job=job.name,
                    message=(
                        f"Job '{job.name}': {RECIPE_NAMES[recipe]} on {card.name} (compute capability "
                        f"{s.capability_text}): {s.note}"
                    ),
                )
            )
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


# ---- memory ------------------------------------------------------------------------------------------------

FP8 = 1  # E4M3 / E5M2, one byte per value
FP4 = 0.5  # E2M1
FP32 = 4
BF16 = 2
# Bytes of scaling factors per quantized value:
MXFP8_SCALE = 1 / 32  # one E8M0 (1 B) per 32 values (TE mxfp8.rst, "Data Format")
NVFP4_SCALE = 1 / 16  # one E4M3 (1 B) per 16 values, plus one FP32 per tensor (TE nvfp4.rst, "Data Format")
BLOCK_WEIGHT_SCALE = FP32 / (128 * 128)  # weights: one FP32 per 128x128 tile (TE fp8_blockwise_scaling.rst)
PER_TENSOR_SCALE = 3 * FP32  # scale, scale_inv and amax per tensor (delayed/current scaling; negligible)
# DelayedScaling.amax_history_len defaults to 1024 (transformer_engine/common/recipe/__init__.py); each module
# keeps a forward history (len, gemms x 3) and a backward one (len, gemms x 2) in FP32 (fp8_delayed_scaling.rst).
AMAX_HISTORY_LEN = 1024
AMAX_HISTORY_BYTES_PER_LINEAR = AMAX_HISTORY_LEN * (3 + 2) * FP32


def copies_per_weight(recipe: Recipe, cc: Capability | None) -> int:
    """Quantized tensors a weight needs for its two usages: rowwise for forward, columnwise for backward.
    Per-tensor FP8 on Blackwell: one tensor serves both ("On Blackwell, rowwise and columnwise usages share the
    same memory layout", performance_considerations.rst); on Hopper/Ada the columnwise one is a transpose.
    Block recipes always keep two: their scales run along different directions (mxfp8.rst, "Both must be
    quantized independently"; fp8_blockwise_scaling.rst; NVFP4's columnwise data is stored transposed, nvfp4.rst).
    Unknown capability: two (the larger)."""
    if recipe in ("fp8-delayed", "fp8-current"):
        return 1 if cc is not None and cc >= (10, 0) else 2
    return 2


def bytes_per_copy(recipe: Recipe) -> float:
    """Bytes per weight value of one quantized copy, its block scales included."""
    return {
        "fp8-delayed": FP8,
        "fp8-current": FP8,
        "fp8-block": FP8 + BLOCK_WEIGHT_SCALE,
        "mxfp8": FP8 + MXFP8_SCALE,
        "nvfp4": FP4 + NVFP4_SCALE,
    }[recipe]


@dataclass(frozen=True)
class LowPrecisionBytes:
    """What a recipe or an FP8 base adds on one card, beside what mixed-bf16 already counts."""

    recipe: Recipe | None
    copies: float = 0.0  # quantized weight copies kept through the step (or the FP8 base's transposes)
    scales: float = 0.0  # per-tensor scales and amax histories
    transient: float = 0.0  # copies of FSDP's gathered units; an FP8 base dequantised for a BF16 matmul
    notes: tuple[str, ...] = ()

    @property
    def persistent(self) -> float:
        return self.copies + self.scales


def fp8_base_bytes(frozen_linear: int, frozen_other: int, linear_tensors: int) -> float:
    """A LoRA base stored in FP8: the block linear weights at 1 B with a per-tensor scale; embeddings, lm_head and
    norms stay BF16 (as QLoRA keeps them, engine/memory.py)."""
    return frozen_linear * FP8 + linear_tensors * PER_TENSOR_SCALE + frozen_other * BF16


_LINEAR_COUNTS: dict[int, tuple[ModelSpec, int]] = {}


def linear_tensor_count(model: ModelSpec) -> int:
    """Linear weight tensors in the decoder blocks (0 for a parameter-count-only model); memoised on the
    (immutable) model object, which the entry keeps alive so its id is not reused."""
    hit = _LINEAR_COUNTS.get(id(model))
    if hit is None or hit[0] is not model:
        if len(_LINEAR_COUNTS) > 256:
            _LINEAR_COUNTS.clear()
        hit = _LINEAR_COUNTS[id(model)] = (model, sum(m.count for m in model.linear_modules()))
    return hit[1]


def extra_bytes(
    model: ModelSpec,
    job: Job,
    quantized: int,
    largest_linear: int,
    layer_linear: int,
    cc: Capability | None,
    *,
    shards: int = 1,
    tp: int = 1,
) -> LowPrecisionBytes:
    """Bytes the job's recipe (or FP8 base) adds on one card.

    quantized: linear weights the recipe quantizes (the decoder blocks' linears, TE's Linear layers; embeddings,
    lm_head and LoRA adapters stay high precision); layer_linear: those of one decoder layer.
    TE quantizes the weights before each GEMM and keeps one usage, the columnwise one the backward GEMM reads, for
    backward: its Hopper memory example counts "2 MB (weight) + 1 MB (weight in FP8)" after the forward pass
    (performance_considerations.rst, "Memory usage"). So without activation checkpointing one quantized copy of
    every weight lives from forward to backward; with it only the recomputed layer's (two layers under FSDP, whose
    gathered units are what gets quantized) exist, as a transient. The layer being quantized holds both usages
    at once (copies_per_weight). Activations are left BF16: TE saves FP8 inputs for backward, but torchao's
    Llama3-8B measurement shows no saving overall (tests/test_lowprecision.py), so none is promised.
    """
    recipe = recipe_of(job.precision, cc)
    fp8_base = job.base_weights == "fp8" and job.method == "lora"
    tensors = linear_tensor_count(model)
    notes: list[str] = []
    copies = scales = transient = 0.0
    if recipe is not None:
        per_tensor = recipe in ("fp8-delayed", "fp8-current")
        both = copies_per_weight(recipe, cc) * bytes_per_copy(recipe)  # both usages, while a layer is quantized
        saved = bytes_per_copy(recipe)  # the usage kept for backward
        if fp8_base and per_tensor:
            # the FP8 base is the rowwise copy; only a transpose (Hopper/Ada) is extra, on Blackwell nothing
            both -= FP8
            saved = FP8 if copies_per_weight(recipe, cc) == 2 else 0.0
        layers_in_flight = 2 if shards > 1 else 1
        if job.gradient_checkpointing:
            transient += layers_in_flight * layer_linear * both / tp
        else:
            copies += quantized * saved / tp  # of the whole (gathered) weights, not of a shard
            transient += layers_in_flight * layer_linear * (both - saved) / tp
        if per_tensor:
            scales += tensors * PER_TENSOR_SCALE  # every rank keeps every module's scales
        if recipe == "fp8-delayed":
            scales += tensors * AMAX_HISTORY_BYTES_PER_LINEAR
        if recipe == "nvfp4":
            scales += tensors * FP32 * copies_per_weight(recipe, cc)
        if not tensors:
            notes.append("Per-tensor scales and amax histories are not counted: the model has no architecture.")
    elif fp8_base:
        # BF16 compute over an FP8 base: one weight dequantised to BF16 per matmul (as QLoRA's NF4, memory.py)
        transient += largest_linear * BF16 / tp
    return LowPrecisionBytes(recipe, copies, scales, transient, tuple(notes))


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
