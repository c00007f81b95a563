"""Reading and writing plan files: line-numbered errors like build files, references checked, atomic saves."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from configurator.catalog.errors import FileError, Problem
from configurator.catalog.fileio import atomic_write_text, safe_read_text
from configurator.catalog.hf_config import names_file
from configurator.catalog.limits import MAX_PLAN_BYTES
from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.prices import load_price_list
from configurator.catalog.yamlio import line_for, parse_yaml, validate_as
from configurator.engine.planner.nodes import resolve_nodes
from configurator.engine.planner.plan import Plan


def _loc(field: str) -> tuple[Any, ...]:
    """'nodes[1].mig_layouts[0]' -> ('nodes', 1, 'mig_layouts', 0)"""
    out: list[Any] = []
    for part in field.replace("]", "").split("."):
        name, *idx = part.split("[")
        if name:
            out.append(name)
        out += [int(i) for i in idx]
    return tuple(out)


def reference_problems(
    plan: Plan, catalog: Catalog, lines: Mapping[tuple[Any, ...], int], base_dir: Path | None
) -> list[Problem]:
    """Unknown catalog ids, bad MIG layouts, unreadable build or price files: with the line of the key."""
    out: list[Problem] = []

    def near(word: str, known: list[str]) -> str:
        close = difflib.get_close_matches(word, known, n=3)
        return f"did you mean {', '.join(close)}?" if close else f"known: {', '.join(sorted(known))}"

    for i, c in enumerate(plan.classes):
        m = c.model
        if isinstance(m, str) and not names_file(m) and m not in catalog.models:
            out.append(
                Problem(
                    f"classes[{i}].model",
                    f"unknown model '{m}'; {near(m, list(catalog.models))} "
                    "(or give a path to a config.json, or {parameters: 30e9})",
                    line_for(("classes", i, "model"), lines),
                )
            )
    known = set(catalog.cards) | set(catalog.chassis)
    for key in plan.prices:
        if key not in known:
            out.append(
                Problem(
                    f"prices.{key}",
                    f"unknown catalog id '{key}'; {near(key, sorted(known))}",
                    line_for(("prices", key), lines),
                )
            )
    _nodes, node_problems = resolve_nodes(plan, catalog, base_dir)
    for p in node_problems:
        out.append(Problem(p.field, p.message, line_for(_loc(p.field), lines)))
    if plan.price_list:
        path = Path(plan.price_list).expanduser()
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        try:
            plist = load_price_list(path)
        except FileError as exc:
            first = exc.problems[0] if exc.problems else Problem("", "cannot be read")
            out.append(Problem("price_list", f"{path}: {first}", line_for(("price_list",), lines)))
        else:
            if plan.currency and plist.currency != plan.currency:
                out.append(
                    Problem(
                        "currency",
                        f"the plan is in {plan.currency} but {path.name} is in {plist.currency}: use one currency",
                        line_for(("currency",), lines),
                    )
                )
    return out


def parse_plan(text: str, where: str, catalog: Catalog | None = None, base_dir: str | Path | None = None) -> Plan:
    data, lines = parse_yaml(text, where)
    if not isinstance(data, dict):
        msg = "empty file" if data is None else f"a {type(data).__name__} at the top level"
        raise FileError(
            where, [Problem("", f"{msg}: a plan file is a YAML mapping with name, classes and nodes", lines.get((), 1))]
        )
    if "chassis" in data and "classes" not in data and "nodes" not in data:  # a build's keys, not a plan's
        raise FileError(where, [Problem("", "this is a build file (chassis, cards, jobs), not a service plan: size "
                                        "it with `configurator size` or open it in the configurator's window",
                                        lines.get((), 1))])  # fmt: skip
    plan = validate_as(Plan, data, lines, where)
    base = Path(base_dir) if base_dir else None
    problems = reference_problems(plan, catalog or default_catalog(), lines, base)
    if problems:
        raise FileError(where, problems)
    return plan


def load_plan(path: str | os.PathLike[str], catalog: Catalog | None = None) -> Plan:
    """Load and validate a plan file; FileError (file, line, field, what is allowed) on any problem."""
    p = Path(path)
    return parse_plan(safe_read_text(p, MAX_PLAN_BYTES), str(p), catalog, p.parent)


def plan_to_yaml(plan: Plan) -> str:
    data = plan.model_dump(mode="json", exclude_defaults=True)
    data = {"schema_version": plan.schema_version, **{k: v for k, v in data.items() if k != "schema_version"}}
    text: str = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)
    return text


def save_plan(plan: Plan, path: str | os.PathLike[str]) -> None:
    """Write atomically through the one safe writer (``fileio.atomic_write_text``: a regular target only, a
    temporary file beside it, verified, fsynced, renamed); FileError on failure, the old file kept."""
    atomic_write_text(path, plan_to_yaml(plan), what="the plan")
