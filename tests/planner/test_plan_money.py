"""A plan's amounts are written by one function (engine/planner/explain.plan_money) in its why-lines, its text
report and its sheet; the shop's bill of materials keeps its own symbols (engine/bom.money)."""

from __future__ import annotations

import re
from pathlib import Path

from configurator.engine.planner.explain import plan_money

ROOT = Path(__file__).resolve().parents[2]


def test_plan_money_words() -> None:
    assert plan_money(1234.5, "USD") == "1,234.50 USD"
    assert plan_money(3.0, None) == "3.00" and plan_money(None, "EUR") == "unknown"


def test_one_money_writer_per_kind() -> None:
    writers = []
    for path in sorted((ROOT / "configurator").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        writers += [f"{path.name}:{m.group(1)}" for m in re.finditer(r"(?m)^def (_?(?:plan_)?money)\(", text)]
    assert sorted(writers) == ["bom.py:money", "explain.py:plan_money"], writers
