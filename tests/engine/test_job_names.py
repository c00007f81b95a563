"""Issue 15: a generated job name follows the job's model and method ('70B LoRA' set to a full fine-tune of an 8B
becomes '8B full fine-tune'); a typed name stays. Issue 12: a job added in the editor takes the build's ``stack:``."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.catalog.hf_config import load_hf_config
from configurator.catalog.loader import default_catalog
from configurator.engine import Build, evaluate
from configurator.engine.editing import (
    add_job,
    duplicate_job,
    is_generated_name,
    job_title,
    rename_job,
    update_job,
    update_job_titled,
)
from configurator.engine.model.build import ParamsOnlyModel
from configurator.engine.model.buildfile import build_to_yaml, load_build, parse_build
from configurator.engine.model.resolver import ModelResolver
from tests.paths import BUILDS

CAT = default_catalog()
MODELS = ModelResolver(CAT)
HF = Path(__file__).resolve().parents[1] / "fixtures" / "hf_configs"


@pytest.mark.parametrize(("model", "method", "title"), [
    ("llama-3.3-70b", "lora", "70B LoRA"),
    ("llama-3.1-8b", "full", "8B full fine-tune"),
    ("qwen3-32b", "qlora", "32B QLoRA"),
    ("mixtral-8x7b", "lora", "8x7B LoRA"),
    ("phi-3-mini", "lora", "3.8B LoRA"),  # no size in its name: rounded from 3.82e9 parameters
    ("seed-b-30b", "lora", "30B LoRA"),
])  # fmt: skip
def test_titles_name_size_and_method(model: str, method: str, title: str) -> None:
    assert job_title(MODELS.find(model), method) == title


def test_titles_of_imported_and_unknown_models() -> None:
    assert job_title(load_hf_config(HF / "qwen2.5-0.5b.json"), "lora") == "0.5B LoRA"
    assert job_title(load_hf_config(HF / "qwen3-30b-a3b.json"), "lora") == "30B LoRA"  # not the active A3B
    assert job_title(MODELS.find(ParamsOnlyModel(parameters=13e9)), "full") == "13B full fine-tune"
    assert job_title(None, "qlora") == "QLoRA job"
    assert job_title(None, "full") == "Full fine-tune job"


def test_generated_or_typed() -> None:
    assert is_generated_name("70B LoRA", "70B LoRA") and is_generated_name("70B LoRA (3)", "70B LoRA")
    assert is_generated_name("New job (2)", "8B LoRA")  # the old placeholder Add gave every job
    assert not is_generated_name("70B LoRA, FSDP over the bridge", "70B LoRA")
    assert not is_generated_name("my tune", "8B LoRA")


def test_a_name_generated_before_the_one_method_table_still_follows() -> None:
    """Generated names said '8B full FT' before the method's name came from engine/model/labels.py: such a name
    in a saved build is still generated, so it follows the job (it stayed '8B full FT' on a LoRA job without)."""
    assert is_generated_name("8B full FT", "8B full fine-tune") and is_generated_name("full FT job (2)",
                                                                                      "Full fine-tune job")
    assert not is_generated_name("8B full FT", "8B LoRA")
    old = rename_job(update_job(load_build(BUILDS / "default.yaml"), 1, method="full"), 1, "70B full FT")
    assert update_job_titled(old, 1, MODELS, sequence_length=2048).jobs[1].name == "70B full FT"  # title as it was
    assert update_job_titled(old, 1, MODELS, method="lora").jobs[1].name == "70B LoRA"


def test_a_generated_name_follows_model_and_method() -> None:
    """The default build's '70B QLoRA' is a generated name: set to a full 8B it reads '8B full fine-tune'. On the old
    code the job kept '70B QLoRA' while running a full fine-tune of an 8B."""
    b = load_build(BUILDS / "default.yaml")
    assert b.jobs[1].name == "70B QLoRA"
    b = update_job_titled(b, 1, MODELS, model="llama-3.1-8b")
    assert b.jobs[1].name == "8B QLoRA"
    b = update_job_titled(b, 1, MODELS, method="full")
    assert b.jobs[1].name == "8B full fine-tune" and evaluate(b).job("8B full fine-tune") is not None
    # a typed name stays, whatever the job runs
    typed = update_job_titled(b, 0, MODELS, model="llama-3.1-8b", method="full")
    assert typed.jobs[0].name == "70B LoRA, FSDP over the bridge"
    # renamed by the user: no longer generated, so it stays
    mine = rename_job(b, 1, "nightly tune")
    assert update_job_titled(mine, 1, MODELS, method="lora").jobs[1].name == "nightly tune"


def test_generated_names_stay_unique() -> None:
    """Two generated names that would meet get numbers; the build validator (unique names) accepts the result."""
    b = load_build(BUILDS / "default.yaml")
    b = add_job(b, models=MODELS)
    b = add_job(b, models=MODELS)
    assert [j.name for j in b.jobs[2:]] == ["8B LoRA", "8B LoRA (2)"]
    b = update_job_titled(b, 1, MODELS, model="llama-3.1-8b", method="lora")  # 70B QLoRA -> an 8B LoRA too
    assert b.jobs[1].name == "8B LoRA (3)"
    Build.model_validate(b.model_dump())
    b = update_job_titled(b, 3, MODELS, method="qlora")  # '8B LoRA (2)' is generated: it follows
    assert b.jobs[3].name == "8B QLoRA"
    # a copy of a generated name is numbered (and so keeps following); of a typed one, ' copy'
    assert duplicate_job(b, 2, MODELS).jobs[3].name == "8B LoRA (2)"
    assert duplicate_job(b, 0, MODELS).jobs[1].name == "70B LoRA, FSDP over the bridge copy"


def test_the_old_placeholder_follows_too() -> None:
    b = load_build(BUILDS / "default.yaml")
    b = rename_job(add_job(b, models=MODELS), 2, "New job")
    assert update_job_titled(b, 2, MODELS, model="qwen3-14b").jobs[2].name == "14B LoRA"


def test_an_added_job_takes_the_build_stack() -> None:
    """Issue 12: a job added in the editor runs the build's ``stack:`` defaults, as a job in the file does.
    On the old code add_job bypassed the Build validator that applies them and the job ran hf-trainer."""
    text = build_to_yaml(load_build(BUILDS / "default.yaml"))
    text += "stack: {framework: torchtune, fsdp_version: 1, offload: cpu, loss: fused}\n"
    b = parse_build(text, "stack.yaml")
    assert b.jobs[0].framework == "torchtune"  # the file's jobs: the validator applied the stack
    added = add_job(b, models=MODELS).jobs[-1]
    assert (added.framework, added.fsdp_version, added.offload, added.loss) == ("torchtune", 1, "cpu", "fused")
    assert evaluate(add_job(b, models=MODELS)).jobs[-1].framework == "torchtune"
    # a key the job names itself is kept
    own = add_job(b, b.jobs[0].model_copy(update={"name": "own", "framework": "litgpt"})).jobs[-1]
    assert own.framework == "litgpt" and own.offload == "cpu"
    # the MIG seed's behaviour override reaches a new tenant too
    mig = load_build(BUILDS / "seed-mig-four-tenants.yaml")
    assert add_job(mig, models=MODELS).jobs[-1].behaviour.kbit_fp32_prep is False


def test_a_job_stack_choice_survives_saving_under_a_build_stack() -> None:
    """A job set back to hf-trainer (the Job default) in a build whose stack: says torchtune was saved without
    its framework (exclude_defaults) and came back as torchtune."""
    from configurator.engine.editing import update_job

    text = build_to_yaml(load_build(BUILDS / "default.yaml")) + "stack: {framework: torchtune, offload: cpu}\n"
    b = update_job(parse_build(text, "stack.yaml"), 0, framework="hf-trainer", offload="none")
    again = parse_build(build_to_yaml(b), "again.yaml")
    assert (again.jobs[0].framework, again.jobs[0].offload) == ("hf-trainer", "none")
    assert again.jobs[1].framework == "torchtune" and again == b
