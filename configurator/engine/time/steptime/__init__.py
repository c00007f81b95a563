"""The per-op step-time model (ops.py: FLOPs and bytes per op class; efficiency.py: achieved fractions from
specs/efficiency.yaml). ``job_step`` times one job's optimizer step on one device.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from configurator.catalog.model_spec import ModelSpec
from configurator.engine.cache import CACHE
from configurator.engine.memory.precision import TrainedBytes, nf4_bytes
from configurator.engine.memory.states import Parameters
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.stack import attention_run, passes_padding_mask, runs_model_dtypes, stack_of
from configurator.engine.time.steptime.efficiency import efficiency
from configurator.engine.time.steptime.ops import (
    OP_CLASSES,
    Device,
    OpClass,
    Shape,
    micro_batch,
    optimizer_bytes_per_param,
    optimizer_class,
)
from configurator.engine.time.steptime.vision import tower_class, tower_shape

__all__ = ["OP_CLASSES", "Device", "JobStep", "OpClass", "OpRow", "adapter_compute", "job_shape", "job_step",
           "optimizer_shards", "scaled_class", "tower_step", "with_class"]


OpRow = tuple[str, float, float, float, Literal["compute", "memory"]]


@dataclass(frozen=True)
class JobStep:
    classes: tuple[OpClass, ...]  # per optimizer step, by op class (with "host" where launches bound it)
    seconds: float
    launch_bound: bool
    stack: str  # eager | fused
    factor: float  # the trainer factor applied (efficiency.yaml framework_factor)

    @functools.cached_property
    def rows(self) -> tuple[OpRow, ...]:
        """(name, seconds, FLOPs, bytes, bound) per op class, what Compute.ops is built from; host (kernel
        launches) reads as memory-side: not the tensor cores. Made once per memoised step."""
        return tuple((c.name, c.seconds, c.flops, c.bytes, "compute" if c.name != "host" and c.bound == "compute"
                      else "memory") for c in self.classes)  # fmt: skip

    @functools.cached_property
    def split(self) -> tuple[float, float]:
        """Seconds of the compute-bound and of the memory-bound op classes."""
        rows = self.rows
        return sum(r[1] for r in rows if r[4] == "compute"), sum(r[1] for r in rows if r[4] == "memory")


def scaled_class(step: JobStep, name: str, keep: float) -> JobStep:
    """``step`` with its op class ``name`` scaled to ``keep`` of itself (1: unchanged; 0: dropped): a pass that
    runs that class on part of the tokens, or not at all."""
    if keep == 1.0 or not any(c.name == name for c in step.classes):
        return step
    classes = tuple(OpClass(c.name, c.flops * keep, c.bytes * keep, c.seconds * keep, c.compute_seconds * keep,
                            c.memory_seconds * keep) if c.name == name else c for c in step.classes)  # fmt: skip
    return JobStep(classes, sum(c.seconds for c in classes), step.launch_bound, step.stack, step.factor)


def with_class(step: JobStep, extra: OpClass | None, scale: float) -> JobStep:
    """``step`` with the op class ``extra`` (one micro-batch's, e.g. a vision tower's) added ``scale`` times: the
    micro-batches of the step and the trainer factor, as the step's own classes are scaled (``_job_step``)."""
    if extra is None or extra.seconds <= 0:
        return step
    added = OpClass(extra.name, extra.flops * scale, extra.bytes * scale, extra.seconds * scale,
                    extra.compute_seconds * scale, extra.memory_seconds * scale)  # fmt: skip
    return JobStep((*step.classes, added), step.seconds + added.seconds, step.launch_bound, step.stack, step.factor)


def tower_step(step: JobStep, model: ModelSpec, job: Job, device: Device) -> JobStep:
    """``step`` with a vision-language job's tower work (steptime/vision.py) added as the op class "vision": per
    micro-batch, times the micro-batches and the trainer factor (not split by tensor parallelism: the towers of
    these models are replicated on every rank)."""
    shape = tower_shape(model, job, step.stack)
    if shape is None or model.vision is None:
        return step
    return with_class(step, tower_class(model.vision, shape, device), job.gradient_accumulation_steps * step.factor)


