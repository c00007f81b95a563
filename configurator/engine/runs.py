"""Published peak-memory measurements the memory model is checked on (each run names its public source).

calibration.py scores the model on them and re-exports every name here (the old import path). ``MEASURED_RUNS``
are the runs the allocator constants were fitted to; ``HELD_OUT_RUNS`` further published runs that no constant
was fitted to; ``NEW_RUNS`` and ``HELD_APART_RUNS`` the runs collected for issue 12 (engine/runs_extra.py).
GiB = 2^30 bytes; every value is stored in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from configurator.engine.build import Job, LoraSettings, StackBehaviour
from configurator.engine.runs_extra import EXTRA_RUNS

GIB = 2**30
# device: what nvidia-smi shows (allocator pool + CUDA context); used where a source prints a device-level figure.
# unnamed: a source that prints "peak memory" without saying which counter; scored against the whole range the
# counters it could be span (calibration._counter), not against the one that suits the model best
Counter = Literal["allocated", "reserved", "device", "unnamed"]


@dataclass(frozen=True)
class MeasuredRun:
    label: str
    source: str
    model_id: str
    job: Job
    shards: int
    counter: Counter  # allocated = max_memory_allocated; reserved = max_memory_reserved (no CUDA context)
    measured_bytes: float
    # memory of the card it ran on, where the model's pool comes near it: the caching allocator cannot map more,
    # so on a failed cudaMalloc it releases its cached segments and retries (c10/cuda/CUDACachingAllocator.cpp,
    # release_cached_blocks), and the pool it reports stays under the card less the CUDA context
    device_bytes: float | None = None


def _job(**kw: Any) -> Job:
    return Job(name=kw.pop("name", "case"), model=kw.pop("model", "x"), **kw)


_LITGPT = "https://github.com/Lightning-AI/litgpt/blob/main/tutorials/resource-tables.md (A100 40GB, Oct 2023)"
_PEFT = "huggingface/peft method_comparison/MetaMathQA results (L40S)"
_ANSWERAI = "https://github.com/AnswerDotAI/fsdp_qlora/blob/main/benchmarks_03_2024.md (2 x RTX 3090)"
RTX_3090_BYTES = 24 * GIB  # GeForce RTX 3090: 24 GB GDDR6X (NVIDIA's specifications page), 24576 MiB
_TORCHTUNE = "pytorch/torchtune docs/source/tutorials/lora_finetune.rst (April 2024)"

# LitGPT: bf16-true, LoRA r8 on q and v (dropout 0.05), no checkpointing, chunked CE, peak at 1,304 tokens
_lit = dict(
    framework="litgpt", precision="pure-bf16", gradient_checkpointing=False, attention="flash", sequence_length=1304,
    lora=LoraSettings(rank=8, targets="qv", dropout=0.05),
)  # fmt: skip
# PEFT MetaMathQA: pure bf16 base, fp32 adapters (mixed-bf16 adapter convention), batch 4 x 768, SDPA. PEFT on
# Transformers in the benchmark's own loop (method_comparison/MetaMathQA/run.py train: model(**batch).loss, then
# loss.backward()), so Transformers' loss path; its optimizer is torch.optim.AdamW with defaults (foreach on CUDA).
# Unlike Trainer, that loop keeps `outputs` (the bf16 logits) alive through grad_scaler.scale(loss).backward().
_peft = dict(
    sequence_length=768,
    micro_batch_size=4,
    gradient_checkpointing=False,
    attention="sdpa",
    framework="hf-trainer",
    behaviour=StackBehaviour(optimizer_impl="foreach", frees_logits=False),
)
# Answer.AI: LoRA r64 on q, k, v, gate, up, down; pure bf16; FSDP1 over 2 (train.py wraps with
# torch.distributed.fsdp.FullyShardedDataParallel); checkpointing
_aai = dict(
    framework="fsdp-qlora", fsdp_version=1, precision="pure-bf16", gradient_checkpointing=True, attention="sdpa",
    lora=LoraSettings(rank=64, targets=["q_proj", "k_proj", "v_proj", "gate_proj", "up_proj", "down_proj"]),
)  # fmt: skip
# torchtune: bf16, checkpointing on, batch 2, Alpaca at 512 tokens. The April 2024 recipe computed
# nn.CrossEntropyLoss on the whole fp32 logits (TransformerDecoder.forward: `self.output(h).float()`), then
# `del logits`; its config named torch.optim.AdamW without fused (foreach).
_tt = dict(
    framework="torchtune",
    loss="standard",
    behaviour=StackBehaviour(optimizer_impl="foreach"),
    precision="pure-bf16",
    gradient_checkpointing=True,
    micro_batch_size=2,
    sequence_length=512,
)
_ALL8 = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "output"]

MEASURED_RUNS: tuple[MeasuredRun, ...] = (
    MeasuredRun("LitGPT Llama 2 7B LoRA mb1", _LITGPT, "llama-2-7b", _job(method="lora", **_lit), 1,
                "allocated", 21.30e9),
    MeasuredRun("LitGPT Llama 2 7B LoRA mb2", _LITGPT, "llama-2-7b",
                _job(method="lora", micro_batch_size=2, **_lit), 1, "allocated", 29.07e9),
    MeasuredRun("LitGPT Llama 2 7B QLoRA nf4", _LITGPT, "llama-2-7b",
                _job(method="qlora", quantization="nf4", **_lit), 1, "allocated", 14.14e9),
    MeasuredRun("LitGPT Llama 2 7B QLoRA nf4-dq", _LITGPT, "llama-2-7b",
                _job(method="qlora", quantization="nf4-dq", **_lit), 1, "allocated", 13.84e9),
    MeasuredRun("LitGPT Llama 2 13B LoRA", _LITGPT, "llama-2-13b", _job(method="lora", **_lit), 1,
                "allocated", 38.12e9),
    MeasuredRun("LitGPT Llama 2 13B QLoRA nf4", _LITGPT, "llama-2-13b",
                _job(method="qlora", quantization="nf4", **_lit), 1, "allocated", 23.14e9),
    MeasuredRun("LitGPT Llama 2 13B QLoRA nf4-dq", _LITGPT, "llama-2-13b",
                _job(method="qlora", quantization="nf4-dq", **_lit), 1, "allocated", 22.55e9),
    MeasuredRun("PEFT Llama 3.2 3B full FT", _PEFT, "llama-3.2-3b",
                _job(method="full", precision="pure-bf16", **_peft), 1, "reserved", 34.78 * GIB),
    MeasuredRun("PEFT Llama 3.2 3B LoRA r32 qv", _PEFT, "llama-3.2-3b",
                _job(method="lora", lora=LoraSettings(rank=32, targets="qv"), **_peft), 1, "reserved",
                18.74 * GIB),
    MeasuredRun("Answer.AI QLoRA 1x512", _ANSWERAI, "llama-2-7b",
                _job(method="qlora", quantization="nf4", sequence_length=512, parallelism="fsdp", **_aai), 2,
                "reserved", 4.98 * GIB, RTX_3090_BYTES),
    MeasuredRun("Answer.AI QLoRA 1x2048", _ANSWERAI, "llama-2-7b",
                _job(method="qlora", quantization="nf4", sequence_length=2048, parallelism="fsdp", **_aai), 2,
                "reserved", 5.21 * GIB, RTX_3090_BYTES),
    MeasuredRun("Answer.AI LoRA 1x2048 (allocated)", _ANSWERAI, "llama-2-7b",
                _job(method="lora", sequence_length=2048, parallelism="fsdp", **_aai), 2, "allocated",
                9.16 * GIB, RTX_3090_BYTES),
    MeasuredRun("Answer.AI LoRA 1x2048", _ANSWERAI, "llama-2-7b",
                _job(method="lora", sequence_length=2048, parallelism="fsdp", **_aai), 2, "reserved",
                10.22 * GIB, RTX_3090_BYTES),
    MeasuredRun("Answer.AI LoRA 4x2048", _ANSWERAI, "llama-2-7b",
                _job(method="lora", sequence_length=2048, micro_batch_size=4, parallelism="fsdp", **_aai), 2,
                "reserved", 16.14 * GIB, RTX_3090_BYTES),
    MeasuredRun("torchtune LoRA r8 qv", _TORCHTUNE, "llama-2-7b",
                _job(method="lora", lora=LoraSettings(rank=8, targets="qv"), **_tt), 1, "reserved", 15.57e9),
    MeasuredRun("torchtune LoRA r8 all+output", _TORCHTUNE, "llama-2-7b",
                _job(method="lora", lora=LoraSettings(rank=8, targets=_ALL8), **_tt), 1, "reserved", 15.87e9),
    MeasuredRun("torchtune LoRA r64 qv", _TORCHTUNE, "llama-2-7b",
                _job(method="lora", lora=LoraSettings(rank=64, targets="qv"), **_tt), 1, "reserved", 15.86e9),
    MeasuredRun("torchtune LoRA r64 all+output", _TORCHTUNE, "llama-2-7b",
                _job(method="lora", lora=LoraSettings(rank=64, targets=_ALL8), **_tt), 1, "reserved",
                17.04e9),
)  # fmt: skip


# Published in the same Answer.AI file but not among the fitted runs: kept out of every fitted constant and
# used only to check the model on runs it was not built from. "ddp" rows are FSDP's NO_SHARD strategy
# (a full copy on each GPU, gradients all-reduced), which the engine sizes as DDP.
_AAI_FILE = _ANSWERAI + ", further rows"


def _aai_row(label: str, method: str, batch: int, context: int, sharding: str, counter: Counter, gib: float,
             model_id: str = "llama-2-7b") -> MeasuredRun:  # fmt: skip
    """One row of Answer.AI's tables: sharding 'fsdp' (FULL_SHARD over 2) or 'ddp' (NO_SHARD)."""
    quant = {"quantization": "nf4"} if method == "qlora" else {}
    job = _job(method=method, sequence_length=context, micro_batch_size=batch, parallelism=sharding, **quant, **_aai)
    return MeasuredRun(
        label, _AAI_FILE, model_id, job, 2 if sharding == "fsdp" else 1, counter, gib * GIB, RTX_3090_BYTES
    )


