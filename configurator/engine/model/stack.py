"""The training stack as an input: each framework's memory-relevant behaviours, read from its own code.

A job names its framework (``Job.framework``, default ``hf-trainer``); the framework's profile gives the
loss path, whether the loop drops the logits before backward, QLoRA preparation, checkpointing granularity,
optimizer implementation and how the model is built before sharding. ``Job.loss`` and ``Job.behaviour``
override the profile field by field. Nothing here is fitted to a measurement: every field names the code
it was read from (repository, file, function). The profiles are data, specs/frameworks.yaml, loaded once here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Literal, TypeVar, get_args

from pydantic import Field

from configurator.catalog.errors import FileError, Problem
from configurator.catalog.loader import specs_dir
from configurator.catalog.sourced import Strict
from configurator.catalog.yamlio import parse_yaml, read_text, validate_as
from configurator.engine.cache import CACHE
from configurator.engine.model.build import Checkpointing, Framework, Job, Loss, OptimizerImpl
from configurator.engine.model.parallelism import PARALLELISM

T = TypeVar("T")


RLTrainer = Literal["trl", "own", "none"]


@dataclass(frozen=True, kw_only=True)
class FrameworkProfile:
    """One framework's memory-relevant behaviours, each read from its code; ``sources`` names, for every
    behaviour, the repository, file and function it was read from (tests/engine/test_stack.py checks none is
    missing)."""

    label: str
    loss: Loss  # loss path when the job does not name one
    frees_logits: bool  # the loop drops the model's logits tensor before backward
    loss_upcast: bool  # a chunked loss computes on fp32 copies of each chunk (else on bf16 logits)
    kbit_fp32_prep: bool  # QLoRA: non-quantised parameters cast to fp32 before training
    checkpointing: Checkpointing
    optimizer_impl: OptimizerImpl
    meta_init: bool  # built on the meta device, sharded, then weights loaded: no unsharded copy on the GPU
    held_logits_fp32: bool = False  # a loop that keeps the output holds fp32 logits (the model upcast them)
    nf4_chunked: bool = True  # torchao NF4 quantises in chunks (torchao >= 0.2; engine/memory/loadpath.py)
    # FSDP wraps the input embedding and the output head as units of their own (torchtune's distributed recipes
    # with custom_sharded_layers: ['tok_embeddings', 'output'], a per-config choice: recipes default to None)
    separate_head_units: bool = False
    prep_head_bf16: bool = False  # QLoRA under bf16: the fp32-cast embedding and head go back to bf16 (TRL)
    # FSDP: only rank 0 loads the checkpoint into CPU RAM, the others hold empty weights (engine/memory/host.py)
    cpu_ram_efficient_loading: bool = False
    # DPO / GRPO / PPO: TRL's trainers (log-probs of the bf16 logits, engine/memory/rl.py training_view), the
    # framework's own recipes (sized as its training passes), or none (an RL job is a setting error)
    rl_trainer: RLTrainer = "none"
    sources: Mapping[str, str] = field(default_factory=dict)  # behaviour -> where it was read


# The fields above that are behaviours (label and sources are not): each profile names a source for every one.
BEHAVIOURS = ("loss", "frees_logits", "loss_upcast", "kbit_fp32_prep", "checkpointing", "optimizer_impl",
              "meta_init", "held_logits_fp32", "nf4_chunked", "separate_head_units", "prep_head_bf16",
              "cpu_ram_efficient_loading", "rl_trainer")  # fmt: skip

# A behaviour whose value predates this record and whose code has not been read yet: named, so it can be found.
UNREAD = "not read from the framework's code yet: the value as first shipped"


# ---------------------------------------------------------------- the profiles are data: specs/frameworks.yaml
class _Read(Strict, Generic[T]):
    """One behaviour: its value and the code it was read from."""

    value: T
    read_from: str = Field(min_length=1)  # the code (repository, file, function), not a catalog `source:`
    note: str = ""  # what is still to check


class _Behaviours(Strict):
    loss: _Read[Loss]
    frees_logits: _Read[bool]
    loss_upcast: _Read[bool]
    kbit_fp32_prep: _Read[bool]
    checkpointing: _Read[Checkpointing]
    optimizer_impl: _Read[OptimizerImpl]
    meta_init: _Read[bool]
    held_logits_fp32: _Read[bool]
    nf4_chunked: _Read[bool]
    separate_head_units: _Read[bool]
    prep_head_bf16: _Read[bool]
    cpu_ram_efficient_loading: _Read[bool]
    rl_trainer: _Read[RLTrainer]


class _FrameworkEntry(Strict):
    label: str = Field(min_length=1)
    behaviours: _Behaviours


class _FrameworksFile(Strict):
    schema_version: Literal[1]
    frameworks: dict[Framework, _FrameworkEntry]


def load_profiles(path: Path | None = None) -> dict[str, FrameworkProfile]:
    """The framework profiles of specs/frameworks.yaml, validated (a FileError names the file, line and field)."""
    path = path if path is not None else specs_dir() / "frameworks.yaml"
    data, lines = parse_yaml(read_text(path), str(path))
    parsed = validate_as(_FrameworksFile, data, lines, str(path))
    missing = sorted(set(get_args(Framework)) - set(parsed.frameworks))
    if missing:
        raise FileError(str(path), [Problem("frameworks", f"no profile for {', '.join(missing)}")])
    out: dict[str, FrameworkProfile] = {}
    for name, entry in parsed.frameworks.items():
        read = {b: getattr(entry.behaviours, b) for b in BEHAVIOURS}
        out[name] = FrameworkProfile(label=entry.label, **{b: r.value for b, r in read.items()},
                                     sources={b: r.read_from for b, r in read.items()})  # fmt: skip
    return out


PROFILES: dict[str, FrameworkProfile] = load_profiles()  # read once, at import


# Stacks that run Transformers' own modeling code with PEFT: on one card or DDP the model's own dtypes flow through
# that code (a meta-tensor trace of it: specs/trace/table.jsonl); FSDP MixedPrecision and DeepSpeed bf16 hand
# every layer bf16 parameters instead.
TRANSFORMERS_STACKS = frozenset({"hf-trainer", "axolotl"})


def passes_padding_mask(job: Job) -> bool:
    """Whether a padded batch's mask reaches the model (Job.padded_batches): on a Transformers stack, whose masking
    utilities pass the padding mask on; torchtune, LitGPT and torchtitan keep is_causal and pass none. The step time
    (steptime job_shape), the memory (activations.py _masked_share) and the check (JOB_ATTENTION_PADDED) read it."""
    return job.padded_batches and job.framework in TRANSFORMERS_STACKS


def runs_model_dtypes(job: Job) -> bool:
    """A Transformers stack on one card or DDP: the model's own dtypes run (engine/memory/activations.py)."""
    record = PARALLELISM[job.parallelism]  # whole replicas: nothing sharded, no layer split
    return job.framework in TRANSFORMERS_STACKS and not record.shards_states and not record.splits_layers


