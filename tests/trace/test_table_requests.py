"""Every row of the traced reference table (specs/trace/table.jsonl, made by `make oracle`) that a build can
express is exactly the request `configurator trace` sends for that build: same config.json dict, same settings.
The worker is deterministic for a request and library versions, so the product's traced peak for such a job is the
table's (issue 23: "configurator trace on a Llama 3.1 8B LoRA job and on a QLoRA job prints peaks within 1 % of the
table"). Skipped where the table is not in the tree."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine.model.build import Build, CardPlacement, Job, LoraSettings, StackBehaviour
from configurator.trace.request import prepare_trace

ROOT = Path(__file__).resolve().parents[2]
TABLE = Path(os.environ.get("CONFIGURATOR_TRACE_TABLE", ROOT / "specs" / "trace" / "table.jsonl"))
CARD_OF_ARCH = {"sm80": "a100-80gb-pcie", "sm89": "l40s", "sm90": "h100-sxm", "sm100": "b200",
                "sm120": "rtx-pro-6000-server"}  # fmt: skip
ATTENTION = {"auto": "sdpa", "flash_attention_2": "flash", "eager": "eager"}
REQUEST_KEYS = ("method", "precision", "optimizer", "optimizer_impl", "sequence_length", "micro_batch_size",
                "gradient_checkpointing", "attention", "arch", "steps", "parallel")  # fmt: skip


def _rows() -> list[dict[str, Any]]:
    if not TABLE.is_file():
        return []
    rows = [json.loads(line) for line in TABLE.read_text().splitlines() if line.strip()]
    return [r for r in rows if "header" not in r]


def _why_not(row: dict[str, Any]) -> str | None:
    """Why a build cannot express this row, or None."""
    if row.get("steps") != 2 or row.get("warm_optimizer"):
        return "a shortened run (one step on a warmed optimizer), not a build's two steps"
    if row["attention"] not in ATTENTION:
        return f"attention {row['attention']} is picked per card by 'auto', not named by a build"
    if row["gradient_checkpointing"] and row["checkpointing_kind"] != "non-reentrant":
        return "reentrant checkpointing: an hf-trainer build runs Transformers' default (non-reentrant, PR 43203)"
    lora = row.get("lora")
    if lora and lora.get("targets") == "all-linear" and _config(row).get("model_type") in ("mixtral", "qwen2_moe",
                                                                                            "qwen3_moe"):  # fmt: skip
        return "all-linear on a mixture of experts: a build names the modules the engine counts (no router)"
    return None


def _config_path(row: dict[str, Any]) -> Path:
    return TABLE.parent / "configs" / f"{row['model']}.json"


def _config(row: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_config_path(row).read_text())
    return data


def _build_for(row: dict[str, Any]) -> Build:
    lora = row.get("lora") or {}
    parallel = row.get("parallel") or {"kind": "single"}
    world = parallel.get("world_size", 1) if parallel.get("kind") == "fsdp2" else 1
    job = Job(
        name="row", model=str(_config_path(row)), method=row["method"],
        lora=LoraSettings(rank=lora.get("rank", 16), alpha=lora.get("alpha"), dropout=lora.get("dropout", 0.0),
                          targets=lora.get("targets", "all-linear")),
        precision="pure-bf16" if row["precision"] == "bf16" else "mixed-bf16", optimizer=row["optimizer"],
        behaviour=StackBehaviour(optimizer_impl=row["optimizer_impl"]), sequence_length=row["sequence_length"],
        micro_batch_size=row["micro_batch_size"], gradient_checkpointing=row["gradient_checkpointing"],
        attention=ATTENTION[row["attention"]], parallelism="fsdp" if world > 1 else "single",
        cards=list(range(1, world + 1)),
    )  # fmt: skip
    cards = [CardPlacement(slot=s, card=CARD_OF_ARCH[row["arch"]]) for s in range(1, world + 1)]
    return Build(name="table row", chassis="generic-server-8", cards=cards, jobs=[job])


ROWS = _rows()


@pytest.mark.skipif(not ROWS, reason=f"no traced reference table at {TABLE}")
def test_table_rows_are_the_requests_builds_send() -> None:
    catalog = default_catalog()
    expressed, skipped = 0, 0
    for row in ROWS:
        if not row.get("ok") or _why_not(row):
            skipped += 1
            continue
        request = prepare_trace(_build_for(row), "row", catalog).request.wire()
        for key in REQUEST_KEYS:
            assert request[key] == row[key], (row["id"], key)
        assert request["config"] == _config(row), row["id"]
        if row["method"] != "full":
            assert request["lora"] == row["lora"], row["id"]
        expressed += 1
    print(f"{expressed} table rows expressed as builds, {skipped} not expressible or failed")
    # most of the table's two-step rows are what a build runs (the rows traced as one step after a warm-up optimizer
    # step, byte-identical peaks but another request, are not: specs/trace/README.md)
    two_step = [r for r in ROWS if r.get("steps") == 2 and not r.get("warm_optimizer")]
    assert expressed >= len(two_step) // 3
