"""Memory per card for one job: model states, activations, transients and overhead.

GB = 10^9 bytes throughout (the seeds' unit). Three counters, as PyTorch and the driver report them:
- peak allocated: live tensors at the peak (``torch.cuda.max_memory_allocated``);
- allocator reserved: the caching allocator's pool (``torch.cuda.max_memory_reserved``);
- peak reserved: the pool plus the CUDA context: what nvidia-smi shows for the process.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from configurator.catalog.models import ModelSpec
from configurator.catalog.units import GB, GIB
from configurator.engine.cache import CACHE
from configurator.engine.lowprecision.checks import (
    Capability,
    LowPrecisionBytes,
    extra_bytes,
    fp8_base_bytes,
    linear_tensor_count,
)
from configurator.engine.memory import moe, rl, vision
from configurator.engine.memory.activations import ActivationBreakdown, activation_breakdown
from configurator.engine.memory.breakdown import MemoryBreakdown
from configurator.engine.memory.loadpath import LoadBytes, bnb_load, torchao_nf4_load
from configurator.engine.memory.precision import (
    ADAM8_STATE_BYTES,
    BF16,
    FP32,
    TrainedBytes,
    nf4_bytes,
)
from configurator.engine.memory.states import (  # re-exported: the planner, the report and the tests use them
    Parameters,
    Sharding,
    effective_offload,
    job_parameters,
    parameters,
    sharding,
    trained_layout,
)
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.stack import PROFILES, Stack, hf_amp_full, runs_model_dtypes, stack_of

__all__ = [
    "GB",
    "AllocatorConstants",
    "Parameters",
    "Sharding",
    "effective_offload",
    "job_parameters",
    "memory_for_card",
    "parameters",
    "sharding",
    "trained_layout",
    "training_activations",
]


# CUDA context and kernels loaded by PyTorch: 0.3-0.6 GiB (measured-runs.md, "Counters differ").
CUDA_CONTEXT_BYTES = 0.5 * GIB
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
# which cannot serve the largest unit. tests/engine/test_calibration.py holds the model to that figure.
FSDP_SETUP_UNIT_COPIES = 3.3
# FSDP2 and DeepSpeed ZeRO-3 shard each parameter as it is wrapped: fully_shard moves one module's parameters
# to the GPU and FSDPParam._init_sharded_param (torch/distributed/fsdp/_fully_shard/_fsdp_param.py) copies the
# local dim-0 chunk out, so the unsharded parameters of one unit exist at a time, once; deepspeed.zero.Init
# (deepspeed/runtime/zero/partition_parameters.py) partitions each module's parameters as it is constructed.
# Built on the meta device (torchtitan) there is no unsharded copy at all.
FSDP2_SETUP_UNIT_COPIES = 1.0

# DeepSpeed ZeRO defaults (deepspeed/runtime/zero/config.py DeepSpeedZeroConfig): gradients are reduced
# through buckets of reduce_bucket_size = 5e8 elements (stage 2 and 3: the ipg bucket in the gradient dtype).
ZERO_REDUCE_BUCKET_ELEMENTS = 5e8

@dataclass(frozen=True)
class AllocatorConstants:
    """The memory model's fitted constants, passed explicitly so cross-validation can refit them."""

    static_fraction: float = ALLOCATOR_STATIC_FRACTION
    dynamic_fraction: float = ALLOCATOR_DYNAMIC_FRACTION
    fsdp1_unit_copies: float = FSDP_SETUP_UNIT_COPIES


DEFAULT_CONSTANTS = AllocatorConstants()


def memory_for_card(
    model: ModelSpec, job: Job, *, shards: int = 1, tp: int = 1, ddp: bool = False, sequence_length: int | None = None,
    constants: AllocatorConstants = DEFAULT_CONSTANTS, capability: Capability | None = None, ep: int = 1,
    critic: ModelSpec | None = None,
) -> MemoryBreakdown:
    """Memory of ``job`` on one of its cards (memoised on the very model and job objects: both are immutable,
    and an evaluation repeated while the user drags sees the same unchanged jobs). ep: expert-parallel degree.
    critic: PPO's critic and reward checkpoint (rl.critic_model; None: the policy's architecture)."""
    inputs = (model, job) if critic is None else (model, job, critic)
    return CACHE.memo("memory", inputs, (shards, tp, ddp, sequence_length, constants, capability, ep),
                      lambda: _memory_for_card(model, job, shards=shards, tp=tp, ddp=ddp,
                                               sequence_length=sequence_length, constants=constants,
                                               capability=capability, ep=ep, critic=critic))  # fmt: skip


