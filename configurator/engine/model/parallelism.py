"""The parallelism table: one record per strategy a job can name (``Job.parallelism``), what it shards, what it
communicates per step and what it allows. Every rule of the engine that depends on the strategy reads its
record here instead of comparing the strategy's name; a new strategy is a new record.

Each behaviour names where it was read (``Strategy.sources``, one entry per field that is a behaviour;
tests/engine/test_parallelism.py checks none is missing):
- ZeRO: Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
  §5 (P_os, P_os+g, P_os+g+p) and §7 (communication volume: P_os and P_os+g move what data parallelism moves,
  2 x Psi; P_os+g+p 3 x Psi).
- DeepSpeed: deepspeed/runtime/zero/stage_1_and_2.py (stages 1 and 2), stage3.py, the ZeRO config docs
  (offload_optimizer / offload_param: cpu for stages 1-3, nvme for stage 3, "ZeRO-Infinity").
- PyTorch DDP: torch/nn/parallel/distributed.py and torch/csrc/distributed/c10d/reducer.cpp (gradient buckets,
  bucket_cap_mb 25, all-reduced during backward).
- PyTorch FSDP: the FSDP docs and torch/distributed/fsdp (FSDP1 FlatParameter, FSDP2 fully_shard; all-gather
  before forward and before backward, reduce-scatter of gradients; CPUOffload / CPUOffloadPolicy).
- Megatron tensor parallelism: Shoeybi et al. 2019, §3 (two all-reduces per layer forward, two backward).
- Expert parallelism: Lepikhin et al. 2020 (GShard) §2.2 (experts split over devices, all-to-all dispatch and
  combine); torchtitan ``expert_parallel_degree`` (torchtitan/distributed/expert_parallel.py ExpertParallel);
  Megatron-Core ``--expert-model-parallel-size`` (MoEAlltoAllTokenDispatcher). Memory and traffic: engine/memory/moe.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from configurator.engine.model.build import Framework, Offload, OptimizerImpl, Parallelism

State = Literal["optimizer", "gradients", "parameters"]
_STATES: tuple[State, ...] = ("optimizer", "gradients", "parameters")  # in the order ZeRO's stages add them
Engine = Literal["none", "torch-ddp", "torch-fsdp", "deepspeed", "megatron-tp"]
# How communication.py times the strategy's collectives: gradient-all-reduce (DDP), gather-and-scatter (FSDP),
# per-layer-all-reduce (tensor parallel); none: nothing timed (one card, or collectives described only)
Timing = Literal["none", "gradient-all-reduce", "gather-and-scatter", "per-layer-all-reduce"]

ALL_FRAMEWORKS: frozenset[Framework] = frozenset(
    {"hf-trainer", "torchtune", "torchtitan", "axolotl", "litgpt", "fsdp-qlora"}
)


@dataclass(frozen=True)
class Strategy:
    name: Parallelism
    words: str  # how a report names it ("DDP (replicas)"); label() adds FSDP's version
    engine: Engine  # the library that implements it
    partitions: tuple[State, ...]  # model states split over the data-parallel group (ZeRO's P_os, +g, +p)
    splits_layers: bool  # each layer's weights and activations split over the cards (tensor parallel)
    gradient_buckets: bool  # replicas keep gradient-sized buckets allocated through the step (forward included)
    master_is_shard: bool  # mixed precision keeps no bf16 working copy: the fp32 shard is the master
    optimizer_impl: OptimizerImpl | None  # the engine's own optimizer (None: the framework's)
    collectives: tuple[str, ...]  # what it communicates per step, in words
    timing: Timing  # which of communication.py's plans times those collectives
    overlaps_compute: bool  # its collectives run beside the compute (the planner takes max(comm, compute))
    offload: frozenset[Offload]  # offload the engine has ("none" always)
    multi_card: bool  # runs over several cards (MIG instances never: NCCL does not run across them)
    shards_experts: bool  # MoE experts split over the cards (expert parallel); the rest replicated
    frameworks: frozenset[Framework]  # which frameworks offer it (documented; not checked by the engine yet)
    sources: Mapping[str, str] = field(default_factory=dict)  # behaviour field -> where it was read

    @property
    def shards_states(self) -> bool:
        """Whether the data-parallel group partitions model states (FSDP, ZeRO)."""
        return bool(self.partitions)

    @property
    def stage(self) -> int:
        """ZeRO's stage: 1 optimizer states, 2 and gradients, 3 and parameters (FSDP is 3); 0 shards nothing."""
        return len(self.partitions)

    @property
    def deepspeed(self) -> bool:
        return self.engine == "deepspeed"

    @property
    def fsdp(self) -> bool:
        return self.engine == "torch-fsdp"

    def label(self, fsdp_version: int) -> str:
        """'FSDP2', 'DeepSpeed ZeRO-3', 'single card': the name with the version that matters."""
        return f"FSDP{fsdp_version}" if self.fsdp else self.words

    def step_seconds(self, compute_s: float, comm_s: float) -> float:
        """A step: the compute plus the communication it does not hide (an overlapping strategy's bucketed
        all-reduce or prefetched gathers hide behind the compute up to its length; the others add in full)."""
        exposed = max(0.0, comm_s - compute_s) if self.overlaps_compute else comm_s
        return compute_s + exposed


