"""Vision-language jobs: what images add to a text job's memory (``Job.images_per_sample``, ``image_resolution``,
``train_vision_tower``).

- The language model runs on text + image tokens: each image becomes ``VisionTower.image_tokens`` tokens in the
  sequence (Qwen2.5-VL: smart_resize to multiples of 28 px, one token per 2 x 2 patches of 14 px, processing
  ``image_grid_thw.prod() // merge_size**2``; Gemma 3: 256 pooled tokens an image; Llama 3.2 Vision: none, the
  text cross-attends to the tiles), so every text activation is sized at the longer sequence.
- The vision tower (encoder and projector, ``catalog/vision.py``) is resident in the base's dtype. Frozen (the
  usual recipe: LLaMA-Factory ``freeze_vision_tower``), it runs in forward with no tensor that needs a gradient, so
  autograd keeps none of its activations: it adds its weights and the pixel inputs only. Trained (fully in a full
  fine-tune; through LoRA on every linear of the tower and projector in a LoRA job, which is what PEFT's
  ``all-linear`` does on a VLM: peft/tuners/tuners_utils.py _maybe_include_all_linear_layers keeps every
  nn.Linear but the output embedding) it keeps per encoder token and layer what its block saves for backward
  (``tower_layer_bytes``), or with gradient checkpointing only each block's input (transformers
  ``GradientCheckpointingLayer``: Qwen2_5_VLVisionBlock, SiglipEncoderLayer).
- The pixel inputs: the processor's float32 ``pixel_values`` live on the card through the step (Qwen2.5-VL:
  patches x 3 x 2 x 14 x 14; Gemma 3: images x 3 x 896 x 896).
"""

from __future__ import annotations

from configurator.catalog.models import ModelSpec
from configurator.catalog.vision import VisionTower
from configurator.engine.build import Job
from configurator.engine.precision import BF16, FP32
from configurator.engine.result import VisionInfo


def tower(model: ModelSpec, job: Job) -> VisionTower | None:
    """The model's vision tower when the job feeds it images (None: a text job, or a text-only model)."""
    if job.images_per_sample <= 0 or model.vision is None:
        return None
    return model.vision


def image_tokens(model: ModelSpec, job: Job) -> int:
    """Image tokens one sample adds to the language model's sequence."""
    v = tower(model, job)
    if v is None:
        return 0
    return job.images_per_sample * v.image_tokens(job.image_resolution, job.image_resolution)


def encoder_tokens(model: ModelSpec, job: Job) -> int:
    """Tokens the vision encoder runs on for one sample (all its images)."""
    v = tower(model, job)
    if v is None:
        return 0
    return job.images_per_sample * v.encoder_tokens(job.image_resolution, job.image_resolution)


def language_view(model: ModelSpec, job: Job) -> Job:
    """The job as the language model sees it: its sequence is the text and the image tokens."""
    extra = image_tokens(model, job)
    return job.model_copy(update={"sequence_length": job.sequence_length + extra}) if extra else job


def tower_trained_params(model: ModelSpec, job: Job) -> int:
    """Parameters the tower adds to what trains: all of it in a full fine-tune, LoRA's A and B on each of its linears
    (rank x (in + out)) otherwise; 0 when frozen."""
    v = tower(model, job)
    if v is None or not job.train_vision_tower:
        return 0
    if job.method == "full":
        return v.params()
    return sum(job.lora.rank * (i + o) * n for _name, i, o, n in v.linear_shapes())


def pixel_bytes(model: ModelSpec, job: Job) -> float:
    """The processor's float32 pixel_values of one micro-batch."""
    v = tower(model, job)
    if v is None:
        return 0.0
    per_patch = v.num_channels * v.patch_size * v.patch_size * v.temporal_patch_size
    if v.kind == "qwen2_5_vl":
        values = encoder_tokens(model, job) * per_patch
    else:  # whole images (Gemma 3: image_size a side; mllama: its tiles)
        values = job.images_per_sample * v.num_channels * v.encoder_tokens(job.image_resolution,
                                                                           job.image_resolution) * v.patch_size**2
    return values * FP32 * job.micro_batch_size


