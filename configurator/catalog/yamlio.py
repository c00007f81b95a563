"""Safe YAML loading with line numbers, so validation errors can point at the line.

Only ``yaml.safe_load`` semantics are used (no Python tags). Size and alias limits
guard against hostile files (billion-laughs style alias bombs).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from configurator.catalog.errors import FileError, Problem, shorten
from configurator.catalog.fileio import MAX_FILE_BYTES, safe_read_text

T = TypeVar("T", bound=BaseModel)

MAX_ALIASES = 200
MAX_ALIAS_EXPANSION = 100_000  # values aliases may add once expanded (a billion-laughs file adds ~10^8)
MAX_DEPTH = 200  # nesting a build never needs (it uses 4); deeper is refused before anything recurses

# libyaml's parser (PyYAML's C extension) where installed: the same safe semantics, ~10x faster on a
# large file. Its nodes carry the same line marks as the pure-Python parser's.
_BaseLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# What YAML 1.1 allows in a stream (PyYAML reader.py NON_PRINTABLE): the first other character is named
_NON_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_MERGE_TAG = "tag:yaml.org,2002:merge"


class _SafeLoader(_BaseLoader):  # type: ignore[misc]  # _BaseLoader is chosen at run time
    """Safe loader whose out-of-range scalars (2001-13-45, a 5000-digit int) fail as YAML errors with their line."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[str, int, int]] = []  # (key, first line, repeated line)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:
            what = shorten(repr(node.value), 60) if isinstance(node, yaml.ScalarNode) else "this value"
            reason = shorten(str(exc), 120)
            if "limit (4300 digits)" in str(exc):  # Python's int conversion limit
                what, reason = f"a {len(str(node.value))}-character number", "numbers of over 4,300 digits are refused"
            raise yaml.constructor.ConstructorError(None, None, f"cannot read {what}: {reason}",
                                                    node.start_mark) from None  # fmt: skip

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """A key given twice in one mapping is refused, naming both lines (PyYAML keeps the last silently)."""
        seen: dict[tuple[str, str], int] = {}
        for k, _ in node.value:
            if isinstance(k, yaml.ScalarNode) and k.tag != _MERGE_TAG:
                line = k.start_mark.line + 1
                if (k.tag, k.value) in seen:
                    self.duplicates.append((k.value, seen[(k.tag, k.value)], line))
                else:
                    seen[(k.tag, k.value)] = line
        mapping: dict[Any, Any] = super().construct_mapping(node, deep)
        return mapping


