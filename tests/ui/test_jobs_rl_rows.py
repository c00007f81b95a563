"""The Jobs form's post-training rows: each shown only where the engine says it applies (engine/memory/rl.py
form_fields), each change one undoable edit of the job's rl settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox

from configurator.engine.model.buildfile import load_build
from configurator.ui.base.document import BuildDocument
from configurator.ui.jobs import JobsPanel

pytestmark = pytest.mark.usefixtures("qapp")

BUILDS = Path(__file__).resolve().parents[2] / "resources" / "builds"


def _panel(qtbot, name: str) -> tuple[BuildDocument, JobsPanel]:  # type: ignore[no-untyped-def]
    doc = BuildDocument(load_build(BUILDS / name))
    panel = JobsPanel(doc)
    qtbot.addWidget(panel)
    panel.resize(340, 900)
    panel.show()
    qtbot.waitExposed(panel)
    panel.select_job(0)
    return doc, panel


def _choose(box: QComboBox, word: object) -> None:
    i = box.findData(word)
    assert i >= 0, word
    box.setCurrentIndex(i)


def _visible(panel: JobsPanel) -> set[str]:
    rows = panel.rl_rows
    return {field for field, w in rows.rows.items() if panel.form.isRowVisible(w)}


def test_grpo_rows_follow_the_generation_engine(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc, panel = _panel(qtbot, "rl-grpo-8b-lora-vllm-h100.yaml")
    rows = panel.rl_rows
    assert rows.objective_box.currentData() == "grpo"
    shown = _visible(panel)
    assert {"generations", "prompt_length", "completion_length", "vllm_gpu_memory_utilization"} <= shown
    assert not shown & {"generation_cards", "server_gpu_memory_utilization", "reward_model", "moe_capacity_factor"}
    assert not panel.form.isRowVisible(panel.seq_spin.parentWidget())  # prompt + completion instead
    assert rows.completion_spin.value() == 1024 and rows.share_spin.value() == pytest.approx(0.3)
    rows.share_spin.setValue(0.4)
    assert doc.build.jobs[0].rl.vllm_gpu_memory_utilization == pytest.approx(0.4)
    assert doc.undo_stack.text(doc.undo_stack.index() - 1) == "Set vLLM share of 8B GRPO LoRA to 0.4"
    _choose(rows.generation_box, "vllm-server")
    assert doc.build.jobs[0].rl.generation == "vllm-server"
    shown = _visible(panel)
    assert {"generation_cards", "server_gpu_memory_utilization"} <= shown and "vllm_gpu_memory_utilization" not in shown
    doc.undo_stack.undo()
    assert doc.build.jobs[0].rl.generation == "vllm-colocate"


def test_dpo_shows_no_generation_rows_and_ppo_its_reward_model(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc, panel = _panel(qtbot, "rl-dpo-8b-full-4x-h100.yaml")
    rows = panel.rl_rows
    assert _visible(panel) == {"beta"}
    assert panel.form.isRowVisible(panel.seq_spin.parentWidget())
    _choose(rows.objective_box, "ppo")
    assert doc.build.jobs[0].objective == "ppo"
    assert {"reward_model", "ppo_epochs", "generation", "completion_length"} <= _visible(panel)
    assert "generations" not in _visible(panel)  # GRPO's groups only
    rows.reward_check.setChecked(False)
    assert doc.build.jobs[0].rl.reward_model is False
    _choose(rows.objective_box, "sft")
    assert _visible(panel) == set()


def test_beta_can_be_zero_and_auto_is_its_own_switch(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc, panel = _panel(qtbot, "rl-dpo-8b-full-4x-h100.yaml")
    rows = panel.rl_rows
    assert doc.build.jobs[0].rl.beta is None and rows.beta_auto.isChecked()
    assert rows.beta_spin.value() == pytest.approx(0.1) and not rows.beta_spin.isEnabled()  # DPO's default shown
    rows.beta_auto.setChecked(False)
    assert doc.build.jobs[0].rl.beta == pytest.approx(0.1) and rows.beta_spin.isEnabled()
    rows.beta_spin.setValue(0.0)
    assert doc.build.jobs[0].rl.beta == 0.0  # no KL term: a setting, not "auto"
    rows.beta_auto.setChecked(True)
    assert doc.build.jobs[0].rl.beta is None


def test_ppo_picks_its_critic_checkpoint_and_a_smaller_one_shrinks_the_peak(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The critic row (PPO only, engine form_fields): the policy's architecture by default, a catalog model as one
    undoable edit the evaluation follows, and back."""
    doc, panel = _panel(qtbot, "rl-dpo-8b-full-4x-h100.yaml")
    rows = panel.rl_rows
    assert "critic_model" not in _visible(panel)
    _choose(rows.objective_box, "ppo")
    assert "critic_model" in _visible(panel)
    assert rows.critic_box.currentData() is None and rows.critic_box.currentText() == "The policy's architecture"
    peak = doc.result.jobs[0].cards[0].peak_reserved_gb
    _choose(rows.critic_box, "llama-3.2-1b")
    assert doc.build.jobs[0].rl.critic_model == "llama-3.2-1b"
    assert doc.undo_stack.text(doc.undo_stack.index() - 1).startswith("Critic model of ")
    assert doc.result.jobs[0].cards[0].peak_reserved_gb < peak
    doc.undo_stack.undo()
    assert doc.build.jobs[0].rl.critic_model is None and rows.critic_box.currentData() is None
