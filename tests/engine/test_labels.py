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


def test_a_method_has_one_name() -> None:
    """The name the Jobs form, the legends, the sheet and the kiosk show: "Full fine-tune", lowered only inside a
    line; an acronym keeps its case."""
    from configurator.engine.model.labels import method_name

    assert [method_name(m) for m in ("full", "lora", "qlora")] == ["Full fine-tune", "LoRA", "QLoRA"]
    assert [method_name(m, capital=False) for m in ("full", "lora", "qlora")] == ["full fine-tune", "LoRA", "QLoRA"]
    assert method_name("dora", capital=False) == "dora"  # a method without a name of its own reads as its id


def test_the_sheet_and_the_frontier_take_the_methods_name() -> None:
    """The build sheet's words and the fit frontier's curve labels come from the one table (they said "full" and
    "full fine-tune" from tables of their own)."""
    from configurator.engine.model.labels import method_name
    from configurator.engine.sweep import COMPARE_METHODS, batch_label
    from configurator.present.job_words import word

    assert word("method", "full") == "full fine-tune" and word("method", "qlora") == "QLoRA"
    assert [label for label, _ in COMPARE_METHODS] == [f"{method_name('full')}, 8-bit Adam", "LoRA", "QLoRA"]
    assert batch_label("full", 2) == "Full fine-tune, micro-batch 2"
