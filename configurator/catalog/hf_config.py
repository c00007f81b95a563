"""Import a model from a Hugging Face ``config.json``: the config's fields normalised into a
:class:`ModelSpec` (:func:`model_from_hf_config`), and the file read (:func:`load_hf_config`).

Every failure of a file (unreadable file, bad JSON, unsupported ``model_type``, missing or malformed keys) is
a :class:`FileError` naming the file, the key and, where it can be found, the line.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from configurator.catalog.errors import FileError, Problem, short_repr, shorten
from configurator.catalog.model_spec import SUPPORTED_MODEL_TYPES, ModelSpec
from configurator.catalog.vision import VisionTower
from configurator.catalog.yamlio import read_text

# ---- a config.json's fields ----------------------------------------------------------------------------


class ConfigError(ValueError):
    """A config.json that cannot be read as a supported model; ``field`` names the key at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


# Defaults of the transformers config classes, per model_type, for keys a config.json may omit.
# Gemma2Config / Gemma3TextConfig(tie_word_embeddings=True); all others default to False
_TIE_DEFAULT = {"gemma2": True, "gemma3_text": True}
# Qwen3Config / Gemma2Config / Gemma3TextConfig / GptOssConfig head_dim
_HEAD_DIM_DEFAULT = {"qwen3": 128, "qwen3_moe": 128, "gemma2": 256, "gemma3_text": 256, "gpt_oss": 64}
# Gemma2Config / Gemma3TextConfig attn_logit_softcapping (50.0 / None; the released Gemma 2 config.json files
# set 50.0): the families whose eager_attention_forward applies it
_SOFTCAP_DEFAULT: dict[str, float | None] = {"gemma2": 50.0, "gemma3_text": None}
# Gemma3TextConfig's defaults for keys the published Gemma 3 config.json files leave out (gemma-3-4b-it's
# text_config gives no heads, KV heads or vocabulary): transformers reads these, so an import must too.
_CLASS_DEFAULTS = {"gemma3_text": {"num_attention_heads": 8, "num_key_value_heads": 4, "vocab_size": 262_208}}
# The vision tower each multimodal model_type carries (configurator/catalog/vision.py)
_VISION_KIND = {"gemma3": "siglip", "mllama": "mllama", "qwen2_5_vl": "qwen2_5_vl"}

# Keys the reader uses; a catalog entry may only use these (a typo must not pass silently).
KNOWN_CONFIG_KEYS = frozenset(
    {
        "model_type",
        "hidden_size",
        "num_hidden_layers",
        "intermediate_size",
        "num_attention_heads",
        "num_key_value_heads",
        "head_dim",
        "vocab_size",
        "tie_word_embeddings",
        "attention_bias",
        "mlp_bias",
        "num_local_experts",
        "num_experts",
        "num_experts_per_tok",
        "moe_intermediate_size",
        "shared_expert_intermediate_size",
        "decoder_sparse_step",
        "mlp_only_layers",
        "text_config",
        "vision_config",
        "mm_tokens_per_image",
        "cross_attention_layers",
        "quantization_config",
        # the sliding window and the layers that use it (_sliding_fields)
        "sliding_window",
        "layer_types",
        "sliding_window_pattern",
        "use_sliding_window",
        "max_window_layers",
        "attn_logit_softcapping",
    }
)
# Keys of a vision_config the reader uses (per vision kind; the rest of a real config is ignored on import but
# refused in a catalog entry, where a typo must not pass silently).
KNOWN_VISION_KEYS = frozenset(
    {
        "model_type", "hidden_size", "intermediate_size", "num_hidden_layers", "depth", "num_attention_heads",
        "num_heads", "attention_heads", "patch_size", "image_size", "num_channels", "in_chans", "out_hidden_size",
        "spatial_merge_size", "temporal_patch_size", "num_global_layers", "max_num_tiles", "vision_output_dim",
        "supported_aspect_ratios", "window_size", "fullatt_block_indexes",
    }
)  # fmt: skip