HELD_OUT_RUNS: tuple[MeasuredRun, ...] = (
    _aai_row("Answer.AI LoRA 1x512", "lora", 1, 512, "fsdp", "reserved", 10.24),
    _aai_row("Answer.AI LoRA 1x512 (allocated)", "lora", 1, 512, "fsdp", "allocated", 8.28),
    _aai_row("Answer.AI QLoRA 4x2048", "qlora", 4, 2048, "fsdp", "reserved", 11.22),
    _aai_row("Answer.AI QLoRA 10x2048", "qlora", 10, 2048, "fsdp", "reserved", 20.97),
    _aai_row("Answer.AI LoRA 6x2048", "lora", 6, 2048, "fsdp", "reserved", 21.35),
    _aai_row("Answer.AI QLoRA 8x2048 NO_SHARD", "qlora", 8, 2048, "ddp", "reserved", 20.94),
    _aai_row("Answer.AI LoRA 4x2048 NO_SHARD", "lora", 4, 2048, "ddp", "reserved", 22.04),
    # Yi 34B, QLoRA, FSDP over two 24 GB cards without CPU offload, micro-batch 2 at 2048 tokens: a 5x larger
    # model than the rows above (close to the cards' capacity, where the allocator frees its cache and retries)
    _aai_row("Answer.AI Yi 34B QLoRA 2x2048", "qlora", 2, 2048, "fsdp", "reserved", 23.05, model_id="yi-34b"),
)

