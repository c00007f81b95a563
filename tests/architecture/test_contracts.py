"""Check codes and link kinds are enums whose values are the strings results always carried."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from configurator.engine import evaluate
from configurator.engine.model.buildfile import load_build
from configurator.engine.model.codes import CheckCode, LinkKind
from configurator.engine.model.result import Check
from tests.paths import BUILDS

ROOT = Path(__file__).resolve().parents[2]


def test_every_code_the_engine_writes_is_declared() -> None:
    written = set()
    for path in (ROOT / "configurator").rglob("*.py"):
        if "planner" in path.parts:  # the planner's PlanProblem codes are its own, not build checks
            continue
        written |= set(re.findall(r'code="([A-Z_0-9]+)"', path.read_text(encoding="utf-8")))
    assert written <= {c.value for c in CheckCode}, written - {c.value for c in CheckCode}


def test_a_misspelt_code_is_refused_where_it_is_written() -> None:
    with pytest.raises(ValidationError):
        Check(severity="error", code="PSU_TIHGT", message="x")


def test_results_read_as_the_same_strings() -> None:
    result = evaluate(load_build(BUILDS / "seed-70b-lora-8x-h200-nvl.yaml"))
    data = json.loads(result.model_dump_json())
    codes = [c["code"] for c in data["checks"]]
    assert "COMM_DOMINATES" in codes and all(isinstance(c, str) for c in codes)
    assert result.checks[0].code == data["checks"][0]["code"]  # a StrEnum equals its string
    link = result.jobs[0].communication.bound_by
    assert isinstance(link, LinkKind) and data["jobs"][0]["communication"]["bound_by"] == link.value


def test_an_unknown_physical_problem_does_not_raise_key_error(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A new code from physical.py finds no sentence yet: the message names it instead of a KeyError."""
    from configurator.catalog.loader import default_catalog
    from configurator.engine.editing import bridges, cards

    catalog = default_catalog()
    build = load_build(BUILDS / "default.yaml").model_copy(update={"cards": [], "jobs": [], "bridges": []})
    monkeypatch.setattr(cards, "fit_problems", lambda *a: ["NEW_PROBLEM"])
    reason = cards.check_place(build, catalog, 1, "h200-nvl")
    assert reason is not None and "NEW_PROBLEM" in reason
    assert "NEW_PROBLEM" in bridges._explain_bridge("NEW_PROBLEM", catalog.cards["h200-nvl"], 2)


def test_kiosk_figures_are_checked_against_the_result_models(tmp_path: Path) -> None:
    """A scenario figure names a field of the result models; a misspelt one fails the load with its path."""
    from configurator.ui.kiosk import FigureSpec, load_scenarios

    assert load_scenarios()  # the shipped scenarios validate
    FigureSpec(field="communication.seconds_per_step", label="x")
    FigureSpec(field="room_for_activations_gb", label="x")
    with pytest.raises(ValidationError, match="no 'second_per_step' in Communication"):
        FigureSpec(field="communication.second_per_step", label="x")
    with pytest.raises(ValidationError, match="no 'headroom_gbs' in CardMemory"):
        FigureSpec(field="headroom_gbs", label="x")
    with pytest.raises(ValidationError):
        FigureSpec(field="headroom_gb", label="x", colour="red")  # type: ignore[call-arg]