def _check_aliases(root: yaml.Node, where: str) -> None:
    """Refuse recursive aliases, alias bombs and absurd nesting before anything walks the document.

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
        if len(on_path) > MAX_DEPTH:
            msg = f"not valid YAML: nested too deeply (more than {MAX_DEPTH} levels)"
            raise FileError(where, [Problem("", msg, node.start_mark.line + 1)])
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(children))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _lines(root: yaml.Node) -> dict[tuple[Any, ...], int]:
    """Map every key path to its line. Iterative (the alias check has bounded depth and expanded size)."""
    out: dict[tuple[Any, ...], int] = {}
    stack: list[tuple[yaml.Node, tuple[Any, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        out.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                key = k.value if isinstance(k, yaml.ScalarNode) else str(k)
                out[(*path, key)] = k.start_mark.line + 1
                stack.append((v, (*path, key)))
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                out[(*path, i)] = v.start_mark.line + 1
                stack.append((v, (*path, i)))
    return out


def _dotted(lines: Mapping[tuple[Any, ...], int], line: int, key: str) -> str:
    """The dotted field of ``key`` given on ``line`` (for a message; the walk runs only on an error)."""
    for path, at in lines.items():
        if at == line and path and path[-1] == key:
            return format_loc(path)
    return str(key)


class LineMap(Mapping[tuple[Any, ...], int]):
    """Key path -> line, worked out from the node tree only when a message first needs a line.

    A file that loads cleanly never pays for the walk (a second pass over a 5 MB file's nodes).
    """

    def __init__(self, root: yaml.Node | None) -> None:
        self._root = root
        self._map: dict[tuple[Any, ...], int] | None = None if root is not None else {}

    def _built(self) -> dict[tuple[Any, ...], int]:
        if self._map is None:
            assert self._root is not None
            self._map, self._root = _lines(self._root), None
        return self._map

    def __getitem__(self, key: tuple[Any, ...]) -> int:
        return self._built()[key]

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())


def _reader_problem(text: str, exc: yaml.YAMLError) -> Problem:
    """A character YAML does not allow (a NUL byte, a control character): say which, and on what line."""
    m = _NON_PRINTABLE.search(text)
    if m is None:
        return Problem("", f"not valid YAML: {shorten(str(exc), 200)}")
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    what = "a NUL byte" if m.group() == "\x00" else f"the control character U+{ord(m.group()):04X}"
    return Problem("", f"not valid YAML: {what} at column {column} (a binary file, or text YAML does not allow)", line)


def parse_yaml(text: str, where: str) -> tuple[Any, LineMap]:
    """Parse YAML text once; return the data and a map from key path to line number.

    The text is composed into a node tree once (with libyaml where available); the aliases, nesting and
    duplicate keys are checked on that tree, its lines recorded, and the data built from the same tree.
    """
    if len(text) > MAX_FILE_BYTES:
        raise FileError(where, [Problem("", f"file is larger than {MAX_FILE_BYTES // 1_000_000} MB")])
    loader = _SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, LineMap(None)
        if "&" in text:  # aliases need anchors: a file without '&' has none to check
            _check_aliases(node, where)
        data = loader.construct_document(node)
        lines = LineMap(node)
        if loader.duplicates:
            raise FileError(where, [Problem(_dotted(lines, line, key), f"key {shorten(repr(key), 60)} is given "
                                            f"twice, on lines {first} and {line}: keep one (YAML allows each key "
                                            "once)", line) for key, first, line in loader.duplicates])  # fmt: skip
    except yaml.reader.ReaderError as exc:
        raise FileError(where, [_reader_problem(text, exc)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = shorten(str(exc.problem or exc.context or "unreadable"), 200)
        if "nesting depth" in problem:  # libyaml's own limit
            problem = "nested too deeply"
        raise FileError(where, [Problem("", f"not valid YAML: {problem}", line)]) from None
    except yaml.YAMLError as exc:
        raise FileError(where, [Problem("", f"not valid YAML: {shorten(str(exc), 200)}")]) from None
    except RecursionError:
        raise FileError(where, [Problem("", "not valid YAML: nested too deeply")]) from None
    except (ValueError, OverflowError) as exc:  # fallback: _SafeLoader turns unreadable scalars into errors
        raise FileError(where, [Problem("", f"not valid YAML: a value cannot be read ({shorten(str(exc), 120)})")]
                        ) from None  # fmt: skip
    finally:
        loader.dispose()
    return data, lines


def read_text(path: str | os.PathLike[str]) -> str:
    """A user's or the catalog's text file: regular files only, at most 5 MB (see ``fileio.safe_read_text``)."""
    return safe_read_text(path, MAX_FILE_BYTES)


def line_for(loc: tuple[Any, ...], lines: Mapping[tuple[Any, ...], int]) -> int | None:
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


def _is_union_tag(part: Any) -> bool:
    """A part pydantic adds to an error's location to name a union member ('str', 'ParamsOnlyModel', ...)."""
    if not isinstance(part, str):
        return False
    return part in {"str", "int", "float", "bool"} or part[:1].isupper() or "[" in part or part.startswith("function-")


def validation_problems(
    exc: ValidationError, lines: Mapping[tuple[Any, ...], int], prefix: tuple[Any, ...] = ()
) -> list[Problem]:
    """One problem per wrong value, with its line; for a value that may be one of several types, only the
    type it was evidently meant as ({parameters: 0.5} is a mapping with a bad number, not "not a string")."""
    errors = exc.errors(include_url=False)
    deep: set[tuple[Any, ...]] = set()  # union positions where some member got past the type check
    for err in errors:
        loc = tuple(err["loc"])
        for i, part in enumerate(loc):
            if _is_union_tag(part) and i + 1 < len(loc):
                deep.add(loc[:i])
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for err in errors:
        loc = tuple(err["loc"])
        if any(_is_union_tag(part) and i + 1 == len(loc) and loc[:i] in deep for i, part in enumerate(loc)):
            continue  # "Input should be a valid string" beside the member the value was meant as
        data_loc = tuple(p for p in loc if not _is_union_tag(p))
        full = (*prefix, *data_loc)
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key (not allowed here)"
        elif err["type"] == "missing":
            msg = "required key is missing"
        elif err["type"] == "value_error":
            msg = msg.removeprefix("Value error, ")
        key = (format_loc(full), msg)
        if key in seen:
            continue
        seen.add(key)
        problems.append(Problem(key[0], msg, line_for(full, lines)))
    return problems


def validate_as(model: type[T], data: Any, lines: Mapping[tuple[Any, ...], int], where: str) -> T:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise FileError(where, validation_problems(exc, lines)) from None