def job_shape(job: Job, *, fp8_base_dequant: bool = False, attention: str | None = None) -> Shape:
    """The micro-batch's shape; ``attention``: the attention the run executes where it is not the job's
    (stack.py attention_run)."""
    stack = efficiency().framework_stack.get(job.framework, "eager")
    targets = job.lora.targets if isinstance(job.lora.targets, str) else tuple(job.lora.targets)
    dequant = 0.0
    if job.method == "qlora":
        dequant = nf4_bytes(job.quantization)
    elif fp8_base_dequant:
        dequant = 1.0  # an FP8 base under BF16 compute is dequantised before each matmul, as QLoRA's NF4
    loss = stack_of(job).loss
    return Shape(
        seq=job.sequence_length, batch=job.micro_batch_size, checkpointing=job.gradient_checkpointing,
        full=job.method == "full", rank=0 if job.method == "full" else job.lora.rank, targets=targets,
        dequant_bytes=dequant, loss="chunked" if loss in ("chunked", "fused") else "standard", stack=stack,
        attention=attention or job.attention, padded=passes_padding_mask(job), adapters=adapter_compute(job),
        dropout=job.method != "full" and job.lora.dropout > 0,
    )  # fmt: skip


def adapter_compute(job: Job) -> str:
    """How a LoRA job's adapters compute (ops.py LORA_STREAM_BYTES): PEFT keeps them in fp32 on a Transformers stack
    that runs the model's own dtypes (peft tuners_utils cast_adapter_dtype, autocast_adapter_dtype=True; the memory
    side's states.trained_layout reads the same), under bf16 autocast in every precision but pure-bf16 (a
    low-precision recipe's step is its BF16 step over the measured speed-up: lowprecision/speed.py); a sharded stack
    casts them to its compute dtype (bf16). A full fine-tune has none ("bf16": unused)."""
    if job.method == "full" or not runs_model_dtypes(job):
        return "bf16"
    return "fp32" if job.precision == "pure-bf16" else "fp32-autocast"


def optimizer_shards(job: Job, cards: int) -> int:
    """Cards the optimizer step is divided over: FSDP and every ZeRO stage shard the optimizer states (the
    parallelism table's stage: 1 and above partition them)."""
    return cards if PARALLELISM[job.parallelism].stage >= 1 else 1


def job_step(job: Job, model: ModelSpec, p: Parameters, tb: TrainedBytes, device: Device, *, cards: int = 1,
             tp: int = 1, fp8_base_dequant: bool = False) -> JobStep:  # fmt: skip
    """One optimizer step on ``device``: gradient-accumulation micro-batches of the per-op model, then the
    optimizer over the trained states this card holds. Tensor parallelism splits each card's ops ``tp`` ways.
    Memoised by the model (identity) and everything else it reads, by value: a job edited in a setting the step
    does not read (its cards' slots, its name, a memory-only option) reuses it."""
    # Gemma 2 and gpt-oss under sdpa on a Transformers stack run eager attention (stack.py attention_run)
    shape = job_shape(job, fp8_base_dequant=fp8_base_dequant, attention=attention_run(model.architecture, job))
    shards = optimizer_shards(job, cards)
    master = job.method == "full" and job.precision != "pure-bf16"
    key = (shape, device, job.gradient_accumulation_steps, max(tp, 1), shards, p.trainable, tb, master,
           stack_of(job).optimizer_impl, job.optimizer)  # fmt: skip
    # the table in use is an input (by identity): a fit's override never reads a step timed with another table
    return CACHE.memo("job-step", (model, efficiency()), key,
                      lambda: _job_step(job, model, p, tb, device, shape, tp, shards))  # fmt: skip


def _job_step(job: Job, model: ModelSpec, p: Parameters, tb: TrainedBytes, device: Device, shape: Shape, tp: int,
              optimizer_cards: int) -> JobStep:  # fmt: skip
    eff = efficiency()
    mb = micro_batch(model, shape, device)
    factor = eff.framework_factor.get(shape.stack, 1.0)
    scale = job.gradient_accumulation_steps * factor / max(tp, 1)
    if scale == 1.0:
        classes = list(mb.classes)  # one micro-batch, no factor, no split: the memoised classes as they are
    else:
        classes = [OpClass(c.name, c.flops * scale / factor, c.bytes * scale / factor, c.seconds * scale,
                           c.compute_seconds * scale, c.memory_seconds * scale) for c in mb.classes]  # fmt: skip
    launch_bound = mb.launch_seconds > mb.gpu_seconds
    if launch_bound:
        idle = (mb.launch_seconds - mb.gpu_seconds) * scale
        classes.append(OpClass("host", 0.0, 0.0, idle, 0.0, 0.0))
    shards = optimizer_cards * max(tp, 1)
    if p.trainable:
        st = stack_of(job)
        master = job.method == "full" and job.precision != "pure-bf16"
        per_param = optimizer_bytes_per_param(
            tb.weight, tb.gradient, tb.optimizer, master=master, impl=st.optimizer_impl, sgd=job.optimizer == "sgd",
            eight_bit=job.optimizer.endswith("8bit"),
        )
        classes.append(optimizer_class(per_param * p.trainable / shards, device))
    return JobStep(tuple(classes), sum(c.seconds for c in classes), launch_bound, shape.stack, factor)
