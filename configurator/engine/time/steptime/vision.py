"""The vision tower's own work in a vision-language job's step, as one op class ("vision"), from its shapes.

The language model's ops (ops.py) run on text + image tokens (engine/memory/vision.py ``language_view``); the
tower that makes those image tokens runs on its own encoder tokens (patches) and is timed here, op by op as the
language model is:

- GEMMs: every nn.Linear of the encoder and projector (``VisionTower.linear_shapes``) at M = the micro-batch's
  encoder tokens, except Qwen2.5-VL's PatchMerger, whose two linears run on the merged tokens (one per merge x
  merge patches, modeling_qwen2_5_vl.py Qwen2_5_VLPatchMerger), Gemma 3's projector, a bare weight on the pooled
  tokens (modeling_gemma3.py Gemma3MultiModalProjector), and the patch embedding, a convolution over
  channels x patch x patch (x temporal) values per patch, timed as the GEMM it is.
- attention: bidirectional (no causal half), forward 4 x tokens x span x hidden per layer, where the span is the
  image's patches, except Qwen2.5-VL's windowed blocks: windows of (window_size / patch)^2 patches
  (modeling_qwen2_5_vl.py get_window_index), all but the config's ``fullatt_block_indexes``. The backward is the
  FlashAttention-2 factor (efficiency.yaml), at the measured fraction of the kernel the job's attention runs on the
  chip (efficiency.py attention_kernel).
- elementwise: the per-layer bytes of the stack (efficiency.yaml ``elementwise_bytes``, derived for a Llama block:
  two norms, residual adds, rotary on q and k, a gated MLP), with q + kv width 2 x hidden (no grouped KV in these
  towers). An ASSUMPTION for SigLIP and mllama blocks (LayerNorm, GELU, no rotary): the same order of bytes.
- LoRA: the A and B thin GEMMs of every adapted tower linear and their scale-and-add, as ops.py for the language
  model.

Which passes run follows the autograd graph the tower builds (engine/memory/vision.py ``tower_keeps``):

- frozen and no graph: the forward alone;
- a graph (trained, or frozen under gradient checkpointing in Transformers, whose ``enable_input_require_grads``
  makes the patch embedding's output require a gradient): the input gradient of every block back to that output,
  the weight gradients of a fully trained tower, and the adapters' gradients under LoRA;
- gradient checkpointing with a graph: each block's forward once more (GradientCheckpointingLayer).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from configurator.catalog.model_spec import ModelSpec
from configurator.catalog.vision import VisionTower
from configurator.engine.memory import vision as vision_memory
from configurator.engine.model.build import Job
from configurator.engine.time.steptime.efficiency import _CLEAR_ON_OVERRIDE, efficiency
from configurator.engine.time.steptime.ops import Device, OpClass

NAME = "vision"


@dataclass(frozen=True)
class TowerShape:
    """What the tower's work in one micro-batch depends on besides the model and the device (the memo key)."""

    images: int  # images in the micro-batch
    tokens_per_image: int  # encoder tokens (patches, mllama: tiles' patches) of one image
    graph: bool  # the tower builds an autograd graph (its backward runs)
    full: bool  # the tower's weights train (weight gradients)
    rank: int  # LoRA rank on the tower's linears (0: none)
    recompute: bool  # its blocks' forward runs again (gradient checkpointing with a graph)
    stack: str  # eager | fused (elementwise bytes)
    attention: str = "sdpa"  # the job's attention: its kernel on the chip (Efficiency.attention_kernel)


def tower_shape(model: ModelSpec, job: Job, stack: str) -> TowerShape | None:
    """The tower's shape for ``job`` (None: a text job, or a model without a tower)."""
    v = vision_memory.tower(model, job)
    if v is None:
        return None
    graph = vision_memory.tower_keeps(model, job)
    trained = job.train_vision_tower
    return TowerShape(
        images=job.images_per_sample * job.micro_batch_size,
        tokens_per_image=v.encoder_tokens(job.image_resolution, job.image_resolution),
        graph=graph, full=trained and job.method == "full",
        rank=job.lora.rank if trained and job.method != "full" else 0,
        recompute=graph and job.gradient_checkpointing, stack=stack, attention=job.attention,
    )  # fmt: skip