# Upper bounds on config.json sizes: about four times the largest published model's, so every real config
# passes and a typo or a hostile file (10^9 layers, a 400-digit vocab) is refused by name before any count.
# Largest published, for scale: hidden_size 16384, intermediate_size 53248, 126 layers and 128 heads
# (Llama 3.1 405B config.json); vocab_size 262144 (Gemma 3); head_dim 256 (Gemma 2); 512 experts
# (Qwen3-Next-80B-A3B).
CONFIG_LIMITS: dict[str, int] = {
    "hidden_size": 65_536,
    "num_hidden_layers": 1_024,
    "intermediate_size": 262_144,
    "num_attention_heads": 1_024,
    "num_key_value_heads": 1_024,
    "head_dim": 1_024,
    "vocab_size": 1_048_576,
    "num_local_experts": 4_096,
    "num_experts": 4_096,
    "num_experts_per_tok": 4_096,
    "moe_intermediate_size": 262_144,
    "shared_expert_intermediate_size": 262_144,
    "decoder_sparse_step": 1_024,
}


def names_file(ref: str) -> bool:
    """Whether a job's model reference names a Hugging Face config.json file (a path), not a catalog id: the rule
    the resolver, the build and plan files' checks, the planner's cell cache, the tracer and the job form share."""
    return ref.endswith(".json") or "/" in ref or "\\" in ref


def _int(config: dict[str, Any], key: str, default: int | None = None) -> int:
    value = config.get(key, default)
    if value is None:
        raise ConfigError(key, "required key is missing")
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)  # 4096.0: a whole number written as a float
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"must be a whole number, got {short_repr(value)}")
    limit = CONFIG_LIMITS.get(key)
    if value <= 0 or (limit is not None and value > limit):
        allowed = f"1 to {limit:,}" if limit is not None else "a positive number"
        what = short_repr(value) if value.bit_length() > 64 else f"{value:,}"
        raise ConfigError(key, f"must be {allowed} (no published model comes near the top), got {what}")
    return value


def _bool(config: dict[str, Any], key: str, default: bool) -> bool:
    value = config.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ConfigError(key, f"must be true or false, got {short_repr(value)}")
    return value


def _language_model(config: dict[str, Any], *, id: str, name: str, source: str) -> tuple[str, ModelSpec | None]:
    """The config's model_type, checked as supported; for a multimodal config (mllama, gemma3, llava ...)
    with a supported language model in text_config, that model read (with a note saying so)."""
    if not isinstance(config, dict):
        raise ConfigError("", f"a config must be a JSON object / mapping, got {type(config).__name__}")
    mt = config.get("model_type")
    if mt is None:
        raise ConfigError("model_type", "required key is missing")
    text = config.get("text_config")
    if mt not in SUPPORTED_MODEL_TYPES and isinstance(text, dict):
        # Multimodal configs (mllama, gemma3, llava ...) hold the language model in text_config: read that one.
        inner = text.get("model_type")
        if inner in SUPPORTED_MODEL_TYPES:
            try:
                spec = model_from_hf_config(text, id=id, name=name, source=source)
            except ConfigError as exc:  # name the key where it is: text_config.hidden_size
                raise ConfigError(f"text_config.{exc.field}" if exc.field else "text_config", exc.message) from None
            vision = config.get("vision_config")
            if str(mt) in _VISION_KIND and isinstance(vision, dict):
                assert spec.hidden_size is not None
                tower = _vision_tower(config, _VISION_KIND[str(mt)], spec.hidden_size)
                return str(mt), spec.model_copy(update={"vision": tower})
            note = (
                f"language model only: read from text_config of this {shorten(str(mt), 40)} config; the "
                "vision tower and projector are not counted"
            )
            return str(mt), spec.model_copy(update={"note": note})
        raise ConfigError("text_config.model_type", f"{short_repr(mt)} is a multimodal config whose language model "
                          f"(text_config) is {short_repr(inner)}, which is not supported; supported: "
                          f"{', '.join(SUPPORTED_MODEL_TYPES)}")  # fmt: skip
    if mt not in SUPPORTED_MODEL_TYPES:
        raise ConfigError("model_type", f"unsupported model type {short_repr(mt)}; supported: "
                          f"{', '.join(SUPPORTED_MODEL_TYPES)}")  # fmt: skip
    return str(mt), None


