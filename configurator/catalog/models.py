"""The model catalog, ``specs/models.yaml``: entries given as Hugging Face config.json fields or as a
parameter count alone (``architecture: params-only``).

The model itself, :class:`ModelSpec` and its parameter counts, is :mod:`configurator.catalog.model_spec`;
reading a config.json is :mod:`configurator.catalog.hf_config`. Both are re-exported here, where the rest of
the code imports them from.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from configurator.catalog.hf_config import (
    CONFIG_LIMITS,
    KNOWN_CONFIG_KEYS,
    KNOWN_VISION_KEYS,
    ConfigError,
    model_from_hf_config,
)
from configurator.catalog.model_spec import (
    PARAMS_ONLY,
    SUPPORTED_MODEL_TYPES,
    ArchitectureName,
    LinearModule,
    ModelSpec,
    ParamCounts,
)

__all__ = [
    "CONFIG_LIMITS",
    "KNOWN_CONFIG_KEYS",
    "PARAMS_ONLY",
    "SUPPORTED_MODEL_TYPES",
    "ArchitectureName",
    "ConfigError",
    "LinearModule",
    "ModelSpec",
    "ParamCounts",
    "load_models_yaml",
    "model_from_catalog_entry",
    "model_from_hf_config",
]

_ENTRY_KEYS = {"id", "name", "source", "note", "family", "config", "parameters", "adapter_fraction"}


def _unknown_config_keys(config: dict[str, Any]) -> list[str]:
    """Keys of a catalog config (and of its text_config / vision_config) the reader does not use."""
    unknown = [str(k) for k in set(config) - KNOWN_CONFIG_KEYS]
    text = config.get("text_config")
    if isinstance(text, dict):
        unknown += [f"text_config.{k}" for k in set(text) - KNOWN_CONFIG_KEYS]
    vision = config.get("vision_config")
    if isinstance(vision, dict):
        unknown += [f"vision_config.{k}" for k in set(vision) - KNOWN_VISION_KEYS]
    return sorted(unknown)


def _entry(raw: Any, index: int) -> ModelSpec:
    if not isinstance(raw, dict):
        raise ValueError(f"models[{index}]: an entry must be a mapping")
    ident = raw.get("id")
    label = f"model {ident!r}" if ident else f"models[{index}]"
    extra = set(raw) - _ENTRY_KEYS
    if extra:
        raise ValueError(f"{label}: unknown key(s) {', '.join(sorted(map(str, extra)))}")
    for key in ("id", "name", "source"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise ValueError(f"{label}: '{key}' is required (text)")
    has_config, has_params = "config" in raw, "parameters" in raw
    if has_config == has_params:
        raise ValueError(f"{label}: give exactly one of 'config' (HF config.json fields) or 'parameters'")
    try:
        if has_config:
            config = raw["config"]
            if not isinstance(config, dict):
                raise ValueError("'config' must be a mapping of HF config.json fields")
            unknown = _unknown_config_keys(config)
            if unknown:
                raise ValueError(f"config has key(s) the reader does not use: {', '.join(unknown)}")
            if "adapter_fraction" in raw:
                raise ValueError("'adapter_fraction' is only for params-only entries")
            spec = model_from_hf_config(config, id=raw["id"], name=raw["name"], source=raw["source"])
            update = {k: raw[k] for k in ("note", "family") if raw.get(k)}
            if "family" in raw and not isinstance(raw["family"], str):
                raise ValueError("'family' must be text")
            return spec.model_copy(update=update) if update else spec
        params = raw["parameters"]
        if isinstance(params, float) and params.is_integer():
            params = int(params)  # YAML reads 30e9 as a float
        extra_fields = {"adapter_fraction": raw["adapter_fraction"]} if "adapter_fraction" in raw else {}
        return ModelSpec(
            id=raw["id"],
            name=raw["name"],
            source=raw["source"],
            note=raw.get("note"),
            family=raw.get("family"),
            architecture=PARAMS_ONLY,
            parameters=params,
            **extra_fields,
        )
    except ValidationError as exc:
        msgs = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(entry)'}: {e['msg']}" for e in exc.errors(include_url=False)
        )
        raise ValueError(f"{label}: {msgs}") from None
    except ValueError as exc:
        raise ValueError(f"{label}: {exc}") from None


def load_models_yaml(data: dict[str, Any]) -> list[ModelSpec]:
    """Build the models of a parsed ``specs/models.yaml``; ValueError naming the entry on a bad one."""
    if not isinstance(data, dict):
        raise ValueError("models.yaml must be a mapping with 'schema_version' and 'models'")
    if data.get("schema_version") != 1:
        raise ValueError(f"schema_version must be 1, got {data.get('schema_version')!r}")
    extra = set(data) - {"schema_version", "models"}
    if extra:
        raise ValueError(f"unknown top-level key(s) {', '.join(sorted(map(str, extra)))}")
    entries = data.get("models")
    if not isinstance(entries, list) or not entries:
        raise ValueError("'models' must be a non-empty list")
    models = [_entry(raw, i) for i, raw in enumerate(entries)]
    seen: set[str] = set()
    for m in models:
        if m.id in seen:
            raise ValueError(f"model {m.id!r}: id appears twice")
        seen.add(m.id)
    return models


def model_from_catalog_entry(raw: Any) -> ModelSpec:
    """One ``specs/models.yaml`` entry (the catalog loader adds the file position to errors)."""
    return _entry(raw, 0)
