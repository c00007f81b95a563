"""The trace worker's interface without torch: requests are checked with the standard library, and a worker
without the trace extra answers with a clean result that says how to install it (the real traces run under
`make oracle`, in a venv with the extra)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from configurator.trace.worker.request import RequestError, parse
from configurator.trace.worker.result import KINDS, failure

ROOT = Path(__file__).resolve().parents[2]
CONFIG = json.loads((ROOT / "specs" / "trace" / "configs" / "llama-3.2-1b.json").read_text())
REQUEST = {"schema": 1, "config": CONFIG, "method": "lora",
           "lora": {"rank": 16, "alpha": 32, "dropout": 0.05, "targets": ["q_proj", "v_proj"]},
           "precision": "bf16", "optimizer": "adamw", "optimizer_impl": "fused", "sequence_length": 2048,
           "micro_batch_size": 2, "gradient_checkpointing": True, "checkpointing_kind": "non-reentrant",
           "attention": "auto", "arch": "sm90", "steps": 2, "parallel": {"kind": "single"}}  # fmt: skip


def test_a_request_parses_into_a_job() -> None:
    job = parse(REQUEST)
    assert job.method == "lora" and job.lora_rank == 16 and job.lora_targets == ("q_proj", "v_proj")
    assert job.sequence_length == 2048 and job.micro_batch_size == 2 and job.gradient_checkpointing
    assert job.parallel_kind == "single" and job.steps == 2 and not job.warm_optimizer


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"method": "dora"}, "method must be one of"),
        ({"sequence_length": 0}, "sequence_length must be a whole number"),
        ({"micro_batch_size": True}, "micro_batch_size must be a whole number"),
        ({"config": {"hidden_size": 8}}, "model_type"),
        ({"lora": {"rank": 8, "dropout": 1.5}}, "dropout"),
        ({"parallel": {"kind": "tp"}}, "parallel kind"),
        ({"schema": 2}, "schema 2"),
    ],
)
def test_a_bad_request_is_refused_by_name(change: dict[str, object], words: str) -> None:
    with pytest.raises(RequestError, match=words):
        parse({**REQUEST, **change})


def test_images_parse_and_need_a_vision_config() -> None:
    vl = json.loads((ROOT / "specs" / "trace" / "configs" / "qwen2.5-vl-7b.json").read_text())
    images = {"per_sample": 4, "width": 1024, "height": 768, "train_vision_tower": True}
    job = parse({**REQUEST, "config": vl, "images": images})
    assert (job.images_per_sample, job.image_width, job.image_height, job.train_vision_tower) == (4, 1024, 768, True)
    assert parse(REQUEST).images_per_sample == 0 and not parse(REQUEST).train_vision_tower
    with pytest.raises(RequestError, match="vision-language config"):
        parse({**REQUEST, "images": images})  # a text model's config
    with pytest.raises(RequestError, match="per_sample must be a whole number"):
        parse({**REQUEST, "config": vl, "images": {**images, "per_sample": 65}})


def test_failure_has_every_field_of_the_result() -> None:
    res = failure("cannot trace this")
    assert res["ok"] is False and res["error"] == "cannot trace this"
    assert set(res["breakdown"]) == set(KINDS) and res["schema"] == 1
    assert {"python", "torch", "transformers", "peft", "accelerate", "bitsandbytes", "torchao"} <= set(res["versions"])


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="the trace extra is installed here")
def test_without_the_extra_the_worker_says_how_to_install_it() -> None:
    """The subprocess the product starts: exit 0, one JSON result on stdout naming the extra."""
    proc = subprocess.run([sys.executable, "-m", "configurator.trace.worker"], input=json.dumps(REQUEST),
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["ok"] is False and "[trace]" in res["error"] and "pip install" in res["error"]


def test_bad_json_is_a_clean_result() -> None:
    proc = subprocess.run([sys.executable, "-m", "configurator.trace.worker"], input="{not json",
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0
    assert "not JSON" in json.loads(proc.stdout)["error"]


def test_fsdp2_requests_carry_the_world_size() -> None:
    """FSDP2 is traced (rank 0 of world_size over the fake process group: configurator/trace/worker/fsdp.py; the
    table's rows 4000 and up); without the extra its answer is the install hint, as a single card's is."""
    job = parse({**REQUEST, "parallel": {"kind": "fsdp2", "world_size": 8}})
    assert job.parallel_kind == "fsdp2" and job.world_size == 8
    if importlib.util.find_spec("torch") is None:
        from configurator.trace.worker.trace import run_request

        res = run_request({**REQUEST, "parallel": {"kind": "fsdp2", "world_size": 8}})
        assert res["ok"] is False and "[trace]" in res["error"]
