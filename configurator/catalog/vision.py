"""The vision tower of a vision-language model: its encoder and the projector into the language model, with
exact parameter counts and the image tokens a picture becomes.

Three layouts, each counted module by module from its transformers modelling code:

- ``siglip``: Gemma 3 (``modeling_siglip.py`` SiglipVisionTransformer without head; ``modeling_gemma3.py``
  Gemma3MultiModalProjector: ``mm_input_projection_weight`` (vision hidden x text hidden) and
  ``mm_soft_emb_norm``, an RMSNorm of the vision hidden size). Every image is resized to ``image_size`` and
  pooled to ``mm_tokens_per_image`` tokens (256) in the language model.
- ``qwen2_5_vl``: Qwen2.5-VL (``modeling_qwen2_5_vl.py`` Qwen2_5_VisionTransformerPretrainedModel: a Conv3d
  patch embedding without bias over ``temporal_patch_size`` x patch x patch, blocks with RMSNorms, a fused
  qkv and proj with bias, a gated MLP with bias, and the PatchMerger: RMSNorm, Linear(h x m^2, h x m^2),
  GELU, Linear(h x m^2, out)). An image keeps its aspect ratio, resized to multiples of patch x merge
  (``smart_resize`` in ``image_processing_qwen2_vl.py``); every merge x merge patches become one token.
- ``mllama``: Llama 3.2 Vision (``modeling_mllama.py`` MllamaVisionModel: patch Conv2d without bias, a class
  embedding, gated position and tile embeddings, a local encoder and a gated global encoder of LayerNorm
  layers, and MllamaMultiModalProjector Linear(vision_output_dim, text hidden)). An image is cut into up to
  ``max_num_tiles`` tiles of ``image_size``; the text attends to them through cross-attention layers, so
  they add no tokens to the text sequence.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, model_validator

from configurator.catalog.sourced import Strict

VisionKind = Literal["siglip", "qwen2_5_vl", "mllama"]


def _layernorm(h: int) -> int:
    return 2 * h  # weight and bias


def _linear(i: int, o: int, bias: bool = True) -> int:
    return i * o + (o if bias else 0)


class VisionTower(Strict):
    """A vision encoder and its projector, as the fields of the config's ``vision_config``."""

    kind: VisionKind
    hidden_size: int = Field(gt=0, le=65_536)
    num_layers: int = Field(gt=0, le=1_024)  # mllama: the local encoder's layers
    intermediate_size: int = Field(gt=0, le=262_144)
    num_heads: int = Field(gt=0, le=1_024)
    patch_size: int = Field(gt=0, le=1_024)
    image_size: int | None = Field(default=None, gt=0, le=65_536)  # siglip: the fixed input; mllama: a tile
    out_hidden_size: int = Field(gt=0, le=65_536)  # the language model's hidden size (projector output)
    num_channels: int = Field(default=3, gt=0, le=16)
    # siglip (Gemma 3)
    mm_tokens_per_image: int = Field(default=256, gt=0, le=1_000_000)
    # qwen2_5_vl
    spatial_merge_size: int = Field(default=1, gt=0, le=64)
    temporal_patch_size: int = Field(default=1, gt=0, le=64)
    # smart_resize's pixel bounds as Qwen/Qwen2.5-VL-7B-Instruct's preprocessor_config.json ships them (min_pixels
    # 3136, max_pixels 12845056; the image processor's own defaults, 56 x 56 and 28 x 28 x 1280, are overridden)
    min_pixels: int = Field(default=3136, gt=0, le=1 << 40)
    max_pixels: int = Field(default=12845056, gt=0, le=1 << 40)
    window_size: int = Field(default=112, gt=0, le=65_536)  # windowed attention's side in pixels (Qwen2.5-VL)
    # blocks with full attention over the image, the rest windowed (Qwen2.5-VL's fullatt_block_indexes; transformers
    # configuration_qwen2_5_vl.py Qwen2_5_VLVisionConfig's default [7, 15, 23, 31]: four of 32)
    full_attention_layers: int = Field(default=4, ge=0, le=1_024)
    # mllama
    num_global_layers: int = Field(default=0, ge=0, le=1_024)
    max_num_tiles: int = Field(default=1, gt=0, le=64)
    vision_output_dim: int = Field(default=0, ge=0, le=262_144)
    max_aspect_ratio_id: int = Field(default=0, ge=0, le=1_024)

    # ---- parameters ------------------------------------------------------------------------------------

    @model_validator(mode="after")
    def _needs_image_size(self) -> VisionTower:
        if self.kind != "qwen2_5_vl" and self.image_size is None:
            raise ValueError(f"a {self.kind} vision tower needs image_size")
        return self

    @property
    def _side(self) -> int:
        assert self.image_size is not None
        return self.image_size

    def encoder_params(self) -> int:
        """Parameters of the vision encoder (without the projector)."""
        h, f, p, c = self.hidden_size, self.intermediate_size, self.patch_size, self.num_channels
        if self.kind == "siglip":
            patches = (self._side // p) ** 2
            embed = _linear(c * p * p, h) + patches * h  # patch Conv2d with bias + position embedding
            layer = 2 * _layernorm(h) + 4 * _linear(h, h) + _linear(h, f) + _linear(f, h)
            return embed + self.num_layers * layer + _layernorm(h)  # + post_layernorm
        if self.kind == "qwen2_5_vl":
            embed = c * self.temporal_patch_size * p * p * h  # Conv3d, bias=False
            block = 2 * h + _linear(h, 3 * h) + _linear(h, h) + 2 * _linear(h, f) + _linear(f, h)
            return embed + self.num_layers * block
        # mllama
        patches = (self._side // p) ** 2 + 1  # + the class token
        tiles, ratios = self.max_num_tiles, self.max_aspect_ratio_id + 1
        embed = c * p * p * h + h  # patch Conv2d (bias=False) + class_embedding
        embed += patches * h + 1 + ratios * tiles * patches * h  # gated position embedding + tile embedding
        embed += 2 * (ratios * tiles * h + 1)  # pre- and post-tile position embeddings with their gates
        layer = 4 * h * h + _linear(h, f) + _linear(f, h) + 2 * _layernorm(h)  # attention without bias
        return (embed + 2 * _layernorm(h) + self.num_layers * layer
                + self.num_global_layers * (layer + 2))  # fmt: skip  # global layers: + attn and ffn gates

    def projector_params(self) -> int:
        h, o = self.hidden_size, self.out_hidden_size
        if self.kind == "siglip":
            return h * o + h  # mm_input_projection_weight (no bias) + mm_soft_emb_norm
        if self.kind == "qwen2_5_vl":
            merged = h * self.spatial_merge_size**2
            return h + _linear(merged, merged) + _linear(merged, o)  # ln_q + mlp[0] + mlp[2]
        return _linear(self.vision_output_dim, o)

    def params(self) -> int:
        return self.encoder_params() + self.projector_params()

    # ---- images ----------------------------------------------------------------------------------------

    def image_tokens(self, width: int, height: int) -> int:
        """Tokens one image of ``width`` x ``height`` pixels adds to the language model's sequence (mllama:
        0, its image enters through cross-attention)."""
        if width <= 0 or height <= 0:
            raise ValueError(f"an image must have a positive size, got {width} x {height}")
        if self.kind == "siglip":
            return self.mm_tokens_per_image  # resized to image_size, pooled (Gemma3MultiModalProjector)
        if self.kind == "qwen2_5_vl":
            m = self.spatial_merge_size
            return self.encoder_tokens(width, height) // (m * m)
        return 0

    def resized(self, width: int, height: int) -> tuple[int, int]:
        """(width, height) the processor resizes an image to: Qwen2.5-VL's ``smart_resize``
        (transformers models/qwen2_vl/image_processing_qwen2_vl.py): each side rounded to a multiple of patch x
        merge, scaled down (floor) above max_pixels or up (ceil) below min_pixels keeping the aspect ratio; siglip
        and mllama tiles: image_size a side."""
        if self.kind != "qwen2_5_vl":
            return self._side, self._side
        factor = self.patch_size * self.spatial_merge_size
        h_bar, w_bar = round(height / factor) * factor, round(width / factor) * factor
        if h_bar * w_bar > self.max_pixels:
            beta = math.sqrt(height * width / self.max_pixels)
            h_bar = max(factor, math.floor(height / beta / factor) * factor)
            w_bar = max(factor, math.floor(width / beta / factor) * factor)
        elif h_bar * w_bar < self.min_pixels:
            beta = math.sqrt(self.min_pixels / (height * width))
            h_bar = math.ceil(height * beta / factor) * factor
            w_bar = math.ceil(width * beta / factor) * factor
        return w_bar, h_bar

    def linear_shapes(self) -> list[tuple[str, int, int, int]]:
        """(name, in, out, count) of every nn.Linear of the encoder and projector: what PEFT's all-linear adapts
        there (Gemma 3's projector is a bare weight, not a Linear; mllama's attention has no bias)."""
        h, f, layers = self.hidden_size, self.intermediate_size, self.num_layers
        if self.kind == "siglip":  # modeling_siglip.py SiglipAttention q/k/v/out_proj, SiglipMLP fc1, fc2
            return [("q_proj", h, h, layers), ("k_proj", h, h, layers), ("v_proj", h, h, layers),
                    ("out_proj", h, h, layers), ("fc1", h, f, layers), ("fc2", f, h, layers)]  # fmt: skip
        if self.kind == "qwen2_5_vl":  # Qwen2_5_VLVisionAttention qkv, proj; Qwen2_5_VLMLP; the PatchMerger's mlp
            merged = h * self.spatial_merge_size**2
            return [("qkv", h, 3 * h, layers), ("proj", h, h, layers), ("gate_proj", h, f, layers),
                    ("up_proj", h, f, layers), ("down_proj", f, h, layers), ("mlp.0", merged, merged, 1),
                    ("mlp.2", merged, self.out_hidden_size, 1)]  # fmt: skip
        total = layers + self.num_global_layers  # MllamaVisionEncoderLayer: q/k/v/o_proj, fc1, fc2
        return [("q_proj", h, h, total), ("k_proj", h, h, total), ("v_proj", h, h, total), ("o_proj", h, h, total),
                ("fc1", h, f, total), ("fc2", f, h, total),
                ("multi_modal_projector", self.vision_output_dim, self.out_hidden_size, 1)]  # fmt: skip

    def encoder_tokens(self, width: int, height: int) -> int:
        """Tokens the vision encoder runs on for one image."""
        if width <= 0 or height <= 0:
            raise ValueError(f"an image must have a positive size, got {width} x {height}")
        p = self.patch_size
        if self.kind == "siglip":
            return (self._side // p) ** 2
        if self.kind == "qwen2_5_vl":
            w_bar, h_bar = self.resized(width, height)
            return (h_bar // p) * (w_bar // p)
        # mllama: tiles of image_size, as many as cover the image, at most max_num_tiles
        tiles = min(self.max_num_tiles, math.ceil(width / self._side) * math.ceil(height / self._side))
        return tiles * ((self._side // p) ** 2 + 1)
