"""Reading and writing build files: line-numbered errors, references checked, atomic saves."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from configurator.catalog.errors import FileError, Problem
from configurator.catalog.filemode import apply_new_file_mode
from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.yamlio import line_for, parse_yaml, read_text, validate_as
from configurator.engine.build import Build


def parse_build(text: str, where: str, catalog: Catalog | None = None) -> Build:
    data, lines = parse_yaml(text, where)
    if not isinstance(data, dict):
        msg = "empty file" if data is None else f"a {type(data).__name__} at the top level"
        raise FileError(where, [Problem("", f"{msg}: a build file is a YAML mapping with name, chassis, cards and "
                                        "jobs", lines.get((), 1))])  # fmt: skip
    build = validate_as(Build, data, lines, where)
    problems = reference_problems(build, catalog or default_catalog(), lines)
    if problems:
        raise FileError(where, problems)
    return build


def reference_problems(build: Build, catalog: Catalog, lines: dict[tuple[Any, ...], int]) -> list[Problem]:
    """Unknown catalog ids, with the line and the ids that are allowed."""
    import difflib

    def near(word: str, known: list[str]) -> str:
        close = difflib.get_close_matches(word, known, n=3)
        return f"did you mean {', '.join(close)}?" if close else f"known: {', '.join(sorted(known))}"

    out: list[Problem] = []
    if build.chassis not in catalog.chassis:
        hint = near(build.chassis, list(catalog.chassis))
        out.append(Problem("chassis", f"unknown chassis '{build.chassis}'; {hint}", line_for(("chassis",), lines)))
    for i, c in enumerate(build.cards):
        if c.card not in catalog.cards:
            out.append(Problem(f"cards[{i}].card", f"unknown card '{c.card}'; {near(c.card, list(catalog.cards))}",
                               line_for(("cards", i, "card"), lines)))  # fmt: skip
    for i, j in enumerate(build.jobs):
        m = j.model
        if isinstance(m, str) and not (m.endswith(".json") or "/" in m) and m not in catalog.models:
            out.append(Problem(f"jobs[{i}].model", f"unknown model '{m}'; {near(m, list(catalog.models))} "
                               "(or give a path to a config.json, or {parameters: 30e9})",
                               line_for(("jobs", i, "model"), lines)))  # fmt: skip
    return out


def load_build(path: str | os.PathLike[str], catalog: Catalog | None = None) -> Build:
    """Load and validate a build file; FileError (file, line, field, what is allowed) on any problem."""
    return parse_build(read_text(path), str(path), catalog)


class _Dumper(yaml.SafeDumper):
    """SafeDumper that double-quotes strings holding NEL (U+0085).

    With allow_unicode PyYAML writes NEL raw, and a YAML reader folds that line break into a space: a
    name with it would come back changed. Double quotes escape it as \\N.
    """


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"' if "\x85" in value else None)


_Dumper.add_representer(str, _represent_str)


def build_to_yaml(build: Build) -> str:
    data = build.model_dump(mode="json", exclude_defaults=True)
    data = {
        "schema_version": build.schema_version,
        **{k: v for k, v in data.items() if k != "schema_version"},
    }
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)


def save_build(build: Build, path: str | os.PathLike[str]) -> None:
    """Write atomically: a temporary file in the same folder, fsync, then rename over the target.

    A failure (unwritable folder, full disk) raises FileError and leaves any existing file untouched.
    """
    target = Path(path)
    text = build_to_yaml(build)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    except OSError as exc:
        raise FileError(str(target), [Problem("", f"cannot write here: {exc.strerror or exc}")]) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        apply_new_file_mode(tmp)  # mkstemp makes it 0600; a saved build gets the user's usual permissions
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise FileError(str(target), [Problem("", f"cannot save: {exc.strerror or exc}")]) from None
