"""A vision-language job's tower in the step time (engine/time/steptime/vision.py): the op class "vision", its
FLOPs from the tower's shapes and the passes its autograd graph runs."""

from __future__ import annotations

import math

import pytest

from configurator.catalog.hf_config import ConfigError, model_from_hf_config
from configurator.catalog.loader import Catalog, default_catalog
from configurator.engine import Build, evaluate
from configurator.engine.memory.estimate import job_parameters
from configurator.engine.memory.vision import language_view
from configurator.engine.model.build import Job
from configurator.engine.time.compute import flops_per_token
from configurator.engine.time.steptime import Device
from configurator.engine.time.steptime.vision import tower_class, tower_shape

H100 = Device("Hopper", 989.5, 3350, 132)
VL = "qwen2.5-vl-7b"


def _job(**kw: object) -> Job:
    base = {"name": "vlm", "model": VL, "method": "lora", "images_per_sample": 1, "image_resolution": 1024,
            "sequence_length": 1024, "micro_batch_size": 1}  # fmt: skip
    return Job.model_validate({**base, **kw})


def _tower(catalog: Catalog, **kw: object):  # type: ignore[no-untyped-def]
    model = catalog.model(VL)
    shape = tower_shape(model, _job(**kw), "eager")
    assert shape is not None and model.vision is not None
    return tower_class(model.vision, shape, H100)


def _forward_flops(catalog: Catalog) -> float:
    """By hand from the config: 5,476 patches of a 1036 x 1036 image (smart_resize), the blocks' linears at M =
    patches, the PatchMerger's two at M = patches / 4, the patch embedding's 3 x 2 x 14 x 14 values per patch;
    attention 4 x tokens x span x hidden: 4 full blocks over the image, 28 windowed over 8 x 8 patches."""
    t, h, f, layers = 74 * 74, 1280, 3420, 32
    block = h * 3 * h + h * h + 3 * h * f
    merger = (4 * h) * (4 * h) + (4 * h) * 3584
    gemm = 2 * t * block * layers + 2 * (t / 4) * merger + 2 * t * h * (3 * 2 * 14 * 14)
    attention = 4 * t * h * (4 * t + 28 * 64)
    return gemm + attention


def test_a_frozen_tower_without_checkpointing_runs_its_forward_only(catalog: Catalog) -> None:
    cls = _tower(catalog, gradient_checkpointing=False)
    assert cls.name == "vision"
    assert math.isclose(cls.flops, _forward_flops(catalog), rel_tol=1e-9)


def test_the_passes_follow_the_graph_the_tower_builds(catalog: Catalog) -> None:
    t = 74 * 74
    attention = 4 * t * 1280 * (4 * t + 28 * 64)
    gemm = _forward_flops(catalog) - attention
    patch = 2 * t * 1280 * (3 * 2 * 14 * 14)  # its input is the pixels: no input gradient
    # frozen under Transformers' checkpointing: the patch embedding's output requires a gradient, so the input
    # gradient runs back through every block to it, and the checkpointed blocks recompute their forward
    frozen = _tower(catalog, gradient_checkpointing=True)
    expected = 2 * gemm + (gemm - patch) + (2 + 2.5) * attention
    assert frozen.flops == pytest.approx(expected, rel=1e-9)
    # fully trained: the weight gradients as well (the patch embedding's included)
    full = _tower(catalog, method="full", train_vision_tower=True, gradient_checkpointing=True)
    assert full.flops == pytest.approx(expected + gemm, rel=1e-9)


def test_lora_on_the_tower_adds_its_thin_gemms_and_their_memory_traffic(catalog: Catalog) -> None:
    frozen = _tower(catalog, gradient_checkpointing=False)
    adapted = _tower(catalog, gradient_checkpointing=False, train_vision_tower=True)
    assert adapted.flops > 2 * frozen.flops  # its backward runs now (input gradients), plus the adapters
    assert adapted.bytes > frozen.bytes


def test_a_text_job_on_a_vision_model_has_no_tower_class(catalog: Catalog) -> None:
    model = catalog.model(VL)
    assert tower_shape(model, _job(images_per_sample=0), "eager") is None


