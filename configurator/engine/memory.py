"""Memory per card for one job: model states, activations, transients and overhead.

GB = 10^9 bytes throughout (the seeds' unit). Three counters, as PyTorch and the driver report them:
- peak allocated: live tensors at the peak (``torch.cuda.max_memory_allocated``);
- allocator reserved: the caching allocator's pool (``torch.cuda.max_memory_reserved``);
- peak reserved: the pool plus the CUDA context: what nvidia-smi shows for the process.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from configurator.catalog.models import ModelSpec
from configurator.engine.activations import activation_breakdown
from configurator.engine.build import Job
from configurator.engine.lowprecision import Capability, extra_bytes, fp8_base_bytes, linear_tensor_count
from configurator.engine.precision import BF16, NF4_BYTES, NF4_DQ_BYTES, trained_bytes

GB = 1e9

# CUDA context and kernels loaded by PyTorch: 0.3-0.6 GiB (measured-runs.md, "Counters differ").
CUDA_CONTEXT_BYTES = 0.5 * 2**30
# Caching-allocator pool over live tensors: block rounding and fragmentation. Fitted to the measured runs'
# reserved/allocated pairs (PEFT, torchtune and Answer.AI rows in calibration.py) before the FSDP pools below
# were separated out; the spread of errors that remains is the band calibration.py reports.
ALLOCATOR_STATIC_FRACTION = 0.02  # long-lived tensors are allocated once, in large blocks
ALLOCATOR_DYNAMIC_FRACTION = 0.05  # activations and transients are freed and re-allocated every step

# FSDP set-up leaves a pool behind. FSDP1 builds each unit by moving its parameters to the GPU and copying
# them into one flat parameter before keeping 1/N of it (torch/distributed/fsdp/_flat_param.py:
# flatten_tensors, then _get_shard), so the largest unit (the root: embeddings and lm_head) exists twice,
# unsharded, at once. The caching allocator keeps those freed blocks, and reset_peak_memory_stats() does not
# release them, so a run's peak reserved memory never falls below this pool (AnswerDotAI/fsdp_qlora train.py
# resets the peak right after wrapping). The one published pool, "reserved_after_model_wrap" about 3.72 GiB
# for Llama 2 7B QLoRA over 2 GPUs (benchmarks_03_2024.md), is the sharded weights and adapters (with the static
# block rounding above) plus 3.3 root units: the two copies above, and the smaller units' copies and block rounding,
# which cannot serve the largest unit. tests/test_calibration.py holds the model to that figure.
FSDP_SETUP_UNIT_COPIES = 3.3


@dataclass(frozen=True)
class MemoryBreakdown:
    """Bytes on one card (or MIG instance) for one job."""

    weights: float  # base model weights as stored on this card (bf16, NF4 or a shard)
    adapters: float  # LoRA adapter weights
    gradients: float
    optimizer: float  # optimizer states, and fp32 master weights for mixed precision
    activations: float  # saved for backward: layers, head, logits and loss
    transient: float  # at the peak only: recomputed layer, gathered FSDP unit, dequantised weights, grads
    cuda_context: float
    fragmentation: float  # caching-allocator block rounding over the compute stream's live tensors
    gradients_at_peak: float  # gradients alive at the activation peak (0 with zero_grad(set_to_none))
    fixed_budget: bool  # activations + transients replaced by the job's activation_memory_gb
    # FSDP only: bytes of the peak allocated on FSDP's own CUDA streams (gathered units on the unshard
    # stream, reduce-scattered gradient shards on the post-backward stream). The caching allocator keeps
    # one pool per stream, so these blocks never serve the compute stream (PyTorch "CUDA semantics",
    # memory management) and add to whichever compute-stream pool is larger.
    side_stream: float = 0.0
    setup_pool: float = 0.0  # pool the allocator still holds from FSDP set-up (FSDP_SETUP_UNIT_COPIES)

    @property
    def model_states(self) -> float:
        """The seeds' "model states": weights, gradients and optimizer states (adapters included)."""
        return self.weights + self.adapters + self.gradients + self.optimizer

    @property
    def peak_allocated(self) -> float:
        static = self.weights + self.adapters + self.optimizer
        if self.fixed_budget:
            return static + self.gradients + self.activations
        at_backward_start = static + self.gradients_at_peak + self.activations + self.transient
        at_backward_end = static + self.gradients + self.transient
        return max(at_backward_start, at_backward_end)

    @property
    def compute_stream_pool(self) -> float:
        """Pool the training step needs on the compute stream: its live tensors plus block rounding."""
        static = self.weights + self.adapters + self.optimizer
        if not self.side_stream:
            return self.peak_allocated + self.fragmentation
        # gradients live on FSDP's post-backward stream (in side_stream), so they are left out here
        compute_transient = self.transient - (self.side_stream - self.gradients)
        return static + self.activations + compute_transient + self.fragmentation

    @property
    def setup_bound(self) -> bool:
        """True when the pool left from FSDP set-up, not the training step, sets the peak reserved."""
        return self.setup_pool > self.compute_stream_pool

    @property
    def allocator_reserved(self) -> float:
        return max(self.compute_stream_pool, self.setup_pool) + self.side_stream

    @property
    def allocator_reserve(self) -> float:
        """The pool beyond live tensors at the peak: fragmentation, per-stream pools, set-up leftovers."""
        return self.allocator_reserved - self.peak_allocated

    @property
    def peak_reserved(self) -> float:
        return self.allocator_reserved + self.cuda_context

    @property
    def overhead(self) -> float:
        return self.cuda_context + self.allocator_reserve


