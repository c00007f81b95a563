"""Regenerate specs/trace/table.jsonl: a fixed, seeded list of single-card jobs, each traced by the worker.

    python -m configurator.trace.oracle.generate [--shard I/N] [--limit K] [--out FILE]

Rows are written one per line as they finish (a shard writes its own part file); ``--merge`` joins the parts
under a header line that names the library versions, the command and the date. Jobs run in one process (the
worker's ``run_request``), which spares each job the ~10 s import of torch and transformers.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import random
import sys
from pathlib import Path
from typing import Any

from configurator.trace.worker.result import versions
from configurator.trace.worker.trace import NOTES_ALWAYS, run_request

ROOT = Path(__file__).resolve().parents[3]
SPECS = ROOT / "specs" / "trace"
CONFIGS = SPECS / "configs"
TABLE = SPECS / "table.jsonl"
SEED = 23  # the number: the job list is fixed by it

# per model: (jobs to draw, methods allowed, LoRA target choices, largest sequence)
ATTN = ["q_proj", "k_proj", "v_proj", "o_proj"]
QV = ["q_proj", "v_proj"]
PHI_TARGETS: list[Any] = ["all-linear", ["qkv_proj"], ["qkv_proj", "o_proj"]]
DENSE_TARGETS: list[Any] = ["all-linear", QV, ATTN]
MODELS: dict[str, tuple[int, tuple[str, ...], list[Any], int]] = {
    "llama-3.2-1b": (30, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "llama-3.2-3b": (20, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "llama-3.1-8b": (30, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "llama-2-7b": (14, ("full", "lora", "qlora"), DENSE_TARGETS, 4096),
    "mistral-7b-v0.3": (22, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "qwen2.5-0.5b": (16, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "qwen2.5-1.5b": (16, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "qwen2.5-7b": (22, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "qwen3-1.7b": (16, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "qwen3-8b": (18, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "qwen3-4b-instruct-2507": (16, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "qwen3-30b-a3b": (12, ("lora",), [ATTN, QV], 16384),
    "gemma-2-2b": (16, ("full", "lora", "qlora"), DENSE_TARGETS, 8192),
    "gemma-2-9b": (10, ("lora", "qlora"), DENSE_TARGETS, 8192),
    "gemma-3-1b": (16, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "gemma-3-4b-text": (10, ("full", "lora", "qlora"), DENSE_TARGETS, 32768),
    "phi-3-mini-4k": (14, ("full", "lora", "qlora"), PHI_TARGETS, 4096),
    "phi-4": (10, ("lora", "qlora"), PHI_TARGETS, 16384),
    "mixtral-8x7b": (10, ("lora",), [ATTN, QV], 16384),
    "gpt-oss-20b": (8, ("lora",), [ATTN], 8192),
}
SEQS = [512, 1024, 2048, 4096, 8192, 16384, 32768]


def _jobs() -> list[dict[str, Any]]:
    """The job list: seeded draws per model, every axis covered (full bf16 and fp32 masters, LoRA ranks 8-64 with
    and without dropout, QLoRA NF4, checkpointing on and off, 512-32k tokens, micro-batch 1-8, fused and foreach
    AdamW, 8-bit AdamW)."""
    rng = random.Random(SEED)
    jobs: list[dict[str, Any]] = []
    for model, (count, methods, targets, max_seq) in MODELS.items():
        for i in range(count):
            method = methods[i % len(methods)]
            seq = rng.choice([s for s in SEQS if s <= max_seq])
            ckpt = rng.random() < (0.85 if seq >= 8192 else 0.5)
            tokens_cap = 65536 if ckpt else 16384
            mbs = rng.choice([m for m in (1, 2, 4, 8) if m * seq <= tokens_cap] or [1])
            job: dict[str, Any] = {
                "schema": 1,
                "model": model,
                "method": method,
                "precision": rng.choice(["bf16", "mixed-bf16"]),
                "optimizer": "adamw-8bit" if rng.random() < 0.15 else "adamw",
                "optimizer_impl": rng.choice(["fused", "foreach"]),
                "sequence_length": seq,
                "micro_batch_size": mbs,
                "gradient_checkpointing": ckpt,
                "checkpointing_kind": "reentrant" if rng.random() < 0.2 else "non-reentrant",
                "attention": "flash_attention_2" if rng.random() < 0.15 else "auto",
                "arch": rng.choice(["sm80", "sm90"]),
                "steps": 2,
                "parallel": {"kind": "single"},
            }
            if method != "full":
                rank = rng.choice([8, 16, 32, 64])
                job["lora"] = {"rank": rank, "alpha": 2 * rank, "dropout": rng.choice([0.0, 0.0, 0.05, 0.1]),
                               "targets": rng.choice(targets)}  # fmt: skip
            jobs.append(job)
    for index, job in enumerate(jobs):
        job["id"] = f"{index:04d}-{job['model']}"
    return jobs


# FSDP2 rows, after the seeded single-card list (whose ids they leave alone): (model, method, precision, world size);
# their own draws of the step's settings, ids from 4000. QLoRA is in the list so that the table records, in the
# worker's words, that it does not trace under fully_shard on meta.
FSDP2_SEED = SEED + 4000
FSDP2_FIRST_ID = 4000
FSDP2: list[tuple[str, str, str, int]] = [
    ("llama-3.2-1b", "full", "bf16", 4),
    ("llama-3.2-1b", "full", "mixed-bf16", 2),
    ("llama-3.1-8b", "full", "mixed-bf16", 8),
    ("llama-3.1-8b", "lora", "bf16", 2),
    ("qwen2.5-1.5b", "lora", "mixed-bf16", 4),
    ("qwen3-1.7b", "full", "bf16", 2),
    ("mistral-7b-v0.3", "qlora", "bf16", 2),
]


def _fsdp2_jobs() -> list[dict[str, Any]]:
    rng = random.Random(FSDP2_SEED)
    jobs: list[dict[str, Any]] = []
    for index, (model, method, precision, world) in enumerate(FSDP2):
        seq = rng.choice([1024, 2048, 4096, 8192])
        job: dict[str, Any] = {
            "schema": 1, "model": model, "method": method, "precision": precision, "optimizer": "adamw",
            "optimizer_impl": rng.choice(["fused", "foreach"]), "sequence_length": seq,
            "micro_batch_size": rng.choice([1, 2]), "gradient_checkpointing": rng.random() < 0.7,
            "checkpointing_kind": "non-reentrant", "attention": "auto", "arch": rng.choice(["sm80", "sm90"]),
            "steps": 2, "parallel": {"kind": "fsdp2", "world_size": world},
        }  # fmt: skip
        if method != "full":
            rank = rng.choice([8, 16, 32, 64])
            job["lora"] = {"rank": rank, "alpha": 2 * rank, "dropout": 0.0, "targets": rng.choice(DENSE_TARGETS)}
        job["id"] = f"{FSDP2_FIRST_ID + index:04d}-{model}"
        jobs.append(job)
    return jobs


# Vision-language rows (issue 27): their own seeded draws after the seeded list above (which they leave as it is),
# ids from 5000. Per model: (jobs, methods in turn, LoRA targets, image sides in pixels, text tokens). bf16 weights
# without autocast, SDPA's kernel for the card, checkpointing mostly on (the usual VLM recipe).
VLM_SEED = 2705
VLM_FIRST_ID = 5000
VLM_MODELS: dict[str, tuple[int, tuple[str, ...], list[Any], tuple[int, ...], tuple[int, ...]]] = {
    "qwen2.5-vl-7b": (5, ("lora", "lora", "full", "lora", "full"), DENSE_TARGETS, (448, 672, 1024), (256, 512, 1024)),
    "gemma-3-4b": (5, ("lora", "full", "lora", "full", "lora"), DENSE_TARGETS, (448, 896, 1024), (256, 512, 1024)),
}


def _vlm_jobs() -> list[dict[str, Any]]:
    """The vision-language job group: 1-4 images of 448-1024 px per sample, the tower frozen or trained (LoRA on
    its linears in a LoRA job, the whole tower in a full fine-tune), checkpointing on and off."""
    rng = random.Random(VLM_SEED)
    jobs: list[dict[str, Any]] = []
    for model, (count, methods, targets, sides, texts) in VLM_MODELS.items():
        for i in range(count):
            method = methods[i % len(methods)]
            side = rng.choice(sides)
            images = rng.choice([1, 2, 4])
            train_tower = i in (1, 3)  # one LoRA and one full job of each model train the tower
            job: dict[str, Any] = {
                "schema": 1,
                "model": model,
                "method": method,
                "precision": "bf16",
                "optimizer": "adamw",
                "optimizer_impl": rng.choice(["fused", "foreach"]),
                "sequence_length": rng.choice(texts),
                "micro_batch_size": 1,
                "gradient_checkpointing": i != 3 or method != "lora",
                "checkpointing_kind": "non-reentrant",
                "attention": "auto",
                "arch": rng.choice(["sm80", "sm90"]),
                "steps": 2,
                "parallel": {"kind": "single"},
                "images": {"per_sample": images, "width": side, "height": side, "train_vision_tower": train_tower},
            }
            if method != "full":
                rank = rng.choice([8, 16, 32, 64])
                job["lora"] = {"rank": rank, "alpha": 2 * rank, "dropout": 0.0, "targets": rng.choice(targets)}
            jobs.append(job)
    # QLoRA (the tower's linears quantised too: transformers' bnb quantizer keeps only lm_head, tied and last
    # weights out, quantizers/base.py get_keys_to_not_convert), appended with their own draws
    qrng = random.Random(VLM_SEED + 1)
    for model, (_count, _methods, targets, sides, texts) in VLM_MODELS.items():
        for train_tower in (False, True):
            rank = qrng.choice([8, 16, 32, 64])
            jobs.append({
                "schema": 1, "model": model, "method": "qlora", "precision": qrng.choice(["bf16", "mixed-bf16"]),
                "optimizer": "adamw", "optimizer_impl": qrng.choice(["fused", "foreach"]),
                "sequence_length": qrng.choice(texts), "micro_batch_size": 1, "gradient_checkpointing": True,
                "checkpointing_kind": "non-reentrant", "attention": "auto", "arch": qrng.choice(["sm80", "sm90"]),
                "steps": 2, "parallel": {"kind": "single"},
                "images": {"per_sample": qrng.choice([1, 2]), "width": qrng.choice(sides[:2]),
                           "height": 0, "train_vision_tower": train_tower},
                "lora": {"rank": rank, "alpha": 2 * rank, "dropout": 0.0, "targets": qrng.choice(targets)},
            })  # fmt: skip
            jobs[-1]["images"]["height"] = jobs[-1]["images"]["width"]
    for index, job in enumerate(jobs):
        job["id"] = f"{VLM_FIRST_ID + index:04d}-{job['model']}"
    return jobs


def all_jobs() -> list[dict[str, Any]]:
    """The seeded single-card list, then the FSDP2 rows, then the vision-language rows."""
    return _jobs() + _fsdp2_jobs() + _vlm_jobs()


def request_of(job: dict[str, Any]) -> dict[str, Any]:
    """The worker request of a table job (its config read from specs/trace/configs/)."""
    req = {k: v for k, v in job.items() if k not in ("id", "model")}
    req["config"] = json.loads((CONFIGS / f"{job['model']}.json").read_text())
    return req


def _row(job: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    keep = ("ok", "peak_allocated_bytes", "phase", "step", "op", "module", "breakdown", "attention_kernel", "seconds",
            "error")  # fmt: skip
    row = {**job, **{k: result[k] for k in keep}}
    row["notes"] = [n for n in result["notes"] if n not in NOTES_ALWAYS]
    return row


def run(shard: int, shards: int, limit: int | None, out: Path, warm: bool = False, reverse: bool = False,
        vlm: bool = False) -> None:
    done = set()  # rows any part file already holds: an interrupted run resumes, with any shard count
    for part in sorted(set(SPECS.glob("table.part*.jsonl")) | ({out} if out.exists() else set())):
        for line in part.read_text().splitlines():
            if line.strip():
                done.add(json.loads(line).get("id"))
    # round-robin over the models (the k-th job of every model before any model's (k+1)-th), so that an
    # interrupted run still covers every family
    rank: dict[str, int] = {}
    order = []
    for job in _jobs():
        rank[job["model"]] = rank.get(job["model"], -1) + 1
        order.append((rank[job["model"]], list(MODELS).index(job["model"]), job))
    ordered = [job for _r, _m, job in sorted(order, key=lambda x: (x[0], x[1]))] + _fsdp2_jobs()
    if vlm:  # the vision-language group alone (its own part files)
        ordered = _vlm_jobs()
    jobs = [j for i, j in enumerate(ordered) if i % shards == shard and j["id"] not in done]
    if reverse:  # a helper process working from the end of the list (the merge keeps one row per job)
        jobs = [j for k, j in enumerate(reversed(ordered)) if k % shards == shard and j["id"] not in done]
    if limit is not None:
        jobs = jobs[:limit]
    with out.open("a") as fh:
        for n, job in enumerate(jobs, 1):
            if warm:
                # one traced step after a warm-up optimizer step: the same peak as two steps (the header's check)
                job = {**job, "steps": 1, "warm_optimizer": True}
            result = run_request(request_of(job))
            fh.write(json.dumps(_row(job, result)) + "\n")
            fh.flush()
            print(f"[{n}/{len(jobs)}] {job['id']} ok={result['ok']} {result['peak_allocated_bytes'] / 1e9:.3f} GB "
                  f"{result['seconds']:.1f}s {result['error'] or ''}", file=sys.stderr, flush=True)  # fmt: skip
            gc.collect()


def merge(parts: list[Path], command: str) -> None:
    rows = []
    for part in parts:  # the table itself may be a part: its header line is left out
        lines = [json.loads(line) for line in part.read_text().splitlines() if line.strip()]
        rows += [r for r in lines if "header" not in r]
    rows = list({r["id"]: r for r in sorted(rows, key=lambda r: r["id"], reverse=True)}.values())  # one per job
    rows.sort(key=lambda r: r["id"])
    header = {
        "header": {
            "what": "peak allocated bytes of two training steps traced on meta tensors (configurator.trace.worker)",
            "versions": versions(),
            "command": command,
            "date": datetime.date.today().isoformat(),
            "seed": SEED,
            "rows": len(rows),
            "ok_rows": sum(1 for r in rows if r["ok"]),
            "not_counted": "cuBLAS workspaces, CUDA context, reserved minus allocated, kernel-internal workspaces",
            "steps": "rows with steps 2: two real training steps; rows with steps 1 and warm_optimizer: the "
                     "optimizer's "
                     "own step on zero gradients, then one traced step (byte-identical peaks to two steps on rows "
                     "0002, 0003, 0017, 0020, 0022, 0023 of llama-3.2-1b)",
            "stack": "Transformers Trainer step (model loss, backward, clip_grad_norm_ foreach, optimizer, "
                     "zero_grad(set_to_none)) with PEFT; QLoRA with PEFT prepare_model_for_kbit_training (no TRL "
                     "recast of the head to bf16); precision bf16: bf16 weights, no autocast; mixed-bf16: fp32 "
                     "trainable weights (full: the whole model) and bf16 autocast",
            "fsdp2": f"rows from id {FSDP2_FIRST_ID}: FSDP2, fully_shard on each decoder layer and the root, traced as "
                     "rank 0 of parallel.world_size over PyTorch's fake process group (per-rank bytes); a row that "
                     "does not trace on meta says why in its error",
        }
    }
    with TABLE.open("w") as fh:
        fh.write(json.dumps(header) + "\n")
        for r in rows:
            fh.write(json.dumps(r) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shard", default="0/1", help="I/N: run every N-th job starting at I")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--out", type=Path, default=None, help="part file (default specs/trace/table.partI.jsonl)")
    ap.add_argument("--merge", nargs="*", type=Path, help="join these part files into specs/trace/table.jsonl")
    ap.add_argument("--list", action="store_true", help="print the job list and stop")
    ap.add_argument("--reverse", action="store_true", help="work from the end of the whole job list")
    ap.add_argument("--vlm", action="store_true", help="the vision-language job group (ids from 5000) instead")
    ap.add_argument("--warm", action="store_true",
                    help="one traced step after a warm-up optimizer step instead of two steps (half the time)")
    args = ap.parse_args(argv)
    if args.list:
        for job in _vlm_jobs() if args.vlm else all_jobs():
            print(json.dumps(job))
        return 0
    if args.merge is not None:
        parts = args.merge or sorted(SPECS.glob("table.part*.jsonl"))
        merge(parts, "make oracle  (python -m configurator.trace.oracle.generate --warm --shard I/N under nice -n 15, "
                     "and with --vlm for the vision-language group (ids from 5000), then --merge)")
        return 0
    shard, shards = (int(x) for x in args.shard.split("/"))
    out = args.out or SPECS / f"table.part{shard}of{shards}.jsonl"
    run(shard, shards, args.limit, out, args.warm, args.reverse, args.vlm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
