"""What a job trains and how its states split over its cards: parameter counts, the sharding group, the bytes
per trained parameter its engine keeps, and the offload it gets. engine/memory/estimate.py sizes memory from these (and
re-exports them: they were defined there first).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from configurator.catalog.models import ModelSpec
from configurator.engine.memory import vision
from configurator.engine.memory.precision import FP32, TrainedBytes, keeps_mixed_states, trained_bytes
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.stack import hf_amp_full, runs_model_dtypes


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
    p = parameters(model, job.method, job.lora.rank, targets)
    if model.vision is None:
        return p
    # a vision-language model (engine/vision.py): a full fine-tune trains the tower only when the job says so
    # (frozen: LLaMA-Factory freeze_vision_tower, the usual recipe); a LoRA job adds the tower's adapters
    # the tower's linear weights count with the quantised ones: bitsandbytes quantises every nn.Linear but the output
    # head (transformers quantizers/base.py get_keys_to_not_convert), the tower's included
    tower_linear = sum(i * o * n for _name, i, o, n in model.vision.linear_shapes())
    p = replace(p, frozen_linear=p.frozen_linear + tower_linear, frozen_other=p.frozen_other - tower_linear)
    if job.method == "full":
        return p if vision.tower_trained_params(model, job) else replace(p, trainable=p.total - model.vision.params())
    return replace(p, trainable=p.trainable + vision.tower_trained_params(model, job))


@dataclass(frozen=True)
class Sharding:
    shards: int  # FSDP / ZeRO-3 group size
    tp: int  # tensor-parallel degree
    ddp: bool  # data-parallel replicas keeping gradient buckets
    ep: int = 1  # expert-parallel degree: each card holds 1/ep of the MoE experts (engine/memory/moe.py)


def sharding(job: Job, n_cards: int, on_mig: bool = False) -> Sharding:
    """How the job's model states and activations split over its ``n_cards`` cards; one rule for the main
    result and for the sweeps. MIG instances never form a group (NCCL does not run across them).
    ``shards`` is the data-parallel group that partitions states: FSDP and ZeRO-3 all of them, ZeRO-2 gradients
    and optimizer states, ZeRO-1 optimizer states (memory_for_card reads the stage from the job)."""
    if n_cards <= 1 or on_mig:
        return Sharding(1, 1, False)
    s = PARALLELISM[job.parallelism]
    return Sharding(shards=n_cards if s.shards_states else 1, tp=n_cards if s.splits_layers else 1,
                    ddp=s.gradient_buckets, ep=n_cards if s.shards_experts else 1)


def trained_layout(job: Job) -> tuple[TrainedBytes, bool]:
    """Bytes per trained parameter as the job's sharding engine keeps them, and whether the optimizer bytes
    include an fp32 master copy (else they are the optimizer's states alone).

    FSDP keeps no bf16 working copy of a trained parameter: with mixed precision the sharded parameter itself is
    the fp32 master, cast to bf16 only for the all-gather (torch/distributed/fsdp/_flat_param.py FlatParamHandle
    _use_low_precision_shard, whose _mp_shard is freed after the gather; FSDP2 FSDPParam.all_gather_inputs casts
    to MixedPrecisionPolicy.param_dtype), and the reduce-scattered gradient shard is cast back to the parameter's
    fp32 (FSDP1 _runtime_utils._cast_grad_to_param_dtype; FSDP2 foreach_reduce to the original dtype). So a full
    fine-tune under FSDP with mixed states keeps 4 (parameter) + 4 (gradient) + 8 (Adam states) B per parameter,
    sharded: the same 16 B as ZeRO's 2 + 2 + 12 (DeepSpeed keeps bf16 partitions beside fp32 masters), but 12 B,
    not 14, are alive at the activation peak, when gradients are not.
    """
    tb = trained_bytes(job.method, job.optimizer, job.precision)
    if job.method != "full" and not keeps_mixed_states(job.precision) and runs_model_dtypes(job):
        # PEFT keeps LoRA adapters in fp32 even on a bf16 base (tuners_utils cast_adapter_dtype,
        # autocast_adapter_dtype=True), so their gradients and AdamW's states are fp32 too
        return trained_bytes(job.method, job.optimizer, "mixed-bf16"), False
    mixed_full = job.method == "full" and keeps_mixed_states(job.precision)
    if mixed_full and (PARALLELISM[job.parallelism].master_is_shard or hf_amp_full(job)):
        # (Transformers' Trainer on one card or DDP likewise keeps the fp32 model and steps it in place: the bf16
        # copy exists only in autocast's cast cache, memory.py)
        return TrainedBytes(FP32, FP32, tb.optimizer - FP32), False
    return tb, mixed_full


def effective_offload(job: Job) -> str:
    """Offload where the sharding engine has it: FSDP CPU offload, DeepSpeed CPU offload, NVMe only for ZeRO-3
    (ZeRO-Infinity); elsewhere none (evaluate names the mismatch in a check)."""
    return job.offload if job.offload in PARALLELISM[job.parallelism].offload else "none"
