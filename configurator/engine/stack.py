"""The training stack as an input: each framework's memory-relevant behaviours, read from its own code.

A job names its framework (``Job.framework``, default ``hf-trainer``); the framework's profile gives the
loss path, whether the loop drops the logits before backward, QLoRA preparation, checkpointing granularity,
optimizer implementation and how the model is built before sharding. ``Job.loss`` and ``Job.behaviour``
override the profile field by field. Nothing here is fitted to a measurement: every field names the code
it was read from (repository, file, function).
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.build import Checkpointing, Framework, Job, Loss, OptimizerImpl


@dataclass(frozen=True)
class FrameworkProfile:
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


PROFILES: dict[str, FrameworkProfile] = {
    # Transformers Trainer / TRL SFTTrainer with PEFT.
    # - loss: src/transformers/loss/loss_utils.py ForCausalLMLoss does `logits = logits.float()` before
    #   nn.functional.cross_entropy, on the whole sequence (that fp32 copy is the loss function's local, freed
    #   when it returns; log_softmax keeps its own fp32 output). Trainer.training_step takes only the loss from
    #   compute_loss, which returns `(loss, outputs) if return_outputs else loss`, so the model's output, logits
    #   included, is dropped before accelerator.backward (src/transformers/trainer.py): frees_logits.
    #   (Transformers 4.43's models upcast in their own forward, `logits = logits.float()`, and return the fp32
    #   logits: the same kept bytes once Trainer drops them.)
    # - QLoRA: TRL's SFTTrainer (trl/trainer/sft_trainer.py, _prepare_peft_model) calls PEFT's
    #   prepare_model_for_kbit_training (peft/src/peft/utils/other.py), which casts every fp16/bf16
    #   parameter that is not a bitsandbytes Params4bit to fp32: embeddings, norms and lm_head; under
    #   args.bf16 it then calls peft_module_casting_to_bf16, which casts lm_head and embed_tokens back to bf16
    #   and leaves the norms fp32 (prep_head_bf16). An fp32 norm weight promotes its output to fp32 and a 4-bit
    #   linear returns its input's dtype (bitsandbytes Linear4bit.forward `out.to(inp_dtype)`), so the residual
    #   stream, and the layer inputs checkpointing keeps, are fp32 either way (activations.py).
    # - checkpointing: PreTrainedModel.gradient_checkpointing_enable wraps each decoder layer (layer inputs kept).
    # - optimizer: TrainingArguments.optim defaults to "adamw_torch_fused" from torch 2.8
    #   (src/transformers/training_args.py, default_optim), torch.optim.AdamW(fused=True).
    # - Transformers has no chunked loss of its own: `loss: chunked` there is a user-supplied loss, sized on bf16
    #   chunks as LitGPT's chunked_cross_entropy computes it (and as this engine sized `chunked` before stacks).
    "hf-trainer": FrameworkProfile(
        "Transformers Trainer / TRL + PEFT", "standard", True, False, True, "full", "fused", False,
        prep_head_bf16=True,
    ),
    # torchtune recipes (recipes/lora_finetune_single_device.py, full_finetune_distributed.py, _loss_step):
    # - loss: configs use torchtune.modules.loss.CEWithChunkedOutputLoss (ce_chunked_output_loss.py): the
    #   decoder returns the logits in num_output_chunks=8 chunks (torchtune/modules/transformer.py
    #   TransformerDecoder.chunked_output) and compute_cross_entropy upcasts each chunk with `.float()`.
    # - `del logits` before loss.backward(): "free logits otherwise it peaks backward memory".
    # - QLoRA: torchtune's own NF4 (torchao NF4Tensor, torchtune/modules/peft/lora.py LoRALinear) and no
    #   fp32 cast of the rest of the model; each adapted linear is built in bf16 on the GPU and quantised there,
    #   in chunks since torchao 0.2 (engine/loadpath.py, the load phase's pool).
    # - checkpointing: training.set_activation_checkpointing(model, auto_wrap_policy={TransformerSelfAttentionLayer})
    #   wraps whole layers; enable_activation_offloading moves the saved inputs to the host
    #   (torchtune/training/_activation_offloading.py OffloadActivations).
    # - optimizer: configs name torch.optim.AdamW with fused: True.
    "torchtune": FrameworkProfile("torchtune", "chunked", True, True, False, "full", "fused", False),
    # torchtitan (torchtitan/train.py Trainer.__init__, torchtitan/components/loss.py cross_entropy_loss):
    # - loss: `torch.nn.functional.cross_entropy(pred.flatten(0, 1).float(), ...)`: fp32, whole sequence.
    # - the model is built under `torch.device("meta")`, parallelised (fully_shard), then `to_empty` and
    #   init_weights: no unsharded copy ever exists on the GPU.
    # - checkpointing: torchtitan/models/llama3/infra/parallelize.py apply_ac, mode "full" wraps each block.
    # - optimizer: torchtitan/config/job_config.py Optimizer.implementation = "fused" (read by
    #   components/optimizer.py build_optimizers); the Dec-2024 configs still stepped with foreach.
    "torchtitan": FrameworkProfile("torchtitan", "standard", False, True, False, "full", "fused", True),
    # Axolotl runs the Transformers Trainer (src/axolotl/core/trainers/base.py AxolotlTrainer subclasses
    # transformers.Trainer; its compute_loss returns super().compute_loss's loss), so it inherits the loss path,
    # the dropped outputs and the optimizer default; QLoRA loading calls PEFT's
    # prepare_model_for_kbit_training (src/axolotl/loaders/model.py). Its Liger and Cut Cross-Entropy plugins
    # (src/axolotl/integrations/) are the `fused` loss, named by the job.
    "axolotl": FrameworkProfile("Axolotl", "standard", True, False, True, "full", "fused", False),
    # LitGPT (litgpt/finetune/lora.py fit): `logits = model(input_ids, lm_head_chunk_size=128)` and
    # litgpt/utils.py chunked_cross_entropy, cross-entropy on each bf16 chunk without an upcast; the logits
    # list stays alive through fabric.backward. Lightning's BitsandbytesPrecision quantises at load and
    # casts nothing to fp32 (bf16-true). fit() builds torch.optim.AdamW with defaults: foreach on CUDA
    # (torch/optim/optimizer.py _default_to_fused_or_foreach).
    "litgpt": FrameworkProfile("LitGPT", "chunked", False, False, False, "full", "foreach", False),
    # Answer.AI's train.py (AnswerDotAI/fsdp_qlora): a custom loop over FSDP1; `output = model(...)` on a
    # Transformers model with labels, so ForCausalLMLoss's fp32 upcast, loss.backward() with `output` alive;
    # it builds bnb Linear4bit layers itself (replace_linear, load_and_quantize) without PEFT's fp32 cast;
    # torch.optim.AdamW with defaults (foreach). The `output` it holds carries fp32 logits: the Transformers of
    # its time (before 4.46, when the upcast moved into loss_utils.py ForCausalLMLoss) ended LlamaForCausalLM.forward
    # with `logits = logits.float()` and returned those, and the loop keeps `output` until the next step's forward.
    "fsdp-qlora": FrameworkProfile(
        "Answer.AI train.py (FSDP1, custom loop)", "standard", False, True, False, "full", "foreach", False, True
    ),
}


# Stacks that run Transformers' own modeling code with PEFT: on one card or DDP the model's own dtypes flow through
# that code (a meta-tensor trace of it: specs/trace/table.jsonl); FSDP MixedPrecision and DeepSpeed bf16 hand
# every layer bf16 parameters instead.
TRANSFORMERS_STACKS = frozenset({"hf-trainer", "axolotl"})


def runs_model_dtypes(job: Job) -> bool:
    """A Transformers stack on one card or DDP: the model's own dtypes run (engine/activations.py)."""
    return job.framework in TRANSFORMERS_STACKS and job.parallelism in ("single", "ddp")


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
    fsdp_version: int
    offload: str


_CACHE: dict[int, tuple[Job, Stack]] = {}


def stack_of(job: Job) -> Stack:
    """The stack a job runs on: framework profile, then the job's `loss` and `behaviour` overrides."""
    hit = _CACHE.get(id(job))
    if hit is not None and hit[0] is job:
        return hit[1]
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
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[id(job)] = (job, stack)
    return stack


def describe(job: Job) -> str:
    """One line naming the stack, for the reports: 'Transformers Trainer / TRL + PEFT, FSDP2, loss standard'."""
    s = stack_of(job)
    parts = [PROFILES[job.framework].label]
    if job.parallelism == "fsdp":
        parts.append(f"FSDP{s.fsdp_version}")
    elif job.parallelism.startswith("zero"):
        parts.append(f"DeepSpeed ZeRO-{job.parallelism[-1]}")
    if s.offload != "none":
        parts.append(f"offload {s.offload}")
    parts.append(f"loss {s.loss}" + ("" if job.loss else " (framework default)"))
    parts.append(f"optimizer {s.optimizer_impl}")
    if s.checkpointing != "full" and job.gradient_checkpointing:
        parts.append(f"checkpointing {s.checkpointing}")
    return ", ".join(parts)
