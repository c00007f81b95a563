"""What a vision-language job's images add (engine/memory/vision.py), figure by figure: the processor's resize and
its pixel bounds, the tokens in the language model's sequence, what trains, and the Job's own refusals."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from configurator.catalog.loader import default_catalog
from configurator.engine.memory import vision
from configurator.engine.memory.estimate import memory_for_card
from configurator.engine.memory.states import job_parameters
from configurator.engine.model.build import Job

CATALOG = default_catalog()
QWEN, GEMMA, MLLAMA = (CATALOG.models[m] for m in ("qwen2.5-vl-7b", "gemma-3-4b", "llama-3.2-11b-vision"))


def _job(**kw: object) -> Job:
    return Job.model_validate({"name": "t", "model": "x", "method": "lora", **kw})


def test_qwen_resize_keeps_within_the_shipped_max_pixels() -> None:
    v = QWEN.vision
    assert v is not None
    assert v.resized(1024, 1024) == (1036, 1036)  # rounded to 28 px: 37 tokens a side
    # 4096 x 4096 is 16.8 M pixels, over max_pixels 12845056: scaled by sqrt(16.8 M / 12.8 M), floored to 28 px
    w, h = v.resized(4096, 4096)
    assert (w, h) == (3584, 3584) and w * h <= v.max_pixels
    assert v.resized(20, 20) == (56, 56)  # under min_pixels 3136: scaled up to 56 px
    assert v.image_tokens(4096, 4096) == (3584 // 28) ** 2


def test_image_tokens_lengthen_the_language_models_sequence() -> None:
    job = _job(sequence_length=1000, images_per_sample=3, image_resolution=448)
    assert vision.image_tokens(QWEN, job) == 3 * 256
    assert vision.language_view(QWEN, job).sequence_length == 1000 + 768
    assert vision.image_tokens(GEMMA, job) == 3 * 256  # pooled to mm_tokens_per_image, whatever the resolution
    assert vision.image_tokens(MLLAMA, job) == 0  # cross-attended tiles: no tokens in the text
    assert vision.language_view(CATALOG.models["llama-3.1-8b"], job).sequence_length == 1000  # no tower, no tokens


def test_what_trains_full_lora_and_qlora() -> None:
    tower = QWEN.vision
    assert tower is not None
    full = job_parameters(QWEN, _job(method="full", images_per_sample=1))
    assert full.trainable == QWEN.total_params - tower.params()  # frozen tower
    trained = job_parameters(QWEN, _job(method="full", images_per_sample=1, train_vision_tower=True))
    assert trained.trainable == QWEN.total_params
    lora = job_parameters(QWEN, _job(images_per_sample=1))
    lora_tower = job_parameters(QWEN, _job(images_per_sample=1, train_vision_tower=True))
    assert lora_tower.trainable - lora.trainable == sum(16 * (i + o) * n for _, i, o, n in tower.linear_shapes())
    # the tower's linears are quantised with the language model's under QLoRA
    tower_linear = sum(i * o * n for _, i, o, n in tower.linear_shapes())
    assert lora.frozen_linear == QWEN.param_counts().block_linear + tower_linear


def test_a_frozen_tower_keeps_activations_only_under_checkpointing() -> None:
    images = {"images_per_sample": 2, "image_resolution": 448}
    assert vision.tower_saved_bytes(QWEN, _job(**images, gradient_checkpointing=False)) == 0.0
    kept = vision.tower_saved_bytes(QWEN, _job(**images, gradient_checkpointing=True))
    assert kept > 32 * 2 * 1280 * 2 * 1024  # at least every block's bf16 input over 2 x 1024 patches
    # a whole trained tower without checkpointing keeps far more than the checkpointed inputs
    whole = vision.tower_saved_bytes(QWEN, _job(**images, gradient_checkpointing=False, train_vision_tower=True))
    assert whole > 10 * kept


def test_more_images_need_more_memory() -> None:
    peaks = [max(memory_for_card(QWEN, _job(images_per_sample=n, image_resolution=672)).phase_allocated().values())
             for n in (0, 1, 4)]  # fmt: skip
    assert peaks[0] < peaks[1] < peaks[2]


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"train_vision_tower": True}, "train_vision_tower needs images_per_sample of at least 1"),
        ({"images_per_sample": 65}, "less than or equal to 64"),
        ({"images_per_sample": 1, "image_resolution": 10}, "greater than or equal to 28"),
    ],
)
def test_the_job_refuses_impossible_image_settings(fields: dict[str, object], words: str) -> None:
    with pytest.raises(ValidationError, match=words):
        _job(**fields)
