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
from configurator.engine.memory.precision import BF16, FP32
from configurator.engine.model.build import Job
from configurator.engine.model.result import VisionInfo
from configurator.engine.model.stack import TRANSFORMERS_STACKS, stack_of


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


def _linear_input(job: Job, width: int, kept_elsewhere: bool) -> float:
    """Bytes a trained linear keeps of its input per token: under LoRA the adapter's own copy (fp32 for fp32
    adapters, PEFT's ``_cast_input_dtype``; a bf16 cast under autocast) and A's output (r values); fully trained,
    the bf16 input itself unless another op keeps that tensor already."""
    if job.method != "full":
        copy = BF16 if job.precision == "mixed-bf16" else FP32
        return copy * width + copy * job.lora.rank
    return 0.0 if kept_elsewhere else BF16 * width


def tower_layer_bytes(v: VisionTower, job: Job) -> float:
    """Bytes one encoder block keeps per encoder token for backward when the tower trains (bf16 weights), read from
    the modelling code:

    - Qwen2.5-VL (modeling_qwen2_5_vl.py Qwen2_5_VLVisionBlock): each RMSNorm keeps an fp32 copy of its input (a
      trained weight also its bf16 normalised output, which q/k/v and gate/up then share); the fused qkv output
      stays whole because v is a view of it, while q and k are new bf16 tensors out of the fp32 rotary embedding
      (apply_rotary_pos_emb_vision); each window runs as its own SDPA call without a mask, whose fused kernel
      keeps its output and an fp32 log-sum-exp per head; SwiGLU keeps the gate output, SiLU's output and up.
    - SigLIP (modeling_siglip.py SiglipEncoderLayer; Gemma 3's tower): each LayerNorm keeps its bf16 input and an
      fp32 mean and rstd; q, k and v are separate outputs the kernel keeps, with its output and log-sum-exp;
      the MLP keeps fc1's output for the tanh GELU.
    - A trained linear's input as ``_linear_input`` says.
    """
    h, f, nh = v.hidden_size, v.intermediate_size, v.num_heads
    full = job.method == "full"
    if v.kind == "qwen2_5_vl":
        norms = 2 * FP32 * h + (2 * BF16 * h if full else 0.0)
        attention = BF16 * 3 * h + BF16 * 2 * h + BF16 * h + FP32 * nh  # qkv output (v's base), q, k, out, lse
        mlp = 3 * BF16 * f
        linears = (_linear_input(job, h, kept_elsewhere=True)  # qkv: norm1's output
                   + _linear_input(job, h, kept_elsewhere=False)  # proj: the windows' outputs concatenated
                   + 2 * _linear_input(job, h, kept_elsewhere=True)  # gate and up: norm2's output
                   + _linear_input(job, f, kept_elsewhere=False))  # down: the product  # fmt: skip
        return norms + attention + mlp + linears
    # siglip / mllama encoder layer: LayerNorm, q/k/v/o, fc1 -> GELU -> fc2
    norms = 2 * (BF16 * h + 2 * FP32)
    attention = BF16 * 4 * h + FP32 * nh  # q, k, v, output, lse
    mlp = BF16 * f  # fc1's output, GELU's input
    qkv = 3 * _linear_input(job, h, kept_elsewhere=False) if not full else BF16 * h  # norm1's output, shared
    linears = (qkv + _linear_input(job, h, kept_elsewhere=False)  # out_proj: the attention output made contiguous
               + _linear_input(job, h, kept_elsewhere=False)  # fc1: norm2's output
               + _linear_input(job, f, kept_elsewhere=False))  # fc2: GELU's output  # fmt: skip
    return norms + attention + mlp + linears


