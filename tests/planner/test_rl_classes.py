"""The planner takes DPO / GRPO / PPO job classes: the class's objective and rl settings reach the engine's job,
so a GRPO class with a colocated vLLM is sized in the card's share left to training, and its words name it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from configurator.catalog.loader import default_catalog
from configurator.engine.model.labels import method_label, method_phrase
from configurator.engine.planner import JobClass, Plan, plan_service
from configurator.engine.planner.matrix import _job
from configurator.engine.planner.prepare import prepare
from configurator.report.plan_text import render_plan


def _plan(**cls: object) -> Plan:
    return Plan.model_validate({
        "name": "p",
        "nodes": [{"name": "h100", "chassis": "hgx-8", "card": "h100-sxm", "cards_per_node": 8}],
        "classes": [{"name": "c", "model": "llama-3.1-8b", "method": "lora", "steps": 100, "jobs_per_day": 2,
                     **cls}],
    })  # fmt: skip


def test_a_grpo_class_becomes_a_grpo_job() -> None:
    cls = JobClass.model_validate({"name": "g", "model": "llama-3.1-8b", "objective": "grpo", "steps": 10,
                                   "jobs_per_day": 1, "micro_batch_size": 8,
                                   "rl": {"completion_length": 1024, "vllm_gpu_memory_utilization": 0.3}})  # fmt: skip
    job = _job(cls, [1], "single", 1)
    assert job["objective"] == "grpo" and job["rl"]["completion_length"] == 1024


def test_the_plan_prepares_rl_classes_and_words_them() -> None:
    pre = prepare(_plan(objective="grpo", micro_batch_size=8), default_catalog())
    info = pre.infos[0]
    assert info.objective == "grpo"
    assert method_label(info.method, info.objective) == "lora GRPO"  # in lists and tables
    assert method_phrase(info.method, info.objective) == "GRPO post-training by low-rank (LoRA) fine-tuning"
    sft = prepare(_plan(), default_catalog())
    assert method_label(sft.infos[0].method, sft.infos[0].objective) == "lora"
    assert method_phrase(sft.infos[0].method, sft.infos[0].objective) == "low-rank (LoRA) fine-tuning"


def test_the_plan_report_names_the_objective() -> None:
    result = plan_service(_plan(objective="dpo"), default_catalog())
    assert "c: Llama 3.1 8B, lora DPO, 8.0 B parameters" in render_plan(result)


def test_a_class_generating_on_a_server_of_its_own_is_refused_by_name() -> None:
    with pytest.raises(ValidationError, match="class 'g': generation on a vLLM server"):
        JobClass.model_validate({"name": "g", "model": "llama-3.1-8b", "objective": "grpo", "steps": 10,
                                 "jobs_per_day": 1, "rl": {"generation": "vllm-server",
                                                           "generation_cards": [5]}})  # fmt: skip
    ok = JobClass.model_validate({"name": "g", "model": "llama-3.1-8b", "objective": "grpo", "steps": 10,
                                  "jobs_per_day": 1, "rl": {"generation": "vllm-colocate"}})  # fmt: skip
    assert ok.rl.generation == "vllm-colocate"