@dataclass(frozen=True)
class Parameters:
    total: int
    trainable: int
    frozen_linear: int  # block linear weights (NF4 under QLoRA)
    frozen_other: int  # embeddings, lm_head, norms, biases (bf16 under QLoRA)
    largest_linear: int  # weights of the largest single linear layer (dequantised one at a time)
    layer_params: int  # parameters of one decoder layer (one FSDP unit)
    embedding_and_head: int


@functools.lru_cache(maxsize=1024)
def parameters(model: ModelSpec, method: str, rank: int, targets: str | tuple[str, ...]) -> Parameters:
    counts = model.param_counts()
    tgt = targets if isinstance(targets, str) else [t for t in targets if t not in ("lm_head", "output")]
    if method == "full":
        trainable = counts.total
    else:
        trainable = model.lora_trainable(rank, tgt) if tgt else 0
        if not model.is_params_only and isinstance(targets, tuple) and {"lm_head", "output"} & set(targets):
            assert model.hidden_size and model.vocab_size
            trainable += rank * (model.hidden_size + model.vocab_size)
    modules = model.linear_modules()
    largest = max((m.in_features * m.out_features for m in modules), default=0)
    layers = model.num_layers or 1
    embed_head = counts.embedding + counts.lm_head
    layer = (counts.block_linear + counts.other) // layers if model.num_layers else counts.total
    return Parameters(
        total=counts.total,
        trainable=trainable,
        frozen_linear=counts.block_linear,
        frozen_other=counts.total - counts.block_linear,
        largest_linear=largest,
        layer_params=layer,
        embedding_and_head=embed_head,
    )


def job_parameters(model: ModelSpec, job: Job) -> Parameters:
    targets = job.lora.targets if isinstance(job.lora.targets, str) else tuple(job.lora.targets)
    return parameters(model, job.method, job.lora.rank, targets)


@dataclass(frozen=True)
class Sharding:
    shards: int  # FSDP / ZeRO-3 group size
    tp: int  # tensor-parallel degree
    ddp: bool  # data-parallel replicas keeping gradient buckets


def sharding(job: Job, n_cards: int, on_mig: bool = False) -> Sharding:
    """How the job's model states and activations split over its ``n_cards`` cards; one rule for the main
    result and for the sweeps. MIG instances never form a group (NCCL does not run across them)."""
    if n_cards <= 1 or on_mig:
        return Sharding(1, 1, False)
    return Sharding(
        shards=n_cards if job.parallelism == "fsdp" else 1,
        tp=n_cards if job.parallelism == "tp" else 1,
        ddp=job.parallelism == "ddp",
    )