def _projector_bytes(v: VisionTower, job: Job) -> float:
    """What the projector keeps per encoder token once the tower's output needs a gradient. Qwen2.5-VL's PatchMerger:
    RMSNorm's fp32 input copy (and bf16 output when its weight trains), GELU's input, and when trained the inputs
    of its two linears over every 2 x 2 patches. Gemma 3's (modeling_gemma3.py Gemma3MultiModalProjector): the
    contiguous copy average pooling keeps, and its RMSNorm's fp32 copy of the pooled tokens. mllama's: left out."""
    h = v.hidden_size
    trained = job.train_vision_tower
    if v.kind == "siglip":
        pooled = v.mm_tokens_per_image / max(v.encoder_tokens(1, 1), 1)  # pooled tokens per patch
        return hidden_bytes(job) * h + FP32 * h * pooled
    if v.kind != "qwen2_5_vl":
        return 0.0
    m = v.spatial_merge_size**2
    full = trained and job.method == "full"
    kept = FP32 * h + (BF16 * h if full else 0.0) + hidden_bytes(job) * h  # norm's input (and output), GELU's input
    if trained:  # the merged linears' inputs per merged token of m x h values: a LoRA copy, or GELU's output
        kept += _linear_input(job, m * h, kept_elsewhere=True) / m + _linear_input(job, m * h, kept_elsewhere=False) / m
    return kept


def hidden_bytes(job: Job) -> int:
    """Bytes per value of the tower's hidden states: bf16, or fp32 under QLoRA with PEFT's k-bit preparation, which
    casts every parameter it does not quantise (the patch embedding, the norms) to fp32 (peft/utils/other.py
    prepare_model_for_kbit_training), while bitsandbytes' Linear4bit returns its input's dtype."""
    return FP32 if job.method == "qlora" and stack_of(job).kbit_fp32_prep else BF16


def _stem_bytes(v: VisionTower, job: Job) -> float:
    """What the tower keeps per patch outside its blocks: the patch embedding's output, made to require a gradient
    (a leaf its graph holds), and Qwen2.5-VL's fp32 rotary cos and sin permuted into windows."""
    if v.kind == "qwen2_5_vl":
        return hidden_bytes(job) * v.hidden_size + 2 * FP32 * (v.hidden_size // v.num_heads)
    return hidden_bytes(job) * v.hidden_size


def tower_keeps(model: ModelSpec, job: Job) -> bool:
    """Whether the tower builds an autograd graph: when it trains, and with gradient checkpointing under
    Transformers even frozen: ``activation_checkpointing_enable`` calls ``enable_input_require_grads``
    (transformers modeling_utils.py: whenever main_input_name is input_ids), which hooks every sub-model's input
    embedding, the vision tower's patch embedding included, to make its output require grad."""
    if tower(model, job) is None:
        return False
    return job.train_vision_tower or (job.gradient_checkpointing and stack_of(job).framework in TRANSFORMERS_STACKS)


def tower_saved_bytes(model: ModelSpec, job: Job) -> float:
    """What the tower keeps for backward over one micro-batch: nothing when no graph is built (frozen, without
    checkpointing); each block's input under checkpointing (HF GradientCheckpointingLayer); everything its blocks
    save otherwise; with its stem and projector."""
    v = tower(model, job)
    if v is None or not tower_keeps(model, job):
        return 0.0
    tokens = encoder_tokens(model, job) * job.micro_batch_size
    layers = v.num_layers + v.num_global_layers
    outside = (_stem_bytes(v, job) + _projector_bytes(v, job)) * tokens
    if job.gradient_checkpointing:
        # each block's input; SigLIP's last output is kept too (post_layernorm's input)
        blocks = layers + (1 if v.kind != "qwen2_5_vl" else 0)
        return blocks * hidden_bytes(job) * v.hidden_size * tokens + outside
    return layers * tower_layer_bytes(v, job) * tokens + outside


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
FROZEN_SOURCE = ("frozen tower (LLaMA-Factory freeze_vision_tower): no graph without checkpointing; with it "
                 "Transformers' enable_input_require_grads hooks the tower's patch embedding too (modeling_utils.py), "
                 "so its checkpointed blocks keep their inputs; trained: PEFT all-linear adapts its linears "
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
