"""Reading and writing build files: line-numbered errors, references checked, atomic saves."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import yaml
from pydantic import ValidationError

from configurator.catalog.errors import FileError, Problem, unknown_words
from configurator.catalog.fileio import atomic_write_text, safe_read_text
from configurator.catalog.hf_config import names_file
from configurator.catalog.limits import MAX_BUILD_BYTES
from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.yamlio import line_for, parse_yaml, validation_problems
from configurator.engine.model.build import STACK_KEYS, Build

# How many of each a build may list. Slots are numbered 1..64 (CardPlacement.slot), so 64 cards; a bridge
# joins two or more of them, so at most 32; a card splits into at most 7 MIG instances (NVIDIA MIG user
# guide: A100/H100/H200 7, RTX PRO 6000 4), so 64 x 7 = 448 jobs could each have an instance of their own.
# Past these a file is refused before validation, with the line of the first entry too many.
LIMITS: dict[str, int] = {"cards": 64, "bridges": 32, "jobs": 448}
MAX_MIG_ENTRIES = 64  # a layout longer than 7 is a check the engine explains; this long is no layout
MAX_JOB_CARDS = 64


def count_problems(data: dict[str, Any], lines: Mapping[tuple[Any, ...], int]) -> list[Problem]:
    """Lists longer than a chassis can use, refused with their line (before validating 10^5 entries)."""
    out: list[Problem] = []
    for key, limit in LIMITS.items():
        items = data.get(key)
        if isinstance(items, list) and len(items) > limit:
            out.append(Problem(key, f"{len(items):,} entries; a build holds at most {limit}",
                               line_for((key, limit), lines)))  # fmt: skip
    for i, card in enumerate(data.get("cards") or [] if isinstance(data.get("cards"), list) else []):
        mig = card.get("mig") if isinstance(card, dict) else None
        if isinstance(mig, list) and len(mig) > MAX_MIG_ENTRIES:
            out.append(Problem(f"cards[{i}].mig", f"{len(mig):,} instances; a card holds at most 7 MIG instances "
                               f"(a layout lists at most {MAX_MIG_ENTRIES})",
                               line_for(("cards", i, "mig"), lines)))  # fmt: skip
    for i, job in enumerate(data.get("jobs") or [] if isinstance(data.get("jobs"), list) else []):
        cards = job.get("cards") if isinstance(job, dict) else None
        if isinstance(cards, list) and len(cards) > MAX_JOB_CARDS:
            out.append(Problem(f"jobs[{i}].cards", f"{len(cards):,} cards; a job runs on at most {MAX_JOB_CARDS}",
                               line_for(("jobs", i, "cards"), lines)))  # fmt: skip
    return out


def slot_problems(data: dict[str, Any], lines: Mapping[tuple[Any, ...], int]) -> list[Problem]:
    """Two cards in one slot, pointed at the second card's slot line and naming the first's."""
    out: list[Problem] = []
    first: dict[Any, int] = {}
    cards = data.get("cards")
    for i, card in enumerate(cards if isinstance(cards, list) else []):
        slot = card.get("slot") if isinstance(card, dict) else None
        if not isinstance(slot, int):  # true counts as 1, as the schema reads it
            continue
        slot = int(slot)
        if slot in first:
            j = first[slot]
            out.append(Problem(f"cards[{i}].slot", f"slot {slot} already holds cards[{j}] (line "
                               f"{line_for(('cards', j, 'slot'), lines)}): a slot holds one card",
                               line_for(("cards", i, "slot"), lines)))  # fmt: skip
        else:
            first[slot] = i
    return out


def parse_build(text: str, where: str, catalog: Catalog | None = None, *, keep_unknown: bool = False) -> Build:
    """The build in ``text``; FileError when it is not a build. ``keep_unknown``: a card, chassis or model id
    the catalog lacks does not refuse the file (the window opens it and the engine's CARD_UNKNOWN,
    CHASSIS_UNKNOWN and JOB_MODEL_UNKNOWN checks show each where it is); only unreadable YAML or a wrong
    schema does."""
    data, lines = parse_yaml(text, where)
    if not isinstance(data, dict):
        msg = "empty file" if data is None else f"a {type(data).__name__} at the top level"
        raise FileError(where, [Problem("", f"{msg}: a build file is a YAML mapping with name, chassis, cards and "
                                        "jobs", lines.get((), 1))])  # fmt: skip
    if "chassis" not in data and ("classes" in data or "nodes" in data):  # a plan's keys, not a build's
        raise FileError(where, [Problem("", "this is a service plan (classes, nodes), not a build file: size its "
                                        "fleet with `configurator plan` or open it in the service planner "
                                        "(`configurator planner`)", lines.get((), 1))])  # fmt: skip
    counts = count_problems(data, lines)
    if counts:
        raise FileError(where, counts)
    slots = slot_problems(data, lines)
    try:
        build = Build.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, lines)
        if slots:  # the model's own "slot(s) [1] hold more than one card" has no line: these do
            problems = [p for p in problems if "more than one card" not in p.message] + slots
        raise FileError(where, problems) from None
    if keep_unknown:
        return build
    problems = reference_problems(build, catalog or default_catalog(), lines)
    if problems:
        raise FileError(where, problems)
    return build


def reference_problems(build: Build, catalog: Catalog, lines: Mapping[tuple[Any, ...], int]) -> list[Problem]:
    """Unknown catalog ids, with the line, the closest ids and (as the problem's choices) all that are allowed."""
    out: list[Problem] = []
    if build.chassis not in catalog.chassis:
        out.append(Problem("chassis", unknown_words("chassis", build.chassis, list(catalog.chassis)),
                           line_for(("chassis",), lines), tuple(sorted(catalog.chassis))))  # fmt: skip
    for i, c in enumerate(build.cards):
        if c.card not in catalog.cards:
            out.append(Problem(f"cards[{i}].card", unknown_words("card", c.card, list(catalog.cards)),
                               line_for(("cards", i, "card"), lines), tuple(sorted(catalog.cards))))  # fmt: skip
    for i, j in enumerate(build.jobs):
        m = j.model
        if isinstance(m, str) and not names_file(m) and m not in catalog.models:
            out.append(Problem(f"jobs[{i}].model", unknown_words("model", m, list(catalog.models))
                               + " (or give a path to a config.json, or {parameters: 30e9})",
                               line_for(("jobs", i, "model"), lines), tuple(sorted(catalog.models))))  # fmt: skip
    return out


def load_build(path: str | os.PathLike[str], catalog: Catalog | None = None, *, keep_unknown: bool = False) -> Build:
    """Load and validate a build file; FileError (file, line, field, what is allowed) on any problem.
    ``keep_unknown``: unknown catalog ids are kept for the engine's checks (see ``parse_build``)."""
    return parse_build(safe_read_text(path, MAX_BUILD_BYTES), str(path), catalog, keep_unknown=keep_unknown)


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
    if build.stack is not None:  # a job's own stack value equal to the Job default must survive the build's stack:
        for job, out in zip(build.jobs, data.get("jobs", []), strict=True):
            full = job.model_dump(mode="json")
            for key in STACK_KEYS:
                default = getattr(build.stack, key)
                if default is not None and getattr(job, key) != default:
                    out[key] = full[key]
    data = {
        "schema_version": build.schema_version,
        **{k: v for k, v in data.items() if k != "schema_version"},
    }
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)


def save_build(build: Build, path: str | os.PathLike[str]) -> None:
    """Write atomically (``fileio.atomic_write_text``): a temporary file beside the real target, checked,
    fsynced, given the target's mode and renamed over it; a symlink stays a link to the saved file.

    A failure (unwritable folder, full disk) raises FileError and leaves any existing file untouched.
    """
    atomic_write_text(path, build_to_yaml(build), what="the build")
