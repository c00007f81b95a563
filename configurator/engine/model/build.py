"""The build document: what the user saves, opens and edits (``*.yaml``).

Structural rules (types, ranges, allowed words) live here so a bad file fails at load
with file, line and field. References to the catalog (card, chassis, model ids) and
physical rules are checked by the engine, which reports them as checks, never raises.
"""

from __future__ import annotations

import difflib
from collections import Counter
from typing import Literal

from pydantic import Field, field_validator, model_validator

from configurator.catalog.limits import (
    MAX_BUILD_JOBS,
    MAX_IMAGE_SIDE,
    MAX_IMAGES_PER_SAMPLE,
    MAX_LORA_TARGETS,
    MIN_IMAGE_SIDE,
)
from configurator.catalog.sourced import Strict
from configurator.engine.model.wall import SITE_PRESETS, WallCircuit

SCHEMA_VERSION = 1

Method = Literal["full", "lora", "qlora"]
Optimizer = Literal["adamw", "adamw-8bit", "paged-adamw", "paged-adamw-8bit", "sgd"]
# mixed-bf16 / pure-bf16 as before; the rest compute the linear layers in low precision through Transformer Engine
# recipes (engine/lowprecision/checks.py) and keep BF16 weights with FP32 master weights, as mixed-bf16 does.
# fp8: the card's default FP8 recipe (TE get_default_fp8_recipe).
Precision = Literal["mixed-bf16", "pure-bf16", "fp8", "fp8-delayed", "fp8-current", "fp8-block", "mxfp8", "nvfp4"]
# zero1 / zero2 / zero3: DeepSpeed ZeRO stages (optimizer states; + gradients; + parameters partitioned)
Parallelism = Literal["single", "ddp", "fsdp", "tp", "zero1", "zero2", "zero3", "ep"]
# The training stack (engine/model/stack.py holds each framework's profile and the code it is read from).
# fsdp-qlora: Answer.AI's train.py (AnswerDotAI/fsdp_qlora), a custom loop over FSDP1.
Framework = Literal["hf-trainer", "torchtune", "torchtitan", "axolotl", "litgpt", "fsdp-qlora"]
# standard: cross-entropy on fp32 logits; bf16: on bf16 logits; chunked: over chunks of the sequence;
# fused: no full logits (Liger fused linear cross-entropy, Cut Cross-Entropy)
Loss = Literal["standard", "chunked", "bf16", "fused"]
# cpu: FSDP CPUOffload / DeepSpeed offload_optimizer and (ZeRO-3) offload_param to the host; cpu-optimizer: DeepSpeed
# offload_optimizer only, the ZeRO-3 parameter partitions stay on the card (DeepSpeed config-json docs:
# offload_optimizer "CPU offloading is available with ZeRO stage 1, 2, 3", offload_param "available only with ZeRO
# stage 3"; deepspeed/runtime/zero/offload_config.py DeepSpeedZeroOffloadOptimizerConfig /
# DeepSpeedZeroOffloadParamConfig: two separate switches); nvme: ZeRO-Infinity (ZeRO-3)
Offload = Literal["none", "cpu", "cpu-optimizer", "nvme"]
# full: each decoder layer's input kept, the layer recomputed in backward; offload: those inputs on the host
Checkpointing = Literal["full", "offload"]
OptimizerImpl = Literal["foreach", "fused", "for-loop"]
LinkRates = Literal["nominal", "measured"]
LinkKind = Literal["nvlink", "nvswitch", "pcie"]


class MigInstanceRequest(Strict):
    profile: str
    start: int | None = Field(default=None, ge=0)


class CardPlacement(Strict):
    slot: int = Field(ge=1, le=64)
    card: str = Field(min_length=1)
    power_limit_w: float | None = Field(default=None, gt=0, le=2000)
    # A MIG layout: profile names (placed automatically) or {profile, start}
    mig: list[MigInstanceRequest] | None = None

    @field_validator("mig", mode="before")
    @classmethod
    def _profiles_as_requests(cls, value: object) -> object:
        if isinstance(value, list):
            return [{"profile": v} if isinstance(v, str) else v for v in value]
        return value