def tower_layer_bytes(v: VisionTower, job: Job) -> float:
    """Bytes one encoder block keeps per encoder token for backward when the tower trains (bf16 weights, no
    autocast), read from the modelling code:

    - each norm keeps an fp32 copy of its input (Qwen2_5_VLRMSNorm's ``to(float32)``; SigLIP's LayerNorm keeps its
      input, bf16, and fp32 mean and rstd per token);
    - a LoRA-adapted linear keeps an fp32 copy of its input for lora_A (PEFT's ``_cast_input_dtype`` to the fp32
      adapter) and A's output (r values); a fully trained linear keeps its bf16 input;
    - attention: the fused kernel keeps q, k, v, its output and an fp32 log-sum-exp per head (no mask: Qwen2.5-VL
      runs each window as its own SDPA call, modeling_qwen2_5_vl.py Qwen2_5_VLVisionAttention). Qwen2.5-VL's
      q and k are new tensors out of the fp32 rotary embedding (apply_rotary_pos_emb_vision); v stays a view of the
      fused qkv output, which therefore stays whole; the windows' outputs are concatenated into a new tensor;
    - the MLP: SwiGLU (Qwen2.5-VL: gate, SiLU and up kept) or GELU-tanh (SigLIP fc1 output kept, and its output).
    """
    h, f, nh = v.hidden_size, v.intermediate_size, v.num_heads
    lora = job.method != "full"
    r = job.lora.rank

    def linear_in(width: int, shared: bool = False) -> float:
        if lora:
            return FP32 * width + FP32 * r  # the fp32 input copy and A's output
        return 0.0 if shared else BF16 * width

    if v.kind == "qwen2_5_vl":
        norms = 2 * FP32 * h + (2 * BF16 * h if not lora else 0.0)  # a trained norm weight keeps the bf16 normed
        attention = BF16 * 3 * h + BF16 * 2 * h + BF16 * h + FP32 * nh  # qkv output (v's base), q, k, out, lse
        attention += BF16 * h  # the concatenated windows, proj's input
        mlp = 3 * BF16 * f  # gate output (SiLU's input), SiLU's output, up
        linears = linear_in(h, shared=True) + linear_in(h, shared=not lora)  # qkv, proj (the concatenation)
        linears += 2 * linear_in(h, shared=True) + linear_in(f)  # gate and up share norm2's output; down
        if not lora:
            linears += BF16 * f  # down's input: the product
        return norms + attention + mlp + linears
    # siglip / mllama encoder layer: LayerNorm, q/k/v/o, fc1 -> GELU -> fc2
    norms = 2 * (BF16 * h + 2 * FP32)
    attention = BF16 * 4 * h + FP32 * nh  # q, k, v (new tensors after the head split), output, lse
    mlp = BF16 * f * 2  # fc1 output (GELU's input) and GELU's output (fc2's input)
    linears = 3 * linear_in(h, shared=True) + linear_in(h, shared=True) + linear_in(h, shared=True) + linear_in(f)
    return norms + attention + mlp + linears


def tower_saved_bytes(model: ModelSpec, job: Job) -> float:
    """What the tower keeps for backward over one micro-batch (0 when frozen)."""
    v = tower(model, job)
    if v is None or not job.train_vision_tower:
        return 0.0
    tokens = encoder_tokens(model, job) * job.micro_batch_size
    layers = v.num_layers + v.num_global_layers
    if job.gradient_checkpointing:
        return layers * BF16 * v.hidden_size * tokens  # each block's input
    return layers * tower_layer_bytes(v, job) * tokens


def tower_extra_bytes(model: ModelSpec, job: Job) -> float:
    """Everything a VLM job holds through the step beyond the language model's activations: the pixel inputs and
    the tower's saved activations."""
    return pixel_bytes(model, job) + tower_saved_bytes(model, job)


SOURCES = {
    "qwen2_5_vl": [
        "image tokens: transformers models/qwen2_vl/image_processing_qwen2_vl.py smart_resize (multiples of 28 px, "
        "max_pixels 12845056 as Qwen2.5-VL-7B-Instruct's preprocessor_config.json ships it); processing_qwen2_5_vl.py "
        "image_grid_thw.prod() // merge_size**2",
        "tower: modeling_qwen2_5_vl.py Qwen2_5_VisionTransformerPretrainedModel (32 blocks, windowed attention, "
        "PatchMerger)",
    ],
    "siglip": [
        "image tokens: transformers models/gemma3/processing_gemma3.py (image_size 896, mm_tokens_per_image 256 "
        "after Gemma3MultiModalProjector's average pooling)",
        "tower: modeling_siglip.py SiglipVisionTransformer, modeling_gemma3.py Gemma3MultiModalProjector",
    ],
    "mllama": [
        "tiles: transformers models/mllama/image_processing_mllama.py (up to max_num_tiles of image_size); "
        "the text cross-attends to them (modeling_mllama.py MllamaCrossAttentionDecoderLayer): no tokens in the text",
        "tower: modeling_mllama.py MllamaVisionModel (local and gated global encoder)",
    ],
}
FROZEN_SOURCE = ("frozen tower: no input needs a gradient, so autograd keeps none of its activations "
                 "(LLaMA-Factory freeze_vision_tower); trained: PEFT all-linear adapts its linears "
                 "(peft/tuners/tuners_utils.py _maybe_include_all_linear_layers)")


def info(model: ModelSpec, job: Job) -> VisionInfo | None:
    """The job's images and tower in figures for the report (None: no images, or a text-only model)."""
    v = tower(model, job)
    if v is None:
        return None
    side = job.image_resolution
    per_image = v.image_tokens(side, side)
    kind = "frozen" if not job.train_vision_tower else ("full" if job.method == "full" else "LoRA")
    return VisionInfo(
        images_per_sample=job.images_per_sample,
        image_resolution=side,
        resized=v.resized(side, side),
        tokens_per_image=per_image,
        encoder_tokens_per_image=v.encoder_tokens(side, side),
        text_tokens=job.sequence_length,
        sequence_tokens=job.sequence_length + job.images_per_sample * per_image,
        tower_params=v.params(),
        tower=kind,
        tower_trainable=tower_trained_params(model, job),
        pixel_gb=pixel_bytes(model, job) / 1e9,
        tower_activations_gb=tower_saved_bytes(model, job) / 1e9,
        sources=[*SOURCES[v.kind], FROZEN_SOURCE],
    )
