"""The step the kit's measure.py runs is the step the engine predicts: the protocol is a pure function of the job
(engine/time/steptime/step_protocol.py), jobs.json carries it, and measure.py's step functions do what it says
(checked with a stand-in for torch: `make test` has none). The device kit runs its training cases through the same
functions."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from configurator.acceptance_tool import measure
from configurator.catalog.loader import default_catalog
from configurator.engine.acceptance.kit import write_kit
from configurator.engine.model.build import Job
from configurator.engine.time.steptime.step_protocol import StepProtocol, step_protocol
from configurator.paths import resource
from tests.paths import ROOT


def _job(**kw: object) -> Job:
    return Job.model_validate({"name": "j", "model": "llama-3.1-8b", **kw})


def _wire(**kw: object) -> dict[str, Any]:
    return step_protocol(_job(**kw)).wire()


# ---- the protocol: a pure function of the job --------------------------------------------------------------------


def test_the_trainers_lora_step_is_fused_adamw_clipped_under_autocast_with_non_reentrant_checkpoints() -> None:
    assert step_protocol(_job(method="lora", precision="mixed-bf16", gradient_checkpointing=True)) == StepProtocol(
        optimizer="adamw", optimizer_impl="fused", max_grad_norm=1.0, weights="bf16", autocast_bf16=True,
        checkpointing="non-reentrant", refused=None)  # fmt: skip


@pytest.mark.parametrize(("job", "step"), [
    # the Trainer's AMP full fine-tune: fp32 weights under autocast; pure bf16: bf16 weights, no autocast
    ({"method": "full", "precision": "mixed-bf16"}, {"weights": "fp32", "autocast_bf16": True}),
    ({"method": "full", "precision": "pure-bf16"}, {"weights": "bf16", "autocast_bf16": False}),
    ({"method": "qlora", "precision": "mixed-bf16"}, {"weights": "bf16", "autocast_bf16": True}),
    # each framework's optimizer implementation and checkpointing kind
    ({"framework": "litgpt"}, {"optimizer_impl": "foreach"}),
    ({"framework": "axolotl"}, {"optimizer_impl": "fused", "checkpointing": "reentrant"}),
    ({"framework": "axolotl", "objective": "dpo"}, {"checkpointing": "non-reentrant"}),
    ({"behaviour": {"optimizer_impl": "for-loop"}}, {"optimizer_impl": "for-loop"}),
    ({"gradient_checkpointing": False}, {"checkpointing": None}),
    ({"optimizer": "adamw-8bit"}, {"optimizer": "adamw-8bit", "max_grad_norm": 1.0}),
])  # fmt: skip
def test_the_step_follows_the_jobs_precision_and_framework(job: dict[str, Any], step: dict[str, Any]) -> None:
    wire = _wire(**job)
    assert {k: wire[k] for k in step} == step


def test_a_step_a_bf16_pytorch_loop_cannot_run_is_refused_by_name() -> None:
    assert step_protocol(_job()).refused is None
    assert "fp8-current recipe" in str(step_protocol(_job(precision="fp8-current")).refused)
    assert "offloading" in str(step_protocol(_job(behaviour={"checkpointing": "offload"})).refused)


def test_jobs_json_carries_each_jobs_step_and_skips_one_it_cannot_run(default_build, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    build, _result, pred = default_build
    write_kit(tmp_path / "kit", build, pred, default_catalog(), resource("builds"))
    jobs = json.loads((tmp_path / "kit" / "jobs.json").read_text(encoding="utf-8"))["jobs"]
    assert [j["step"] for j in jobs] == [step_protocol(j).wire() for j in build.jobs]
    assert "skip" not in jobs[1]  # the single-card QLoRA job runs
    fp8_job = build.jobs[1].model_copy(update={"precision": "fp8-current"})
    fp8 = build.model_copy(update={"jobs": [build.jobs[0], fp8_job, *build.jobs[2:]]})
    write_kit(tmp_path / "kit", fp8, pred, default_catalog(), resource("builds"))
    jobs = json.loads((tmp_path / "kit" / "jobs.json").read_text(encoding="utf-8"))["jobs"]
    assert "fp8-current recipe" in jobs[1]["skip"]


# ---- measure.py runs the protocol (a stand-in for torch records what it is asked) ---------------------------------


class _Optim:
    def __init__(self, params: list[Any], **kw: Any) -> None:
        self.kw, self.calls = kw, []

    def step(self) -> None:
        self.calls.append("step")

    def zero_grad(self, set_to_none: bool) -> None:
        self.calls.append(("zero_grad", set_to_none))


class _AdamW(_Optim):
    pass


class _SGD(_Optim):
    pass


def _torch(calls: list[Any]) -> Any:
    return SimpleNamespace(
        float32="fp32", bfloat16="bf16",
        optim=SimpleNamespace(AdamW=_AdamW, SGD=_SGD),
        nn=SimpleNamespace(utils=SimpleNamespace(clip_grad_norm_=lambda params, norm: calls.append(("clip", norm)))),
        autocast=lambda device_type, dtype: ("autocast", device_type, dtype),
    )  # fmt: skip


@pytest.mark.parametrize(("impl", "device", "kw"), [("fused", "cuda", {"fused": True}),
                                                    ("foreach", "cuda", {"foreach": True}),
                                                    ("for-loop", "cuda", {"foreach": False}),
                                                    ("fused", "cpu", {})])  # fmt: skip
def test_the_optimizer_is_the_steps_implementation(impl: str, device: str, kw: dict[str, Any]) -> None:
    torch = _torch([])
    opt = measure.make_optimizer(torch, [], {"optimizer": "adamw", "optimizer_impl": impl}, device)
    assert isinstance(opt, _AdamW) and opt.kw == {"lr": measure.LR, **kw}
    sgd = measure.make_optimizer(torch, [], {"optimizer": "sgd", "optimizer_impl": impl}, device)
    assert isinstance(sgd, _SGD)


def test_a_step_ends_clipped_stepped_and_zeroed_and_runs_under_autocast_only_when_asked() -> None:
    calls: list[Any] = []
    torch = _torch(calls)
    opt = _AdamW([])
    measure.optimizer_step(torch, [], opt, {"max_grad_norm": 1.0})
    assert calls == [("clip", 1.0)] and opt.calls == ["step", ("zero_grad", True)]
    assert measure.autocast(torch, {"autocast_bf16": True}, "cuda") == ("autocast", "cuda", "bf16")
    assert measure.autocast(torch, {"autocast_bf16": False}, "cuda").__class__.__name__ == "nullcontext"
    assert measure.weights_dtype(torch, {"weights": "fp32"}) == "fp32"
    assert measure.weights_dtype(torch, {"weights": "bf16"}) == "bf16"


@pytest.mark.parametrize(("kind", "reentrant"), [("reentrant", True), ("non-reentrant", False), (None, None)])
def test_checkpointing_is_enabled_reentrant_or_not_as_the_step_says(kind: str | None, reentrant: bool | None) -> None:
    calls: list[Any] = []
    model = SimpleNamespace(
        gradient_checkpointing_enable=lambda gradient_checkpointing_kwargs: calls.append(gradient_checkpointing_kwargs),
        enable_input_require_grads=lambda: calls.append("inputs require grad"),
    )  # fmt: skip
    measure.enable_checkpointing(model, {"checkpointing": kind})
    if reentrant is None:
        assert calls == []
    else:
        assert calls[0] == {"use_reentrant": reentrant}
        assert ("inputs require grad" in calls) == reentrant


def test_a_jobs_file_without_a_step_is_an_error_that_says_so() -> None:
    res = measure.measure({"name": "old", "method": "lora"}, 1, 5)
    assert res["status"] == "error" and "names no step" in res["reason"]


# ---- the device kit runs its training cases through the same step functions ---------------------------------------

DEVICE_MEASURE = ROOT / "benchmarks" / "device" / "measure.py"


def test_the_device_kit_steps_with_the_kits_functions_and_has_none_of_its_own() -> None:
    from benchmarks.device import measure as device

    assert Path(measure.__file__).resolve() == device.KIT_MEASURE
    kit = device.kit_step()
    for name in ("weights_dtype", "enable_checkpointing", "make_optimizer", "micro_step", "optimizer_step"):
        assert getattr(kit, name).__code__.co_code == getattr(measure, name).__code__.co_code, name
    tree = ast.parse(DEVICE_MEASURE.read_text(encoding="utf-8"))
    called = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    own = {c for c in called if c.endswith(("clip_grad_norm_", "AdamW", "autocast", "gradient_checkpointing_enable"))}
    assert own == set(), own


def test_the_kits_measure_script_stays_standalone() -> None:
    """The kit copies measure.py alone and the device kit loads it from its file: only the standard library at its
    top, torch and the training libraries inside the functions that run a job."""
    tree = ast.parse(Path(measure.__file__).read_text(encoding="utf-8"))
    top = {id(n) for n in tree.body}
    imports = [(a.name if isinstance(n, ast.Import) else n.module or "", id(n) in top)
               for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
               for a in (n.names if isinstance(n, ast.Import) else [n])]  # fmt: skip
    assert imports
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    assert {m.split(".")[0] for m, at_top in imports if at_top} <= stdlib
    inner = {m.split(".")[0] for m, at_top in imports if not at_top}
    assert inner <= stdlib | {"torch", "transformers", "peft", "bitsandbytes"}, inner