def _head_dim(config: dict[str, Any], mt: str, hidden: int, heads: int) -> int:
    """head_dim: the config's where the transformers class reads it, else hidden_size // num_attention_heads."""
    if mt in _HEAD_DIM_DEFAULT:
        return _int(config, "head_dim", _HEAD_DIM_DEFAULT[mt])
    if config.get("head_dim") is not None and mt in ("llama", "mistral", "mixtral", "mllama_text_model"):
        return _int(config, "head_dim")  # e.g. Llama 3.2: head_dim given explicitly
    # Qwen2, Qwen2-MoE, Qwen2.5-VL, Phi-3, Mllama text: hidden_size // num_attention_heads
    if hidden % heads:
        raise ConfigError("num_attention_heads", f"hidden_size {hidden} is not divisible by {heads}")
    return hidden // heads


def _layout_fields(config: dict[str, Any], mt: str, attention_bias: bool, fields: dict[str, Any]) -> None:
    """Biases, norms and fused projections as each model type's modelling code lays them out."""
    if mt in ("qwen2", "qwen2_moe", "qwen2_5_vl"):
        fields["qkv_bias"] = True  # modeling_qwen2: q/k/v_proj bias=True, o_proj bias=False
    elif mt in ("llama", "qwen3", "qwen3_moe", "gemma2", "gemma3_text", "gpt_oss"):
        fields["qkv_bias"] = fields["o_bias"] = attention_bias  # q, k, v and o all follow attention_bias
    if mt == "llama":
        fields["mlp_bias"] = _bool(config, "mlp_bias", False)
    if mt in ("qwen3", "qwen3_moe", "gemma3_text"):
        fields["qk_norm"] = True
    if mt in ("gemma2", "gemma3_text"):
        fields["norms_per_layer"] = 4  # input, post_attention, pre_feedforward, post_feedforward
    if mt == "gpt_oss":
        fields["attention_sinks"] = True  # GptOssAttention.sinks: one logit per head
    if mt in _SOFTCAP_DEFAULT:
        cap = config.get("attn_logit_softcapping", _SOFTCAP_DEFAULT[mt])
        if cap is not None:
            if isinstance(cap, bool) or not isinstance(cap, int | float) or not 0 < cap < math.inf:
                raise ConfigError("attn_logit_softcapping", f"must be a positive number or null, got {short_repr(cap)}")
            fields["attn_logit_softcapping"] = float(cap)
    if mt == "mllama_text_model":
        layers = config.get("cross_attention_layers") or []
        if not isinstance(layers, list) or len(layers) > fields["num_layers"]:
            raise ConfigError("cross_attention_layers", f"must be a list of at most {fields['num_layers']} layer "
                              f"numbers, got {short_repr(layers)}")  # fmt: skip
        fields["cross_attention_layers"] = len(layers)
        fields["extra_embedding_rows"] = 8  # MllamaTextModel: nn.Embedding(vocab_size + 8, hidden)
    if mt == "phi3":
        fields["fused_qkv"] = fields["fused_gate_up"] = True


# Transformers' config defaults where a config.json leaves the window out (Gemma2Config, Gemma3TextConfig,
# GptOssConfig: sliding_window 128 in transformers 5.24 configuration_gpt_oss.py, as openai/gpt-oss-20b's config.json)
_SLIDING_DEFAULT = {"gemma2": 4096, "gemma3_text": 4096, "gpt_oss": 128}


