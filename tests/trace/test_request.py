"""A build's job as the tracer's request: the model as a config.json dict, the run's settings from the job and
its stack, the architecture from its card; jobs the tracer cannot express refused by name before any process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from configurator.catalog.hf_config import model_from_hf_config
from configurator.catalog.loader import default_catalog
from configurator.engine.model.build import Build, CardPlacement, Job, LoraSettings, ParamsOnlyModel, StackBehaviour
from configurator.trace.request import (
    TraceRefused,
    checkpointing_kind,
    config_from_spec,
    prepare_trace,
    untraceable_by_engine,
)

CATALOG = default_catalog()
HF = Path(__file__).resolve().parents[1] / "fixtures" / "hf_configs"


def build_with(job: Job, card: str = "h100-sxm", slots: int = 1) -> Build:
    cards = [CardPlacement(slot=s, card=card) for s in range(1, slots + 1)]
    return Build(name="t", chassis="generic-server-8", cards=cards, jobs=[job])


def llama_lora(**changes: object) -> Job:
    fields: dict[str, object] = dict(name="8B LoRA", model="llama-3.1-8b", method="lora",
                                     lora=LoraSettings(rank=16, alpha=32, targets="all-linear", dropout=0.05),
                                     sequence_length=4096, micro_batch_size=2, cards=[1])  # fmt: skip
    fields.update(changes)
    return Job(**fields)  # type: ignore[arg-type]


def test_llama_31_8b_lora_job_becomes_the_right_request() -> None:
    prepared = prepare_trace(build_with(llama_lora()), "8B LoRA", CATALOG)
    r = prepared.request
    assert r.config == {
        "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "intermediate_size": 14336,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 128256,
        "tie_word_embeddings": False, "attention_bias": False, "mlp_bias": False,
    }  # fmt: skip
    assert r.method == "lora"
    assert r.lora is not None and (r.lora.rank, r.lora.alpha, r.lora.dropout, r.lora.targets) == (
        16, 32.0, 0.05, "all-linear")  # fmt: skip
    assert (r.precision, r.optimizer, r.optimizer_impl) == ("mixed-bf16", "adamw", "fused")  # Trainer's defaults
    assert (r.sequence_length, r.micro_batch_size) == (4096, 2)
    # Transformers' default kwargs: non-reentrant since transformers PR 43203 (the pinned 5.24)
    assert r.gradient_checkpointing and r.checkpointing_kind == "non-reentrant"
    assert (r.attention, r.arch, r.steps) == ("auto", "sm90", 2)
    assert r.parallel.kind == "single"
    assert prepared.analytic and prepared.analytic_reason is None
    wire = r.wire()
    assert wire["schema"] == 1 and wire["parallel"] == {"kind": "single"}
    json.dumps(wire)  # the worker reads it as JSON


@pytest.mark.parametrize(("card", "arch"), [("a100-80gb-pcie", "sm80"), ("l40s", "sm89"), ("h100-sxm", "sm90"),
                                            ("b200", "sm100"), ("rtx-pro-6000-server", "sm120")])  # fmt: skip
def test_arch_comes_from_the_card(card: str, arch: str) -> None:
    assert prepare_trace(build_with(llama_lora(), card=card), "8B LoRA", CATALOG).request.arch == arch


def test_settings_follow_the_job() -> None:
    job = llama_lora(method="full", precision="pure-bf16", optimizer="adamw-8bit", gradient_checkpointing=False,
                     attention="flash", behaviour=StackBehaviour(optimizer_impl="foreach"))  # fmt: skip
    r = prepare_trace(build_with(job), job.name, CATALOG).request
    assert r.lora is None and "lora" not in r.wire()
    assert (r.precision, r.optimizer, r.optimizer_impl) == ("bf16", "adamw-8bit", "foreach")
    assert not r.gradient_checkpointing and r.attention == "flash_attention_2"
    qlora = prepare_trace(build_with(llama_lora(method="qlora", lora=LoraSettings(targets="qv"))), "8B LoRA", CATALOG)
    assert qlora.request.method == "qlora" and qlora.request.lora is not None
    assert qlora.request.lora.targets == ["q_proj", "v_proj"] and qlora.request.lora.alpha == 8.0  # PEFT default


def test_fsdp2_passes_the_world_size() -> None:
    job = llama_lora(parallelism="fsdp", cards=[1, 2, 3, 4])
    r = prepare_trace(build_with(job, slots=4), job.name, CATALOG).request
    assert r.parallel.kind == "fsdp2" and r.parallel.world_size == 4


def test_moe_all_linear_names_the_modules_the_engine_counts() -> None:
    job = llama_lora(model="mixtral-8x7b")
    r = prepare_trace(build_with(job), job.name, CATALOG).request
    assert r.lora is not None and r.lora.targets == ["k_proj", "o_proj", "q_proj", "v_proj", "w1", "w2", "w3"]
    assert r.config["num_local_experts"] == 8 and r.config["num_experts_per_tok"] == 2


@pytest.mark.parametrize("model_id", [m.id for m in CATALOG.models.values()
                                      if not m.is_params_only and m.vision is None])  # fmt: skip
def test_catalog_models_round_trip_through_their_config(model_id: str) -> None:
    spec = CATALOG.models[model_id]
    back = model_from_hf_config(config_from_spec(spec), id=spec.id, name=spec.name, source=spec.source)
    skip = {"note", "family"}  # catalog words, not config.json fields
    assert back.model_dump(exclude=skip) == spec.model_dump(exclude=skip)


def test_a_config_json_job_passes_the_files_dict(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text((HF / "llama-3.1-8b.json").read_text())
    job = llama_lora(model="config.json")
    prepared = prepare_trace(build_with(job), job.name, CATALOG, base_dir=tmp_path)
    assert prepared.request.config == json.loads(path.read_text())  # rope_scaling and the rest, verbatim
    assert prepared.analytic


def test_a_family_the_engine_cannot_size_is_still_traced(tmp_path: Path) -> None:
    (tmp_path / "ds.json").write_text(json.dumps({"model_type": "deepseek_v3", "hidden_size": 7168,
                                                  "num_hidden_layers": 61, "vocab_size": 129280}))  # fmt: skip
    job = llama_lora(name="DeepSeek", model="ds.json")
    build = build_with(job)
    prepared = prepare_trace(build, job.name, CATALOG, base_dir=tmp_path)
    assert not prepared.analytic and "deepseek_v3" in (prepared.analytic_reason or "")
    assert prepared.request.config["model_type"] == "deepseek_v3"
    hints = untraceable_by_engine(build, CATALOG, base_dir=tmp_path)
    assert [name for name, _ in hints] == ["DeepSeek"] and "cannot size" in hints[0][1]


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"parallelism": "zero3", "cards": [1, 2]}, "DeepSpeed ZeRO-3"),
        ({"parallelism": "ddp", "cards": [1, 2]}, "DDP"),
        ({"parallelism": "tp", "tensor_parallel": 2, "cards": [1, 2]}, "tensor parallelism"),
        ({"parallelism": "fsdp", "fsdp_version": 1, "cards": [1, 2]}, "FSDP1"),
        ({"parallelism": "fsdp", "offload": "cpu", "cards": [1, 2]}, "offload to cpu"),
        ({"precision": "fp8"}, "fp8 recipe"),
        ({"optimizer": "paged-adamw"}, "paged-adamw optimizer"),
        ({"optimizer": "sgd"}, "sgd optimizer"),
        ({"framework": "torchtune"}, "torchtune runs its own model code"),
        ({"loss": "fused"}, "fused loss path"),
        ({"behaviour": StackBehaviour(optimizer_impl="for-loop")}, "for-loop AdamW"),
        ({"behaviour": StackBehaviour(checkpointing="offload")}, "activation offloading"),
        ({"model": ParamsOnlyModel(parameters=30e9)}, "parameter count only"),
        ({"cards": []}, "runs on no card"),
    ],
)
def test_jobs_the_tracer_cannot_express_are_refused_by_name(changes: dict[str, object], words: str) -> None:
    job = llama_lora(**changes)
    with pytest.raises(TraceRefused, match=words):
        prepare_trace(build_with(job, slots=2), job.name, CATALOG)


def test_unknown_job_and_unknown_arch_are_refused() -> None:
    build = build_with(llama_lora())
    with pytest.raises(TraceRefused, match=r"no job called 'nope'.*'8B LoRA'"):
        prepare_trace(build, "nope", CATALOG)
    with pytest.raises(TraceRefused, match="unknown architecture 'sm75'"):
        prepare_trace(build, "8B LoRA", CATALOG, arch="sm75")
    assert prepare_trace(build_with(llama_lora(cards=[])), "8B LoRA", CATALOG, arch="sm80").request.arch == "sm80"


def test_the_product_side_imports_neither_torch_nor_qt() -> None:
    """Building a request, running the runner's checks and reading the cache load no torch, no training library
    and no Qt (the window pays nothing for the tracer until it runs, and then only a subprocess)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from configurator.catalog.loader import default_catalog\n"
        "from configurator.engine.model.buildfile import load_build\n"
        "from configurator.cli import default_build_path\n"
        "from configurator.trace import cache, runner, words\n"
        "from configurator.trace.request import prepare_trace\n"
        "b = load_build(default_build_path())\n"
        "r = prepare_trace(b, b.jobs[1].name, default_catalog()).request\n"
        "cache.TraceCache().latest(r); runner.environment_versions()\n"
        "heavy = ('torch', 'transformers', 'peft', 'bitsandbytes', 'torchao', 'accelerate', 'PySide6', 'pyqtgraph')\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in heavy]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])


