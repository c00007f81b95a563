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


def test_matmuls_carry_their_bound_under_the_recipe_roof() -> None:
    """The roofline places a job running an FP8 recipe under the FP8 roof; what bounds each op there is the
    engine's (MatmulIntensity.recipe_bound), at the card's dense FP8 rate and bandwidth."""
    from configurator.catalog.loader import default_catalog
    from configurator.engine.time.compute import ridge_intensity

    card = default_catalog().cards["h100-sxm"]
    _, bf16 = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8")
    _, low = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8", precision="fp8-current")
    assert bf16.compute and low.compute and low.compute.recipe
    assert all(m.recipe_bound == {} for m in bf16.compute.matmuls)
    ridge = ridge_intensity(card.fp8_dense_tflops.value or 0, card.memory_bandwidth_gb_s.value or 0)
    bounds = {m.name: m.recipe_bound["h100-sxm"] for m in low.compute.matmuls}
    assert bounds == {m.name: ("compute" if m.intensity >= ridge else "memory") for m in low.compute.matmuls}
    # the FP8 ridge is twice the BF16 one: an op just above the BF16 ridge is memory-bound under FP8
    assert set(bounds.values()) == {"compute", "memory"}