def _sliding_fields(config: dict[str, Any], mt: str, fields: dict[str, Any]) -> None:
    """The sliding window and the layers that use it, as Transformers builds ``layer_types``: given in the config,
    or by the family's rule (configuration_gemma2.py and configuration_gpt_oss.py: every other layer from the first,
    ``(i + 1) % 2``; configuration_gemma3.py:
    ``(i + 1) % sliding_window_pattern``, default 6; configuration_qwen2.py / qwen3: ``use_sliding_window`` from
    ``max_window_layers``; Mistral, Mixtral, Phi-3: every layer when ``sliding_window`` is set)."""
    layers = fields["num_layers"]
    window = config.get("sliding_window") or _SLIDING_DEFAULT.get(mt)
    types = config.get("layer_types")
    if isinstance(types, list) and len(types) == layers:
        sliding = tuple(i for i, t in enumerate(types) if t == "sliding_attention")
    elif mt == "gemma3_text":
        pattern = _int(config, "sliding_window_pattern", 6)
        sliding = tuple(i for i in range(layers) if (i + 1) % pattern)
    elif mt in ("gemma2", "gpt_oss"):
        sliding = tuple(i for i in range(layers) if (i + 1) % 2)
    elif mt in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
        first = config.get("max_window_layers")
        start = first if isinstance(first, int) and not isinstance(first, bool) else layers
        sliding = tuple(range(start, layers)) if config.get("use_sliding_window") else ()
    else:
        sliding = tuple(range(layers)) if window else ()
    if sliding and isinstance(window, int) and not isinstance(window, bool) and window > 0:
        fields["sliding_window"] = window
        fields["sliding_layers"] = sliding


def _moe_fields(config: dict[str, Any], mt: str, fields: dict[str, Any]) -> None:
    """Experts, experts per token and expert widths of the mixture-of-experts types."""
    if mt == "mixtral":
        # experts are w1 (gate), w3 (up), w2 (down) of width intermediate_size; router over num_local_experts
        fields["num_experts"] = _int(config, "num_local_experts")
        fields["num_experts_per_tok"] = _int(config, "num_experts_per_tok")
        fields["moe_intermediate_size"] = fields["intermediate_size"]
        fields["expert_module_names"] = ("w1", "w3", "w2")
    if mt in ("qwen2_moe", "qwen3_moe"):
        fields["num_experts"] = _int(config, "num_experts")
        fields["num_experts_per_tok"] = _int(config, "num_experts_per_tok")
        fields["moe_intermediate_size"] = _int(config, "moe_intermediate_size")
        fields["decoder_sparse_step"] = _int(config, "decoder_sparse_step", 1)
        only = config.get("mlp_only_layers") or []
        layers = fields["num_layers"]
        if (
            not isinstance(only, list)
            or len(only) > layers
            or any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < layers for i in only)
        ):
            raise ConfigError("mlp_only_layers", f"must be a list of layer numbers 0 to {layers - 1}, got "
                              f"{short_repr(only)}")  # fmt: skip
        fields["mlp_only_layers"] = tuple(sorted(set(only)))
    if mt == "gpt_oss":
        # GptOssMLP: router (bias) over num_local_experts; experts of width intermediate_size, gate_up fused
        fields["num_experts"] = _int(config, "num_local_experts")
        fields["num_experts_per_tok"] = _int(config, "num_experts_per_tok")
        fields["moe_intermediate_size"] = fields["intermediate_size"]
        fields["router_bias"] = fields["expert_bias"] = fields["fused_expert_gate_up"] = True
        quant = config.get("quantization_config")
        if isinstance(quant, dict) and quant.get("quant_method") == "mxfp4":
            fields["expert_format"] = "mxfp4"  # experts shipped as MXFP4; attention, router, embeddings bf16
    if mt == "qwen2_moe":
        fields["shared_expert_intermediate_size"] = _int(config, "shared_expert_intermediate_size")
        fields["shared_expert_gate"] = True


