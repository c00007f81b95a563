"""The training stack as an input (engine/stack.py): defaults, overrides, old files, and the properties the
stack must keep (hypothesis): a fused or chunked loss never raises the peak, offloading never raises GPU memory,
FSDP2 never needs more than FSDP1 for the same job."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from configurator.catalog.loader import default_catalog
from configurator.engine import Build, evaluate
from configurator.engine.build import Job
from configurator.engine.memory import memory_for_card
from configurator.engine.stack import PROFILES, stack_of

MODELS = ["llama-2-7b", "llama-3.1-8b", "mistral-7b", "qwen3-32b", "llama-3.2-3b"]

# Peaks of jobs that name no stack, from the engine before stacks existed (commit d6f2e5c): such build files
# must size exactly as they did. (model, job keys, cards, peak reserved GB, peak allocated GB)
BEFORE_STACKS = [
    ("llama-3.1-8b", {"method": "lora", "sequence_length": 2048}, 1, 22.663470, 21.550998),
    ("llama-3.1-8b", {"method": "lora", "sequence_length": 8192, "micro_batch_size": 2}, 1, 58.085960, 55.286702),
    ("qwen3-32b", {"method": "lora", "sequence_length": 4096, "loss": "chunked"}, 1, 77.111350, 74.861554),
    ("llama-3.1-8b", {"method": "full", "optimizer": "adamw-8bit", "sequence_length": 2048}, 1, 83.325213, 80.938223),
    ("llama-3.1-8b", {"method": "full", "parallelism": "ddp", "optimizer": "adamw-8bit"}, 2, 87.589772, 85.202781),
    ("llama-3.1-8b", {"method": "lora", "parallelism": "tp", "sequence_length": 4096}, 2, 14.870224, 13.889835),
]  # fmt: skip


def _build(jobs: list[dict], n: int = 2, **extra: object) -> Build:
    return Build.model_validate(
        {
            "chassis": "generic-server-8",
            **extra,
            "cards": [{"slot": s, "card": "h200-nvl"} for s in range(1, n + 1)],
            "jobs": jobs,
        }
    )


@pytest.mark.parametrize(("model", "keys", "n", "reserved", "allocated"), BEFORE_STACKS)
def test_old_build_files_size_as_before(model: str, keys: dict, n: int, reserved: float, allocated: float) -> None:
    job = {"name": "t", "model": model, **keys, "cards": list(range(1, n + 1))}
    row = evaluate(_build([job], n)).jobs[0].cards[0]
    assert row.peak_reserved_gb == pytest.approx(reserved, abs=1e-6)
    assert row.peak_allocated_gb == pytest.approx(allocated, abs=1e-6)


def test_default_stack_and_result_fields() -> None:
    result = evaluate(_build([{"name": "t", "model": "llama-3.1-8b", "cards": [1]}]))
    job = result.jobs[0]
    assert job.framework == "hf-trainer" and job.loss == "standard" and job.fsdp_version == 2
    assert "Transformers Trainer" in job.stack and job.host_memory_gb == 0
    row = job.cards[0]
    assert row.peak_phase in row.phase_reserved_gb
    assert row.phase_reserved_gb[row.peak_phase] == pytest.approx(row.peak_reserved_gb)
    assert row.band_low_gb < row.peak_reserved_gb < row.band_high_gb
    assert (row.band_low_gb, row.band_high_gb) == (row.peak_low_gb, row.peak_high_gb)


def test_build_level_stack_applies_where_the_job_is_silent() -> None:
    build = _build([{"name": "a", "model": "llama-3.1-8b", "cards": [1]},
                    {"name": "b", "model": "llama-3.1-8b", "framework": "litgpt", "cards": [2]}],
                   stack={"framework": "torchtune", "behaviour": {"optimizer_impl": "foreach"}})  # fmt: skip
    a, b = build.jobs
    assert a.framework == "torchtune" and stack_of(a).optimizer_impl == "foreach" and stack_of(a).loss == "chunked"
    assert b.framework == "litgpt" and stack_of(b).optimizer_impl == "foreach"  # behaviour unset on b: default


def test_job_overrides_the_profile_field_by_field() -> None:
    job = Job(name="t", model="x", framework="torchtune", loss="fused", behaviour={"frees_logits": False})
    s = stack_of(job)
    assert (s.loss, s.frees_logits, s.loss_upcast) == ("fused", False, PROFILES["torchtune"].loss_upcast)


def test_peft_fp32_preparation_costs_memory_and_is_optional() -> None:
    """PEFT's prepare_model_for_kbit_training: fp32 embeddings, norms and lm_head, fp32 checkpointed inputs."""
    model = default_catalog().model("llama-3.1-8b")
    prepared = memory_for_card(model, Job(name="t", model="x", method="qlora", sequence_length=8192))
    plain = memory_for_card(model, Job(name="t", model="x", method="qlora", sequence_length=8192,
                                       behaviour={"kbit_fp32_prep": False}))  # fmt: skip
    extra_weights = prepared.weights - plain.weights
    assert extra_weights == pytest.approx((model.param_counts().total - model.param_counts().block_linear) * 2)
    assert prepared.activations > plain.activations


