"""Load and index the YAML catalogs in ``specs/``.

The catalogs ship inside the wheel as ``configurator/specs``; in a source checkout they
are read from the top-level ``specs/`` folder.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import ValidationError

from configurator.catalog.cards import CardSpec
from configurator.catalog.chassis import ChassisSpec
from configurator.catalog.errors import FileError, Problem, UnknownIdError
from configurator.catalog.models import ModelSpec, model_from_catalog_entry
from configurator.catalog.yamlio import parse_yaml, read_text, validation_problems

CATALOG_SCHEMA_VERSION = 1


class _Entry(Protocol):
    @property
    def id(self) -> str: ...


E = TypeVar("E", bound=_Entry)


def specs_dir() -> Path:
    """Installed wheel: configurator/specs. Source checkout: <repo>/specs."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "specs", here.parent / "specs"):
        if (candidate / "cards.yaml").is_file():
            return candidate
    raise FileNotFoundError(f"no catalog found next to {here} (looked for specs/cards.yaml)")


@dataclass(frozen=True)
class Catalog:
    cards: dict[str, CardSpec]
    chassis: dict[str, ChassisSpec]
    models: dict[str, ModelSpec]

    def card(self, card_id: str) -> CardSpec:
        try:
            return self.cards[card_id]
        except KeyError:
            raise UnknownIdError("card", card_id, list(self.cards)) from None

    def chassis_spec(self, chassis_id: str) -> ChassisSpec:
        try:
            return self.chassis[chassis_id]
        except KeyError:
            raise UnknownIdError("chassis", chassis_id, list(self.chassis)) from None

    def model(self, model_id: str) -> ModelSpec:
        try:
            return self.models[model_id]
        except KeyError:
            raise UnknownIdError("model", model_id, list(self.models)) from None


def _load_list(path: Path, key: str, build: Callable[[Any], E]) -> dict[str, E]:
    data, lines = parse_yaml(read_text(path), str(path))
    if not isinstance(data, dict) or key not in data:
        raise FileError(str(path), [Problem("", f"expected a mapping with a '{key}' list")])
    version = data.get("schema_version")
    if version != CATALOG_SCHEMA_VERSION:
        raise FileError(str(path), [Problem("schema_version", f"expected {CATALOG_SCHEMA_VERSION}, got {version}")])
    out: dict[str, E] = {}
    problems: list[Problem] = []
    for i, entry in enumerate(data[key] or []):
        try:
            item = build(entry)
        except ValidationError as exc:
            problems += validation_problems(exc, lines, (key, i))
            continue
        except (ValueError, TypeError) as exc:
            problems.append(Problem(f"{key}[{i}]", str(exc), lines.get((key, i))))
            continue
        if item.id in out:
            problems.append(Problem(f"{key}[{i}].id", f"duplicate id '{item.id}'", lines.get((key, i, "id"))))
        out[item.id] = item
    if problems:
        raise FileError(str(path), problems)
    return out


def load_catalog(directory: str | Path | None = None) -> Catalog:
    root = Path(directory) if directory else specs_dir()
    return Catalog(
        cards=_load_list(root / "cards.yaml", "cards", CardSpec.model_validate),
        chassis=_load_list(root / "chassis.yaml", "chassis", ChassisSpec.model_validate),
        models=_load_list(root / "models.yaml", "models", model_from_catalog_entry),
    )


@functools.cache
def default_catalog() -> Catalog:
    """The shipped catalog, loaded once per process."""
    return load_catalog()
