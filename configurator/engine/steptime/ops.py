"""Step time per op, from the model's shapes.

Every op of one micro-batch is timed as max(FLOPs / (peak x achieved fraction), bytes / (bandwidth x achieved
fraction)) and summed by op class:

- projections (q, k, v, o) and mlp (gate, up, down; MoE experts): GEMMs of M = tokens by N x K. Forward 2MNK;
  backward the input gradient 2MNK always and the weight gradient 2MNK only where the weight trains (a full
  fine-tune); Kaplan et al. 2020 section 2.1. The fraction of peak comes from the GEMM's own tiles vs the SMs it
  runs on (efficiency.py). MoE: each expert's GEMM has M = tokens x top-k / experts (FLOPs by the ACTIVE
  parameters), while every expert's weights are read (memory by ALL experts).
- attention: FlashAttention kernel, forward 4 s^2 head_dim heads per sequence, backward 2.5x, causal halves
  (FlashAttention-2 paper section 4.1), at the architecture's measured attention fraction.
- elementwise: norms, activations, rotary and residual adds, in bytes per token per layer (efficiency.yaml).
- lora: the A and B matrices of every adapted module (thin GEMMs of K x r and r x N: memory-bound at rank 16,
  seed A's "about 16 FLOPS per byte") and the scale-and-add of their output.
- dequant: QLoRA's NF4 weights read and written as BF16 before each use (forward, backward, recompute); an FP8
  base under BF16 compute likewise.
- loss: the logits GEMM (tokens x vocabulary x hidden) and the cross-entropy's bytes.
- recompute: one more forward under activation checkpointing.
- optimizer: once per step, every trained state read and written, divided over the cards that shard it.

The GPU cannot run faster than the host issues kernels (PyTorch eager: tens of microseconds per op): a
micro-batch takes at least its kernel count times the launch cost (efficiency.yaml ``launch``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from configurator.catalog.model_spec import ModelSpec
from configurator.engine.steptime.efficiency import Efficiency, efficiency

OP_CLASSES = ("projections", "mlp", "attention", "elementwise", "lora", "dequant", "loss", "recompute", "optimizer")
Bound = Literal["compute", "memory"]


@dataclass(frozen=True)
class Device:
    """What one card or MIG instance offers a job: its architecture, its dense BF16 rate (TFLOPS), memory
    bandwidth (GB/s) and streaming multiprocessors (a MIG instance: its own SMs and its memory slices' share)."""

    arch: str
    peak_tflops: float
    bandwidth_gb_s: float
    sms: float


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


class _Acc:
    """Sums ops into classes: FLOPs, bytes, time (max of compute and memory per op)."""

    def __init__(self, eff: Efficiency, dev: Device) -> None:
        self.eff, self.dev = eff, dev
        self.arch = eff.arch(dev.arch)
        self.peak = dev.peak_tflops * 1e12
        self.bw = dev.bandwidth_gb_s * 1e9 * eff.bandwidth
        self.rows: dict[str, list[float]] = {}

    def add(self, cls: str, flops: float, moved: float, rate: float) -> None:
        tc = flops / rate if rate > 0 else 0.0
        tm = moved / self.bw if self.bw > 0 else 0.0
        row = self.rows.setdefault(cls, [0.0, 0.0, 0.0, 0.0, 0.0])
        row[0] += flops
        row[1] += moved
        row[2] += max(tc, tm)
        if tc >= tm:
            row[3] += tc
        else:
            row[4] += tm

    def gemm(self, cls: str, m: float, n: float, k: float, count: float = 1.0) -> None:
        """``count`` GEMMs of M x N x K in BF16 (2 bytes per element read or written)."""
        if m <= 0 or n <= 0 or k <= 0 or count <= 0:
            return
        frac = self.eff.gemm_fraction(self.arch, m, n, k, self.dev.sms)
        self.add(cls, 2.0 * m * n * k * count, 2.0 * (m * k + k * n + m * n) * count, self.peak * frac)

    def stream(self, cls: str, moved: float) -> None:
        self.add(cls, 0.0, moved, 0.0)

    def classes(self) -> tuple[OpClass, ...]:
        return tuple(OpClass(name, *self.rows[name]) for name in OP_CLASSES if name in self.rows)


def _forward(acc: _Acc, model: ModelSpec, s: Shape, cls_of: dict[str, str] | None = None) -> float:
    """The forward pass's ops into ``acc`` (classes renamed through ``cls_of`` for the recompute); returns the
    forward's kernel count."""
    eff = acc.eff

    def c(name: str) -> str:
        return cls_of.get(name, name) if cls_of else name

    assert model.hidden_size and model.num_layers and model.num_attention_heads and model.head_dim
    h, layers, hd = model.hidden_size, model.num_layers, model.head_dim
    nh, nkv = model.num_attention_heads, model.num_key_value_heads or model.num_attention_heads
    tokens = float(s.seq * s.batch)
    kernels = eff.kernels_per_layer * layers
    for m in model.linear_modules():
        if m.group == "expert":
            # MoE: FLOPs by active parameters (top-k of E experts per token), every expert's weights read
            e, k = max(model.num_experts, 1), max(model.num_experts_per_tok, 1)
            acc.gemm(c("mlp"), tokens * k / e, m.out_features, m.in_features, m.count)
        else:
            acc.gemm(c("projections" if m.group == "attention" else "mlp"), tokens, m.out_features, m.in_features,
                     m.count)  # fmt: skip
    # FlashAttention forward: 4 s^2 d h per sequence and layer, causal halves (FlashAttention-2 section 4.1)
    att_flops = 4.0 * s.seq * s.seq * hd * nh * s.batch * layers * 0.5
    att_bytes = 2.0 * tokens * (2 * nh * hd + 2 * nkv * hd) * layers  # read q, k, v; write o
    acc.add(c("attention"), att_flops, att_bytes, acc.peak * eff.attention[acc.arch] * eff.sustained.get(acc.arch, 1))
    a, b, q = eff.elementwise[s.stack]
    ffn = model.tokens_ffn_width
    acc.stream(c("elementwise"), tokens * layers * (a * h + b * ffn + q * (nh + nkv) * hd))
    if s.rank:
        adapted = model.lora_modules(list(s.targets) if isinstance(s.targets, tuple) else s.targets)
        for m in adapted:
            acc.gemm(c("lora"), tokens, s.rank, m.in_features, m.count)  # x @ A
            acc.gemm(c("lora"), tokens, m.out_features, s.rank, m.count)  # (x A) @ B
            acc.stream(c("lora"), 3 * 2.0 * tokens * m.out_features * m.count)  # scale, add to the base output
        kernels += eff.kernels_per_adapter * sum(m.count for m in adapted)
    if s.dequant_bytes:
        weights = sum(m.weights for m in model.linear_modules())
        # read NF4/FP8, write BF16, at the dequantisation kernels' own achieved bandwidth
        acc.stream(c("dequant"), weights * (s.dequant_bytes + 2.0) * eff.bandwidth / eff.dequant_bandwidth)
        kernels += eff.kernels_per_dequant * sum(m.count for m in model.linear_modules())
    return kernels


def _backward(acc: _Acc, model: ModelSpec, s: Shape) -> None:
    eff = acc.eff
    assert model.hidden_size and model.num_layers and model.num_attention_heads and model.head_dim
    h, layers, hd = model.hidden_size, model.num_layers, model.head_dim
    nh, nkv = model.num_attention_heads, model.num_key_value_heads or model.num_attention_heads
    tokens = float(s.seq * s.batch)
    for m in model.linear_modules():
        cls = "projections" if m.group == "attention" else "mlp"
        rows = tokens * max(model.num_experts_per_tok, 1) / max(model.num_experts, 1) if m.group == "expert" else tokens
        acc.gemm(cls, rows, m.in_features, m.out_features, m.count)  # input gradient dX = dY W
        if s.full:
            acc.gemm(cls, m.in_features, m.out_features, rows, m.count)  # weight gradient dW = X^T dY
    att_flops = 4.0 * s.seq * s.seq * hd * nh * s.batch * layers * 0.5 * eff.attention_backward
    att_bytes = 2.0 * tokens * (4 * nh * hd + 4 * nkv * hd) * layers
    acc.add("attention", att_flops, att_bytes, acc.peak * eff.attention[acc.arch] * eff.sustained.get(acc.arch, 1))
    a, b, q = eff.elementwise[s.stack]
    acc.stream("elementwise", 2 * tokens * layers * (a * h + b * model.tokens_ffn_width + q * (nh + nkv) * hd))
    if s.rank:
        for m in model.lora_modules(list(s.targets) if isinstance(s.targets, tuple) else s.targets):
            # dX through B then A, dB and dA: four thin GEMMs
            acc.gemm("lora", tokens, s.rank, m.out_features, m.count)
            acc.gemm("lora", tokens, m.in_features, s.rank, m.count)
            acc.gemm("lora", s.rank, m.out_features, tokens, m.count)
            acc.gemm("lora", m.in_features, s.rank, tokens, m.count)
            acc.stream("lora", 2 * 2.0 * tokens * m.out_features * m.count)
    if s.dequant_bytes:
        weights = sum(m.weights for m in model.linear_modules())
        # the input gradient needs W again
        acc.stream("dequant", weights * (s.dequant_bytes + 2.0) * eff.bandwidth / eff.dequant_bandwidth)


def _loss(acc: _Acc, model: ModelSpec, s: Shape) -> None:
    assert model.hidden_size and model.vocab_size
    tokens = float(s.seq * s.batch)
    h, v = model.hidden_size, model.vocab_size
    acc.gemm("loss", tokens, v, h)  # logits forward
    acc.gemm("loss", tokens, h, v)  # input gradient
    if s.full:
        acc.gemm("loss", h, v, tokens)  # lm_head weight gradient
    acc.stream("loss", tokens * v * acc.eff.loss_bytes.get(s.loss, acc.eff.loss_bytes["standard"]))


@functools.lru_cache(maxsize=4096)
def micro_batch(model: ModelSpec, shape: Shape, device: Device) -> MicroBatch:
    """One micro-batch's ops by class on ``device`` (memoised by model, shape and device)."""
    eff = efficiency()
    acc = _Acc(eff, device)
    kernels = _forward(acc, model, shape)
    _backward(acc, model, shape)
    _loss(acc, model, shape)
    total_kernels = 3 * kernels  # backward issues about twice the forward's kernels
    if shape.checkpointing:
        recompute = {k: "recompute" for k in OP_CLASSES}
        total_kernels += _forward(acc, model, shape, recompute)
    classes = acc.classes()
    gpu = sum(c.seconds for c in classes)
    launch = total_kernels * eff.launch_us[shape.stack] * 1e-6
    return MicroBatch(classes, gpu, launch, total_kernels)


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