def test_a_cross_attention_vision_model_is_refused_by_name() -> None:
    with pytest.raises(TraceRefused, match="vision-language model"):
        config_from_spec(CATALOG.models["llama-3.2-11b-vision"])


@pytest.mark.parametrize(("framework", "precision", "cast"), [("hf-trainer", "mixed-bf16", True),
                                                              ("hf-trainer", "pure-bf16", False),
                                                              ("axolotl", "mixed-bf16", False)])  # fmt: skip
def test_qlora_traces_the_head_cast_its_estimate_assumes(framework: str, precision: str, cast: bool) -> None:
    """TRL recasts QLoRA's fp32 head and embedding to bf16 under bf16 (the engine's prep_head_bf16): the trace of such
    a job does too (the worker's kbit_head_bf16), so the traced figure and the estimate describe the same run."""
    job = llama_lora(method="qlora", framework=framework, precision=precision)
    r = prepare_trace(build_with(job), job.name, CATALOG).request
    assert r.kbit_head_bf16 is cast
    assert ("kbit_head_bf16" in r.wire()) is cast  # absent unless asked: earlier requests and cache keys unchanged


@pytest.mark.parametrize("model_id", ["qwen2.5-vl-7b", "gemma-3-4b"])
def test_a_vision_language_job_sends_its_tower_and_images(model_id: str) -> None:
    """Qwen2.5-VL and Gemma 3 are traced with their towers (issue 27): the config read back is the catalog's
    model, tower included, and the request carries the job's images."""
    config = config_from_spec(CATALOG.models[model_id])
    back = model_from_hf_config(config, id=model_id, name=model_id, source="test")
    assert back.vision == CATALOG.models[model_id].vision
    assert back.total_params == CATALOG.models[model_id].total_params
    build = Build.model_validate({"chassis": "generic-server-8", "cards": [{"slot": 1, "card": "h200-nvl"}],
                                  "jobs": [{"name": "vl", "model": model_id, "images_per_sample": 2,
                                            "image_resolution": 672, "train_vision_tower": True, "cards": [1]}]})
    request = prepare_trace(build, "vl", CATALOG).request
    assert request.images is not None and request.images.per_sample == 2 and request.images.width == 672
    assert request.wire()["images"] == {"per_sample": 2, "width": 672, "height": 672, "train_vision_tower": True}


