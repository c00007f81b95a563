"""Safe YAML loading with line numbers, so validation errors can point at the line.

Only ``yaml.safe_load`` semantics are used (no Python tags). Size and alias limits
guard against hostile files (billion-laughs style alias bombs).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from configurator.catalog.errors import FileError, Problem

T = TypeVar("T", bound=BaseModel)

MAX_FILE_BYTES = 5_000_000
MAX_ALIASES = 200


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that records the line of every mapping key and sequence item."""


def _count_aliases(node: yaml.Node, seen: set[int], count: list[int]) -> None:
    if id(node) in seen:
        count[0] += 1
        if count[0] > MAX_ALIASES:
            raise yaml.YAMLError(f"more than {MAX_ALIASES} aliases: refusing a possible alias bomb")
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            _count_aliases(k, seen, count)
            _count_aliases(v, seen, count)
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            _count_aliases(v, seen, count)


def _lines(node: yaml.Node, path: tuple[Any, ...], out: dict[tuple[Any, ...], int]) -> None:
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            key = k.value if isinstance(k, yaml.ScalarNode) else str(k)
            out[(*path, key)] = k.start_mark.line + 1
            _lines(v, (*path, key), out)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            out[(*path, i)] = v.start_mark.line + 1
            _lines(v, (*path, i), out)


def parse_yaml(text: str, where: str) -> tuple[Any, dict[tuple[Any, ...], int]]:
    """Parse YAML text; return the data and a map from key path to line number."""
    if len(text) > MAX_FILE_BYTES:
        raise FileError(where, [Problem("", f"file is larger than {MAX_FILE_BYTES // 1_000_000} MB")])
    try:
        node = yaml.compose(text, Loader=_LineLoader)
        if node is None:
            return None, {}
        _count_aliases(node, set(), [0])
        data = yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else None
        raise FileError(where, [Problem("", f"not valid YAML: {exc.problem}", line)]) from None
    except yaml.YAMLError as exc:
        raise FileError(where, [Problem("", f"not valid YAML: {exc}")]) from None
    lines: dict[tuple[Any, ...], int] = {}
    _lines(node, (), lines)
    return data, lines


def read_text(path: str | os.PathLike[str]) -> str:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            raise FileError(str(p), [Problem("", f"file is larger than {MAX_FILE_BYTES // 1_000_000} MB")])
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileError(str(p), [Problem("", "file not found")]) from None
    except UnicodeDecodeError as exc:
        raise FileError(str(p), [Problem("", f"not UTF-8 text ({exc.reason} at byte {exc.start})")]) from None
    except OSError as exc:
        raise FileError(str(p), [Problem("", f"cannot read: {exc.strerror or exc}")]) from None


def line_for(loc: tuple[Any, ...], lines: dict[tuple[Any, ...], int]) -> int | None:
    """The line of the deepest known prefix of a pydantic error location."""
    loc = tuple(loc)
    while loc:
        if loc in lines:
            return lines[loc]
        loc = loc[:-1]
    return lines.get(())


def format_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def validation_problems(
    exc: ValidationError, lines: dict[tuple[Any, ...], int], prefix: tuple[Any, ...] = ()
) -> list[Problem]:
    problems = []
    for err in exc.errors(include_url=False):
        # pydantic adds the tag of a discriminated/union member to loc; drop non-data parts
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        full = (*prefix, *loc)
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key (not allowed here)"
        elif err["type"] == "missing":
            msg = "required key is missing"
        problems.append(Problem(format_loc(full), msg, line_for(full, lines)))
    return problems


def validate_as(model: type[T], data: Any, lines: dict[tuple[Any, ...], int], where: str) -> T:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise FileError(where, validation_problems(exc, lines)) from None
