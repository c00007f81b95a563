"""ZeRO-3 optimizer-only offload (``offload: cpu-optimizer``): DeepSpeed's offload_optimizer without offload_param.

DeepSpeed names the two switches apart (config-json docs: offload_optimizer "CPU offloading is available with ZeRO
stage 1, 2, 3"; offload_param "available only with ZeRO stage 3"; deepspeed/runtime/zero/offload_config.py), so a
ZeRO-3 run can keep its parameter partitions on the card while the optimizer states and the fp32 gradient
partition live in pinned host memory.
"""

from __future__ import annotations

import itertools

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine.checks.job import Shape, setting_checks
from configurator.engine.memory.estimate import memory_for_card
from configurator.engine.memory.states import effective_offload
from configurator.engine.model.build import Job

SHARDS = 4


def _mem(offload: str, parallelism: str = "zero3", method: str = "full", model: str = "llama-3.1-8b"):  # type: ignore[no-untyped-def]
    job = Job(name="j", model=model, method=method, parallelism=parallelism, offload=offload, sequence_length=2048)
    return memory_for_card(default_catalog().model(model), job, shards=SHARDS)


def test_zero3_optimizer_only_keeps_the_parameter_partitions_on_the_card() -> None:
    none, opt, both = _mem("none"), _mem("cpu-optimizer"), _mem("cpu")
    # the parameters stay: the same weight partition as without offload; offload_param moves it
    assert opt.weights == pytest.approx(none.weights) and opt.weights > 0
    assert both.weights == 0.0
    # the optimizer states and the gradient partition go to the host in both
    assert opt.optimizer == both.optimizer == 0.0 and opt.gradients == both.gradients == 0.0
    # so the card holds more than with both switches and less than with none, and the host less than with both
    assert both.peak_allocated < opt.peak_allocated < none.peak_allocated
    assert opt.host is not None and both.host is not None and 0 < opt.host < both.host
    assert both.host - opt.host == pytest.approx(none.weights + none.adapters)


@pytest.mark.parametrize("parallelism", ["zero1", "zero2"])
def test_below_stage_3_optimizer_only_is_what_cpu_offload_already_was(parallelism: str) -> None:
    opt, cpu = _mem("cpu-optimizer", parallelism), _mem("cpu", parallelism)
    assert opt.peak_allocated == pytest.approx(cpu.peak_allocated) and opt.host == pytest.approx(cpu.host)


def test_fsdp_has_no_optimizer_only_offload_and_the_job_is_told() -> None:
    job = Job(name="j", model="llama-3.1-8b", method="full", parallelism="fsdp", offload="cpu-optimizer",
              cards=[1, 2])  # fmt: skip
    assert effective_offload(job) == "none"
    model = default_catalog().model("llama-3.1-8b")
    checks = setting_checks(job, model, Shape(keys=[(1, None), (2, None)], on_mig=False, tp=1))
    assert any(c.code == "JOB_OFFLOAD_IGNORED" and "moves the parameters too" in c.message for c in checks)


def test_reserved_is_never_below_allocated_with_optimizer_only_offload() -> None:
    grid = itertools.product(("llama-3.1-8b", "qwen3-32b"), ("full", "lora", "qlora"), ("zero1", "zero2", "zero3"),
                             (512, 32768))  # fmt: skip
    for model, method, parallelism, seq in grid:
        job = Job(name="j", model=model, method=method, parallelism=parallelism, offload="cpu-optimizer",
                  sequence_length=seq)  # fmt: skip
        for shards in (2, 8):
            mem = memory_for_card(default_catalog().model(model), job, shards=shards)
            assert mem.allocator_reserved >= mem.peak_allocated, (model, method, parallelism, seq, shards)
