"""Import a model from a Hugging Face ``config.json`` file.

Every failure (unreadable file, bad JSON, unsupported ``model_type``, missing or malformed keys) is a
:class:`FileError` naming the file, the key and, where it can be found, the line.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from configurator.catalog.errors import FileError, Problem, shorten
from configurator.catalog.models import ConfigError, ModelSpec, model_from_hf_config
from configurator.catalog.yamlio import read_text

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


def load_hf_config(path: str | os.PathLike[str]) -> ModelSpec:
    """Read a Hugging Face config.json into a ModelSpec (source = the file path)."""
    p = Path(path)
    where = str(p)
    text = read_text(p)  # raises FileError: not found, too large, not UTF-8
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
    name = shorten(_derive_name(p, config), 100)
    try:
        return model_from_hf_config(config, id=_slug(name), name=name, source=where)
    except ConfigError as exc:
        raise FileError(where, [Problem(exc.field, exc.message, _line_of(text, exc.field))]) from None
    except ValueError as exc:  # any other validation message
        raise FileError(where, [Problem("", shorten(str(exc)))]) from None