def _gemms(v: VisionTower, s: TowerShape) -> list[tuple[float, int, int, int, bool]]:
    """(M, N, K, count, input gradient) of the tower's forward GEMMs over the micro-batch; the patch embedding's
    input is the pixels, which need no gradient."""
    tokens = float(s.images * s.tokens_per_image)
    merge = v.spatial_merge_size**2 if v.kind == "qwen2_5_vl" else 1
    rows = [(tokens / merge if name.startswith("mlp.") and v.kind == "qwen2_5_vl" else tokens, o, i, n, True)
            for name, i, o, n in v.linear_shapes()]  # fmt: skip
    per_patch = v.num_channels * v.patch_size**2 * (v.temporal_patch_size if v.kind == "qwen2_5_vl" else 1)
    rows.append((tokens, v.hidden_size, per_patch, 1, False))  # the patch embedding (a convolution: one GEMM)
    if v.kind == "siglip":  # Gemma 3's projector: a bare weight on the pooled tokens
        rows.append((float(s.images * v.mm_tokens_per_image), v.out_hidden_size, v.hidden_size, 1, True))
    return rows


def _attention_flops(v: VisionTower, s: TowerShape) -> float:
    """Forward FLOPs of the tower's attention over the micro-batch: 4 x tokens x span x hidden per layer."""
    tokens = float(s.images * s.tokens_per_image)
    layers = v.num_layers + v.num_global_layers
    if v.kind == "qwen2_5_vl":
        window = min((v.window_size // v.patch_size) ** 2, s.tokens_per_image)
        full = min(v.full_attention_layers, layers)
        return 4.0 * tokens * v.hidden_size * (full * s.tokens_per_image + (layers - full) * window)
    return 4.0 * tokens * v.hidden_size * layers * s.tokens_per_image


@functools.lru_cache(maxsize=1024)
def tower_class(v: VisionTower, s: TowerShape, device: Device) -> OpClass:
    """One micro-batch of the tower's work on ``device`` as the op class "vision" (memoised by tower, shape and
    device): each GEMM and stream timed as max(compute, memory) at the measured fractions ops.py uses."""
    eff = efficiency()
    arch = eff.arch(device.arch)
    sustained = eff.sustained.get(arch, 1.0)
    peak = device.peak_tflops * 1e12
    bw = device.bandwidth_gb_s * 1e9 * eff.bandwidth
    sms = max(device.sms, 1.0)
    backward = 1.0 if s.graph else 0.0
    forwards = 1.0 + (1.0 if s.recompute else 0.0)
    flops = moved = compute_s = memory_s = 0.0

    def add(f: float, b: float, rate: float) -> None:
        nonlocal flops, moved, compute_s, memory_s
        tc, tm = (f / rate if rate > 0 else 0.0), (b / bw if bw > 0 else 0.0)
        flops, moved = flops + f, moved + b
        if tc >= tm:
            compute_s += tc
        else:
            memory_s += tm

    def gemm(m: float, n: float, k: float, count: float) -> None:
        if count <= 0 or m <= 0:
            return
        rate = peak * eff.gemm_fraction(arch, m, n, k, sms, device.card)  # the sustained fraction included
        add(2.0 * m * n * k * count, 2.0 * (m * k + k * n + m * n) * count, rate)

    for m, n, k, count, input_gradient in _gemms(v, s):
        gemm(m, n, k, count * forwards)  # forward (and its recompute)
        gemm(m, k, n, count * backward if input_gradient else 0)  # input gradient
        gemm(k, n, m, count if s.full else 0)  # weight gradient
        if s.rank:  # x @ A and (x A) @ B; backward dX through B then A, dB and dA; the scale-and-add
            gemm(m, s.rank, k, count * forwards)
            gemm(m, n, s.rank, count * forwards)
            gemm(m, s.rank, n, count * backward)
            gemm(m, k, s.rank, count * backward)
            gemm(s.rank, n, m, count * backward)
            gemm(k, s.rank, m, count * backward)
            add(0.0, m * 2.0 * n * count * (3 * forwards + 2 * backward), 0.0)
    tokens = float(s.images * s.tokens_per_image)
    layers = v.num_layers + v.num_global_layers
    a, b, q = eff.elementwise[s.stack]
    per_pass = tokens * layers * (a * v.hidden_size + b * v.intermediate_size + q * 2 * v.hidden_size)
    add(0.0, per_pass * (forwards + 2 * backward), 0.0)
    attn = _attention_flops(v, s)
    qkvo = 2.0 * tokens * 4 * v.hidden_size * layers  # q, k, v read and o written, bf16
    kernel = eff.attention_kernel(s.attention, device.compute_capability)
    rate = peak * eff.attention_fraction(arch, device.compute_capability, kernel) * sustained
    add(attn * (forwards + eff.attention_backward * backward), qkvo * (forwards + 2 * backward), rate)
    return OpClass(NAME, flops, moved, compute_s + memory_s, compute_s, memory_s)


_CLEAR_ON_OVERRIDE.append(tower_class.cache_clear)