@dataclass
class _States:
    """Model states on one card, in bytes (offload moves some to the host), and what they were made from."""

    weights: float
    adapters: float
    gradients: float
    optimizer: float
    trained: int  # parameters trained
    full_weights: float  # the weights unsharded, as stored
    low: LowPrecisionBytes  # the low-precision recipe's copies, scales and transients


@dataclass(frozen=True)
class _Activations:
    """Activation-time bytes on one card: saved activations, transients and the peaks of the head and loss."""

    activations: float = 0.0
    transient: float = 0.0
    loss_backward: float = 0.0
    gathered: float = 0.0
    head_and_loss: float = 0.0
    head_gradient: float = 0.0
    forward_extra: float = 0.0


def _model_states(model: ModelSpec, job: Job, p: Parameters, tb: TrainedBytes, *, stage: int, shards: int, tp: int,
                  fp32_head: bool, capability: Capability | None, ep: int = 1,
                  critic: ModelSpec | None = None) -> _States:  # fmt: skip
    """Weights, adapters, gradients and optimizer states per card, split as the sharding stage splits them."""
    w_split = (shards if stage == 3 else 1) * tp
    g_split = (shards if stage >= 2 else 1) * tp
    o_split = shards * tp
    # ---- weights (seed A conventions) ----
    if job.method == "full":
        weights = p.total * tb.weight
        adapters = 0.0
        trained = p.trainable  # the whole model, less a VLM's frozen vision tower (engine/vision.py)
    else:
        if job.method == "qlora":
            nf4 = nf4_bytes(job.quantization)
            # embeddings, lm_head and norms stay bf16, or fp32 after PEFT's prepare_model_for_kbit_training
            weights = p.frozen_linear * nf4 + p.frozen_other * (FP32 if fp32_head else BF16)  # norms: a few MB
        elif job.base_weights == "fp8":  # frozen base stored in FP8 (engine/lowprecision/checks.py)
            weights = fp8_base_bytes(p.frozen_linear, p.frozen_other, linear_tensor_count(model))
        elif moe.stores_mxfp4(model, job):  # gpt-oss experts kept in MXFP4 as shipped (engine/memory/moe.py)
            weights = moe.base_weight_bytes(model)
        else:
            weights = p.total * BF16
        adapters = p.trainable * tb.weight
        trained = p.trainable
    full_weights = weights  # unsharded, as stored
    weights /= w_split
    adapters /= w_split
    gradients = trained * tb.gradient / g_split
    optimizer = trained * tb.optimizer / o_split
    if ep > 1:  # expert parallel: this card's 1/ep of the experts, a replica of the rest (engine/memory/moe.py)
        split = moe.expert_split(model, job, trained, ep)
        weights *= split.weight_fraction
        adapters *= split.trained_fraction
        gradients *= split.trained_fraction
        optimizer *= split.trained_fraction
    # low-precision recipe: quantized weight copies, scales, amax histories (engine/lowprecision/checks.py)
    layer_linear = p.frozen_linear // (model.num_layers or 1)
    low = extra_bytes(model, job, p.frozen_linear, p.largest_linear, layer_linear, capability,
                      shards=shards if stage == 3 else 1, tp=tp)  # ZeRO-1/2 keep whole weights
    weights += low.persistent
    # DPO / GRPO / PPO frozen reference; PPO: critic trained, reward frozen (each split like the policy, EP included)
    weights += rl.reference_bytes(model, job, shards=shards, stage=stage, tp=tp, ep=ep)
    extra = rl.extra_states(model, job, shards=shards, stage=stage, tp=tp, ep=ep, critic=critic)
    weights += extra.critic_weights + extra.reward_weights
    gradients += extra.critic_gradients
    optimizer += extra.critic_optimizer
    trained += extra.critic_trained
    return _States(weights, adapters, gradients, optimizer, trained, full_weights, low)