# Model families whose Transformers class declares no SDPA (the pinned transformers 5.24.0, read from its wheel):
# modeling_gemma2.py Gemma2PreTrainedModel ``_supports_sdpa = False  # sdpa does not support softcapping`` (and
# integrations/sdpa_attention.py sdpa_attention_forward raises on a ``softcap``), modeling_gpt_oss.py
# GptOssPreTrainedModel ``_supports_sdpa = False`` (its sinks, ``s_aux``, have no SDPA argument). Gemma 3 declares
# ``_supports_sdpa = True`` and its configs leave ``attn_logit_softcapping`` None, so it runs SDPA.
NO_SDPA: dict[str, str] = {"gemma2": "Gemma2PreTrainedModel", "gpt_oss": "GptOssPreTrainedModel"}
# families whose Transformers class swaps a FlashAttention request for a kernel that cannot train them: transformers
# 5.24 GptOssPreTrainedModel._compatible_flash_implementations sends flash_attention_2 to
# kernels-community/vllm-flash-attn3, whose sinks are forward-only (nvidia-cosmos/cosmos-rl#219)
NO_FLASH_TRAINING = frozenset({"gpt_oss"})


def attention_run(architecture: str, job: Job) -> str:
    """The attention a job's run executes: ``job.attention``, except ``sdpa`` (Transformers' default) on a Transformers
    stack for a family in NO_SDPA, which runs eager. modeling_utils.py PreTrainedModel.get_correct_attn_implementation:
    an unset ``attn_implementation`` becomes "sdpa", ``_sdpa_can_dispatch`` raises for a class without
    ``_supports_sdpa`` and the load falls back to "eager" (an explicit "sdpa" raises instead: eager is still the
    only implementation of the two that runs)."""
    if job.attention == "sdpa" and job.framework in TRANSFORMERS_STACKS and architecture in NO_SDPA:
        return "eager"
    return job.attention