# LitGPT's config hub (config_hub/finetune/README.md, 1x A10G, torch.cuda.max_memory_allocated in GB): bf16-true,
# LoRA r32 alpha 16 dropout 0.05 on q and v (the configs' YAML), chunked cross-entropy, no checkpointing, Alpaca2k
# at max_seq_length 512; LitGPT expands grouped k and v to every head before SDPA. Llama 3 8B has Llama 3.1 8B's
# shapes.
_LITGPT_HUB = "https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md (1x A10G)"
_hub = dict(
    framework="litgpt", method="lora", precision="pure-bf16", gradient_checkpointing=False, attention="sdpa",
    sequence_length=512, lora=LoraSettings(rank=32, targets="qv", dropout=0.05),
)  # fmt: skip
HELD_OUT_RUNS += (
    MeasuredRun("LitGPT hub Llama 3 8B LoRA mb1", _LITGPT_HUB, "llama-3.1-8b", _job(micro_batch_size=1, **_hub), 1,
                "allocated", 19.73e9),
    MeasuredRun("LitGPT hub Mistral 7B LoRA mb2", _LITGPT_HUB, "mistral-7b", _job(micro_batch_size=2, **_hub), 1,
                "allocated", 20.66e9),
)  # fmt: skip
# Checked and left out, with the model's error, so that nothing is hidden:
# - the same hub's QLoRA rows: Llama 3 8B bnb.nf4 mb2 17.41 GB, model -17 %; Llama 2 7B mb2 13.68 GB, about -18 %
#   (its YAML not read). The hub's LoRA rows and LitGPT's 2023 QLoRA rows land in the band. Reading the code
#   suggests two framework-specific terms, about +2.6 GB for Llama 3 8B, which the model leaves out because
#   PEFT-style QLoRA has neither: Lightning's bitsandbytes plugin quantises lm_head too, so every chunk of the
#   chunked loss dequantises the whole 128k-vocabulary head (fp16 and bf16 copies, about 2.1 GB transient);
#   and bitsandbytes up to 0.43.1 kept MatMul4Bit's input as a ctx attribute, so a loop that holds the last
#   step's logits keeps that step's inputs alive into the next forward. No published breakdown confirms either.
# - PEFT MetaMathQA LoRA q,v on torch 2.7.1 (reserved, 99th percentile): r32 17.71 GB and r64 17.95 GB, model
#   +25 % and +24 %. The r32 row measures 20.12 GB on torch 2.13 (the one fitted above): the software
#   stack alone moves this run by 13 %.
# - LitGPT's 2023 multi-GPU LoRA rows (FSDP over 2 A100, Llama 2 7B, 22.18-23.39 GB allocated at micro-batch
#   1-4): 2.0-2.5 times the model. That script keeps loading and FSDP set-up inside the measured peak in a way
#   the tables do not describe.

