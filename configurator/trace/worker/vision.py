"""A vision-language job's inputs on meta tensors, shaped as the model's own processor shapes them.

- Qwen2.5-VL (transformers ``image_processing_qwen2_vl.py``): each image resized by ``smart_resize`` to multiples
  of patch x merge (28 px) within the shipped preprocessor_config.json's pixel bounds (min_pixels 3136, max_pixels
  12845056), cut into patches of temporal_patch_size x patch x patch values per channel: ``pixel_values`` of
  (patches, 3 x 2 x 14 x 14) float32 and ``image_grid_thw`` (1, h / 14, w / 14) per image; every 2 x 2 patches
  become one image token in the text (``processing_qwen2_5_vl.py``: grid_thw.prod() // merge_size**2).
  ``image_grid_thw`` is a real CPU tensor: the vision tower reads its values (rotary positions, windows, cu_seqlens).
- Gemma 3 (``image_processing_gemma3.py``, ``processing_gemma3.py``): each image resized to image_size (896) x
  image_size, ``pixel_values`` (images, 3, 896, 896) float32; mm_tokens_per_image (256) image tokens each, and
  ``token_type_ids`` marking them (the processor returns them and the model's training forward makes its
  bidirectional image mask from them).

Image tokens sit at the start of the sample, before the text; on meta their position does not change a shape.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from configurator.trace.worker.request import Job, RequestError

# Qwen/Qwen2.5-VL-7B-Instruct preprocessor_config.json
QWEN_MIN_PIXELS = 3136
QWEN_MAX_PIXELS = 12845056
VISION_KINDS = ("qwen2_5_vl", "gemma3")


@dataclass
class VisionInputs:
    image_tokens: int  # per sample, in the language model's sequence
    encoder_patches: int  # per image, the vision encoder's sequence
    kwargs: dict[str, Any] = field(default_factory=dict)  # pixel inputs for the model's forward
    tracked: list[torch.Tensor] = field(default_factory=list)  # inputs that live on the card
    note: str = ""


def smart_resize(height: int, width: int, factor: int, min_pixels: int, max_pixels: int) -> tuple[int, int]:
    """transformers models/qwen2_vl/image_processing_qwen2_vl.py smart_resize, line for line (that module imports
    torchvision, which the trace environment does not have)."""
    if max(height, width) / min(height, width) > 200:
        raise RequestError("absolute aspect ratio must be smaller than 200")
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def vision_inputs(job: Job, config: Any, batch: int) -> VisionInputs:
    """The pixel inputs of one micro-batch of ``batch`` samples, each with ``job.images_per_sample`` images."""
    kind = config.model_type
    n = job.images_per_sample * batch
    if kind == "qwen2_5_vl":
        _positions_on_meta()
        v = config.vision_config
        factor = v.patch_size * v.spatial_merge_size
        h, w = smart_resize(job.image_height, job.image_width, factor=factor, min_pixels=QWEN_MIN_PIXELS,
                            max_pixels=QWEN_MAX_PIXELS)  # fmt: skip
        gh, gw = h // v.patch_size, w // v.patch_size
        patches = gh * gw
        per_patch = v.in_channels * v.temporal_patch_size * v.patch_size * v.patch_size
        pixels = torch.empty((n * patches, per_patch), dtype=torch.float32, device="meta")
        grid = torch.tensor([[1, gh, gw]] * n, dtype=torch.long)
        tokens = patches // (v.spatial_merge_size**2)
        note = (f"{job.images_per_sample} image(s) of {job.image_width} x {job.image_height} per sample: smart_resize "
                f"to {w} x {h}, {patches} patches, {tokens} image tokens each")  # fmt: skip
        return VisionInputs(job.images_per_sample * tokens, patches, {"pixel_values": pixels, "image_grid_thw": grid},
                            [pixels], note)  # fmt: skip
    if kind == "gemma3":
        v = config.vision_config
        pixels = torch.empty((n, v.num_channels, v.image_size, v.image_size), dtype=torch.float32, device="meta")
        tokens = config.mm_tokens_per_image
        patches = (v.image_size // v.patch_size) ** 2
        note = (f"{job.images_per_sample} image(s) per sample resized to {v.image_size} x {v.image_size}: {patches} "
                f"patches, pooled to {tokens} image tokens each")  # fmt: skip
        return VisionInputs(job.images_per_sample * tokens, patches, {"pixel_values": pixels}, [pixels], note)
    raise RequestError(f"images are traced for {', '.join(VISION_KINDS)} configs, not {kind!r}")


def _positions_on_meta() -> None:
    """The tower's rotary positions are computed from image_grid_thw's values (vision_utils.py
    get_vision_position_ids), so on the CPU; on a GPU they are made on the card, where the rotary embedding's meta
    tensors need them: moved to meta (a few bytes a patch, as on the card). Windows and cu_seqlens stay CPU index
    tensors, which indexing accepts on any device."""
    # one model family's module: loaded for Qwen2.5-VL jobs only
    import transformers.models.qwen2_5_vl.modeling_qwen2_5_vl as mq

    original = mq.get_vision_position_ids
    if getattr(original, "_traced", False):
        return

    def on_meta(*args: Any, **kwargs: Any) -> torch.Tensor:
        return original(*args, **kwargs).to("meta")

    on_meta._traced = True  # type: ignore[attr-defined]
    mq.get_vision_position_ids = on_meta


def tower_prefixes(model: Any) -> tuple[str, ...]:
    """Module-name prefixes of the vision tower and its projector (as named inside the PEFT-less model)."""
    names = [n for n, _m in model.named_modules()]
    found = tuple(p for p in ("model.visual", "model.vision_tower", "model.multi_modal_projector") if p in names)
    if not found:
        raise RequestError("no vision tower found in the model (model.visual / model.vision_tower)")
    return found


def lora_target_names(model: Any, targets: str | tuple[str, ...], train_tower: bool) -> list[str]:
    """Full names of the linears LoRA adapts: the language model's matching ``targets`` (all-linear: every linear
    but lm_head), and with a trained tower every linear of the tower and projector (what PEFT's all-linear takes
    there: peft/tuners/tuners_utils.py _maybe_include_all_linear_layers keeps every nn.Linear but the output
    embedding)."""
    tower = tower_prefixes(model)
    names: list[str] = []
    for name, module in model.named_modules():
        if not isinstance(module, nn.Linear) and type(module).__name__ != "Linear4bit":
            continue
        if name.endswith("lm_head"):
            continue
        in_tower = name.startswith(tower)
        if in_tower:
            if train_tower:
                names.append(name)
        elif targets == "all-linear" or name.rsplit(".", 1)[-1] in targets:
            names.append(name)
    return names