def as_run(architecture: str, job: Job) -> Job:
    """``job`` with the attention its run executes (attention_run): what memory and step time size."""
    run = attention_run(architecture, job)
    return job if run == job.attention else job.model_copy(update={"attention": run})


def hf_amp_full(job: Job) -> bool:
    """A full fine-tune under Transformers' Trainer with bf16=True on one card or DDP: the model stays fp32 and
    the forward runs under torch.autocast (trainer.py autocast_smart_context_manager), so parameters and gradients
    are fp32 and no bf16 master/working split exists; autocast's cast cache holds a bf16 copy of every weight
    (autocast_mode.cpp cached_cast: leaves that require grad) until the forward's autocast region ends."""
    return job.method == "full" and job.precision == "mixed-bf16" and runs_model_dtypes(job)


@dataclass(frozen=True)
class Stack:
    """The job's resolved stack: its profile with the job's overrides applied."""

    framework: Framework
    loss: Loss
    frees_logits: bool
    loss_upcast: bool
    kbit_fp32_prep: bool
    checkpointing: Checkpointing
    optimizer_impl: OptimizerImpl
    meta_init: bool
    nf4_chunked: bool
    separate_head_units: bool
    cpu_ram_efficient_loading: bool
    fsdp_version: int
    offload: str


def stack_of(job: Job) -> Stack:
    """The stack a job runs on: framework profile, then the job's `loss` and `behaviour` overrides."""
    return CACHE.of("stack", job, lambda: _stack(job))


def _stack(job: Job) -> Stack:
    p = PROFILES[job.framework]
    b = job.behaviour

    def pick(name: str):  # type: ignore[no-untyped-def]
        value = getattr(b, name)
        return getattr(p, name) if value is None else value

    stack = Stack(
        framework=job.framework, loss=job.loss or p.loss, frees_logits=pick("frees_logits"),
        loss_upcast=pick("loss_upcast"), kbit_fp32_prep=pick("kbit_fp32_prep"), checkpointing=pick("checkpointing"),
        optimizer_impl=pick("optimizer_impl"), meta_init=pick("meta_init"), nf4_chunked=pick("nf4_chunked"),
        separate_head_units=pick("separate_head_units"), cpu_ram_efficient_loading=pick("cpu_ram_efficient_loading"),
        fsdp_version=job.fsdp_version,
        offload=job.offload,
    )  # fmt: skip
    return stack


def describe(job: Job) -> str:
    """One line naming the stack, for the reports: 'Transformers Trainer / TRL + PEFT, FSDP2, loss standard'."""
    s = stack_of(job)
    parts = [PROFILES[job.framework].label]
    strategy = PARALLELISM[job.parallelism]
    if strategy.fsdp or strategy.deepspeed:
        parts.append(strategy.label(s.fsdp_version))
    if s.offload != "none":
        parts.append(f"offload {s.offload}")
    parts.append(f"loss {s.loss}" + ("" if job.loss else " (framework default)"))
    parts.append(f"optimizer {s.optimizer_impl}")
    if s.checkpointing != "full" and job.gradient_checkpointing:
        parts.append(f"checkpointing {s.checkpointing}")
    return ", ".join(parts)