def _units(job: Job, stack: Stack, p: Parameters, tb: TrainedBytes, full_weights: float, tp: int, fp32_head: bool,
           ) -> tuple[float, float]:  # fmt: skip
    """Bytes of the FSDP units as gathered: (one decoder layer, the root)."""
    # FSDP units, unsharded as gathered: one decoder layer, and the root (embeddings, lm_head); stored as the
    # weights are, or in bf16 (MixedPrecision param_dtype) where the shards are fp32 masters (trained_layout)
    gathered_bytes = BF16 if job.method == "full" and tb.weight == FP32 else full_weights / max(p.total, 1)
    layer_unit = p.layer_params * gathered_bytes / tp
    root_unit = p.embedding_and_head * (FP32 if fp32_head else BF16) / tp
    if stack.separate_head_units:
        # the embedding and the head wrapped on their own (torchtune's shard_model applies fully_shard to them,
        # recipes/full_finetune_distributed.py): each is resharded after its forward like a layer, so one of
        # them, not both, is gathered at a time
        root_unit /= 2
    return layer_unit, root_unit


def training_activations(model: ModelSpec, job: Job, tp: int = 1, sequence_length: int | None = None,
                         ) -> ActivationBreakdown:  # fmt: skip
    """One micro-batch's activations as the trainer makes them (``job`` as rl.training_view has it): GRPO makes
    logits of the completion only (engine/memory/rl.py logit_fraction), so its logits and their gradients scale."""
    act = activation_breakdown(model, job, tp, sequence_length)
    if (keep := rl.logit_fraction(job)) < 1:
        act = replace(act, loss_bytes=act.loss_bytes * keep, loss_backward_bytes=act.loss_backward_bytes * keep,
                      held_logits_bytes=act.held_logits_bytes * keep,
                      forward_extra_bytes=act.forward_extra_bytes * keep)  # fmt: skip
    return act


def _activations(model: ModelSpec, job: Job, p: Parameters, tb: TrainedBytes, st: _States, *, stage: int,
                 shards: int, tp: int, sequence_length: int | None, units: tuple[float, float], ep: int = 1,
                 critic: ModelSpec | None = None) -> _Activations:  # fmt: skip
    """Activations, transients (dequantised weights, gathered units, reduce buckets) and the head's peaks."""
    if job.activation_memory_gb is not None:
        return _Activations(activations=job.activation_memory_gb * GB)
    if model.is_params_only:
        # No architecture: activations cannot be derived; the job needs activation_memory_gb (a check says so).
        return _Activations()
    g_split = (shards if stage >= 2 else 1) * tp
    param_sharded = shards > 1 and stage == 3
    head_gradient = gathered = 0.0
    act = training_activations(model, job, tp, sequence_length)
    transient = act.transient_bytes
    if job.method == "full":
        # the head's weight gradient is made by its backward, before the layers'; unsharded (FSDP reduces
        # the root unit's gradients only after the whole backward) or the card's share of it
        head_gradient = p.embedding_and_head / 2 * (BF16 if param_sharded else tb.gradient / g_split) / tp
    if job.method == "qlora":
        transient += p.largest_linear * BF16  # bitsandbytes dequantises one weight to bf16 per matmul
    transient += st.low.transient
    if param_sharded:
        # FSDP gathers one decoder layer at a time and prefetches the next (two units in flight), and
        # the root unit stays gathered through forward and backward. Each gathered unit is a whole
        # unsharded copy, beside the local shard (FSDP's padded unsharded flat param). ZeRO-3 fetches and
        # prefetches per module the same way (deepspeed/runtime/zero/partitioned_param_coordinator.py).
        gathered = 2 * units[0] + units[1]
        transient += gathered
    if model.is_moe:  # the router's one-hot mask, and under expert parallelism the all-to-all buffers
        transient += moe.routing_transient_bytes(model, job.sequence_length * job.micro_batch_size)
        transient += moe.all_to_all_buffer_bytes(model, job, ep, job.moe_capacity_factor)
    if shards > 1 and stage >= 2 and PARALLELISM[job.parallelism].deepspeed:
        # the ipg bucket gradients are copied into before each reduce (stage_1_and_2.py
        # DeepSpeedZeroOptimizer.reduce_independent_p_g_buckets_and_remove_grads)
        transient += min(ZERO_REDUCE_BUCKET_ELEMENTS, st.trained) * tb.gradient
    activations = act.saved_bytes
    activations += vision.tower_extra_bytes(model, job)  # a VLM's pixel inputs and its trained tower's activations
    if rl.keeps_critic(job):  # PPO: the value model's forward feeds the same loss (engine/memory/rl.py), saved beside;
        # its head is a hidden x 1 score, no vocabulary logits
        values = activation_breakdown(critic or model, rl.critic_job(job), tp, sequence_length)
        activations += values.layers_bytes + values.head_bytes
    forward_extra = act.forward_extra_bytes
    if hf_amp_full(job):
        # autocast's cast cache: a bf16 copy of every weight from its first use to the end of the forward's
        # autocast region; without checkpointing the graph keeps it into the backward (each matmul saves its cast)
        cache = p.trainable * BF16 / tp  # (cached_cast caches leaves that require grad: not a frozen tower)
        if job.gradient_checkpointing:
            forward_extra += cache
        else:
            activations += cache
    return _Activations(activations=activations, transient=transient, loss_backward=act.loss_backward_bytes,
                        gathered=gathered, head_and_loss=act.head_bytes + act.loss_bytes - act.held_logits_bytes,
                        head_gradient=head_gradient, forward_extra=forward_extra)  # fmt: skip