class Bridge(Strict):
    slots: list[int] = Field(min_length=2, max_length=8)

    @field_validator("slots")
    @classmethod
    def _distinct(cls, slots: list[int]) -> list[int]:
        if len(set(slots)) != len(slots):
            raise ValueError("a bridge joins distinct slots")
        return sorted(slots)


class LinkCalibration(Strict):
    """A measured all_reduce bus bandwidth for one link kind (from nccl-tests all_reduce_perf)."""

    link: LinkKind
    busbw_gb_s: float = Field(gt=0, le=5000)
    source: str = "nccl-tests all_reduce_perf"


class Assumptions(Strict):
    # nominal: datasheet rates per direction; measured: typical nccl-tests busbw (hardware-facts §3.3)
    link_rates: LinkRates = "measured"
    # published: compute time only from published dense BF16 rates (unknown where none is published);
    # estimated: where none is published, the catalog's UNCONFIRMED estimate, named in every result that uses it
    # The default shows every card's step time, an estimated rate labelled "estimated" wherever it is used
    # (issue 24); "published" is the View choice "published rates only".
    compute_rates: Literal["published", "estimated"] = "estimated"
    # per-op: the step from each op's FLOPs and bytes at published achieved efficiencies (engine/time/steptime/);
    # utilization: the old single-constant model, matmul FLOPs at ``utilization`` of the dense BF16 peak.
    step_model: Literal["per-op", "utilization"] = "per-op"
    # Model FLOPs utilisation for step_model: utilization. 0.4 is the usual planning figure: Megatron-LM and
    # PaLM report 40-55 % MFU on large dense training (Chowdhery et al. 2022, Table 3; Korthikanti
    # et al. 2022 report 54.2 % at 530B); fine-tuning on a few cards sits at the low end.
    # At least 1 %: below that a step time is no planning figure (1e-300 would print a 10^301 s step).
    utilization: float = Field(default=0.4, ge=0.01, le=1)
    # Seed A calls ~6 GB of 150.8 "too little to plan on": warn under this fraction of capacity.
    safety_margin_fraction: float = Field(default=0.05, ge=0, le=0.5)
    calibration: list[LinkCalibration] = []


class LoraSettings(Strict):
    rank: int = Field(default=16, ge=1, le=4096)
    alpha: float | None = None
    targets: Literal["all-linear", "attention", "qv"] | list[str] = "all-linear"
    dropout: float = Field(default=0.0, ge=0, lt=1)

    @field_validator("targets")
    @classmethod
    def _non_empty(cls, targets: str | list[str]) -> str | list[str]:
        if isinstance(targets, list) and not targets:
            raise ValueError("name at least one module, or use all-linear / attention / qv")
        if isinstance(targets, list) and len(targets) > MAX_LORA_TARGETS:
            raise ValueError(f"at most {MAX_LORA_TARGETS} target modules ({len(targets):,} given)")
        return targets


Objective = Literal["sft", "dpo", "grpo", "ppo"]


