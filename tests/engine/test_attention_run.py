"""The attention a job's run executes (engine/model/stack.py attention_run): Transformers 5.24 declares no SDPA for
Gemma 2 (soft-capping) and gpt-oss (sinks), so a default (``attention: sdpa``) job of theirs on a Transformers stack
runs eager attention; the engine sizes its memory and times its step as eager and says so. Gemma 3 runs SDPA."""

from __future__ import annotations

import pytest

from configurator.engine.evaluate import evaluate
from configurator.engine.model.build import Build, Job
from configurator.engine.model.result import BuildResult
from configurator.engine.model.stack import attention_run


def _evaluate(model: str, **job: object) -> BuildResult:
    """One LoRA job at 4k on one H100 SXM."""
    return evaluate(Build.model_validate({
        "chassis": "hgx-8", "cards": [{"slot": 1, "card": "h100-sxm"}],
        "jobs": [{"name": "t", "model": model, "method": "lora", "sequence_length": 4096, "cards": [1], **job}]}))


@pytest.mark.parametrize(
    ("architecture", "attention", "framework", "runs"),
    [
        ("gemma2", "sdpa", "hf-trainer", "eager"),  # Gemma2PreTrainedModel._supports_sdpa = False
        ("gpt_oss", "sdpa", "axolotl", "eager"),  # GptOssPreTrainedModel._supports_sdpa = False
        ("gemma3_text", "sdpa", "hf-trainer", "sdpa"),  # _supports_sdpa = True, no soft-capping in its configs
        ("gemma2", "flash", "hf-trainer", "flash"),  # FlashAttention takes the softcap: as asked
        ("gemma2", "sdpa", "torchtune", "sdpa"),  # its own model code: not Transformers' rule
    ],
)
def test_the_attention_a_run_executes(architecture: str, attention: str, framework: str, runs: str) -> None:
    job = Job(name="t", model="gemma-2-9b", attention=attention, framework=framework)  # type: ignore[arg-type]
    assert attention_run(architecture, job) == runs


@pytest.mark.parametrize("model", ["gemma-2-9b", "gpt-oss-20b"])
def test_sdpa_on_a_family_without_it_is_sized_and_timed_as_eager(model: str) -> None:
    sdpa, eager, flash = _evaluate(model), _evaluate(model, attention="eager"), _evaluate(model, attention="flash")
    run, as_eager, fused = sdpa.jobs[0], eager.jobs[0], flash.jobs[0]
    assert run.compute is not None and as_eager.compute is not None
    assert run.compute.attention_kernel == as_eager.compute.attention_kernel
    assert (run.compute.attention_kernel or "").startswith("eager")
    # the memory and the step are eager attention's: the s x s scores cost memory and time a fused kernel does not
    assert run.cards[0].peak_reserved_gb == as_eager.cards[0].peak_reserved_gb
    assert run.step_seconds == as_eager.step_seconds
    assert run.cards[0].peak_reserved_gb > fused.cards[0].peak_reserved_gb
    assert run.step_seconds is not None and fused.step_seconds is not None and run.step_seconds > fused.step_seconds
    said = [c for c in sdpa.checks if c.code == "JOB_ATTENTION_EAGER"]
    assert len(said) == 1 and said[0].severity == "info" and "runs eager attention, not SDPA" in said[0].message
    assert not [c for c in eager.checks if c.code == "JOB_ATTENTION_EAGER"]  # eager asked: nothing to say


def test_gemma_3_keeps_sdpa_where_gemma_2_falls_back() -> None:
    ran: dict[str, tuple[str, bool]] = {}  # model -> (kernel the step is timed with, whether the check says eager)
    for model in ("gemma-2-9b", "gemma-3-4b"):
        result = _evaluate(model)
        compute = result.jobs[0].compute
        kernel = (compute.attention_kernel or "") if compute else ""
        ran[model] = kernel, any(c.code == "JOB_ATTENTION_EAGER" for c in result.checks)
    assert ran["gemma-2-9b"][0].startswith("eager") and ran["gemma-2-9b"][1]
    assert not ran["gemma-3-4b"][0].startswith("eager") and not ran["gemma-3-4b"][1]


def test_the_eager_note_advises_what_each_family_can_train_with() -> None:
    """Gemma 2: FlashAttention-2 takes its soft-cap (flash-attn's softcap, forward and backward). gpt-oss: Transformers
    swaps FlashAttention-2 for the vLLM FA3 hub kernel, whose sinks are forward-only: eager is what trains it."""
    said = {m: next(c.message for c in _evaluate(m).checks if c.code == "JOB_ATTENTION_EAGER")
            for m in ("gemma-2-9b", "gpt-oss-20b")}
    assert "Choose FlashAttention" in said["gemma-2-9b"]
    assert "Choose FlashAttention" not in said["gpt-oss-20b"] and "Keep eager attention" in said["gpt-oss-20b"]


@pytest.mark.parametrize(("model", "framework", "warned"), [
    ("gpt-oss-20b", "hf-trainer", True),  # flash_attention_2 -> kernels-community/vllm-flash-attn3: sinks forward-only
    ("gemma-2-9b", "hf-trainer", False),  # FlashAttention-2 trains the soft-cap
    ("gpt-oss-20b", "torchtune", False),  # not Transformers' swap
])
def test_flash_on_gpt_oss_warns_that_it_cannot_train(model: str, framework: str, warned: bool) -> None:
    result = _evaluate(model, attention="flash", framework=framework)
    said = [c for c in result.checks if c.code == "JOB_ATTENTION_NO_BACKWARD"]
    assert bool(said) == warned
    if warned:
        assert said[0].severity == "warning" and "Choose eager attention" in said[0].message
