"""GB, GiB and MiB are defined once (configurator/catalog/units.py) and imported everywhere else: a second
definition could drift (a GB of 2^30 in one view and 10^9 on the sheet)."""

from __future__ import annotations

import re
from pathlib import Path

from configurator.catalog.units import GB, GIB, MIB, gb_to_gib
from configurator.present.words import to_unit

ROOT = Path(__file__).resolve().parents[2]
# measure.py runs on the customer's machine as a standard-library script: it cannot import the package; the device
# kit's measure.py runs on a lent GPU whose Python has no pydantic, so it cannot either
STANDALONE = {"configurator/acceptance_tool/measure.py", "benchmarks/device/measure.py"}
# an assignment of a number (GB = 1e9, MIB = 2**20), not a docstring's "GB = 10^9 bytes"
DEFINITION = re.compile(r"(?m)^\s*_?(GB|GIB|GiB|MIB|MiB)\s*(:\s*[\w.]+\s*)?=\s*[\d(][\d_.eE*+<() ]*(#.*)?$")


def _definitions(text: str) -> list[str]:
    return [m.group(0).strip() for m in DEFINITION.finditer(text)]


def test_byte_units_are_defined_once() -> None:
    found = []
    for folder in ("configurator", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "configurator/catalog/units.py" or rel in STANDALONE:
                continue
            found += [f"{rel}: {d}" for d in _definitions(path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_the_guard_sees_a_definition() -> None:
    assert _definitions("GB = 1e9\nMIB = 2**20\n    GIB: float = 2**30\n") == [
        "GB = 1e9",
        "MIB = 2**20",
        "GIB: float = 2**30",
    ]
    assert _definitions("x = GB * 2\nGB_S = 5\nGB = 10^9 bytes. Three counters\n") == []


def test_units_are_the_decimal_and_binary_ones() -> None:
    assert GB == 10**9 and GIB == 1024**3 and MIB == 1024**2
    assert gb_to_gib(GIB / GB) == 1.0 and to_unit(GIB / GB, "GiB") == 1.0 and to_unit(2.5, "GB") == 2.5