BEHAVIOURS = ("partitions", "splits_layers", "gradient_buckets", "master_is_shard", "optimizer_impl", "collectives",
              "offload", "multi_card", "frameworks", "shards_experts")  # fmt: skip
_NO_EP = "experts are held whole on every card (or sharded with every other parameter)"

_ZERO_PAPER = "Rajbhandari et al. 2020 (ZeRO) §5"
_DS_OFFLOAD = ("DeepSpeed ZeRO config docs: offload_optimizer device cpu (stages 1-3), nvme with stage 3 only "
               "(ZeRO-Infinity), offload_param with stage 3 only (cpu-optimizer: offload_optimizer without it); "
               "deepspeed/runtime/zero/stage_1_and_2.py cpu_offload, offload_config.py")  # fmt: skip
_DS_FRAMEWORKS = ("Transformers Trainer's DeepSpeed integration (TrainingArguments.deepspeed, "
                  "src/transformers/integrations/deepspeed.py); Axolotl passes its deepspeed: config to it")
_DS_OPTIMIZER = "DeepSpeed steps its partition with FusedAdam (deepspeed/ops/adam/fused_adam.py)"
_MIG = "NVIDIA MIG user guide: NCCL is not supported across MIG instances, so an instance runs single-GPU jobs"


def _zero(stage: int, collectives: tuple[str, ...], offload: frozenset[Offload], comm_source: str) -> Strategy:
    states = _STATES[:stage]
    return Strategy(
        name=f"zero{stage}",  # type: ignore[arg-type]  # zero1 / zero2 / zero3, all in Parallelism
        words=f"DeepSpeed ZeRO-{stage}", engine="deepspeed", partitions=states, splits_layers=False,
        # no stage keeps a gradient buffer through the next forward: stage 1 (without overlap_comm) registers no
        # backward hooks and reduces the full gradients at the accumulation boundary, then step frees them
        # (free_grad_in_param_list) and zero_grad(set_to_none=True) sets every p.grad to None
        gradient_buckets=False, master_is_shard=False, optimizer_impl="fused", collectives=collectives,
        timing="none", overlaps_compute=False, offload=offload, multi_card=True, shards_experts=False,
        frameworks=frozenset({"hf-trainer", "axolotl"}),
        sources={
            "partitions": f"{_ZERO_PAPER}; deepspeed/runtime/zero/stage_1_and_2.py (stages 1, 2), stage3.py (3)",
            "splits_layers": "ZeRO is data parallel: every card runs whole layers",
            "gradient_buckets": "deepspeed/runtime/zero/stage_1_and_2.py: hooks only `if self.partition_gradients "
                                "or self.overlap_comm`; step's free_grad_in_param_list; zero_grad(set_to_none=True)",
            "master_is_shard": "stage_1_and_2.py keeps bf16 partitions beside single_partition_of_fp32_groups",
            "optimizer_impl": _DS_OPTIMIZER,
            "collectives": comm_source,
            "offload": _DS_OFFLOAD,
            "multi_card": _MIG,
            "frameworks": _DS_FRAMEWORKS,
            "shards_experts": _NO_EP,
        },
    )  # fmt: skip


