"""The step-time chart's compute segments are the engine's split of the step (Compute.step_ops): under a
low-precision recipe the published whole-step speed-up shortens every op class alike, so the segments still add
up to the step's compute time."""

from __future__ import annotations

import pytest

from tests.helpers import single_job


def test_step_ops_add_up_to_the_step_under_a_recipe() -> None:
    _, bf16 = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8")
    _, low = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8", precision="fp8-current")
    for job in (bf16, low):
        comp = job.compute
        assert comp is not None and comp.ops and comp.seconds_per_step
        ops = comp.step_ops()
        assert [o.name for o in ops] == [o.name for o in comp.ops]
        assert sum(o.seconds for o in ops) == pytest.approx(comp.seconds_per_step)
    assert low.compute and bf16.compute and low.compute.speedup
    # the recipe shortens each op by the same factor: the raw per-op times are the BF16 ones
    ratio = [s.seconds / r.seconds for s, r in zip(low.compute.step_ops(), low.compute.ops, strict=True) if r.seconds]
    assert max(ratio) == pytest.approx(min(ratio)) and ratio[0] < 1


def test_no_split_without_a_step_time() -> None:
    _, job = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8")
    assert job.compute is not None
    assert job.compute.model_copy(update={"seconds_per_step": None}).step_ops() == []