# ---------------------------------------------------------------- runs collected for issue 12
# From /work/research/new_runs.yaml (research helper, 2026-12-01): 41 published rows from 11 sources. Encoded
# here: the rows whose stack the engine can express and whose model the catalog holds. Left out, with the reason:
# - torch.compile, selective activation checkpointing, float8, optimizer-in-backward or paged 8-bit states,
#   which the engine does not model: torchtune "Optimization flags" rows from "+ Compile" on (7), torchtune
#   README "Memory and training speed" rows other than the held-apart ones below (the 8B full row: paged
#   AdamW8bit, invisible to torch's counters), torchtitan Dec-2024 (6), Trainy/WhiteFiber (2), torchao (3);
# - models the catalog lacks: PEFT docs Llama 2 70B (4), Axolotl Ministral-8B / OLMo-3-7B / Apertus-8B /
#   Seed-OSS-36B (4), DeepSpeed blog Qwen2.5-3B (1), torchtune Llama 3.1 405B (1).
# Qwen2-7B has Qwen2.5-7B's shapes (hidden 3584, 28 layers, ffn 18944, 28/4 heads, vocab 152,064, untied);
# Llama 3 / 3.1 70B have Llama 3.3 70B's. "active" (torchtune's active_bytes.all.peak) is the allocated counter.
_TT_README = "pytorch/torchtune README.md Optimization flags (1814feb, 2024-11-18)"
_TT_QLORA = "pytorch/torchtune docs/source/tutorials/qlora_finetune.rst (0914d5c, 2024-04-15)"
_LIGER = "linkedin/Liger-Kernel examples/huggingface qwen_mem_alloc.png (03fd603, 2024-08-26)"
# Liger: TRL SFTTrainer on transformers 4.43, Qwen2-7B full fine-tune over FSDP1 (4 x A100 80GB), FSDP
# activation checkpointing, Alpaca padded to the longest sample (<= 512: 512 taken), adamw_torch (foreach).
# Mixed precision, not pure bf16: examples/huggingface/training.py loads the model with torch_dtype=bfloat16 but
# run_qwen.sh passes --bf16, which Trainer hands to Accelerate as mixed_precision="bf16"; Accelerate (from 0.30,
# src/accelerate/accelerator.py Accelerator.prepare_model, the "upcasted_log" loop) then casts every trainable
# FSDP1 flat parameter to fp32 ("FSDP upcast of low precision parameters"), so the shards are fp32 masters
# with fp32 Adam states (memory.trained_layout). (requirements.txt pins transformers 4.43.3, which needs a newer
# Accelerate than 0.30's April 2024.) apply_liger_kernel_to_qwen2 runs after from_pretrained, so its RMSNorm
# and SwiGLU class swaps miss the built model; the forward patch (fused loss) and the RoPE function apply.
_liger = dict(
    framework="hf-trainer", method="full", precision="mixed-bf16", parallelism="fsdp", fsdp_version=1,
    gradient_checkpointing=True, sequence_length=512, attention="sdpa",
    behaviour=StackBehaviour(optimizer_impl="foreach"),
)  # fmt: skip
NEW_RUNS: tuple[MeasuredRun, ...] = (
    # "| [+ Packed Dataset](...) | 60.0 | +135.16% | 7075 | +238.40% |" -- full_finetune_single_device, batch 2
    # packed to 4096, bf16, no compile, nn.CrossEntropyLoss on fp32 logits, logits deleted before backward, no AC
    MeasuredRun("torchtune Llama 3.2 3B full, packed 2x4096, no AC", _TT_README, "llama-3.2-3b",
                _job(framework="torchtune", method="full", precision="pure-bf16", loss="standard",
                     gradient_checkpointing=False, sequence_length=4096, micro_batch_size=2), 1,
                "allocated", 60.0 * GIB),
    # "QLoRA                  9.13 GB                             9.29 GB" (peak reserved in training; 1e9 bytes)
    # -- 7B_qlora_single_device: LoRA r8 on q, k, v, o, w1-w3 over torchao NF4 (double-quantised scalers),
    # batch 2 of Alpaca at <= 512 tokens, AC on, nn.CrossEntropyLoss, torch AdamW (foreach); torchtune pinned
    # torchao==0.1 then (pyproject.toml at 0914d5c), which quantised each NF4 weight whole (engine/loadpath.py)
    MeasuredRun("torchtune Llama 2 7B QLoRA tutorial", _TT_QLORA, "llama-2-7b",
                _job(framework="torchtune", method="qlora", quantization="nf4-dq", precision="pure-bf16",
                     loss="standard", behaviour=StackBehaviour(optimizer_impl="foreach", nf4_chunked=False),
                     lora=LoraSettings(rank=8, targets="all-linear"), gradient_checkpointing=True,
                     sequence_length=512, micro_batch_size=2), 1, "reserved", 9.29e9),
    # Bar labels of "Peak Allocated Memory (MB)" (MiB: callback.py M_BIN_UNIT = 2**20), batch 32, "w/o liger"
    MeasuredRun("Liger Qwen2-7B full FSDP1 x4, bs32, standard loss", _LIGER, "qwen2.5-7b",
                _job(micro_batch_size=32, loss="standard", **_liger), 4, "allocated", 51154.27 * 2**20),
    # "w liger" at batch 32 / 48 / 64: fused linear cross-entropy (Liger's RMSNorm / SwiGLU / RoPE kernels,
    # also on, change only the recomputed layer under checkpointing; not modelled)
    MeasuredRun("Liger Qwen2-7B full FSDP1 x4, bs32, fused loss", _LIGER, "qwen2.5-7b",
                _job(micro_batch_size=32, loss="fused", **_liger), 4, "allocated", 39300.01 * 2**20),
    MeasuredRun("Liger Qwen2-7B full FSDP1 x4, bs48, fused loss", _LIGER, "qwen2.5-7b",
                _job(micro_batch_size=48, loss="fused", **_liger), 4, "allocated", 42085.62 * 2**20),
    MeasuredRun("Liger Qwen2-7B full FSDP1 x4, bs64, fused loss", _LIGER, "qwen2.5-7b",
                _job(micro_batch_size=64, loss="fused", **_liger), 4, "allocated", 42709.12 * 2**20),
)  # fmt: skip

