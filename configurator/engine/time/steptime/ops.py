"""Step time per op, from the model's shapes.

Every op of one micro-batch is timed as max(FLOPs / (peak x achieved fraction), bytes / (bandwidth x achieved
fraction)) and summed by op class:

- projections (q, k, v, o) and mlp (gate, up, down; MoE experts): GEMMs of M = tokens by N x K. Forward 2MNK;
  backward the input gradient 2MNK always and the weight gradient 2MNK only where the weight trains (a full
  fine-tune); Kaplan et al. 2020 section 2.1. The fraction of peak comes from the GEMM's own tiles vs the SMs it
  runs on (efficiency.py). MoE: each expert's GEMM has M = tokens x top-k / experts (FLOPs by the ACTIVE
  parameters), while every expert's weights are read (memory by ALL experts).
- attention: a fused kernel, forward 4 s^2 head_dim heads per sequence, backward 2.5x, causal halves
  (FlashAttention-2 paper section 4.1), at the measured fraction of the kernel the job runs on the chip: cuDNN's
  where PyTorch SDPA prefers it (CC 9.0, 10.0), FlashAttention-2's elsewhere (efficiency.py attention_kernel).
- elementwise: norms, activations, rotary and residual adds, in bytes per token per layer (efficiency.yaml).
- lora: the A and B matrices of every adapted module (thin GEMMs of K x r and r x N: memory-bound at rank 16,
  seed A's "about 16 FLOPS per byte") and the scale-and-add of their output.
- dequant: QLoRA's NF4 weights read and written as BF16 before each use (forward, backward, recompute); an FP8
  base under BF16 compute likewise.
- loss: the logits GEMM (tokens x vocabulary x hidden) and the cross-entropy's bytes.
- recompute: one more forward under activation checkpointing.
- optimizer: once per step, every trained state read and written, divided over the cards that shard it.

The GPU cannot run faster than the host issues kernels (PyTorch eager: tens of microseconds per op): a
micro-batch takes at least its kernel count times the launch cost (efficiency.yaml ``launch``). An MoE under PEFT
on the eager stack is the extreme case: Transformers loops over the experts hit and PEFT wraps every expert's
linears, so Qwen3-30B-A3B LoRA on all linears issues ~6 kernels for each of its 18,432 expert adapters per pass
(about 5 s of host time a step on an H100 at micro-batch 1 x 2,048, the GPU busy ~30 %); users report exactly this
("qwen3:30b-a3b SFT with lora-rank as 16 is very very slow ... GPU utilization is less than 20%",
https://github.com/hiyouga/LlamaFactory/issues/8038). The fused stack runs the experts as one grouped GEMM.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Literal

from configurator.catalog.model_spec import ModelSpec
from configurator.engine.time.steptime.efficiency import _CLEAR_ON_OVERRIDE, Efficiency, efficiency

# (a vision-language job adds "vision", its tower's work: steptime/vision.py)
OP_CLASSES = ("projections", "mlp", "attention", "elementwise", "lora", "dequant", "loss", "recompute", "optimizer")
Bound = Literal["compute", "memory"]


@dataclass(frozen=True)
class Device:
    """What one card or MIG instance offers a job: its architecture, its dense BF16 rate (TFLOPS), memory
    bandwidth (GB/s) and streaming multiprocessors (a MIG instance: its own SMs and its memory slices' share);
    its compute capability picks a kernel figure measured on that chip rather than on its architecture's family
    (FlashAttention-2 on a B200, CC 10.0, runs far below the family figure: efficiency.yaml)."""

    arch: str
    peak_tflops: float
    bandwidth_gb_s: float
    sms: float
    compute_capability: float = 0.0  # 0: unknown, the architecture's figures apply
    card: str = ""  # the catalog's card id: its own measured GEMM fraction where it has one (Efficiency.gemm_large)


@dataclass(frozen=True)
class Shape:
    """What a micro-batch's ops depend on besides the model and the device (hashable: the memo key)."""

    seq: int
    batch: int
    checkpointing: bool
    full: bool  # every weight trains (weight gradients, lm_head gradient)
    rank: int  # LoRA rank (0: no adapters)
    targets: str | tuple[str, ...]
    dequant_bytes: float  # bytes read per frozen linear weight before each use (NF4: ~0.5; FP8 base: 1; 0: none)
    loss: str  # standard | chunked
    stack: str  # eager | fused
    attention: str = "sdpa"  # sdpa | flash | eager: its kernel per chip (Efficiency.attention_kernel)
    padded: bool = False  # the batch carries a padding mask, which SDPA receives as an explicit mask (Job)
    adapters: str = "bf16"  # LoRA adapters' compute: bf16 | fp32 (PEFT's default, bf16 input) | fp32-autocast
    dropout: bool = False  # LoRA dropout above 0 (PEFT's nn.Dropout on each adapted module's input)


@dataclass(frozen=True)
class OpClass:
    name: str
    flops: float
    bytes: float
    seconds: float
    compute_seconds: float  # of the ops in this class that are compute-bound
    memory_seconds: float  # of those that are memory-bound

    @property
    def bound(self) -> Bound:
        return "compute" if self.compute_seconds >= self.memory_seconds else "memory"


@dataclass(frozen=True)
class MicroBatch:
    classes: tuple[OpClass, ...]
    gpu_seconds: float  # sum of the op times
    launch_seconds: float  # kernels x host cost per launch
    kernels: float

    @property
    def seconds(self) -> float:
        return max(self.gpu_seconds, self.launch_seconds)


@dataclass(frozen=True)
class _ModelTable:
    """What the ops need from a model, computed once per model (ModelSpec.linear_modules is not free)."""

    linear: tuple[tuple[str, int, int, int], ...]  # (group, in, out, count) of every block linear
    linear_weights: int
    linear_count: int
    h: int
    layers: int
    hd: int
    nh: int
    nkv: int
    ffn: int
    vocab: int
    experts: int
    top_k: int
    routed: float  # the share of the tokens one routed expert sees (routed_share)
    eager_bytes: tuple[float, float]  # eager attention's bytes per score element, forward and backward


@functools.lru_cache(maxsize=256)
def _table(model: ModelSpec) -> _ModelTable:
    assert model.hidden_size and model.num_layers and model.num_attention_heads and model.head_dim
    assert model.vocab_size
    mods = model.linear_modules()
    return _ModelTable(
        tuple((m.group, m.in_features, m.out_features, m.count) for m in mods), sum(m.weights for m in mods),
        sum(m.count for m in mods), model.hidden_size, model.num_layers, model.head_dim, model.num_attention_heads,
        model.num_key_value_heads or model.num_attention_heads, model.tokens_ffn_width, model.vocab_size,
        max(model.num_experts, 1), max(model.num_experts_per_tok, 1), routed_share(model), eager_score_bytes(model),
    )  # fmt: skip


def routed_share(model: ModelSpec) -> float:
    """The share of a micro-batch's tokens one routed expert's GEMM sees: top-k of E experts per token, so
    tokens x top-k / E rows on average (FLOPs by the ACTIVE parameters); 1 for a dense model. The per-op model and
    the roofline's MoE points (compute.py) both take it."""
    if not model.is_moe:
        return 1.0
    return max(model.num_experts_per_tok, 1) / max(model.num_experts, 1)


@functools.lru_cache(maxsize=1024)
def _adapted(model: ModelSpec, targets: str | tuple[str, ...]) -> tuple[tuple[int, int, int, bool], ...]:
    """(in, out, count, routed expert) of every module LoRA adapts for ``targets``."""
    if isinstance(targets, tuple):
        # lm_head / output adapters sit outside the blocks (engine/memory/states.py counts their parameters apart)
        blocks = [t for t in targets if t not in ("lm_head", "output")]
        if not blocks:
            return ()
        mods = model.lora_modules(blocks)
    else:
        mods = model.lora_modules(targets)
    return tuple((m.in_features, m.out_features, m.count, m.group == "expert") for m in mods)


_CLS = {name: i for i, name in enumerate(OP_CLASSES)}
# class, M, N, K as (c, k) of tokens, count, and how many of them one kernel runs together (a grouped GEMM's experts)
GemmRow = tuple[int, float, float, float, float, float, float, float, float]
PlanRows = tuple[tuple[GemmRow, ...], tuple[float, ...], tuple[float, ...]]


class _Lin:
    """c x tokens + k: the plan records every dimension as a function of the micro-batch's tokens, so one plan
    per model and method serves every sequence length and batch (the per-shape cost is a few numpy operations)."""

    __slots__ = ("c", "k")

    def __init__(self, c: float, k: float = 0.0) -> None:
        self.c, self.k = c, k

    def __mul__(self, x: float) -> _Lin:
        return _Lin(self.c * x, self.k * x)

    __rmul__ = __mul__

    def __truediv__(self, x: float) -> _Lin:
        return _Lin(self.c / x, self.k / x)


def _lin(x: float | _Lin) -> tuple[float, float]:
    return (x.c, x.k) if isinstance(x, _Lin) else (0.0, float(x))


class _Plan:
    """A micro-batch's GEMMs (each dimension c x tokens + k) and streamed bytes per class (c x tokens + k), and
    its kernel count; attention is added per shape (it grows with the square of the sequence)."""

    def __init__(self) -> None:
        self.g: list[GemmRow] = []
        self.stream_c = [0.0] * len(OP_CLASSES)
        self.stream_k = [0.0] * len(OP_CLASSES)
        self.kernels = 0.0

    def gemm(self, cls: str, m: float | _Lin, n: float | _Lin, k: float | _Lin, count: float = 1.0,
             group: float = 1.0) -> None:  # fmt: skip
        """``count`` GEMMs of M x N x K in BF16 (2 bytes per element read or written), ``group`` of them in one
        kernel (a grouped GEMM: their tiles share the SMs' waves)."""
        if count > 0:
            self.g.append((_CLS[cls], *_lin(m), *_lin(n), *_lin(k), count, group))

    def stream(self, cls: str, moved: float | _Lin) -> None:
        c, k = _lin(moved)
        self.stream_c[_CLS[cls]] += c
        self.stream_k[_CLS[cls]] += k

    def rows(self) -> PlanRows:
        """The GEMM rows with identical shapes merged (their counts summed: q and o, k and v, gate and up ...),
        and the streamed bytes per class."""
        merged: dict[tuple[int, float, float, float, float, float, float, float], float] = {}
        for cls, mc, mk, nc, nk, kc, kk, count, group in self.g:
            key = (cls, mc, mk, nc, nk, kc, kk, group)
            merged[key] = merged.get(key, 0.0) + count
        gemms = tuple((*k[:7], c, k[7]) for k, c in merged.items())
        return gemms, tuple(self.stream_c), tuple(self.stream_k)


# What one adapted linear's LoRA branch streams per token beyond its GEMMs' own BF16 operands (the x @ A and (x A) @ B
# rows of the plan read x and write B's output once, 2 bytes an element), as (per input feature, per output feature),
# forward and backward, from PEFT's lora Linear.forward (peft/tuners/lora/layer.py: ``x = self._cast_input_dtype(x,
# lora_A.weight.dtype)``, ``result = result + lora_B(lora_A(dropout(x))) * scaling``, ``result.to(torch_result_dtype)``)
# and autograd's passes through it; derived from the code, not measured.
# - bf16 adapters (a sharded stack casts them for compute): forward the scale (read and write: 4) and the add to the
#   base output (read 2 + 2, write 2: 6): 10 per output; backward the scale's gradient (4 per output) and the input
#   gradient added to the base's (read 2 + 2, write 2: 6 per input).
# - fp32 adapters on a bf16 input without autocast (PEFT's default autocast_adapter_dtype=True on a bf16 model):
#   forward x cast to fp32 (read 2, write 4), A reads it in fp32 (4, of which the plan's GEMM counts 2): 8 per input;
#   B writes fp32 (4, GEMM counts 2), the scale (8), bf16 + fp32 promotes (read 2 + 4, write 4), cast back (read 4,
#   write 2): 26 per output. Backward: the cast back's gradient (read 2, write 4), the add's to the bf16 base (read 4,
#   write 2), the scale's (8), B's two GEMMs read the fp32 gradient (8, GEMMs count 4): 24 per output; A's GEMMs read
#   x and write dx in fp32 (8, GEMMs count 4), the cast's gradient (read 4, write 2), the add to the base's input
#   gradient (6): 16 per input.
# - fp32 adapters under bf16 autocast (mixed-bf16): forward the fp32 cast (6) and autocast's cast back to bf16 for A
#   (read 4, write 2): 12 per input; B writes bf16, the scale (4) and the bf16 add (6): 10 per output. Backward the
#   scale's gradient (4) per output; autocast's cast's gradient (read 2, write 4), PEFT's cast's (read 4, write 2)
#   and the add to the base's input gradient (6): 18 per input.
# Dropout (p > 0) on the cast input: read, write and a 1-byte mask forward, read gradient and mask, write backward:
# 5 per input in bf16, 9 in fp32 (the fp32 modes), each way.
LORA_STREAM_BYTES = {"bf16": ((0.0, 10.0), (6.0, 4.0)), "fp32": ((8.0, 26.0), (16.0, 24.0)),
                     "fp32-autocast": ((12.0, 10.0), (18.0, 4.0))}  # fmt: skip
LORA_DROPOUT_BYTES = {"bf16": 5.0, "fp32": 9.0, "fp32-autocast": 9.0}


def _lora_stream(s: _PlanKey, backward: bool) -> tuple[float, float]:
    """(per input, per output) feature bytes one adapted linear streams per token (LORA_STREAM_BYTES)."""
    (fi, fo), (bi, bo) = LORA_STREAM_BYTES[s.adapters]
    per_in, per_out = (bi, bo) if backward else (fi, fo)
    return per_in + (LORA_DROPOUT_BYTES[s.adapters] if s.dropout else 0.0), per_out


def _grouped(t: _ModelTable, s: _PlanKey, eff: Efficiency) -> float:
    """How many expert GEMMs of one layer run as one kernel: all of them where the stack runs a grouped GEMM
    (efficiency.yaml ``grouped_experts``), else one (a loop over the experts, one GEMM each)."""
    return float(t.experts) if eff.grouped_experts.get(s.stack, False) else 1.0


def _forward(plan: _Plan, model: ModelSpec, s: _PlanKey, eff: Efficiency, recompute: bool = False) -> None:
    """The forward pass's GEMMs and streams (into class "recompute" when ``recompute``)."""
    t = _table(model)

    def c(name: str) -> str:
        return "recompute" if recompute else name

    tokens = _Lin(1.0)
    plan.kernels += eff.kernels_per_layer * t.layers
    grouped = _grouped(t, s, eff)
    for group, k_in, n_out, count in t.linear:
        # MoE: FLOPs by active parameters (top-k of E experts per token), every expert's weights read
        rows = tokens * t.routed if group == "expert" else tokens
        g = grouped if group == "expert" else 1.0
        plan.gemm(c("projections" if group == "attention" else "mlp"), rows, n_out, k_in, count, g)
    a, b, q = eff.elementwise[s.stack]
    plan.stream(c("elementwise"), tokens * (t.layers * (a * t.h + b * t.ffn + q * (t.nh + t.nkv) * t.hd)))
    if s.rank:
        adapted = _adapted(model, s.targets)
        for k_in, n_out, count, expert in adapted:
            # an expert's adapter sees only the tokens routed to it (top-k of E), as the expert itself
            rows = tokens * t.routed if expert else tokens
            plan.gemm(c("lora"), rows, s.rank, k_in, count)  # x @ A
            plan.gemm(c("lora"), rows, n_out, s.rank, count)  # (x A) @ B
            per_in, per_out = _lora_stream(s, backward=False)  # casts, dropout, scale, add (LORA_STREAM_BYTES)
            plan.stream(c("lora"), rows * ((per_in * k_in + per_out * n_out) * count))
        plan.kernels += eff.kernels_per_adapter * sum(m[2] for m in adapted)
    if s.dequant_bytes:
        # read NF4/FP8, write BF16, at the dequantisation kernels' own achieved bandwidth
        plan.stream(c("dequant"), t.linear_weights * (s.dequant_bytes + 2.0) * eff.bandwidth / eff.dequant_bandwidth)
        plan.kernels += eff.kernels_per_dequant * t.linear_count


def _backward(plan: _Plan, model: ModelSpec, s: _PlanKey, eff: Efficiency) -> None:
    t = _table(model)
    tokens = _Lin(1.0)
    grouped = _grouped(t, s, eff)
    for group, k_in, n_out, count in t.linear:
        cls = "projections" if group == "attention" else "mlp"
        rows = tokens * t.routed if group == "expert" else tokens
        g = grouped if group == "expert" else 1.0
        plan.gemm(cls, rows, k_in, n_out, count, g)  # input gradient dX = dY W
        if s.full:
            plan.gemm(cls, k_in, n_out, rows, count, g)  # weight gradient dW = X^T dY
    a, b, q = eff.elementwise[s.stack]
    plan.stream("elementwise", tokens * (2 * t.layers * (a * t.h + b * t.ffn + q * (t.nh + t.nkv) * t.hd)))
    if s.rank:
        for k_in, n_out, count, expert in _adapted(model, s.targets):
            # dX through B then A, dB and dA: four thin GEMMs (an expert's over its routed tokens only)
            rows = tokens * t.routed if expert else tokens
            plan.gemm("lora", rows, s.rank, n_out, count)
            plan.gemm("lora", rows, k_in, s.rank, count)
            plan.gemm("lora", s.rank, n_out, rows, count)
            plan.gemm("lora", k_in, s.rank, rows, count)
            per_in, per_out = _lora_stream(s, backward=True)
            plan.stream("lora", rows * ((per_in * k_in + per_out * n_out) * count))
    if s.dequant_bytes:
        # the input gradient needs W again
        plan.stream("dequant", t.linear_weights * (s.dequant_bytes + 2.0) * eff.bandwidth / eff.dequant_bandwidth)


def _loss(plan: _Plan, model: ModelSpec, s: _PlanKey, eff: Efficiency) -> None:
    t = _table(model)
    tokens = _Lin(1.0)
    plan.gemm("loss", tokens, t.vocab, t.h)  # logits forward
    plan.gemm("loss", tokens, t.h, t.vocab)  # input gradient
    if s.full:
        plan.gemm("loss", t.h, t.vocab, tokens)  # lm_head weight gradient
    plan.stream("loss", tokens * (t.vocab * eff.loss_bytes.get(s.loss, eff.loss_bytes["standard"])))


@dataclass(frozen=True)
class _PlanKey:
    checkpointing: bool
    full: bool
    rank: int
    targets: str | tuple[str, ...]
    dequant_bytes: float
    loss: str
    stack: str
    adapters: str = "bf16"
    dropout: bool = False


@functools.lru_cache(maxsize=1024)
def _plan(model: ModelSpec, key: _PlanKey, eff_id: int) -> tuple[PlanRows, float]:
    """The micro-batch's plan for one model and method, whatever its tokens (``eff_id``: the table in use)."""
    eff = efficiency()
    plan = _Plan()
    _forward(plan, model, key, eff)
    _backward(plan, model, key, eff)
    _loss(plan, model, key, eff)
    plan.kernels *= 3  # backward issues about twice the forward's kernels
    if key.checkpointing:
        _forward(plan, model, key, eff, recompute=True)
    return plan.rows(), plan.kernels


def attention_kernel_of(model: ModelSpec, attention: str, device: Device, seq: int | None = None,
                        padded: bool = False) -> str:  # fmt: skip
    """The attention kernel a job of ``model`` runs on ``device`` at ``seq`` tokens (efficiency.py attention_kernel):
    a sliding-window model passes Transformers' explicit mask once the sequence reaches the window
    (ModelSpec.window_masks, the rule the memory side's mask bytes follow too), and a ``padded`` batch passes its
    padding mask in every layer (Job.padded_batches); either takes SDPA to its memory-efficient kernel; ``seq``
    None: any sliding window masks."""
    masked = padded or model.window_masks(seq)
    return efficiency().attention_kernel(attention, device.compute_capability, masked=masked)


def attention_groups(model: ModelSpec, attention: str, device: Device, seq: int,
                     padded: bool = False) -> tuple[tuple[int, str, bool], ...]:  # fmt: skip
    """The model's layers by the fused kernel their attention runs: (layers, kernel, sliding). A sliding-window
    model's full-attention layers get no mask (masking_utils.py create_causal_mask: _ignore_causal_mask_sdpa keeps
    is_causal), so SDPA runs them on its fused kernel (cuDNN on CC 9.0 / 10.0), while its sliding layers past the
    window pass a mask and run the memory-efficient kernel (attention_kernel_of); a ``padded`` batch's mask reaches
    every layer (_ignore_causal_mask_sdpa keeps is_causal only for a padding mask of all ones); a model without
    sliding layers is one group."""
    layers = model.num_layers or 0
    sliding = len(model.sliding_layers) if model.sliding_window else 0
    if not sliding:
        return ((layers, attention_kernel_of(model, attention, device, seq, padded), False),)
    full = efficiency().attention_kernel(attention, device.compute_capability, masked=padded)
    groups = ((layers - sliding, full, False),
              (sliding, attention_kernel_of(model, attention, device, seq, padded), True))  # fmt: skip
    return tuple(g for g in groups if g[0] > 0)


def gemm_work(m: float, n: float, k: float) -> tuple[float, float]:
    """FLOPs and bytes of one BF16 GEMM of M x N x K: 2MNK (Kaplan et al. 2020 section 2.1: 2 FLOPs per
    multiply-add); A and B read and C written once, 2 bytes per element."""
    return 2.0 * m * n * k, 2.0 * (m * k + k * n + m * n)


@dataclass(frozen=True)
class AttentionWork:
    """A fused attention kernel's forward FLOPs and bytes (FlashAttention-2 section 4.1: 4 s^2 d h per sequence,
    causal halves; q, k, v read and o written in BF16)."""

    forward_flops: float
    forward_bytes: float

    def with_backward(self, backward: float) -> tuple[float, float]:
        """Forward + backward: the backward's FLOPs ``backward`` x the forward's (efficiency.yaml
        attention_backward_factor), its bytes about twice the forward's."""
        return self.forward_flops * (1 + backward), 3 * self.forward_bytes


def fused_attention(seq: float, batch: float, heads: float, kv_heads: float, head_dim: float,
                    layers: float = 1, causal: bool = True) -> AttentionWork:  # fmt: skip
    """Fused attention over ``batch`` sequences of ``seq`` tokens in each of ``layers`` layers: causal (the kernel
    skips the tiles above the diagonal: half the work), or every tile (a kernel given an explicit mask)."""
    flops = 4.0 * seq * seq * head_dim * heads * batch * layers * (0.5 if causal else 1.0)
    moved = 2.0 * (seq * batch) * (2 * heads * head_dim + 2 * kv_heads * head_dim) * layers
    return AttentionWork(flops, moved)


# FlashAttention-2's tile of queries x keys on Ampere and Hopper (Dao-AILab/flash-attention csrc/flash_attn/src/
# flash_fwd_launch_template.h: run_mha_fwd_hdim64 Flash_fwd_kernel_traits<64, 128, 128, ...>, run_mha_fwd_hdim128
# and up <.., 128, 64, ...> off sm86/sm89): the unit in which its causal and local masks skip work
FA2_BLOCK_M = 128


def fa2_block_n(head_dim: float) -> int:
    """FlashAttention-2's key tile for a head dimension (FA2_BLOCK_M's source)."""
    return 128 if head_dim <= 64 else 64


@functools.lru_cache(maxsize=1024)
def local_attention_share(seq: int, window: int, head_dim: float) -> float:
    """The share of a causal layer's attention work FlashAttention-2 still does with a sliding window of ``window``
    keys (Transformers' flash_attention_forward passes window_size=(sliding_window - 1, ...)): the kernel visits,
    for each block of FA2_BLOCK_M queries, only the key blocks from floor((m BM - (w - 1)) / BN) up to the causal
    diagonal (flash_fwd_kernel.h compute_attn_1rowblock: n_block_min with Is_local, n_block_max), where full causal
    attention visits every block from 0; the backward skips the same blocks (flash_bwd_kernel.h). Counted in whole
    tiles for both, so the ratio carries the tiles the band's edges cost."""
    bm, bn = FA2_BLOCK_M, fa2_block_n(head_dim)
    if window <= 0 or window >= seq:
        return 1.0
    full = local = 0
    for m in range(math.ceil(seq / bm)):
        last = min(math.ceil(seq / bn), math.ceil((m + 1) * bm / bn))
        full += last
        local += last - max(0, (m * bm - (window - 1)) // bn)
    return local / full if full else 1.0


def op_times(flops: float, moved: float, rate: float, bandwidth: float) -> tuple[float, float]:
    """One op's compute and memory times: FLOPs / achieved rate and bytes / achieved bandwidth (FLOP/s, bytes/s;
    a zero rate or bandwidth times nothing)."""
    return (flops / rate if rate > 0 else 0.0), (moved / bandwidth if bandwidth > 0 else 0.0)


def _book(row: list[float], flops: float, moved: float, compute_s: float, memory_s: float) -> None:
    """Add one op, timed max(compute, memory), to its class's row: FLOPs, bytes, time, compute-bound and
    memory-bound time."""
    row[0] += flops
    row[1] += moved
    if compute_s >= memory_s:
        row[2] += compute_s
        row[3] += compute_s
    else:
        row[2] += memory_s
        row[4] += memory_s


def op_seconds(flops: float, moved: float, rate: float, bandwidth: float) -> tuple[float, Bound]:
    """One op as the model times it: max(compute, memory) (op_times), and which of the two bounds it."""
    compute, memory = op_times(flops, moved, rate, bandwidth)
    return max(compute, memory), "compute" if compute >= memory else "memory"


@functools.lru_cache(maxsize=4096)
def micro_batch(model: ModelSpec, shape: Shape, device: Device) -> MicroBatch:
    """One micro-batch's ops by class on ``device`` (memoised by model, shape and device): each GEMM at its own
    achieved fraction (tiles vs SMs), each stream at the achieved bandwidth, time = max(compute, memory) per op."""
    eff = efficiency()
    key = _PlanKey(shape.checkpointing, shape.full, shape.rank, shape.targets, shape.dequant_bytes, shape.loss,
                   shape.stack, shape.adapters, shape.dropout)  # fmt: skip
    (gemms, sc, sk), kernels = _plan(model, key, id(eff))
    arch = eff.arch(device.arch)
    sustained = eff.sustained.get(arch, 1.0)
    peak = device.peak_tflops * 1e12
    bw = device.bandwidth_gb_s * 1e9 * eff.bandwidth
    tokens = float(shape.seq * shape.batch)
    tm_, tn_ = eff.tiles[arch]
    sms = max(device.sms, 1.0)
    top = eff.gemm_large(arch, device.card) * sustained * peak
    kf = eff.k_fill
    # rows: FLOPs, bytes, time, compute-bound time, memory-bound time, per class (plain floats: for a few dozen
    # GEMMs this is faster than numpy's per-call overhead)
    rows = [[0.0, sc[i] * tokens + sk[i], 0.0, 0.0, 0.0] for i in range(len(OP_CLASSES))]
    for cls, mc, mk, nc, nk, kc, kk, count, group in gemms:
        m, n, k = mc * tokens + mk, nc * tokens + nk, kc * tokens + kk
        waves = math.ceil(m / tm_) * math.ceil(n / tn_) * group / sms
        rate = top * waves / math.ceil(waves) * k / (k + kf)
        one_flops, one_bytes = gemm_work(m, n, k)
        flops, moved = one_flops * count, one_bytes * count
        tc, tmem = op_times(flops, moved, rate, bw)
        _book(rows[cls], flops, moved, tc, tmem)
    if bw > 0:
        for i in range(len(OP_CLASSES)):
            streamed = (sc[i] * tokens + sk[i]) / bw
            rows[i][2] += streamed
            rows[i][4] += streamed
    t = _table(model)
    again = 1.0 if shape.checkpointing else 0.0
    kernel = attention_kernel_of(model, shape.attention, device, shape.seq, shape.padded)
    if kernel == "eager":
        _eager_attention(rows, shape, t, again, top, (tm_, tn_, sms, kf), bw)
    else:
        # a fused kernel: forward 4 s^2 d h per sequence and layer, causal halves, backward 2.5x (FlashAttention-2
        # section 4.1); reads q, k, v and writes o (backward about twice that); a recompute repeats the forward.
        # Given an explicit mask (is_causal False: transformers sdpa_attention_forward passes is_causal only without
        # one) the memory-efficient kernel visits every key block (ATen mem_eff_attention kernel_forward.h
        # advance_to_block cuts num_keys at the diagonal only for its causal custom_mask_types; an additive bias is
        # NoCustomMask): every tile, not half
        for layers, group_kernel, sliding in attention_groups(model, shape.attention, device, shape.seq,
                                                              shape.padded):  # fmt: skip
            work = fused_attention(shape.seq, shape.batch, t.nh, t.nkv, t.hd, layers,
                                   causal=group_kernel != "efficient")  # fmt: skip
            if group_kernel == "flash" and sliding and model.sliding_window:
                # the sliding layers' tiles outside the window are skipped (local_attention_share); SDPA's kernels
                # take the window as an explicit mask and compute every tile, eager the whole s x s
                share = local_attention_share(shape.seq, model.sliding_window, t.hd)
                work = AttentionWork(work.forward_flops * share, work.forward_bytes)
            rate = peak * eff.attention_fraction(arch, device.compute_capability, group_kernel) * sustained
            for name, f, b in (("attention", *work.with_backward(eff.attention_backward)),
                               ("recompute", work.forward_flops * again, work.forward_bytes * again)):  # fmt: skip
                if f <= 0:
                    continue
                _book(rows[_CLS[name]], f, b, *op_times(f, b, rate, bw))
    classes = tuple(OpClass(name, *rows[i]) for i, name in enumerate(OP_CLASSES) if rows[i][2] > 0)
    gpu = sum(c.seconds for c in classes)
    launch = kernels * eff.launch_us[shape.stack] * 1e-6
    return MicroBatch(classes, gpu, launch, kernels)


# Eager attention (transformers eager_attention_forward, modeling_llama.py), per element of one head's s x s scores,
# the bytes its elementwise kernels move, the scores in BF16. Forward: the scores written by q @ k^T (2), scaled
# (read and write, 4), the causal mask added (4), ``softmax(..., dtype=torch.float32)``: a BF16 input is first cast
# to fp32 (read 2, write 4; ATen SoftMax.cpp ``softmax`` fuses the upcast into the kernel only for a Half input,
# any other dtype takes ``input_.toType(dtype)``), the softmax in fp32 (read 4, write 4), cast back to the query's
# dtype (read 4, write 2), read by the @ v matmul (2): 32. Backward: dP written by dO @ v^T (2) and P read by dV (2),
# the cast's gradient (read 2, write 4), softmax's (read its output and gradient, write one: 12), the upcast's
# gradient to bf16 (read 4, write 2), the scale's (read and write: 4), dS read by dQ and dK (4): 36. Derived from
# the code, not measured.
EAGER_FORWARD_BYTES = 32.0
EAGER_BACKWARD_BYTES = 36.0
# Soft-capping (attn_logit_softcapping set; modeling_gemma2.py eager_attention_forward: ``attn_weights / softcap``,
# ``torch.tanh``, ``* softcap`` between the scale and the mask), three more BF16 passes. Forward: each reads and writes
# the scores (12). Backward: ``* softcap``'s gradient (grad * cap: read, write, 4), tanh's (tanh_backward reads the
# gradient and the kept output, writes one: 6), ``/ softcap``'s (grad / cap: 4): 14. Derived, not measured.
EAGER_SOFTCAP_FORWARD_BYTES = 12.0
EAGER_SOFTCAP_BACKWARD_BYTES = 14.0
# Attention sinks (modeling_gpt_oss.py eager_attention_forward), the whole path in BF16 (its softmax takes
# ``dtype=combined_logits.dtype``: no upcast, and the dropped-column slice and ``.to`` copy nothing); the sink
# column makes the passes after the concatenation s + 1 wide, counted as s. Forward: q @ k^T written (2), scaled (4),
# the mask added (4), ``torch.cat`` with the sinks (read, write: 4), the row max (read: 2), ``- max`` (4), softmax
# (read, write: 4), ``probs[..., :-1]`` read by the @ v matmul as a strided view (2): 26. Backward: dP written (2)
# and P read by dV (2), the slice's gradient (slice_backward: zeros written, the gradient copied in: 6), softmax's
# in BF16 (6), ``- max``'s gradient to the max (``-grad``: 4, summed to one per row: 2), the max's to the scores
# (value_selecting_reduction_backward: zeros written, 2; the row's one element scattered), the two gradients of the
# concatenation added (read 2 + 2, write 2: 6; cat's own gradient is a narrow view), the scale's (4), dS read by
# dQ and dK (4): 38. Derived, not measured.
EAGER_SINKS_FORWARD_BYTES = 26.0
EAGER_SINKS_BACKWARD_BYTES = 38.0


def eager_score_bytes(model: ModelSpec) -> tuple[float, float]:
    """Bytes per score element the eager path's elementwise kernels move, forward and backward: the sinks' own
    path, or Llama's with soft-capping's three passes where the model caps its scores."""
    if model.attention_sinks:
        return EAGER_SINKS_FORWARD_BYTES, EAGER_SINKS_BACKWARD_BYTES
    if model.attn_logit_softcapping is not None:
        return EAGER_FORWARD_BYTES + EAGER_SOFTCAP_FORWARD_BYTES, EAGER_BACKWARD_BYTES + EAGER_SOFTCAP_BACKWARD_BYTES
    return EAGER_FORWARD_BYTES, EAGER_BACKWARD_BYTES


def _eager_attention(rows: list[list[float]], shape: Shape, t: _ModelTable, again: float, top: float,
                     tiles: tuple[int, int, float, float], bw: float) -> None:  # fmt: skip
    """Eager attention into ``rows``: its four matmul shapes as batched GEMMs at their own tile and wave fractions
    (the whole s x s, the causal mask does not halve them), and its elementwise passes over the scores at the
    streaming bandwidth; separate kernels, so their times add. Forward: q @ k^T (s x s x d) and P @ v (s x d x s);
    backward: dP = dO @ v^T (s x s x d), dV = P^T @ dO, dQ = dS @ k and dK = dS^T @ q (s x d x s each)."""
    tm, tn, sms, kf = tiles
    s, d = float(shape.seq), float(t.hd)
    mats = t.nh * shape.batch * t.layers  # one s x s score matrix per head, sequence and layer
    per_kernel = t.nh * shape.batch  # one batched matmul per layer runs every head of every sequence

    def gemm_seconds(m: float, n: float, k: float) -> tuple[float, float]:
        waves = math.ceil(m / tm) * math.ceil(n / tn) * per_kernel / sms
        rate = top * waves / math.ceil(waves) * k / (k + kf)
        flops = 2.0 * m * n * k * mats
        return flops, flops / rate if rate > 0 else 0.0

    qk, qk_s = gemm_seconds(s, s, d)
    pv, pv_s = gemm_seconds(s, d, s)
    scores = s * s * mats
    forward, backward = t.eager_bytes
    passes = (("attention", qk + pv, qk_s + pv_s, forward * scores),  # forward
              ("attention", qk + 3 * pv, qk_s + 3 * pv_s, backward * scores),  # backward
              ("recompute", (qk + pv) * again, (qk_s + pv_s) * again, forward * scores * again))
    for name, flops, compute_s, moved in passes:
        memory_s = moved / bw if bw > 0 else 0.0
        row = rows[_CLS[name]]
        row[0] += flops
        row[1] += moved
        row[2] += compute_s + memory_s
        row[3] += compute_s
        row[4] += memory_s


_CLEAR_ON_OVERRIDE += [micro_batch.cache_clear, _plan.cache_clear]


def optimizer_bytes_per_param(weight: float, gradient: float, states: float, *, master: bool, impl: str,
                               sgd: bool = False, eight_bit: bool = False) -> float:  # fmt: skip
    """Bytes one trained parameter moves in the optimizer step (read and write, every pass), by implementation.

    torch AdamW, foreach or for-loop (torch/optim/adam.py ``_multi_tensor_adam`` / ``_single_tensor_adam``, decoupled
    weight decay): ``_foreach_mul_`` (weight decay: param r/w), ``_foreach_lerp_`` (m r/w, grad r),
    ``_foreach_mul_`` (v r/w), ``_foreach_addcmul_`` (v r/w, grad r twice), ``_foreach_sqrt`` (v r, temp w),
    ``_foreach_div_`` and ``_foreach_add_`` (temp r/w each), ``_foreach_addcdiv_`` (param r/w, m r, temp r):
    param 4 accesses, grad 3, m 3, v 5, temp 6. ``fused=True`` (and bitsandbytes' 8-bit kernels) make one pass:
    param r/w, grad r, m and v r/w. A mixed-precision full fine-tune also copies the fp32 master to the bf16 weight
    (r 4, w 2). Gradient clipping (max_grad_norm 1.0, the Trainer's default) reads the grads for the norm and
    scales them: grad 3 accesses. ``states`` is the optimizer's bytes per parameter incl. an fp32 master."""
    p_bytes = 4.0 if master else weight  # the parameter the optimizer updates: the fp32 master when there is one
    state = (states - (4.0 if master else 0.0)) / 2 if not sgd else 0.0  # one of m, v
    clip = 3 * gradient
    if sgd:
        return 2 * p_bytes + gradient + clip
    if impl == "fused" or eight_bit:
        moved = 2 * p_bytes + gradient + 4 * state
    else:
        moved = 4 * p_bytes + 3 * gradient + (3 + 5 + 6) * state
    return moved + clip + (6.0 if master else 0.0)


def optimizer_class(moved: float, device: Device) -> OpClass:
    """The optimizer step over ``moved`` bytes (optimizer_bytes_per_param x the parameters this card updates):
    ~10 FLOPs per parameter for AdamW against tens of bytes, memory-bound on every card (seed A: it "touches
    every state once with little arithmetic")."""
    bw = device.bandwidth_gb_s * 1e9 * efficiency().bandwidth
    t = moved / bw if bw else 0.0
    return OpClass("optimizer", 0.0, moved, t, 0.0, t)
