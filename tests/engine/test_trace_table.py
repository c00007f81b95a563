"""The analytic engine against the traced reference table (specs/trace/table.jsonl, made by `make oracle`).

Each traced single-card job is rebuilt as the engine job it is (the model from its config.json, the same method,
LoRA, precision, optimizer and implementation, sequence, micro-batch, checkpointing, attention), and the engine's
peak allocated bytes over the training step is compared with the trace's. No torch: the table is data.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from configurator.catalog.hf_config import load_hf_config
from configurator.catalog.model_spec import SUPPORTED_MODEL_TYPES
from configurator.catalog.models import ModelSpec
from configurator.engine.memory.estimate import memory_for_card
from configurator.engine.model.build import Job, LoraSettings, StackBehaviour

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "specs" / "trace" / "table.jsonl"
CONFIGS = ROOT / "specs" / "trace" / "configs"

# The bar the engine meets over the table: issue 23's, median <= 1 % and worst <= 3 % on every row. The misses of the
# first pass were mechanisms the trace names, now modelled (gradients that zero_grad(set_to_none) leaves none of in
# the forward, memory/estimate.py; gpt-oss's eager attention with sinks and its clamped SwiGLU, memory/activations.py
# and memory/moe.py)
MEDIAN_BAR = 0.01
WORST_BAR = 0.03
# Issue 23 asks for >= 300 traced rows; the job list has 326 single-card jobs and the FSDP2 rows
# (configurator/trace/oracle/generate.py), and `make oracle` traces them all.
MIN_TRACED_ROWS = 300


def _rows() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(line) for line in TABLE.read_text().splitlines() if line.strip()]
    return lines[0]["header"], lines[1:]


def _model(name: str, cache: dict[str, ModelSpec] = {}) -> ModelSpec:  # noqa: B006 - a per-process cache
    if name not in cache:
        cache[name] = load_hf_config(CONFIGS / f"{name}.json")
    return cache[name]


def _model_type(name: str) -> str:
    """The config's model_type, or a multimodal config's language model's (Gemma 3: gemma3 -> gemma3_text)."""
    config = json.loads((CONFIGS / f"{name}.json").read_text())
    text = config.get("text_config")
    if config["model_type"] not in SUPPORTED_MODEL_TYPES and isinstance(text, dict) and "model_type" in text:
        return str(text["model_type"])
    return str(config["model_type"])


def world_size(row: dict[str, Any]) -> int:
    """The row's FSDP2 group (1: a single card)."""
    parallel = row.get("parallel") or {"kind": "single"}
    return int(parallel.get("world_size") or 1) if parallel.get("kind") == "fsdp2" else 1


def engine_job(row: dict[str, Any]) -> Job:
    """The engine job a traced row is: Transformers Trainer + PEFT on one card, or FSDP2 (fully_shard) on N."""
    lora = row.get("lora") or {}
    targets = lora.get("targets", "all-linear")
    # a row traced at the default attention ("auto") is the engine's sdpa: for Gemma 2 and gpt-oss the engine itself
    # sizes the eager attention Transformers falls back to (engine/model/stack.py attention_run), as the worker traces
    if row["attention"] == "eager":
        attention = "eager"
    elif row["attention"] == "flash_attention_2":
        attention = "flash"
    else:
        attention = "sdpa"
    images = row.get("images") or {}
    if images.get("per_sample") and images.get("width") != images.get("height"):
        raise ValueError(f"{row['id']}: the engine's jobs take square images")
    return Job(
        name=row["id"],
        images_per_sample=images.get("per_sample", 0),
        image_resolution=images.get("width", 448),
        train_vision_tower=bool(images.get("train_vision_tower", False)),
        model=str(CONFIGS / f"{row['model']}.json"),
        method=row["method"],
        lora=LoraSettings(rank=lora.get("rank", 16), alpha=lora.get("alpha"), dropout=lora.get("dropout", 0.0),
                          targets=targets if targets == "all-linear" else list(targets)),
        quantization="nf4-dq",
        optimizer=row["optimizer"],
        precision="pure-bf16" if row["precision"] == "bf16" else "mixed-bf16",
        sequence_length=row["sequence_length"],
        micro_batch_size=row["micro_batch_size"],
        gradient_checkpointing=row["gradient_checkpointing"],
        framework="axolotl",  # Trainer + PEFT prepare_model_for_kbit_training, no TRL recast of the head to bf16
        behaviour=StackBehaviour(optimizer_impl=row["optimizer_impl"]),
        attention=attention,
        parallelism="fsdp" if world_size(row) > 1 else "single",
        fsdp_version=2,
    )


def engine_peak(row: dict[str, Any]) -> float:
    """The engine's peak allocated over the training step (the trace resets its peak after loading)."""
    mem = memory_for_card(_model(row["model"]), engine_job(row), shards=world_size(row))
    return max(v for k, v in mem.phase_allocated().items() if k != "load")


CATEGORIES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "full": lambda r: r["method"] == "full",
    "LoRA without checkpointing": lambda r: r["method"] == "lora" and not r["gradient_checkpointing"],
    "LoRA with checkpointing": lambda r: r["method"] == "lora" and r["gradient_checkpointing"],
    "QLoRA": lambda r: r["method"] == "qlora",
    "long context (>= 8k)": lambda r: r["sequence_length"] >= 8192,
    "large vocabulary (>= 150k)": lambda r: _model(r["model"]).vocab_size >= 150_000,
    "MoE": lambda r: _model(r["model"]).is_moe,
    "FSDP2": lambda r: world_size(r) > 1,
    "vision-language (images)": lambda r: bool((r.get("images") or {}).get("per_sample")),
}


def comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Traced rows whose family the engine models (the rest are sized by the trace alone)."""
    return [r for r in rows if r["ok"] and _model_type(r["model"]) in SUPPORTED_MODEL_TYPES]


def error_table(rows: list[dict[str, Any]]) -> tuple[str, dict[str, tuple[int, float, float]], list[tuple[float, str]]]:
    errors = {r["id"]: engine_peak(r) / r["peak_allocated_bytes"] - 1 for r in rows}
    stats: dict[str, tuple[int, float, float]] = {}
    lines = [f"{'category':30s} {'rows':>5s} {'median |err|':>13s} {'worst |err|':>12s}"]
    for name, pick in {"all": lambda r: True, **CATEGORIES}.items():
        errs = [abs(errors[r["id"]]) for r in rows if pick(r)]
        if not errs:
            continue
        stats[name] = (len(errs), statistics.median(errs), max(errs))
        lines.append(f"{name:30s} {len(errs):5d} {100 * stats[name][1]:12.2f}% {100 * stats[name][2]:11.2f}%")
    worst = sorted(((e, i) for i, e in errors.items()), key=lambda x: -abs(x[0]))[:10]
    lines.append("worst rows: " + "; ".join(f"{i} {100 * e:+.1f}%" for e, i in worst))
    return "\n".join(lines), stats, worst


def test_table_is_the_reference_the_issue_asks_for() -> None:
    header, rows = _rows()
    ok = [r for r in rows if r["ok"]]
    assert len(ok) >= MIN_TRACED_ROWS, f"{len(ok)} traced rows"
    assert len({r["model"] for r in ok}) >= 10
    assert all(header["versions"].get(k) for k in ("torch", "transformers", "peft", "bitsandbytes"))
    assert "command" in header and "date" in header
    seqs = {r["sequence_length"] for r in ok}
    assert min(seqs) <= 512 and max(seqs) >= 32768
    assert {r["method"] for r in ok} == {"full", "lora", "qlora"}
    assert {r["precision"] for r in ok} == {"bf16", "mixed-bf16"}
    assert {r["optimizer_impl"] for r in ok} == {"fused", "foreach"}
    assert "adamw-8bit" in {r["optimizer"] for r in ok}
    assert {r["micro_batch_size"] for r in ok} >= {1, 8}
    assert {r["gradient_checkpointing"] for r in ok} == {True, False}
    for r in ok:  # the breakdown adds up to the peak
        assert sum(r["breakdown"].values()) == r["peak_allocated_bytes"], r["id"]


def test_engine_against_trace() -> None:
    _header, rows = _rows()
    rows = comparable(rows)
    assert len(rows) >= 0.85 * MIN_TRACED_ROWS  # the rows of families the engine models
    text, stats, _worst = error_table(rows)
    print("\nengine allocated peak vs trace, |error| by category\n" + text)
    _n, median, _worst_all = stats["all"]
    assert median <= MEDIAN_BAR, text
    errors = {r["id"]: abs(engine_peak(r) / r["peak_allocated_bytes"] - 1) for r in rows}
    for row_id, err in errors.items():
        assert err <= WORST_BAR, f"{row_id}: {100 * err:.1f} %\n{text}"


# Vision-language rows (issue 27): the engine within 3 % of every one, on at least two VLM configs with the tower
# frozen and trained, LoRA and full fine-tunes, 1-4 images of 448-1024 px (configurator/trace/oracle/generate.py
# VLM_MODELS, ids from 5000).
VLM_BAR = 0.03


def _has_images(row: dict[str, Any]) -> bool:
    return bool((row.get("images") or {}).get("per_sample"))


def test_vision_language_rows_within_3_percent() -> None:
    _header, rows = _rows()
    vlm = [r for r in comparable(rows) if _has_images(r)]
    assert len({r["model"] for r in vlm}) >= 2 and len(vlm) >= 8, [r["id"] for r in vlm]
    assert {r["method"] for r in vlm} == {"lora", "full", "qlora"}
    assert {r["images"]["train_vision_tower"] for r in vlm} == {True, False}
    assert {r["images"]["per_sample"] for r in vlm} >= {1, 4}
    text, _stats, _worst = error_table(vlm)
    print("\nvision-language rows, engine allocated peak vs trace\n" + text)
    for r in vlm:
        err = engine_peak(r) / r["peak_allocated_bytes"] - 1
        assert abs(err) <= VLM_BAR, f"{r['id']}: {100 * err:+.2f} %\n{text}"


@pytest.mark.parametrize("model", ["gemma-3-1b", "gpt-oss-20b"])
def test_recent_families_are_traced_and_compared(model: str) -> None:
    """The table's 2025 families (traced first as trace-only) are now engine families too, so they are scored."""
    _header, rows = _rows()
    assert _model_type(model) in SUPPORTED_MODEL_TYPES
    assert any(r["model"] == model and r["ok"] for r in comparable(rows))


def test_fsdp2_rows_are_traced_or_say_why() -> None:
    """FSDP2 (fully_shard over PyTorch's fake process group, rank 0 of N) traces on meta for full and LoRA jobs; where
    it does not (QLoRA's Params4bit weights), the row's result says so in words, not an empty figure."""
    _header, rows = _rows()
    fsdp = [r for r in rows if world_size(r) > 1]
    assert any(r["ok"] and r["method"] == "full" for r in fsdp) and any(r["ok"] and r["method"] == "lora" for r in fsdp)
    for r in fsdp:
        if r["ok"]:
            assert any("fully_shard" in n for n in r["notes"]), r["id"]
        else:
            assert r["error"].startswith("FSDP2 did not trace on meta"), r["id"]
