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


def test_capital_and_monthly_cost_in_whole_units() -> None:
    """A fleet's capital to the cent ('1,182,240.00 USD') claimed a precision its street prices lack: capital and the
    monthly cost are written to the whole unit, the cost per job keeps its cents."""
    from configurator.engine.planner.result import FleetResult, Totals
    from configurator.report.plan_text import fleet_lines

    assert plan_money(1182240.0, "USD", whole=True) == "1,182,240 USD"
    assert plan_money(28264.57, None, whole=True) == "28,265"
    totals = Totals(nodes=12, cards=96, power_kw=40.0, facility_kw=52.0, energy_kwh_per_month=30000.0,
                    capital=1182240.0, cost_per_month=28264.57, jobs_per_month=11109.0, cost_per_job=2.544)
    fleet = FleetResult(rank=1, label="12 x server", nodes=[], feasible=True, totals=totals, routes=[], use=[])
    text = "\n".join(fleet_lines(fleet, "USD", 18))
    assert "capital 1,182,240 USD, per month 28,265 USD" in text and "cost per job 2.54 USD" in text
