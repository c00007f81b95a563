"""The training stack as an input: each framework's memory-relevant behaviours, read from its own code.

A job names its framework (``Job.framework``, default ``hf-trainer``); the framework's profile gives the
loss path, whether the loop drops the logits before backward, QLoRA preparation, checkpointing granularity,
optimizer implementation and how the model is built before sharding. ``Job.loss`` and ``Job.behaviour``
override the profile field by field. Nothing here is fitted to a measurement: every field names the code
it was read from (repository, file, function).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from configurator.engine.build import Checkpointing, Framework, Job, Loss, OptimizerImpl
from configurator.engine.cache import CACHE
from configurator.engine.parallelism import PARALLELISM


@dataclass(frozen=True, kw_only=True)
class FrameworkProfile:
    """One framework's memory-relevant behaviours, each read from its code; ``sources`` names, for every
    behaviour, the repository, file and function it was read from (tests/test_stack.py checks none is missing)."""

    label: str
    loss: Loss  # loss path when the job does not name one
    frees_logits: bool  # the loop drops the model's logits tensor before backward
    loss_upcast: bool  # a chunked loss computes on fp32 copies of each chunk (else on bf16 logits)
    kbit_fp32_prep: bool  # QLoRA: non-quantised parameters cast to fp32 before training
    checkpointing: Checkpointing
    optimizer_impl: OptimizerImpl
    meta_init: bool  # built on the meta device, sharded, then weights loaded: no unsharded copy on the GPU
    held_logits_fp32: bool = False  # a loop that keeps the output holds fp32 logits (the model upcast them)
    nf4_chunked: bool = True  # torchao NF4 quantises in chunks (torchao >= 0.2; engine/loadpath.py)
    # FSDP wraps the input embedding and the output head as units of their own (torchtune's distributed recipes
    # with custom_sharded_layers: ['tok_embeddings', 'output'], a per-config choice: recipes default to None)
    separate_head_units: bool = False
    prep_head_bf16: bool = False  # QLoRA under bf16: the fp32-cast embedding and head go back to bf16 (TRL)
    sources: Mapping[str, str] = field(default_factory=dict)  # behaviour -> where it was read


# The fields above that are behaviours (label and sources are not): each profile names a source for every one.
BEHAVIOURS = ("loss", "frees_logits", "loss_upcast", "kbit_fp32_prep", "checkpointing", "optimizer_impl",
              "meta_init", "held_logits_fp32", "nf4_chunked", "separate_head_units", "prep_head_bf16")  # fmt: skip

# A behaviour whose value predates this record and whose code has not been read yet: named, so it can be found.
UNREAD = "not read from the framework's code yet: the value as first shipped"
_TORCHAO = "torchao NF4Tensor quantises in chunks since torchao 0.2 (engine/loadpath.py); "
_NO_NF4 = "not read: engine/memory.py _load reads nf4_chunked for torchtune only (others quantise with bitsandbytes)"
_WHOLE_MODEL_UNITS = "wraps the decoder layers; the embedding and head stay in the root unit"
_NO_PREP = "not read: prep_head_bf16 applies only with kbit_fp32_prep"

# Transformers Trainer / TRL SFTTrainer with PEFT (Transformers >= 4.46, TRL, PEFT); Axolotl inherits most of it.
_HF = {
    "loss": "transformers src/transformers/loss/loss_utils.py ForCausalLMLoss: `logits = logits.float()` then "
            "cross_entropy over the whole sequence (4.43's models upcast in their own forward and returned fp32 "
            "logits: the same kept bytes once Trainer drops them)",
    "frees_logits": "transformers src/transformers/trainer.py Trainer.training_step: compute_loss returns only the "
                    "loss unless return_outputs, so the outputs (logits) are dropped before accelerator.backward",
    "loss_upcast": "Transformers has no chunked loss: `loss: chunked` is a user loss, sized on bf16 chunks as "
                   "LitGPT's chunked_cross_entropy",
    "kbit_fp32_prep": "trl/trainer/sft_trainer.py _prepare_peft_model calls peft/src/peft/utils/other.py "
                      "prepare_model_for_kbit_training: every non-Params4bit fp16/bf16 parameter to fp32",
    "checkpointing": "PreTrainedModel.gradient_checkpointing_enable wraps each decoder layer (layer inputs kept)",
    "optimizer_impl": "src/transformers/training_args.py default_optim: adamw_torch_fused from torch 2.8 "
                      "(torch.optim.AdamW(fused=True))",
    "meta_init": UNREAD,
    "held_logits_fp32": "the outputs are dropped before backward (frees_logits), so no logits are held",
    "nf4_chunked": _NO_NF4,
    "separate_head_units": "Accelerate's fsdp_auto_wrap_policy TRANSFORMER_BASED_WRAP " + _WHOLE_MODEL_UNITS,
    "prep_head_bf16": "trl _prepare_peft_model calls peft_module_casting_to_bf16 under args.bf16: lm_head and "
                      "embed_tokens back to bf16, norms stay fp32 (an fp32 norm makes the residual stream fp32: "
                      "activations.py)",
}
_AXOLOTL = {
    **_HF,
    "frees_logits": "src/axolotl/core/trainers/base.py AxolotlTrainer subclasses transformers.Trainer and its "
                    "compute_loss returns super().compute_loss's loss: " + _HF["frees_logits"],
    "kbit_fp32_prep": "src/axolotl/loaders/model.py calls PEFT's prepare_model_for_kbit_training",
    "loss": _HF["loss"] + "; Liger / Cut Cross-Entropy plugins (src/axolotl/integrations/) are `fused`, named by "
                          "the job",
    "prep_head_bf16": UNREAD,
}
_TORCHTUNE = {
    "loss": "torchtune.modules.loss.CEWithChunkedOutputLoss (ce_chunked_output_loss.py): the decoder returns "
            "num_output_chunks=8 chunks (torchtune/modules/transformer.py TransformerDecoder.chunked_output)",
    "frees_logits": "recipes/lora_finetune_single_device.py _loss_step: `del logits` before loss.backward(), "
                    "\"free logits otherwise it peaks backward memory\"",
    "loss_upcast": "ce_chunked_output_loss.py compute_cross_entropy upcasts each chunk with `.float()`",
    "kbit_fp32_prep": "torchtune/modules/peft/lora.py LoRALinear quantises with torchao NF4Tensor and casts "
                      "nothing else to fp32",
    "checkpointing": "training.set_activation_checkpointing(model, auto_wrap_policy={TransformerSelfAttentionLayer}) "
                     "wraps whole layers",
    "optimizer_impl": "the recipes' configs name torch.optim.AdamW with fused: True",
    "meta_init": UNREAD + " (the single-device recipes build on the GPU; check the distributed ones)",
    "held_logits_fp32": "`del logits` before backward (frees_logits): no logits are held",
    "nf4_chunked": _TORCHAO + "torchtune's LoRALinear uses it",
    "separate_head_units": "recipes/full_finetune_distributed.py shard_model: the embedding and the output head "
                           "get units of their own only with custom_sharded_layers (configs default to None)",
    "prep_head_bf16": _NO_PREP,
}
_TORCHTITAN = {
    "loss": "torchtitan/components/loss.py cross_entropy_loss: `cross_entropy(pred.flatten(0, 1).float(), ...)`, "
            "fp32, whole sequence",
    # torchtitan/train.py forward_backward_step does `del pred` before loss.backward() ("need to free to before
    # bwd to avoid peaking memory"): the shipped False is to be checked against activations.py's held logits
    "frees_logits": UNREAD + "; torchtitan/train.py forward_backward_step deletes `pred` before loss.backward()",
    "loss_upcast": UNREAD + " (torchtitan has no chunked loss: read only for a job that names `chunked`)",
    "kbit_fp32_prep": "torchtitan has no QLoRA path (no PEFT preparation)",
    "checkpointing": "torchtitan/models/llama3/infra/parallelize.py apply_ac: mode full wraps each block",
    "optimizer_impl": "torchtitan/config/job_config.py Optimizer.implementation = \"fused\" (read by "
                      "components/optimizer.py build_optimizers); the Dec-2024 configs stepped with foreach",
    "meta_init": "torchtitan/train.py Trainer.__init__: built under torch.device(\"meta\"), parallelised "
                 "(fully_shard), then to_empty and init_weights",
    "held_logits_fp32": UNREAD,
    "nf4_chunked": _NO_NF4,
    "separate_head_units": UNREAD + " (torchtitan parallelize.py apply_fsdp)",
    "prep_head_bf16": _NO_PREP,
}
_LITGPT = {
    "loss": "litgpt/finetune/lora.py fit: `model(input_ids, lm_head_chunk_size=128)` and litgpt/utils.py "
            "chunked_cross_entropy",
    "frees_logits": "litgpt/finetune/lora.py fit: the logits list stays alive through fabric.backward",
    "loss_upcast": "litgpt/utils.py chunked_cross_entropy: cross-entropy on each bf16 chunk, no upcast",
    "kbit_fp32_prep": "Lightning's BitsandbytesPrecision quantises at load and casts nothing to fp32 (bf16-true)",
    "checkpointing": "Fabric FSDPStrategy activation_checkpointing_policy={Block}: whole blocks",
    "optimizer_impl": "fit() builds torch.optim.AdamW with defaults: foreach on CUDA "
                      "(torch/optim/optimizer.py _default_to_fused_or_foreach)",
    "meta_init": UNREAD,
    "held_logits_fp32": "chunked_cross_entropy keeps the bf16 logits list (no fp32 upcast in the model)",
    "nf4_chunked": _NO_NF4,
    "separate_head_units": "Fabric FSDPStrategy auto_wrap_policy={Block} " + _WHOLE_MODEL_UNITS,
    "prep_head_bf16": _NO_PREP,
}
_FSDP_QLORA = {
    "loss": "AnswerDotAI/fsdp_qlora train.py: `output = model(...)` on a Transformers model with labels, so "
            "ForCausalLMLoss (the fp32 upcast, whole sequence)",
    "frees_logits": "train.py: loss.backward() runs with `output` alive; the loop keeps it until the next forward",
    "loss_upcast": UNREAD + " (train.py has no chunked loss: read only for a job that names `chunked`)",
    "kbit_fp32_prep": "train.py builds bnb Linear4bit layers itself (replace_linear, load_and_quantize) without "
                      "PEFT's prepare_model_for_kbit_training",
    "checkpointing": UNREAD,
    "optimizer_impl": "train.py: torch.optim.AdamW with defaults (foreach)",
    "meta_init": UNREAD,
    "held_logits_fp32": "the Transformers of its time (before 4.46) ended LlamaForCausalLM.forward with "
                        "`logits = logits.float()` and returned them in `output`, which the loop keeps",
    "nf4_chunked": _NO_NF4,
    "separate_head_units": UNREAD,
    "prep_head_bf16": _NO_PREP,
}

PROFILES: dict[str, FrameworkProfile] = {
    "hf-trainer": FrameworkProfile(
        label="Transformers Trainer / TRL + PEFT", loss="standard", frees_logits=True, loss_upcast=False,
        kbit_fp32_prep=True, checkpointing="full", optimizer_impl="fused", meta_init=False, prep_head_bf16=True,
        sources=_HF,
    ),
    "torchtune": FrameworkProfile(
        label="torchtune", loss="chunked", frees_logits=True, loss_upcast=True, kbit_fp32_prep=False,
        checkpointing="full", optimizer_impl="fused", meta_init=False, sources=_TORCHTUNE,
    ),
    "torchtitan": FrameworkProfile(
        label="torchtitan", loss="standard", frees_logits=False, loss_upcast=True, kbit_fp32_prep=False,
        checkpointing="full", optimizer_impl="fused", meta_init=True, sources=_TORCHTITAN,
    ),
    "axolotl": FrameworkProfile(
        label="Axolotl", loss="standard", frees_logits=True, loss_upcast=False, kbit_fp32_prep=True,
        checkpointing="full", optimizer_impl="fused", meta_init=False, sources=_AXOLOTL,
    ),
    "litgpt": FrameworkProfile(
        label="LitGPT", loss="chunked", frees_logits=False, loss_upcast=False, kbit_fp32_prep=False,
        checkpointing="full", optimizer_impl="foreach", meta_init=False, sources=_LITGPT,
    ),
    "fsdp-qlora": FrameworkProfile(
        label="Answer.AI train.py (FSDP1, custom loop)", loss="standard", frees_logits=False, loss_upcast=True,
        kbit_fp32_prep=False, checkpointing="full", optimizer_impl="foreach", meta_init=False,
        held_logits_fp32=True, sources=_FSDP_QLORA,
    ),
}  # fmt: skip


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
        separate_head_units=pick("separate_head_units"), fsdp_version=job.fsdp_version,
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
