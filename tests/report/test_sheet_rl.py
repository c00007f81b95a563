"""The build sheet's job page carries an RL job's models (with the code each is read from), its generation and
its step split, as the text report does."""

from __future__ import annotations

from pathlib import Path

from configurator.engine.evaluate import evaluate
from configurator.engine.model.buildfile import load_build
from configurator.report.sheet_jobs import job_section

BUILDS = Path(__file__).resolve().parents[2] / "resources" / "builds"


def _page(name: str) -> str:
    build = load_build(BUILDS / name)
    return "\n".join(job_section(0, evaluate(build).jobs[0], build.jobs[0]))


def test_the_grpo_page_names_models_generation_and_step_split() -> None:
    page = _page("rl-grpo-8b-lora-vllm-h100.yaml")
    assert "<h3>GRPO: models and generation</h3>" in page
    assert "frozen base + trained LoRA adapters" in page and "grpo_config.py beta" in page
    assert "vLLM colocated on the training cards, 30% of each" in page and "8.6 GB KV cache" in page
    assert "Step split: training " in page and "(decode, memory-bound)" in page
    assert "GRPO, prompt 512 + completion 1,024 × micro-batch 8" in page  # not the unused sequence length


def test_an_sft_page_has_no_rl_section() -> None:
    assert "models and generation" not in _page("default.yaml")