class RLSettings(Strict):
    """Preference and RL post-training with TRL (engine/memory/rl.py): what DPOTrainer / GRPOTrainer / PPOTrainer keep
    and generate. Defaults are TRL's (trl/trainer/grpo_config.py, dpo_config.py, experimental/ppo/ppo_config.py)
    except where a comment says otherwise; None: resolved per objective by engine/memory/rl.py."""

    beta: float | None = Field(default=None, ge=0, le=100)  # KL coefficient; None: TRL's (GRPO 0.0, DPO 0.1)
    precompute_ref_log_probs: bool = False  # DPO: reference log-probs computed before training (no reference kept)
    generations: int = Field(default=8, ge=1, le=1024)  # GRPO num_generations per prompt
    prompt_length: int = Field(default=512, ge=1, le=1_048_576)  # GRPO prompt tokens
    completion_length: int = Field(default=512, ge=1, le=1_048_576)  # GRPO max_completion_length
    # None: the objective's default (rl.generation_engine): PPO transformers generate (TRL's PPOTrainer has no vLLM
    # path); GRPO vllm-colocate, the usual recipe, NOT TRL's default (GRPOConfig use_vllm False)
    generation: Literal["vllm-colocate", "vllm-server", "transformers"] | None = None
    vllm_gpu_memory_utilization: float = Field(default=0.3, gt=0, lt=1)  # colocated vLLM's share of each card
    # vllm-server: the build's slots whose cards run the generation engine (trl vllm-serve, verl / OpenRLHF
    # rollout workers on their own cards), at the server's share (trl/scripts/vllm_serve.py default 0.9)
    generation_cards: list[int] = Field(default_factory=list, max_length=64)
    server_gpu_memory_utilization: float = Field(default=0.9, gt=0, lt=1)
    vllm_tensor_parallel: int = Field(default=1, ge=1, le=64)  # vLLM tensor_parallel_size (weights split)
    # PPO: a reward model network beside the critic (False: rule-based / function rewards, no network)
    reward_model: bool = True
    # PPO: the checkpoint the value model (critic) and the reward model are made from, as a job's ``model`` names one
    # (a catalog id or a config.json); TRL's examples/scripts/ppo/ppo.py loads both from --reward_model_path. None:
    # the policy's architecture (engine/memory/rl.py). InstructGPT paired a 175B policy with 6B reward and value models.
    critic_model: str | None = Field(default=None, min_length=1, max_length=4096)
    # PPO passes over each rollout; None: TRL's num_ppo_epochs 4 (ppo_config.py:232); verl's ppo_epochs is 1
    ppo_epochs: int | None = Field(default=None, ge=1, le=64)


class InstanceRef(Strict):
    slot: int = Field(ge=1)
    instance: int = Field(ge=0)


class ParamsOnlyModel(Strict):
    parameters: float = Field(ge=1, le=1e13)  # a whole model: at least one parameter, at most 10^13
    adapter_fraction: float = Field(default=0.005, gt=0, lt=1)  # as ModelSpec's: 1 would train the whole model
    name: str | None = None


class StackBehaviour(Strict):
    """Field-by-field overrides of the framework's profile (engine/model/stack.py); None keeps the profile's."""

    frees_logits: bool | None = None  # the loop drops the model's logits before backward
    loss_upcast: bool | None = None  # a chunked loss upcasts each chunk to fp32
    kbit_fp32_prep: bool | None = None  # QLoRA: non-quantised parameters cast to fp32 (PEFT)
    checkpointing: Checkpointing | None = None
    optimizer_impl: OptimizerImpl | None = None
    meta_init: bool | None = None  # model built on the meta device and sharded before weights exist
    nf4_chunked: bool | None = None  # torchao NF4 quantised in 1M-value chunks (torchao >= 0.2; 0.1: whole weight)
    separate_head_units: bool | None = None  # FSDP wraps the embedding and the output head as units of their own
    cpu_ram_efficient_loading: bool | None = None  # FSDP: rank 0 alone loads the checkpoint into CPU RAM


