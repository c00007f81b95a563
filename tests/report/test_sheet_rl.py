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


def test_a_colocated_jobs_headroom_is_against_the_trainings_share() -> None:
    """The verdict's "28.5 GB to spare" and the memory table's capacity are what colocated vLLM's 30 % leaves the
    training (59.9 of 85.5 GB), and say so; so does the chart's capacity line's label."""
    from configurator.engine.memory.rl import colocated_share
    from configurator.present.rl_words import capacity_legend
    from configurator.report.sheet_cover import cover_page

    page = _page("rl-grpo-8b-lora-vllm-h100.yaml")
    assert "to spare on the H100 SXM 80GB in slot 1, of the 70 % of it left to training beside the colocated vLLM" in (
        page
    )
    assert "capacity and headroom are the training's: what the colocated vLLM's 30 % of each card leaves" in page
    build = load_build(BUILDS / "rl-grpo-8b-lora-vllm-h100.yaml")
    cover = "\n".join(cover_page(build, evaluate(build), {}, "", "", "GBC-X", "3 December 2026", None))
    assert "of the 70 % of it left to training beside the colocated vLLM" in cover
    assert capacity_legend(colocated_share(build.jobs[0])) == "Capacity for training (after vLLM's 30 %)"
    sft = load_build(BUILDS / "default.yaml")
    assert capacity_legend(colocated_share(sft.jobs[0])) == "Capacity (visible)"
    assert "left to training" not in _page("default.yaml")