def _load(model: ModelSpec, job: Job, stack: Stack, p: Parameters, prep: bool, tp: int) -> LoadBytes:
    """Loading: quantising (and PEFT's fp32 cast) one weight at a time (engine/memory/loadpath.py)."""
    if job.method == "qlora" and not model.is_params_only:
        if stack.framework == "torchtune":
            return torchao_nf4_load(model, stack.nf4_chunked, tp)
        return bnb_load(p.largest_linear, (p.embedding_and_head / 2) * BF16 if prep else 0.0, tp)
    return LoadBytes(0.0, 0.0)


def _offload(job: Job, st: _States, offload: str, stage: int, g_split: int) -> float | None:
    """Moves the states that live in host memory instead off ``st``; returns the host bytes (None: unknown)."""
    host: float | None = 0.0
    if offload in ("cpu", "cpu-optimizer"):
        if PARALLELISM[job.parallelism].fsdp:
            # CPUOffload(offload_params=True) (torch/distributed/fsdp/api.py; FSDP2 CPUOffloadPolicy in
            # _fully_shard/_fsdp_api.py): sharded parameters and their gradients on the host, the optimizer
            # steps there too; the GPU holds only the gathered units.
            host = st.weights + st.adapters + st.gradients + st.optimizer
            st.weights = st.adapters = st.gradients = st.optimizer = 0.0
        else:
            # ZeRO-Offload: offload_optimizer device cpu keeps the optimizer states (fp32 master included) and
            # an fp32 copy of the gradient partition in pinned host memory, and steps with DeepSpeedCPUAdam
            # (deepspeed/runtime/zero/stage_1_and_2.py, cpu_offload; stage3.py offload_optimizer); ZeRO-3 with
            # offload_param cpu keeps the parameter partitions there too ("cpu"). "cpu-optimizer" is
            # offload_optimizer alone: the parameter partitions stay on the card (DeepSpeed's config docs name the
            # two switches apart; deepspeed/runtime/zero/offload_config.py).
            host = st.optimizer + st.trained * FP32 / g_split
            st.optimizer = 0.0
            st.gradients = 0.0 if stage >= 2 else st.gradients
            if stage == 3 and offload == "cpu":
                host += st.weights + st.adapters
                st.weights = st.adapters = 0.0
    elif offload == "nvme":
        # ZeRO-Infinity: parameters and optimizer states on NVMe, staged through pinned host buffers whose
        # size depends on buffer_count / buffer_size and the optimizer's sub-groups: unknown here.
        host = None
        st.weights = st.adapters = st.optimizer = st.gradients = 0.0
    return host


def _setup_pool(job: Job, stack: Stack, st: _States, constants: AllocatorConstants, units: tuple[float, float],
                ) -> float:  # fmt: skip
    """The pool FSDP / ZeRO-3 set-up leaves behind (after offload: shards that go to the host are not in it).
    Set-up happens before any activation exists, so a fixed activation budget does not remove it."""
    if PARALLELISM[job.parallelism].fsdp and stack.fsdp_version == 1:
        copies = constants.fsdp1_unit_copies
    else:
        copies = 0.0 if stack.meta_init else FSDP2_SETUP_UNIT_COPIES
    return (st.weights + st.adapters) * (1 + constants.static_fraction) + copies * max(*units)