class Job(Strict):
    name: str = Field(min_length=1, max_length=200)
    # catalog id, a path to a Hugging Face config.json (relative to the build file), or {parameters: 30e9}
    model: str | ParamsOnlyModel
    method: Method = "lora"
    lora: LoraSettings = LoraSettings()
    objective: Objective = "sft"  # sft: supervised; dpo, grpo, ppo: preference / RL post-training (engine/memory/rl.py)
    rl: RLSettings = RLSettings()
    quantization: Literal["nf4-dq", "nf4"] = "nf4-dq"
    optimizer: Optimizer = "adamw"
    precision: Precision = "mixed-bf16"
    # LoRA: how the frozen base is stored (QLoRA: quantization); mxfp4: MoE experts kept as shipped (gpt-oss)
    base_weights: Literal["bf16", "fp8", "mxfp4"] = "bf16"
    parallelism: Parallelism = "single"
    tensor_parallel: int = Field(default=1, ge=1, le=64)
    # MoE dispatch buffers padded to capacity = factor x tokens x k / E per expert (engine/memory/moe.py); 1: dropless,
    # as transformers' MoE blocks are
    moe_capacity_factor: float = Field(default=1.0, ge=1.0, le=16.0)
    sequence_length: int = Field(default=2048, ge=1, le=2_097_152)
    micro_batch_size: int = Field(default=1, ge=1, le=4096)
    gradient_accumulation_steps: int = Field(default=1, ge=1, le=65536)
    gradient_checkpointing: bool = True
    loss: Loss | None = None  # None: the framework's default loss path
    framework: Framework = "hf-trainer"
    fsdp_version: Literal[1, 2] = 2  # FSDP1 (flat parameters) or FSDP2 (fully_shard, per-parameter)
    offload: Offload = "none"  # FSDP CPUOffload / DeepSpeed offload_optimizer (cpu-optimizer: alone), offload_param
    behaviour: StackBehaviour = StackBehaviour()
    attention: Literal["sdpa", "flash", "eager"] = "sdpa"
    # the micro-batch's sequences are padded and the padding mask reaches the model (no packing, no padding-free
    # collator): Transformers then gives SDPA an explicit mask (masking_utils.py _ignore_causal_mask_sdpa keeps
    # is_causal only for a padding mask of all ones), which moves it to its memory-efficient kernel over every tile
    # and keeps the mask for the backward (step time: steptime/ops.py attention_groups; memory: activations.py
    # _mask_bytes). FlashAttention-2 (attention: flash) unpads instead and eager builds the mask anyway: no change
    padded_batches: bool = False
    activation_memory_gb: float | None = Field(default=None, ge=0, le=10_000)
    # vision-language models (engine/vision.py): images per sample, each image_resolution x image_resolution pixels
    # as given to the processor, and whether the vision tower (encoder and projector) trains: fully in a full
    # fine-tune, through LoRA on its linears in a LoRA / QLoRA job; frozen otherwise (the usual recipe)
    images_per_sample: int = Field(default=0, ge=0, le=MAX_IMAGES_PER_SAMPLE)
    image_resolution: int = Field(default=448, ge=MIN_IMAGE_SIDE, le=MAX_IMAGE_SIDE)
    train_vision_tower: bool = False
    # checkpoints the run keeps on disk (Transformers' save_total_limit); 2: the latest to resume from and the one
    # before it, which survives a save cut off mid-write (engine/memory/host.py sizes the NVMe from it)
    checkpoints_kept: int = Field(default=2, ge=0, le=1000)
    cards: list[int | InstanceRef] = Field(default_factory=list)

    @model_validator(mode="after")
    def _tower_sees_images(self) -> Job:
        if self.train_vision_tower and self.images_per_sample == 0:
            raise ValueError("train_vision_tower needs images_per_sample of at least 1: a vision tower that sees no "
                             "image gets no gradient")
        return self

    @property
    def card_keys(self) -> list[tuple[int, int | None]]:
        """(slot, MIG instance or None) for every card the job runs on."""
        return [(c, None) if isinstance(c, int) else (c.slot, c.instance) for c in self.cards]


STACK_KEYS = ("framework", "fsdp_version", "offload", "loss", "behaviour")


class StackDefaults(Strict):
    """A build-level default training stack: applies to every job that does not name the key itself."""

    framework: Framework | None = None
    fsdp_version: Literal[1, 2] | None = None
    offload: Offload | None = None
    loss: Loss | None = None
    behaviour: StackBehaviour | None = None