def memory_for_card(
    model: ModelSpec, job: Job, *, shards: int = 1, tp: int = 1, ddp: bool = False, sequence_length: int | None = None,
    capability: Capability | None = None,
) -> MemoryBreakdown:
    """Memory of ``job`` on one of its cards.

    shards: FSDP / ZeRO-3 group size (model states divided by it, seed A's 64.2 GB per card);
    tp: tensor-parallel degree (weights and most activations divided by it); ddp: replicas keep
    gradient buckets allocated through the step (torch DDP's bucket views); capability: the card's compute
    capability, which decides a low-precision recipe's copies (engine/lowprecision.py; None: the larger count).
    """
    p = job_parameters(model, job)
    tb = trained_bytes(job.method, job.optimizer, job.precision)
    split = shards * tp

    # ---- weights (seed A conventions) ----
    if job.method == "full":
        weights = p.total * tb.weight
        adapters = 0.0
        trained = p.total
    else:
        if job.method == "qlora":
            nf4 = NF4_DQ_BYTES if job.quantization == "nf4-dq" else NF4_BYTES
            weights = p.frozen_linear * nf4 + p.frozen_other * BF16  # embeddings, lm_head, norms stay bf16
        elif job.base_weights == "fp8":  # frozen base stored in FP8 (engine/lowprecision.py)
            weights = fp8_base_bytes(p.frozen_linear, p.frozen_other, linear_tensor_count(model))
        else:
            weights = p.total * BF16
        adapters = p.trainable * tb.weight
        trained = p.trainable
    weights /= split
    adapters /= split
    gradients = trained * tb.gradient / split
    optimizer = trained * tb.optimizer / split
    # low-precision recipe: quantized weight copies, scales, amax histories (engine/lowprecision.py)
    layer_linear = p.frozen_linear // (model.num_layers or 1)
    low = extra_bytes(model, job, p.frozen_linear, p.largest_linear, layer_linear, capability, shards=shards, tp=tp)
    weights += low.persistent

    # ---- activations ----
    fixed = job.activation_memory_gb is not None
    if fixed:
        activations = job.activation_memory_gb * GB  # type: ignore[operator]
        transient = 0.0
    elif model.is_params_only:
        # No architecture: activations cannot be derived; the job needs activation_memory_gb (a check says so).
        activations = transient = 0.0
    gathered = setup_pool = 0.0
    # FSDP units, unsharded and stored as the weights are: one decoder layer, and the root (embeddings, lm_head)
    layer_unit = p.layer_params * (weights * split / max(p.total, 1)) / tp
    root_unit = p.embedding_and_head * BF16 / tp
    if not fixed and not model.is_params_only:
        act = activation_breakdown(model, job, tp, sequence_length)
        activations = act.saved_bytes
        transient = act.transient_bytes
        if job.method == "qlora":
            transient += p.largest_linear * BF16  # bitsandbytes dequantises one weight to bf16 per matmul
        transient += low.transient
        if shards > 1:
            # FSDP gathers one decoder layer at a time and prefetches the next (two units in flight), and
            # the root unit stays gathered through forward and backward. Each gathered unit is a whole
            # unsharded copy, beside the local shard (FSDP's padded unsharded flat param).
            gathered = 2 * layer_unit + root_unit
            transient += gathered
    if shards > 1 and not model.is_params_only:
        # set-up happens before any activation exists, so a fixed activation budget does not remove it
        setup_pool = (weights + adapters) * (1 + ALLOCATOR_STATIC_FRACTION)
        setup_pool += FSDP_SETUP_UNIT_COPIES * max(layer_unit, root_unit)

    gradients_at_peak = gradients if (ddp or job.method != "full") else 0.0
    static = weights + adapters + optimizer + gradients
    dynamic = activations + transient - gathered
    fragmentation = ALLOCATOR_STATIC_FRACTION * static + ALLOCATOR_DYNAMIC_FRACTION * dynamic
    # gathered units on the unshard stream; gradient shards on the post-backward stream
    side_stream = gathered + gradients if gathered else 0.0
    return MemoryBreakdown(
        weights=weights,
        adapters=adapters,
        gradients=gradients,
        optimizer=optimizer,
        activations=activations,
        transient=transient,
        cuda_context=CUDA_CONTEXT_BYTES,
        fragmentation=fragmentation,
        gradients_at_peak=gradients_at_peak,
        fixed_budget=fixed,
        side_stream=side_stream,
        setup_pool=setup_pool,
    )