# fmt: off
PARALLELISM: dict[str, Strategy] = {
    "single": Strategy(
        name="single", words="single card", engine="none", partitions=(), splits_layers=False,
        gradient_buckets=False, master_is_shard=False, optimizer_impl=None, collectives=(), timing="none",
        overlaps_compute=False, offload=frozenset({"none"}), multi_card=False, frameworks=ALL_FRAMEWORKS,
        shards_experts=False,
        sources={
            "partitions": "one card holds every state", "splits_layers": "one card runs whole layers",
            "gradient_buckets": "no reducer on one card", "master_is_shard": "no sharding engine",
            "optimizer_impl": "the framework's optimizer (engine/model/stack.py)", "collectives": "one card: none",
            "offload": "offload belongs to a sharding engine (FSDP CPUOffload, DeepSpeed offload_*)",
            "multi_card": "one card, or one MIG instance", "frameworks": "every framework trains on one card",
            "shards_experts": _NO_EP,
        },
    ),
    "ddp": Strategy(
        name="ddp", words="DDP (replicas)", engine="torch-ddp", partitions=(), splits_layers=False,
        gradient_buckets=True, master_is_shard=False, optimizer_impl=None,
        collectives=("all-reduce of the gradients, once per optimizer step (no_sync while accumulating)",),
        timing="gradient-all-reduce", overlaps_compute=True, offload=frozenset({"none"}), multi_card=True,
        shards_experts=False,
        frameworks=frozenset({"hf-trainer", "axolotl", "litgpt", "torchtitan"}),
        sources={
            "partitions": f"{_ZERO_PAPER}: data parallelism replicates every model state",
            "splits_layers": "data parallel: every card runs whole layers",
            "gradient_buckets": "torch/csrc/distributed/c10d/reducer.cpp: the Reducer allocates its gradient "
                                "buckets (bucket_cap_mb 25) once, at construction, for the module's life",
            "master_is_shard": "DDP replicates the module as the framework keeps it",
            "optimizer_impl": "the framework's optimizer (engine/model/stack.py)",
            "collectives": "Rajbhandari et al. 2020 §7 (all-reduce, 2 x Psi); torch/nn/parallel/distributed.py "
                           "no_sync",
            "offload": "torch DDP has no offload",
            "multi_card": _MIG,
            "frameworks": "Accelerate MULTI_GPU under the Trainer and Axolotl; Lightning Fabric DDPStrategy "
                          "(LitGPT); torchtitan parallelize apply_ddp",
            "shards_experts": _NO_EP,
        },
    ),
    "fsdp": Strategy(
        name="fsdp", words="FSDP", engine="torch-fsdp", partitions=("optimizer", "gradients", "parameters"),
        splits_layers=False, gradient_buckets=False, master_is_shard=True, optimizer_impl=None,
        collectives=("all-gather of each unit's parameters before its forward, every micro-batch",
                     "all-gather again before its backward", "reduce-scatter of the gradients"),
        timing="gather-and-scatter", overlaps_compute=True, offload=frozenset({"none", "cpu"}), multi_card=True,
        shards_experts=False,
        frameworks=ALL_FRAMEWORKS,
        sources={
            "partitions": "PyTorch FSDP docs (FULL_SHARD); ZeRO-3's P_os+g+p",
            "splits_layers": "data parallel: every card runs whole (gathered) units",
            "gradient_buckets": "gradients are reduce-scattered to shards and the unsharded ones freed "
                                "(torch/distributed/fsdp/_runtime_utils.py post-backward)",
            "master_is_shard": "FSDP1 _flat_param.py _use_low_precision_shard; FSDP2 FSDPParam.all_gather_inputs "
                               "casts the fp32 shard to param_dtype (engine/memory/states.py trained_layout)",
            "optimizer_impl": "the framework's optimizer steps the sharded parameters (engine/model/stack.py)",
            "collectives": "PyTorch FSDP docs / Zhao et al. 2023 (PyTorch FSDP) §3; ZeRO §7 (3 x Psi)",
            "offload": "torch/distributed/fsdp/api.py CPUOffload(offload_params=True); FSDP2 CPUOffloadPolicy; "
                       "no NVMe offload",
            "multi_card": _MIG,
            "frameworks": "Accelerate FSDP plugin (Trainer, Axolotl); torchtune and torchtitan fully_shard; "
                          "Lightning Fabric FSDPStrategy (LitGPT); Answer.AI train.py (FSDP1)",
            "shards_experts": _NO_EP,
        },
    ),
    "zero1": _zero(1, ("all-reduce (or reduce-scatter) of the gradients", "all-gather of the updated parameters"),
                   frozenset({"none", "cpu", "cpu-optimizer"}),
                   "ZeRO §7: P_os moves 2 x Psi, as data parallelism does"),
    "zero2": _zero(2, ("reduce-scatter of the gradients in buckets during backward",
                       "all-gather of the updated parameters"),
                   frozenset({"none", "cpu", "cpu-optimizer"}), "ZeRO §7: P_os+g moves 2 x Psi; stage_1_and_2.py "
                   "reduce_independent_p_g_buckets_and_remove_grads"),
    "zero3": _zero(3, ("all-gather of each module's parameters before its forward", "all-gather again before "
                       "its backward", "reduce-scatter of the gradients"),
                   frozenset({"none", "cpu", "cpu-optimizer", "nvme"}), "ZeRO §7: P_os+g+p moves 3 x Psi; "
                   "deepspeed/runtime/zero/partitioned_param_coordinator.py"),
    "tp": Strategy(
        name="tp", words="tensor parallel", engine="megatron-tp", partitions=(), splits_layers=True,
        gradient_buckets=False, master_is_shard=False, optimizer_impl=None,
        collectives=("two all-reduces of the activations per layer in the forward pass",
                     "two per layer in the backward pass"),
        timing="per-layer-all-reduce", overlaps_compute=False, offload=frozenset({"none"}), multi_card=True,
        shards_experts=False,
        frameworks=frozenset({"torchtitan", "torchtune"}),
        sources={
            "partitions": "Shoeybi et al. 2019 §3: the layers' weights are split, not a data-parallel group's "
                          "states (splits_layers)",
            "splits_layers": "Shoeybi et al. 2019 §3 (column- and row-parallel linear layers)",
            "gradient_buckets": "no data-parallel replicas",
            "master_is_shard": "no sharding engine",
            "optimizer_impl": "the framework's optimizer (engine/model/stack.py)",
            "collectives": "Shoeybi et al. 2019 §3: f and g operators, two all-reduces per layer each way",
            "offload": "no offload in the tensor-parallel path",
            "multi_card": _MIG,
            "frameworks": "torchtitan parallelize apply_tp; torchtune full_finetune_distributed "
                          "tensor_parallel_dim",
            "shards_experts": _NO_EP,
        },
    ),
    "ep": Strategy(
        name="ep", words="expert parallel", engine="torch-ddp", partitions=(), splits_layers=False,
        gradient_buckets=True, master_is_shard=False, optimizer_impl=None,
        collectives=("all-to-all dispatch of the routed tokens before each MoE layer's experts, and all-to-all "
                     "combine after them, forward and backward (engine/memory/moe.py all_to_all_bytes_per_step)",
                     "all-reduce of the replicated (non-expert) gradients, once per optimizer step"),
        timing="none", overlaps_compute=False, offload=frozenset({"none"}), multi_card=True, shards_experts=True,
        frameworks=frozenset({"torchtitan"}),
        sources={
            "partitions": "GShard §2.2: experts are split, the other weights replicated; no ZeRO partitioning",
            "splits_layers": "attention and dense layers run whole on every card; only the experts are split",
            "gradient_buckets": "the replicated parameters are data parallel: torchtitan wraps them with "
                                "FSDP/DDP over the data-parallel mesh (buckets as DDP's)",
            "master_is_shard": "no sharding engine for the replicated part",
            "optimizer_impl": "the framework's optimizer (engine/model/stack.py)",
            "collectives": "GShard §2.2 (all-to-all dispatch and combine per MoE layer); Megatron-Core "
                           "MoEAlltoAllTokenDispatcher token_permutation / token_unpermutation",
            "offload": "no offload in the expert-parallel path here",
            "multi_card": _MIG,
            "frameworks": "torchtitan expert_parallel_degree (torchtitan/distributed/expert_parallel.py); the "
                          "Transformers Trainer has no expert parallelism for training",
            "shards_experts": "GShard §2.2; torchtitan ExpertParallel shards the experts' weights on dim 0",
        },
    ),
}
# fmt: on


def strategy(name: str) -> Strategy:
    """The record of the strategy called ``name`` (a ``Parallelism`` value)."""
    return PARALLELISM[name]