def _vision_tower(config: dict[str, Any], kind: str, out_hidden: int) -> VisionTower:
    """The vision_config of a gemma3 / mllama / qwen2_5_vl config as a VisionTower."""
    v = config["vision_config"]

    def first(*keys: str) -> int:
        key = next((k for k in keys if v.get(k) is not None), keys[0])
        try:
            return _int(v, key)
        except ConfigError as exc:
            raise ConfigError(f"vision_config.{exc.field}", exc.message) from None

    fields: dict[str, Any] = {
        "kind": kind,
        "hidden_size": first("hidden_size", "embed_dim"),
        "num_layers": first("num_hidden_layers", "depth"),
        "intermediate_size": first("intermediate_size"),
        "num_heads": first("num_attention_heads", "num_heads", "attention_heads"),
        "patch_size": first("patch_size"),
        "out_hidden_size": out_hidden,
        "num_channels": _int(v, "num_channels", _int(v, "in_chans", 3)),
    }
    if kind == "siglip":
        fields["image_size"] = first("image_size")
        fields["mm_tokens_per_image"] = _int(config, "mm_tokens_per_image", 256)
    elif kind == "qwen2_5_vl":
        fields["spatial_merge_size"] = _int(v, "spatial_merge_size", 2)
        fields["temporal_patch_size"] = _int(v, "temporal_patch_size", 2)
        fields["out_hidden_size"] = _int(v, "out_hidden_size", out_hidden)
        fields["window_size"] = _int(v, "window_size", 112)
        full = v.get("fullatt_block_indexes", [7, 15, 23, 31])  # Qwen2_5_VLVisionConfig's default
        depth = fields["num_layers"]
        if not isinstance(full, list) or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < depth
                                                 for i in full):  # fmt: skip
            raise ConfigError("vision_config.fullatt_block_indexes",
                              f"must be a list of block numbers 0 to {depth - 1}, got {short_repr(full)}")  # fmt: skip
        fields["full_attention_layers"] = len(set(full))
    else:  # mllama
        fields["image_size"] = first("image_size")
        fields["num_global_layers"] = first("num_global_layers")
        fields["max_num_tiles"] = first("max_num_tiles")
        fields["vision_output_dim"] = first("vision_output_dim")
        ratios = v.get("supported_aspect_ratios")
        if not isinstance(ratios, list) or not ratios:
            raise ConfigError("vision_config.supported_aspect_ratios", "must be a non-empty list of [w, h] tiles")
        fields["max_aspect_ratio_id"] = len(ratios)  # MllamaVisionConfig.max_aspect_ratio_id
    try:
        return VisionTower(**fields)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ConfigError(f"vision_config.{where}", shorten(err["msg"].removeprefix("Value error, "))) from None


def _model_spec(fields: dict[str, Any], heads: int) -> ModelSpec:
    """The fields as a ModelSpec, after the head and expert counts are checked against each other."""
    if heads % fields["num_key_value_heads"]:
        raise ConfigError(
            "num_key_value_heads",
            f"num_attention_heads {heads} is not a multiple of {fields['num_key_value_heads']}",
        )
    if fields.get("num_experts_per_tok", 0) > fields.get("num_experts", 0):
        raise ConfigError(
            "num_experts_per_tok",
            f"{fields['num_experts_per_tok']} is more than the {fields['num_experts']} experts",
        )
    try:
        return ModelSpec(**fields)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        msg = err["msg"].removeprefix("Value error, ")
        raise ConfigError(".".join(str(p) for p in err["loc"]), shorten(msg)) from None


