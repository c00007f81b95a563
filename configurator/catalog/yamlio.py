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
MAX_ALIAS_EXPANSION = 100_000  # values aliases may add once expanded (a billion-laughs file adds ~10^8)


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that records the line of every mapping key and sequence item."""


class _SafeLoader(yaml.SafeLoader):
    """SafeLoader whose out-of-range scalars (2001-13-45, a 5000-digit int) fail as YAML errors with their line."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except ValueError as exc:
            what = f"{node.value!r}" if isinstance(node, yaml.ScalarNode) else "this value"
            raise yaml.constructor.ConstructorError(None, None, f"cannot read {what}: {exc}", node.start_mark) from None


def _check_aliases(root: yaml.Node, where: str) -> None:
    """Refuse recursive aliases and alias bombs before anything walks the document.

    Counts alias references (a node reached again) and the nodes the document would hold with every alias
    expanded; a billion-laughs file has few aliases but expands to millions of nodes. Iterative, so deep
    nesting cannot overflow the stack here.
    """
    size: dict[int, int] = {}  # id(node) -> nodes in its expansion (memoised, so counting stays linear)
    on_path: set[int] = set()
    aliases = 0
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        children = _children(node)
        if finished:
            on_path.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in children)
            if size[key] - len(size) > MAX_ALIAS_EXPANSION:
                msg = f"aliases expand to over {MAX_ALIAS_EXPANSION:,} extra values: refusing a possible alias bomb"
                raise FileError(where, [Problem("", msg, node.start_mark.line + 1)])
            continue
        if key in on_path:
            msg = "an alias refers to a node that contains it (recursive alias)"
            raise FileError(where, [Problem("", msg, node.start_mark.line + 1)])
        if key in size:
            aliases += 1
            if aliases > MAX_ALIASES:
                msg = f"more than {MAX_ALIASES} aliases: refusing a possible alias bomb"
                raise FileError(where, [Problem("", msg, node.start_mark.line + 1)])
            continue
        on_path.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(children))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


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
        _check_aliases(node, where)
        data = yaml.load(text, Loader=_SafeLoader)
        lines: dict[tuple[Any, ...], int] = {}
        _lines(node, (), lines)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else None
        raise FileError(where, [Problem("", f"not valid YAML: {exc.problem}", line)]) from None
    except yaml.YAMLError as exc:
        raise FileError(where, [Problem("", f"not valid YAML: {exc}")]) from None
    except RecursionError:
        raise FileError(where, [Problem("", "not valid YAML: nested too deeply")]) from None
    except ValueError as exc:  # fallback: _SafeLoader already turns unreadable scalars into errors with a line
        raise FileError(where, [Problem("", f"not valid YAML: a value cannot be read ({exc})")]) from None
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
