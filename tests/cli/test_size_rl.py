"""Done-means of issue 27 for RL: `configurator size` on a GRPO LoRA of an 8B (8 generations of 1,024 tokens,
vLLM colocated at 0.3) and on a DPO full fine-tune of an 8B on four cards prints the models each keeps with the
code they are read from, where generation runs with its memory and KV cache, and the step split."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.cli import main

BUILDS = Path(__file__).resolve().parents[2] / "resources" / "builds"


def _size(build: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["size", str(BUILDS / build)]) == 0
    return capsys.readouterr().out.splitlines()


def _line(lines: list[str], start: str) -> str:
    return next(line for line in lines if line.strip().startswith(start))


def test_size_grpo_lora_with_colocated_vllm(capsys: pytest.CaptureFixture[str]) -> None:
    lines = _size("rl-grpo-8b-lora-vllm-h100.yaml", capsys)
    assert "[fits]" in _line(lines, "Job: ")
    assert _line(lines, "GRPO:").strip() == "GRPO: the models on each training card"
    policy = _line(lines, "policy").split()
    assert float(policy[1]) == pytest.approx(16.7, abs=0.1) and "LoRA adapters" in _line(lines, "policy")
    reference = _line(lines, "reference")
    assert "none (beta 0" in reference and "grpo_config.py" in reference  # GRPOConfig beta 0.0: none loaded
    generation = _line(lines, "generation:")
    assert "vLLM colocated on the training cards, 30% of each" in generation
    # 30 % of 85.5 GB: vLLM's own bf16 weights and the KV cache the rest leaves; 8 x (512 + 1,024) tokens need 1.6
    assert generation.endswith(": 25.7 GB with 16.1 GB of weights and a 8.6 GB KV cache; one round of 8 sequences "
                               "per engine needs 1.6 GB of KV cache per card")  # fmt: skip
    assert "(decode, memory-bound)" in _line(lines, "step split:")  # the engine's bound, in words
    split = _line(lines, "step split:")
    training = float(split.split("training ")[1].split(" s")[0])
    generation = float(split.split("generation ")[1].split(" s")[0])
    assert 0.5 < training < generation < 10  # decode of 1,024 tokens outweighs the LoRA step
    step = float(_line(lines, "step time:").split()[2])
    assert step == pytest.approx(training + generation, abs=0.002)
    assert "12,288 tokens" in _line(lines, "compute per step:")  # 8 completions of 512 + 1,024
    # the capacity column (59.9 GB of an 85.5 GB card) is what vLLM's 30 % leaves the training, and the table says so
    capacity = _line(lines, "capacity and headroom").strip()
    assert capacity == "capacity and headroom are the training's: what the colocated vLLM's 30 % of each card leaves"


def test_size_dpo_full_on_four_cards(capsys: pytest.CaptureFixture[str]) -> None:
    lines = _size("rl-dpo-8b-full-4x-h100.yaml", capsys)
    assert "[fits]" in _line(lines, "Job: ")
    reference = _line(lines, "reference")
    assert "4.0 GB" in reference and "frozen bf16 copy" in reference and "dpo_trainer.py" in reference
    assert "trained in full" in _line(lines, "policy")
    assert not [line for line in lines if line.strip().startswith("generation:")]  # DPO generates nothing
    assert not [line for line in lines if "capacity and headroom" in line]  # nothing shares its cards
    split = _line(lines, "step split:")
    assert "reference forward" in split
    assert "4,096 tokens" in _line(lines, "compute per step:")  # chosen + rejected of 2,048 tokens