# Held apart from every fitted constant and from the band: checked and reported on their own
# (tests/test_calibration.py prints them). Chosen by source before any was scored: Schmid is in the research
# helper's suggested held-out set; the torchtune README "Memory and training speed" rows ran with torch.compile
# (not modelled; with activation checkpointing the kept tensors are the layer inputs, which compile leaves
# alone) and name no counter ("Peak Memory per GPU"): torchtune logs three (training/_memory.py
# get_memory_stats: peak_memory_active, _alloc, _reserved), its README's other table prints "Peak Memory Active"
# and its QLoRA tutorial "peak reserved", so these rows are scored as "unnamed", against allocated..reserved.
_TT_SPEED = "pytorch/torchtune README.md Memory and training speed (30b8519, 2024-09-24)"
_SCHMID = "philschmid/deep-learning-pytorch-huggingface fsdp-qlora-distributed-llama3.ipynb (6cc03d2)"
_tt31 = dict(framework="torchtune", precision="pure-bf16", gradient_checkpointing=True, sequence_length=2048,
             micro_batch_size=2)  # fmt: skip
HELD_APART_RUNS: tuple[MeasuredRun, ...] = (
    # "| Llama 3.1 8B | QLoRA | 1x 4090 | 7.4 GiB | 2413  |" (8B_qlora_single_device: r8 on q, k, v, o, w1-w3)
    MeasuredRun("torchtune Llama 3.1 8B QLoRA, 4090, 2x2048", _TT_SPEED, "llama-3.1-8b",
                _job(method="qlora", quantization="nf4-dq", lora=LoraSettings(rank=8, targets="all-linear"),
                     **_tt31), 1, "unnamed", 7.4 * GIB),
    # "| Llama 3.1 8B | LoRA | 1x 4090 |  16.2 GiB | 3083 |" (8B_lora_single_device: r8 on q and v)
    MeasuredRun("torchtune Llama 3.1 8B LoRA qv, 4090, 2x2048", _TT_SPEED, "llama-3.1-8b",
                _job(method="lora", lora=LoraSettings(rank=8, targets="qv"), **_tt31), 1, "unnamed", 16.2 * GIB),
    # "| Llama 3.1 70B | LoRA | 8x A100 | 27.6 GiB  | 3497  |" (70B_lora: r16 on q, k, v; FSDP2 over 8)
    MeasuredRun("torchtune Llama 3.1 70B LoRA, FSDP2 x8", _TT_SPEED, "llama-3.3-70b",
                _job(method="lora", parallelism="fsdp", fsdp_version=2,
                     lora=LoraSettings(rank=16, targets=["q_proj", "k_proj", "v_proj"]), **_tt31), 8,
                "unnamed", 27.6 * GIB),
    # "| Llama 3.1 70B | Full finetune | 8x A100  | 13.9 GiB ** | 1568  |", "**= Uses CPU offload with fused optimizer"
    # (llama3_1/70B_full.yaml: fsdp_cpu_offload True, custom_sharded_layers ['tok_embeddings', 'output'])
    MeasuredRun("torchtune Llama 3.1 70B full, FSDP2 x8, CPU offload", _TT_SPEED, "llama-3.3-70b",
                _job(method="full", parallelism="fsdp", fsdp_version=2, offload="cpu",
                     behaviour=StackBehaviour(separate_head_units=True), **_tt31), 8, "unnamed",
                13.9 * GIB),
    # "FSDP + Q-Lora + CPU offloading needs 4x24GB GPUs, with 22 GB/GPU and 127 GB CPU RAM with a sequence length
    # of 3072 and a batch size of 1." -- TRL SFTTrainer, bnb NF4 + double quant stored in bf16 (sharded QLoRA,
    # so TRL skips prepare_model_for_kbit_training), LoRA r16 all-linear, FSDP1 full_shard with offload_params
    MeasuredRun("Schmid Llama 3 70B QLoRA, FSDP1 x4, CPU offload", _SCHMID, "llama-3.3-70b",
                _job(framework="hf-trainer", method="qlora", quantization="nf4-dq", precision="pure-bf16",
                     parallelism="fsdp", fsdp_version=1, offload="cpu",
                     behaviour=StackBehaviour(kbit_fp32_prep=False, optimizer_impl="foreach"),
                     lora=LoraSettings(rank=16, targets="all-linear", dropout=0.05), gradient_checkpointing=True,
                     sequence_length=3072, micro_batch_size=1), 4, "device", 22e9),
)  # fmt: skip
# The second batch for issue 12, each with its quoted line (engine/runs_extra.py says which are held apart)
NEW_RUNS += tuple(MeasuredRun(*r.fields()) for r in EXTRA_RUNS if not r.held_apart)
HELD_APART_RUNS += tuple(MeasuredRun(*r.fields()) for r in EXTRA_RUNS if r.held_apart)

# The one published FSDP set-up pool: "reserved_after_model_wrap" about 3.72 GiB per GPU for the QLoRA 1x512
# command (benchmarks_03_2024.md). memory.FSDP_SETUP_UNIT_COPIES is derived from it.
FSDP_SETUP_POOL_MEASURED = 3.72 * GIB
