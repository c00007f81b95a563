"""A colocated vLLM's share is on the job's result (RLResult.colocated_share), so every view's verdict says the
headroom is the training's rest: the window's verdict line used to call it the whole card's while the sheet, which
read the build's job, did not."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.engine import evaluate
from configurator.engine.model.buildfile import load_build
from configurator.present.verdict import colocated_share, job_verdict

BUILDS = Path(__file__).resolve().parents[2] / "resources" / "builds"


def test_colocated_vllm_share_is_on_the_result_and_in_the_verdict() -> None:
    job = evaluate(load_build(BUILDS / "rl-grpo-8b-lora-vllm-h100.yaml")).jobs[0]
    assert job.rl is not None and job.rl.colocated_share == pytest.approx(0.3)
    assert colocated_share(job) == pytest.approx(0.3)
    assert job_verdict(job).sentence.endswith(", of the 70 % of it left to training beside the colocated vLLM")


@pytest.mark.parametrize("build", ["rl-dpo-8b-full-4x-h100.yaml"])
def test_no_share_where_nothing_generates_on_the_training_cards(build: str) -> None:
    job = evaluate(load_build(BUILDS / build)).jobs[0]
    assert colocated_share(job) == 0.0
    assert "vLLM" not in job_verdict(job).sentence
