"""The method and size words every view shares (engine/model/labels.py): the planner's explanation, the planner
window, the plan's text report and its sheet name a method alike, because present re-uses the engine's function."""

from __future__ import annotations

import pytest

from configurator.engine.model.labels import method_label, parameters_label
from configurator.present import rl_words


def test_method_label() -> None:
    assert method_label("lora", "sft") == "lora"
    assert method_label("full") == "full"
    assert method_label("lora", "grpo") == "lora GRPO"
    assert method_label("qlora", "dpo") == "qlora DPO"


def test_present_words_methods_with_the_engines_function() -> None:
    assert rl_words.method_label is method_label


@pytest.mark.parametrize(("parameters", "words"), [
    (70.55e9, "71B"),  # the planner's 'n-class' rounds the count, not the published name's 70B
    (13e9, "13B"),
    (8.03e9, "8B"),  # whole below 10B: no trailing '.0'
    (5.24e9, "5.2B"),
    (3.82e9, "3.8B"),
    (4.94e8, "494M"),
])  # fmt: skip
def test_parameters_label(parameters: float, words: str) -> None:
    assert parameters_label(parameters) == words


def test_a_sentence_says_the_method_as_seed_b_does() -> None:
    from configurator.engine.model.labels import method_phrase

    assert method_phrase("full") == "full-parameter fine-tuning"
    assert method_phrase("lora", "grpo") == "GRPO post-training by low-rank (LoRA) fine-tuning"
    assert method_phrase("dora") == "dora fine-tuning"  # a method without words of its own still reads
