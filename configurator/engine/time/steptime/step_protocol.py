"""The training step a job's predicted step time and peak assume, as a tool that runs the step must run it.

The per-op model (ops.py) and the memory estimate time and size one step of the job's framework: its AdamW
implementation (``stack_of(job).optimizer_impl``, specs/frameworks.yaml), gradient clipping before every optimizer
step (ops.py ``optimizer_bytes_per_param`` counts it for every job), bf16 autocast over fp32 weights or pure bf16
weights as the job's precision and stack say (stack.py ``hf_amp_full``, memory/states.py), and gradient
checkpointing reentrant or not as the framework runs it by default. :func:`step_protocol` is that choice, a pure
function of the job; its :meth:`StepProtocol.wire` dict is what the burn-in kit's ``measure.py`` (in ``jobs.json``)
and the device kit's ``benchmarks/device/measure.py`` (in ``predictions.json``) run, so both measure the step the
engine predicts and neither decides it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from configurator.engine.memory.rl import is_rl
from configurator.engine.model.build import Job, Optimizer, OptimizerImpl
from configurator.engine.model.stack import hf_amp_full, stack_of

CheckpointingKind = Literal["non-reentrant", "reentrant"]
Weights = Literal["bf16", "fp32"]

# Transformers' TrainingArguments.max_grad_norm default (src/transformers/training_args.py: 1.0), which the Trainer
# applies with accelerator.clip_grad_norm_ before each optimizer step; ops.py counts the clip's bytes for every job.
MAX_GRAD_NORM = 1.0

# The precisions a BF16 step reproduces; the FP8 and FP4 recipes need Transformer Engine's layers, which a plain
# PyTorch step does not run.
BF16_PRECISIONS = ("mixed-bf16", "pure-bf16")


# The checkpointing a framework runs when the job names no gradient_checkpointing_kwargs (the Trainer passes none by
# default). Transformers' PreTrainedModel.gradient_checkpointing_enable defaults to {"use_reentrant": False} since
# https://github.com/huggingface/transformers/pull/43203 (merged 2026-01; it was True from PR 28538), so the pinned
# transformers 5.24 runs non-reentrant, as TRL does (https://github.com/huggingface/trl/pull/4811). Axolotl sets
# {"use_reentrant": True} itself when the config names none and no RL trainer runs
# (src/axolotl/utils/config/__init__.py normalize_config).
def checkpointing_kind(job: Job) -> CheckpointingKind:
    """The checkpointing variant the job's framework runs by default (reentrant or non-reentrant)."""
    return "reentrant" if job.framework == "axolotl" and not is_rl(job) else "non-reentrant"


@dataclass(frozen=True)
class StepProtocol:
    """One optimizer step as the engine's prediction assumes it (the fields a measuring tool reads)."""

    optimizer: Optimizer  # torch AdamW / SGD, or bitsandbytes' 8-bit and paged AdamW
    optimizer_impl: OptimizerImpl  # fused, foreach or for-loop (torch's implementations; bitsandbytes has its own)
    max_grad_norm: float  # clip_grad_norm_ before every optimizer step
    weights: Weights  # the dtype the model is built in (fp32: the Trainer's AMP full fine-tune)
    autocast_bf16: bool  # the forward (and the loss) under torch.autocast(bfloat16); backward outside it
    checkpointing: CheckpointingKind | None  # None: no gradient checkpointing
    refused: str | None  # why a BF16 PyTorch step cannot reproduce the job's step, or None

    def wire(self) -> dict[str, object]:
        """The protocol as JSON for the measuring scripts (which cannot import the package)."""
        return {"optimizer": self.optimizer, "optimizer_impl": self.optimizer_impl,
                "max_grad_norm": self.max_grad_norm, "weights": self.weights, "autocast_bf16": self.autocast_bf16,
                "checkpointing": self.checkpointing}  # fmt: skip


def step_protocol(job: Job) -> StepProtocol:
    """The step the engine predicts for ``job``: its framework's optimizer implementation, the Trainer's clipping,
    autocast over fp32 weights (a full fine-tune in mixed-bf16 on a Transformers stack, one card or DDP), bf16
    weights under autocast (LoRA and QLoRA in mixed-bf16: PEFT's adapters stay fp32) or pure bf16 without it, and
    the framework's checkpointing kind when the job checkpoints."""
    refused = None
    stack = stack_of(job)
    if job.precision not in BF16_PRECISIONS:
        refused = (f"the {job.precision} recipe needs Transformer Engine's low-precision layers; the measured step "
                   "runs BF16 only")  # fmt: skip
    elif job.gradient_checkpointing and stack.checkpointing != "full":
        refused = "activation offloading (checkpointed inputs on the host) is not run by the measured step"
    return StepProtocol(
        optimizer=job.optimizer,
        optimizer_impl=stack.optimizer_impl,
        max_grad_norm=MAX_GRAD_NORM,
        weights="fp32" if hf_amp_full(job) else "bf16",
        autocast_bf16=job.precision == "mixed-bf16",
        checkpointing=checkpointing_kind(job) if job.gradient_checkpointing else None,
        refused=refused,
    )