def model_from_hf_config(config: dict[str, Any], *, id: str, name: str, source: str) -> ModelSpec:
    """Normalise a Hugging Face config.json (as a dict) into a ModelSpec.

    Raises ValueError (a :class:`ConfigError`, with ``field``) for unsupported model types and for
    missing or malformed keys.
    """
    mt, language_model = _language_model(config, id=id, name=name, source=source)
    if language_model is not None:
        return language_model
    defaults = _CLASS_DEFAULTS.get(mt, {})
    hidden = _int(config, "hidden_size")
    heads = _int(config, "num_attention_heads", defaults.get("num_attention_heads"))
    head_dim = _head_dim(config, mt, hidden, heads)
    attention_bias = _bool(config, "attention_bias", False)  # read first: its error comes before the sizes'
    fields: dict[str, Any] = {
        "id": id,
        "name": name,
        "source": source,
        "architecture": mt,
        "hidden_size": hidden,
        "num_layers": _int(config, "num_hidden_layers"),
        "intermediate_size": _int(config, "intermediate_size"),
        "num_attention_heads": heads,
        "num_key_value_heads": _int(config, "num_key_value_heads", defaults.get("num_key_value_heads", heads)),
        "head_dim": head_dim,  # (HF default above: = heads, MHA)
        "vocab_size": _int(config, "vocab_size", defaults.get("vocab_size")),
        "tie_word_embeddings": _bool(config, "tie_word_embeddings", _TIE_DEFAULT.get(mt, False)),
    }
    _layout_fields(config, mt, attention_bias, fields)
    _moe_fields(config, mt, fields)
    _sliding_fields(config, mt, fields)
    if mt in _VISION_KIND and isinstance(config.get("vision_config"), dict):  # Qwen2.5-VL: text at the top
        fields["vision"] = _vision_tower(config, _VISION_KIND[mt], hidden)
    return _model_spec(fields, heads)


# ---- a config.json file --------------------------------------------------------------------------------

_HASH = re.compile(r"^[0-9a-f]{40}$")


def _slug(text: str) -> str:
    """'Llama-3.1-8B' -> 'llama-3.1-8b'."""
    slug = re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")
    return slug or "model"


def _derive_name(path: Path, config: dict[str, Any]) -> str:
    """Model name: ``_name_or_path`` (last part), else the file's stem unless it is plain
    ``config.json``, else the HF cache folder (``models--org--name/snapshots/<hash>/``),
    else the parent folder.
    """
    given = config.get("_name_or_path")
    if isinstance(given, str) and given.strip():
        return given.strip().replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or given.strip()
    if path.stem.lower() != "config":
        return path.stem
    parent = path.parent
    if _HASH.match(parent.name) and parent.parent.name == "snapshots":
        cache = parent.parent.parent.name  # models--meta-llama--Llama-3.1-8B
        if cache.startswith("models--"):
            return cache.split("--")[-1]
    return parent.name or path.stem


def _line_of(text: str, key: str) -> int | None:
    """1-based line of the first ``"key":`` in the JSON text, if present."""
    if not key:
        return None
    m = re.search(r'"' + re.escape(key.split(".")[0]) + r'"\s*:', text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def read_config_object(path: str | os.PathLike[str]) -> tuple[str, dict[str, Any]]:
    """A config.json file's text and its one JSON object; FileError (with the line where JSON gives one) when it
    cannot be read or is not one JSON object."""
    where = str(path)
    text = read_text(path)  # raises FileError: not found, too large, not UTF-8
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileError(where, [Problem("", f"not valid JSON: {exc.msg} (column {exc.colno})", exc.lineno)]) from None
    except RecursionError:
        raise FileError(where, [Problem("", "not valid JSON: nested too deeply")]) from None
    except ValueError as exc:  # a number of more than 4,300 digits (Python's int conversion limit)
        m = re.search(r"\d{4000,}", text)
        line = text.count("\n", 0, m.start()) + 1 if m else None
        raise FileError(where, [Problem("", f"not valid JSON: a number too long to read ({shorten(str(exc), 80)})",
                                        line)]) from None  # fmt: skip
    if not isinstance(config, dict):
        raise FileError(where, [Problem("", "a config.json must hold one JSON object {...}", 1)])
    return text, config


def load_hf_config(path: str | os.PathLike[str]) -> ModelSpec:
    """Read a Hugging Face config.json into a ModelSpec (source = the file path)."""
    p = Path(path)
    where = str(p)
    text, config = read_config_object(p)
    name = shorten(_derive_name(p, config), 100)
    try:
        return model_from_hf_config(config, id=_slug(name), name=name, source=where)
    except ConfigError as exc:
        raise FileError(where, [Problem(exc.field, exc.message, _line_of(text, exc.field))]) from None
    except ValueError as exc:  # any other validation message
        raise FileError(where, [Problem("", shorten(str(exc)))]) from None
