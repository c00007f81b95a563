"""Low-precision training, memory: what each recipe keeps besides the BF16 weights and FP32 master weights that
mixed-bf16 already counts (engine/memory/precision.py), after TE's docs/features/low_precision_training pages.
GB = 10^9 bytes. (engine/lowprecision/checks.py re-exports every name here.)
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.catalog.models import ModelSpec
from configurator.engine.lowprecision.rules import Capability, Recipe, recipe_of
from configurator.engine.model.build import Job

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
    norms stay BF16 (as QLoRA keeps them, engine/memory/estimate.py)."""
    return frozen_linear * FP8 + linear_tensors * PER_TENSOR_SCALE + frozen_other * BF16


_LINEAR_COUNTS: dict[int, tuple[ModelSpec, int]] = {}
_BF16_ONLY = LowPrecisionBytes(None)  # no recipe, no FP8 base: nothing added (shared: the record is frozen)


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
    Llama3-8B measurement shows no saving overall (tests/engine/test_lowprecision.py), so none is promised.
    """
    recipe = recipe_of(job.precision, cc)
    fp8_base = job.base_weights == "fp8" and job.method == "lora"
    if recipe is None and not fp8_base:  # BF16 compute on a BF16 (or NF4) base: most jobs, twice per evaluation
        return _BF16_ONLY
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