def _optimizer_temp(job: Job, stack: Stack, p: Parameters, tb: TrainedBytes, st: _States, master_in_states: bool,
                    o_split: int) -> float:  # fmt: skip
    """The optimizer step's temporary: the square root of Adam's second moment, as the implementation makes it."""
    impl = PARALLELISM[job.parallelism].optimizer_impl or stack.optimizer_impl  # DeepSpeed's FusedAdam
    eight_bit = job.optimizer.endswith("8bit")  # bitsandbytes steps each parameter in one fused kernel
    assert ADAM8_STATE_BYTES  # 8-bit states are sized in precision.trained_bytes
    if not st.optimizer or job.optimizer == "sgd" or eight_bit:
        return 0.0
    state_bytes = (tb.optimizer - (FP32 if master_in_states else 0)) / 2  # one of Adam's two states
    if impl == "foreach":
        # torch/optim/adam.py _multi_tensor_adam: `exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)`
        # allocates a copy of the second moment for the whole device/dtype group at once.
        return st.trained * state_bytes / o_split
    if impl == "for-loop" and job.method == "full":
        # _single_tensor_adam: `denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)`, one
        # parameter at a time: the largest parameter's state (an adapter matrix is under a few MB: left out)
        return max(p.largest_linear, p.embedding_and_head / 2) * state_bytes / o_split
    return 0.0


def _embedding_gradient(model: ModelSpec, job: Job, tb: TrainedBytes, tp: int, g_split: int) -> float:
    """The input embedding's gradient on this card when it trains and is not tied to the head (a tied one's
    gradient exists from the head's backward on): embedding_dense_backward makes it after every layer's backward
    (seen in the meta trace: the full VLM rows peak there, the last layer's transients freed)."""
    if job.method != "full" or model.tie_word_embeddings or model.is_params_only or not model.vocab_size:
        return 0.0
    assert model.hidden_size
    return (model.vocab_size + model.extra_embedding_rows) * model.hidden_size * tb.gradient / g_split


def _tied_gradient_sum(model: ModelSpec, job: Job, tb: TrainedBytes, tp: int) -> float:
    """A trained tied embedding gets two gradients: the head's arrives first and waits in the autograd input
    buffer of the weight's AccumulateGrad node; the embedding's backward then makes its own and the buffer adds
    them out of place (torch/csrc/autograd/input_buffer.cpp accumulate; seen in the meta trace and on CPU), so at
    the end of backward two more embedding-sized gradients are alive. Modelled where the trace covers it."""
    if job.method != "full" or not model.tie_word_embeddings or not runs_model_dtypes(job) or model.is_params_only:
        return 0.0
    assert model.vocab_size and model.hidden_size
    return 2 * model.vocab_size * model.hidden_size * tb.gradient / tp


