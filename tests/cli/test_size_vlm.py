"""`configurator size` on a vision-language job (issue 27, Done means): Qwen2.5-VL-7B LoRA with 4 images of
1024 x 1024 a sample. The report names the images, their tokens and the tower with sources, and the memory adds
up: the language model sized at text + image tokens, plus the pixel inputs; a trained tower adds its LoRA."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from configurator.cli import main

JOB = {"name": "vl", "model": "qwen2.5-vl-7b", "method": "lora", "sequence_length": 1024, "images_per_sample": 4,
       "image_resolution": 1024, "cards": [1]}  # fmt: skip


def _size(tmp_path: Path, capsys: pytest.CaptureFixture[str], *jobs: dict, as_json: bool = False) -> str:
    path = tmp_path / "vl.yaml"
    path.write_text(yaml.safe_dump({"name": "VL", "chassis": "generic-server-8",
                                    "cards": [{"slot": 1, "card": "h200-nvl"}], "jobs": list(jobs)}))  # fmt: skip
    rc = main(["size", str(path), *(["--json"] if as_json else [])])
    out = capsys.readouterr().out
    assert rc == 0, out
    return out


def test_size_names_images_tokens_and_tower_with_sources(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _size(tmp_path, capsys, JOB)
    # smart_resize: 1024 px rounds to 1036 = 37 x 28 px; 74 x 74 patches of 14 px, one token per 2 x 2
    assert "images: 4 per sample of 1024 × 1024 px, resized to 1036 × 1036, 5,476 encoder patches" in out
    assert "1,369 tokens each: language model sequence 1,024 text + 5,476 image = 6,500 tokens" in out
    assert "vision tower: 676.6 M parameters, frozen; in activ: pixel inputs 0.10 GB, tower activations 2.03 GB" in out
    sources = [line for line in out.splitlines() if line.strip().startswith("source:")]
    assert any("smart_resize" in s for s in sources) and any("modeling_qwen2_5_vl.py" in s for s in sources)
    assert "compute per step" in out and "on 6,500 tokens" in out  # the step runs the image tokens too
    # the tower is in the step time as its own op class (engine/time/steptime/vision.py), said with its FLOPs: frozen
    # under the Trainer's checkpointing its blocks run forward, backward and the recompute, so at least three
    # times the forward's 2 FLOPs per weight and patch
    weights = 32 * 1280 * (3 * 1280 + 1280 + 3 * 3420) + 5120 * 5120 + 5120 * 3584
    note = next(line for line in out.splitlines() if "the vision tower is timed as its own op class" in line)
    assert note.rstrip().endswith("a step over 21,904 patches")
    tflop = float(note.split("op class: ")[1].split(" TFLOP")[0].replace(",", ""))
    assert tflop >= 3 * 2 * weights * 4 * 5476 / 1e12 * 0.98


def test_memory_is_the_language_model_at_text_plus_image_tokens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = {**JOB, "name": "text", "images_per_sample": 0, "sequence_length": 6500}
    result = json.loads(_size(tmp_path, capsys, JOB, text, as_json=True))
    vl, plain = result["jobs"]
    card, card_text = vl["cards"][0], plain["cards"][0]
    assert vl["vision"]["sequence_tokens"] == 6500
    # the float32 pixel inputs, 4 x 5476 x 1176 values
    assert vl["vision"]["pixel_gb"] == pytest.approx(4 * 5476 * 3 * 2 * 14 * 14 * 4 / 1e9)
    # the frozen tower under gradient checkpointing (enable_input_require_grads hooks its patch embedding): its 32
    # blocks' bf16 inputs, the patch embedding's output and the fp32 rotary cos / sin (head_dim 80), the merger's
    # fp32 norm input and GELU's input, per patch
    h = 1280
    per_patch = 32 * 2 * h + 2 * h + 2 * 4 * 80 + 4 * h + 2 * h
    assert vl["vision"]["tower_activations_gb"] == pytest.approx(per_patch * 4 * 5476 / 1e9)
    extra = vl["vision"]["pixel_gb"] + vl["vision"]["tower_activations_gb"]
    assert card["activations_gb"] - card_text["activations_gb"] == pytest.approx(extra, abs=1e-6)
    assert card["weights_gb"] == pytest.approx(8_292_166_656 * 2 / 1e9, rel=1e-3)  # bf16 base, tower included
    assert vl["fits"] and 25 < card["peak_reserved_gb"] < 60


def test_a_trained_tower_adds_its_adapters_and_activations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trained = {**JOB, "name": "tower", "train_vision_tower": True}
    frozen, tower = json.loads(_size(tmp_path, capsys, JOB, trained, as_json=True))["jobs"]
    # PEFT all-linear on the tower: qkv, proj, gate, up, down in 32 blocks and the merger's two linears, rank 16
    h, f, m = 1280, 3420, 1280 * 4
    block = (h + 3 * h) + (h + h) + 2 * (h + f) + (f + h)
    expected = 16 * (32 * block + (m + m) + (m + 3584))
    assert tower["params_trainable"] - frozen["params_trainable"] == expected
    assert tower["vision"]["tower"] == "LoRA"
    # checkpointed: each block's bf16 input over 4 x 5476 patches, the stem as frozen, and the PatchMerger's (mixed
    # BF16: the adapters' inputs are bf16 casts): RMSNorm's fp32 input, GELU's bf16 input, two 4h-wide LoRA inputs
    # and A outputs per merged token of 4 patches
    merger = 4 * h + 2 * h + 2 * (2 * 4 * h + 2 * 16) / 4
    stem = 2 * h + 2 * 4 * 80
    assert tower["vision"]["tower_activations_gb"] == pytest.approx((32 * 2 * h + stem + merger) * 4 * 5476 / 1e9)
    assert tower["cards"][0]["peak_reserved_gb"] > frozen["cards"][0]["peak_reserved_gb"]


def test_train_vision_tower_without_images_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"chassis": "generic-server-8", "jobs": [
        {**JOB, "images_per_sample": 0, "train_vision_tower": True}]}))  # fmt: skip
    assert main(["size", str(path)]) == 2
    assert "train_vision_tower needs images_per_sample of at least 1" in capsys.readouterr().err