def with_stack_defaults(job: Job, stack: StackDefaults | None) -> Job:
    """``job`` with the build's ``stack:`` default for every stack key the job does not name itself (the rule
    a loaded file and a job added in the editor share)."""
    if stack is None:
        return job
    update = {k: getattr(stack, k) for k in STACK_KEYS
              if k not in job.model_fields_set and getattr(stack, k) is not None}  # fmt: skip
    return job.model_copy(update=update) if update else job


class DimmSet(Strict):
    """Memory modules installed: ``count`` DIMMs of ``size_gb`` each (the size as vendors label it: binary GB)."""

    count: int = Field(ge=1, le=96)
    size_gb: int = Field(ge=1, le=1024)


class DriveSet(Strict):
    """Data drives installed for checkpoints and ZeRO-Infinity: ``count`` NVMe drives of ``tb`` TB each
    (TB = 10^12 bytes, as drive makers label them)."""

    count: int = Field(ge=1, le=64)
    tb: float = Field(gt=0, le=256)


class HostParts(Strict):
    """What the host around the cards has installed; None: sized from the jobs' need (engine/memory/host.py)."""

    dimms: DimmSet | None = None
    drives: DriveSet | None = None


class Build(Strict):
    schema_version: int = Field(default=SCHEMA_VERSION, ge=1, le=SCHEMA_VERSION)
    name: str = Field(default="Untitled build", max_length=200)
    chassis: str
    cards: list[CardPlacement] = []
    bridges: list[Bridge] = []
    assumptions: Assumptions = Assumptions()
    stack: StackDefaults | None = None
    jobs: list[Job] = Field(default=[], max_length=MAX_BUILD_JOBS)
    # the wall circuit it plugs into: a preset (engine.model.wall.SITE_PRESETS) or {volts, amps}; None: not checked
    site: str | WallCircuit | None = None
    # installed host memory and drives; None (or a part left out): the engine picks the smallest that holds the need
    host: HostParts | None = None

    @field_validator("site")
    @classmethod
    def _known_site(cls, site: str | WallCircuit | None) -> str | WallCircuit | None:
        if isinstance(site, str) and site not in SITE_PRESETS:
            close = difflib.get_close_matches(site, list(SITE_PRESETS), n=3)
            hint = f"did you mean {', '.join(close)}?" if close else f"known: {', '.join(SITE_PRESETS)}"
            raise ValueError(f"unknown site '{site}'; {hint} (or give {{volts: V, amps: A}})")
        return site

    @model_validator(mode="after")
    def _stack_defaults(self) -> Build:
        if self.stack is None:
            return self
        object.__setattr__(self, "jobs", [with_stack_defaults(job, self.stack) for job in self.jobs])
        return self

    @model_validator(mode="after")
    def _slots_once(self) -> Build:
        dup = sorted(s for s, n in Counter(c.slot for c in self.cards).items() if n > 1)  # one pass, not n²
        if dup:
            raise ValueError(f"slot(s) {dup} hold more than one card")
        return self

    @model_validator(mode="after")
    def _job_names_once(self) -> Build:
        # A job's name is its identity: results, MIG chips, drags and undo steps find the job by it.
        seen: dict[str, int] = {}
        for i, job in enumerate(self.jobs):
            if job.name in seen:
                raise ValueError(
                    f"jobs {seen[job.name] + 1} and {i + 1} are both called '{job.name}': a job's name must be "
                    f"unique in the build; rename one, e.g. to '{job.name} ({i + 1})'"
                )
            seen[job.name] = i
        return self

    def job_index(self, name: str) -> int | None:
        """Where the job called ``name`` is in the list (None when there is none)."""
        return next((i for i, j in enumerate(self.jobs) if j.name == name), None)

    def card_in(self, slot: int) -> CardPlacement | None:
        for c in self.cards:
            if c.slot == slot:
                return c
        return None