def _memory_for_card(
    model: ModelSpec, job: Job, *, shards: int, tp: int, ddp: bool, sequence_length: int | None,
    constants: AllocatorConstants, capability: Capability | None, ep: int = 1, critic: ModelSpec | None = None,
) -> MemoryBreakdown:
    """Memory of ``job`` on one of its cards, over the whole run (load, wrap, forward, backward, optimizer step).

    shards: FSDP / DeepSpeed ZeRO group size (for FSDP and ZeRO-3 model states divided by it, seed A's
    64.2 GB per card; ZeRO-2 gradients and optimizer states; ZeRO-1 optimizer states); tp: tensor-parallel
    degree (weights and most activations divided by it); ddp: replicas keep gradient buckets allocated
    through the step (torch DDP's bucket views). constants: the allocator constants (cross-validation refits them).
    capability: the card's compute capability, which decides a low-precision recipe's copies
    (engine/lowprecision/checks.py; None: the larger count).
    """
    # Longer than 60 lines only by this docstring and MemoryBreakdown's one-field-a-line constructor: the steps
    # are the functions above, and what is left here is the pools they add up to.
    job = rl.training_view(job)  # DPO: chosen + rejected in one batch; GRPO: prompt + completion tokens
    if sequence_length is not None:  # a sweep's text length: the images' tokens come on top (engine/vision.py)
        sequence_length += vision.image_tokens(model, job)
    job = vision.language_view(model, job)  # a VLM's language model runs on text + image tokens
    p = job_parameters(model, job)
    stack = stack_of(job)
    tb, master_in_states = trained_layout(job)
    strategy = PARALLELISM[job.parallelism]
    # FSDP and ZeRO-3 partition everything; a group passed for a strategy that shards nothing is sized as that
    # (the engine passes shards=1 there: engine/memory/states.py sharding)
    stage = strategy.stage if strategy.shards_states else 3
    offload = effective_offload(job) if shards > 1 or strategy.deepspeed else "none"
    prep = job.method == "qlora" and stack.kbit_fp32_prep
    # TRL then casts the embedding and the head back to bf16 when training in bf16 (trl's _prepare_peft_model calls
    # peft_module_casting_to_bf16 under args.bf16: norms to fp32, lm_head / embed_tokens back to bf16); the fp32
    # norms still make the residual stream fp32 (activations.py)
    fp32_head = prep and not (PROFILES[job.framework].prep_head_bf16 and job.precision != "pure-bf16")
    st = _model_states(model, job, p, tb, stage=stage, shards=shards, tp=tp, fp32_head=fp32_head,
                       capability=capability, ep=ep, critic=critic)  # fmt: skip
    units = _units(job, stack, p, tb, st.full_weights, tp, fp32_head)
    act = _activations(model, job, p, tb, st, stage=stage, shards=shards, tp=tp, sequence_length=sequence_length,
                       units=units, ep=ep, critic=critic)  # fmt: skip
    sc = constants.static_fraction
    load = _load(model, job, stack, p, prep, tp)
    host = _offload(job, st, offload, stage, (shards if stage >= 2 else 1) * tp)
    param_sharded = shards > 1 and stage == 3
    setup_pool = _setup_pool(job, stack, st, constants, units) if param_sharded and not model.is_params_only else 0.0
    optimizer_temp = _optimizer_temp(job, stack, p, tb, st, master_in_states, shards * tp)

    weights, adapters, gradients, optimizer = st.weights, st.adapters, st.gradients, st.optimizer
    gathered = act.gathered
    # Gradients alive through the forward and at the start of backward: DDP's bucket views, or the sums of earlier
    # micro-batches under gradient accumulation. Otherwise the step's zero_grad(set_to_none=True) (transformers
    # Trainer, torch.optim default since 2.0) left none: they appear as the layers' backward runs, while the
    # layers' saved tensors are freed, so all of them meet only at the end of backward (backward-end), LoRA's
    # too (the meta trace's peak of a QLoRA 1 x 512 step is the first layer's backward, for that reason)
    gradients_at_peak = gradients if (ddp or job.gradient_accumulation_steps > 1) else 0.0
    static = weights + adapters + optimizer + gradients
    dynamic = act.activations + act.transient - gathered
    fragmentation = sc * static + constants.dynamic_fraction * dynamic
    # gathered units on the unshard stream; gradient shards on the post-backward stream
    side_stream = gathered + gradients if gathered else 0.0
    load_pool = (weights + adapters) * (1 + sc) + load.segments if load.segments else 0.0
    opt_static = weights + adapters + optimizer + (0.0 if side_stream else gradients)
    optimizer_pool = opt_static * (1 + sc) + optimizer_temp * (1 + constants.dynamic_fraction)
    return MemoryBreakdown(
        weights=weights,
        adapters=adapters,
        gradients=gradients,
        optimizer=optimizer,
        activations=act.activations,
        transient=act.transient,
        cuda_context=CUDA_CONTEXT_BYTES,
        fragmentation=fragmentation,
        gradients_at_peak=gradients_at_peak,
        fixed_budget=job.activation_memory_gb is not None,
        side_stream=side_stream,
        setup_pool=setup_pool,
        load_pool=load_pool,
        optimizer_temp=optimizer_temp,
        optimizer_pool=optimizer_pool,
        loss_backward=act.loss_backward,
        gathered=gathered,
        head_and_loss=act.head_and_loss,
        head_gradient=act.head_gradient,
        head_gradient_from_loss=act.head_gradient if stack.loss == "fused" else 0.0,
        load_transient=load.transient,
        forward_extra=act.forward_extra,
        backward_end_extra=_tied_gradient_sum(model, job, tb, tp),
        embedding_gradient=_embedding_gradient(model, job, tb, tp, (shards if stage >= 2 else 1) * tp),
        host=host,
    )