def test_full_fine_tune_with_foreach_adamw_peaks_at_the_optimizer_step() -> None:
    model = default_catalog().model("llama-3.1-8b")
    foreach = memory_for_card(model, Job(name="t", model="x", method="full", sequence_length=512,
                                         behaviour={"optimizer_impl": "foreach"}))  # fmt: skip
    fused = memory_for_card(model, Job(name="t", model="x", method="full", sequence_length=512))
    assert foreach.peak_phase == "optimizer-step" and fused.peak_phase != "optimizer-step"
    # _foreach_sqrt of the fp32 second moment: 4 B per parameter
    assert foreach.optimizer_temp == pytest.approx(model.param_counts().total * 4)


def test_offload_reports_host_memory_and_checks_the_chassis() -> None:
    result = evaluate(_build([{"name": "t", "model": "llama-3.1-8b", "method": "full", "parallelism": "zero3",
                               "offload": "cpu", "cards": [1, 2]}]))  # fmt: skip
    job = result.jobs[0]
    assert job.host_memory_gb and job.host_memory_gb > 100  # 8B x (16 B states + 4 B fp32 gradients)
    assert any(c.code == "HOST_MEMORY_UNKNOWN" for c in result.checks)


# ---------------------------------------------------------------- properties


@st.composite
def jobs(draw: st.DrawFn, **fixed: object) -> Job:
    keys = {
        "method": draw(st.sampled_from(["full", "lora", "qlora"])),
        "framework": draw(st.sampled_from(sorted(PROFILES))),
        "sequence_length": draw(st.sampled_from([256, 1024, 4096, 16384])),
        "micro_batch_size": draw(st.integers(1, 4)),
        "gradient_checkpointing": draw(st.booleans()),
        "optimizer": draw(st.sampled_from(["adamw", "adamw-8bit"])),
        "precision": draw(st.sampled_from(["mixed-bf16", "pure-bf16"])),
        "behaviour": {"frees_logits": draw(st.none() | st.booleans()),
                      "optimizer_impl": draw(st.none() | st.sampled_from(["foreach", "fused", "for-loop"]))},
    }  # fmt: skip
    keys.update(fixed)
    return Job(name="p", model="x", **keys)  # type: ignore[arg-type]


MODEL = st.sampled_from(MODELS)


@settings(max_examples=60, deadline=None)
@given(job=jobs(), model_id=MODEL, shards=st.sampled_from([1, 2, 4]))
def test_fused_or_chunked_loss_never_raises_the_peak(job: Job, model_id: str, shards: int) -> None:
    model = default_catalog().model(model_id)
    par = {"parallelism": "fsdp" if shards > 1 else "single"}

    def peak(loss: str) -> tuple[float, float]:
        m = memory_for_card(model, job.model_copy(update={"loss": loss, **par}), shards=shards)
        return m.peak_reserved, m.peak_allocated

    fused, chunked, bf16, standard = (peak(x) for x in ("fused", "chunked", "bf16", "standard"))
    for a, b in ((fused, chunked), (chunked, bf16), (bf16, standard), (chunked, standard), (fused, standard)):
        assert a[0] <= b[0] * (1 + 1e-12) and a[1] <= b[1] * (1 + 1e-12)


@settings(max_examples=60, deadline=None)
@given(job=jobs(), model_id=MODEL, shards=st.sampled_from([1, 2, 8]),
       parallelism=st.sampled_from(["fsdp", "zero1", "zero2", "zero3"]))  # fmt: skip
def test_offloading_never_raises_gpu_memory(job: Job, model_id: str, shards: int, parallelism: str) -> None:
    model = default_catalog().model(model_id)
    ddp = parallelism == "zero1" and shards > 1

    def mem(offload: str):  # type: ignore[no-untyped-def]
        return memory_for_card(model, job.model_copy(update={"parallelism": parallelism, "offload": offload}),
                               shards=shards, ddp=ddp)  # fmt: skip

    none, cpu, nvme = mem("none"), mem("cpu"), mem("nvme")
    assert cpu.peak_reserved <= none.peak_reserved * (1 + 1e-12)
    assert cpu.peak_allocated <= none.peak_allocated * (1 + 1e-12)
    assert nvme.peak_reserved <= none.peak_reserved * (1 + 1e-12)
    if parallelism == "zero3":
        assert nvme.peak_reserved <= cpu.peak_reserved * (1 + 1e-12) and nvme.host is None
    if shards > 1 or parallelism != "fsdp":
        assert cpu.host is not None and cpu.host > 0


@settings(max_examples=60, deadline=None)
@given(job=jobs(parallelism="fsdp"), model_id=MODEL, shards=st.sampled_from([2, 4, 8]),
       offload=st.sampled_from(["none", "cpu"]))  # fmt: skip
def test_fsdp2_never_needs_more_than_fsdp1(job: Job, model_id: str, shards: int, offload: str) -> None:
    model = default_catalog().model(model_id)
    v1, v2 = (memory_for_card(model, job.model_copy(update={"fsdp_version": v, "offload": offload}), shards=shards)
              for v in (1, 2))  # fmt: skip
    assert v2.peak_reserved <= v1.peak_reserved * (1 + 1e-12)
    assert v2.setup_pool <= v1.setup_pool * (1 + 1e-12)