@pytest.mark.parametrize(("framework", "objective", "kind"), [("hf-trainer", "sft", "non-reentrant"),
                                                               ("axolotl", "sft", "reentrant"),
                                                               ("axolotl", "dpo", "non-reentrant")])  # fmt: skip
def test_the_checkpointing_variant_is_the_frameworks_default(framework: str, objective: str, kind: str) -> None:
    """Transformers (and TRL) run non-reentrant checkpointing when the job names no kwargs; Axolotl sets reentrant
    itself unless an RL trainer runs (normalize_config)."""
    job = Job.model_validate({"name": "j", "model": "llama-3.1-8b", "method": "lora", "framework": framework,
                              "objective": objective})  # fmt: skip
    assert checkpointing_kind(job) == kind


def test_the_attention_soft_cap_is_sent_as_the_catalog_holds_it() -> None:
    """A traced Gemma 2 runs the released config's soft-cap (it picks eager attention and adds the scores' tanh);
    a Gemma-family model that sets none sends null, not Gemma2Config's default of 50.0."""
    gemma2 = CATALOG.models["gemma-2-9b"]
    assert gemma2.attn_logit_softcapping == 50.0
    assert config_from_spec(gemma2)["attn_logit_softcapping"] == 50.0
    r = prepare_trace(build_with(llama_lora(model="gemma-2-9b")), "8B LoRA", CATALOG).request
    assert r.config["attn_logit_softcapping"] == 50.0
    uncapped = gemma2.model_copy(update={"attn_logit_softcapping": None})
    config = config_from_spec(uncapped)
    assert "attn_logit_softcapping" in config and config["attn_logit_softcapping"] is None
    assert model_from_hf_config(config, id="u", name="u", source="test").attn_logit_softcapping is None
    gemma3 = CATALOG.models["gemma-3-4b"]  # the tower's text_config carries it (Gemma3TextConfig: None)
    assert config_from_spec(gemma3)["text_config"]["attn_logit_softcapping"] is None
    assert "attn_logit_softcapping" not in config_from_spec(CATALOG.models["llama-3.1-8b"])