def _evaluate(**kw: object):  # type: ignore[no-untyped-def]
    job = {**_job(**kw).model_dump(exclude_defaults=True), "cards": [1]}
    build = Build.model_validate({"name": "v", "chassis": "generic-workstation-4",
                                  "cards": [{"slot": 1, "card": "h200-nvl"}], "jobs": [job]})  # fmt: skip
    return evaluate(build).jobs[0]


def test_the_step_counts_the_tower_and_says_what_it_assumes() -> None:
    with_images = _evaluate(gradient_accumulation_steps=4)
    ops = {o.name: o for o in with_images.compute.ops}
    assert "vision" in ops
    assert math.isclose(sum(o.seconds for o in with_images.compute.ops), with_images.step_seconds, rel_tol=1e-9)
    assert any("vision tower is timed as its own op class" in n and "21,904 patches" in n
               for n in with_images.compute.notes)  # fmt: skip
    # the held-apart runs have no vision-language job: the band's basis says so
    assert "a vision-language job" in (with_images.step_band_basis or "")
    # the step's FLOPs (and the achieved rate shown from them) count the tower's beside the language model's
    catalog = default_catalog()
    model, job = catalog.model(VL), _job(gradient_accumulation_steps=4)
    view = language_view(model, job)
    language = flops_per_token(view, model, job_parameters(model, view)) * view.sequence_length * 4
    assert with_images.compute.flops_per_step == pytest.approx(language + ops["vision"].flops, rel=1e-9)
    text = _evaluate(gradient_accumulation_steps=4, images_per_sample=0)
    assert "vision" not in {o.name for o in text.compute.ops}
    assert with_images.step_seconds > text.step_seconds


def test_the_config_sets_the_blocks_with_full_attention() -> None:
    vision = {"hidden_size": 1280, "depth": 32, "intermediate_size": 3420, "num_heads": 16, "out_hidden_size": 3584,
              "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2, "in_chans": 3}
    config = {"model_type": "qwen2_5_vl", "hidden_size": 3584, "num_hidden_layers": 28, "intermediate_size": 18944,
              "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064, "vision_config": vision}

    def full_layers(**extra: object) -> int:
        merged = {**config, "vision_config": {**vision, **extra}}
        spec = model_from_hf_config(merged, id="vl", name="VL", source="test config")
        assert spec.vision is not None
        return spec.vision.full_attention_layers

    assert full_layers() == 4  # Qwen2_5_VLVisionConfig's default [7, 15, 23, 31]
    assert full_layers(fullatt_block_indexes=[31]) == 1
    with pytest.raises(ConfigError, match="fullatt_block_indexes"):
        full_layers(fullatt_block_indexes=[40])


def test_the_towers_gemms_run_at_the_step_fraction_the_language_models_do(catalog: Catalog) -> None:
    """Each tower GEMM is timed at Efficiency.gemm_fraction, the kernel's fraction times the FITTED sustained
    fraction, once (the tower took the sustained fraction twice, 1/0.67 too slow on an H100)."""
    from configurator.engine.time.steptime.efficiency import efficiency
    from configurator.engine.time.steptime.vision import _attention_flops, _gemms

    model = catalog.model(VL)
    job = _job(gradient_checkpointing=False)  # frozen, no graph: the forward alone
    shape = tower_shape(model, job, "eager")
    assert shape is not None and model.vision is not None
    eff, peak, bw = efficiency(), H100.peak_tflops * 1e12, H100.bandwidth_gb_s * 1e9 * efficiency().bandwidth
    compute = 0.0
    for m, n, k, count, _ in _gemms(model.vision, shape):
        tc = 2.0 * m * n * k * count / (peak * eff.gemm_fraction("Hopper", m, n, k, H100.sms))
        compute += tc if tc >= 2.0 * (m * k + k * n + m * n) * count / bw else 0.0
    attention = _attention_flops(model.vision, shape) / (peak * eff.attention_fraction("Hopper", 0.0, "flash")
                                                         * eff.sustained["Hopper"])  # fmt: skip
    assert tower_class(model.vision, shape, H100).compute_seconds == pytest.approx(compute + attention, rel=1e-9)
