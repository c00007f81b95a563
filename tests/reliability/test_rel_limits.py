"""Every user value bounded where it becomes a timer, a size or a count (catalog/limits.py): idle minutes,
plan classes, node types, cells and candidates, price-list services and parts, build jobs and file sizes.
Refusals say the value and the range; none of these tests times anything (benchmarks/test_bench_limits.py)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from configurator.catalog.errors import FileError
from configurator.catalog.limits import (
    MAX_BUILD_JOBS,
    MAX_CANDIDATES,
    MAX_IDLE_MINUTES,
    MAX_PLAN_CLASSES,
    MAX_PRICE_SERVICES,
    MIN_IDLE_MINUTES,
    LimitError,
    idle_minutes,
)
from tests.reliability.hostile import DEFAULT_BUILD, SEED_B


def _plan_text(**changes: object) -> str:
    data = yaml.safe_load(SEED_B.read_text(encoding="utf-8"))
    for key, value in changes.items():
        data[key] = value
    return yaml.safe_dump(data)


def _load_plan(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    from configurator.engine.planner import load_plan

    path = tmp_path / "plan.yaml"
    path.write_text(text, encoding="utf-8")
    return load_plan(path)


# ---- the kiosk's idle timer -------------------------------------------------------------------------------


@pytest.mark.parametrize("stored", ["100000", "inf", "nan", "-1", "0", "1e308", "true", "3 minutes"])
def test_a_bad_idle_time_reads_as_the_default(stored: str, tmp_path: Path) -> None:
    """idle_minutes=100000 overflowed QTimer (a segfault at every demo start); inf exited 3."""
    from PySide6.QtCore import QSettings

    from configurator.ui.base import Settings

    q = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    q.setValue("demo/idle_minutes", stored)
    assert Settings(q).get("demo/idle_minutes") == 3.0


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12), st.integers()))
def test_idle_minutes_are_finite_and_fit_a_timer(value: object) -> None:
    try:
        minutes = idle_minutes(value)
    except LimitError:
        return
    assert math.isfinite(minutes) and MIN_IDLE_MINUTES <= minutes <= MAX_IDLE_MINUTES
    assert minutes * 60_000 < 2**31 - 1  # QTimer's interval is a signed 32-bit count of milliseconds


def test_the_longest_idle_time_fits_the_demo_timer(qapp) -> None:  # type: ignore[no-untyped-def]
    """The demo's idle timer takes the setting in milliseconds (kiosk/window.py): the longest allowed fits."""
    from PySide6.QtCore import QTimer

    timer = QTimer()
    timer.setInterval(int(MAX_IDLE_MINUTES * 60_000))
    assert timer.interval() == MAX_IDLE_MINUTES * 60_000


# ---- the service planner --------------------------------------------------------------------------------


def test_too_many_classes_are_refused_at_load(tmp_path: Path) -> None:
    """An 8,000-class plan ran for minutes (two scans of every cell per class); over the limit it is refused."""
    data = yaml.safe_load(SEED_B.read_text(encoding="utf-8"))
    first = data["classes"][0]
    text = _plan_text(classes=[{**first, "name": f"c{i}"} for i in range(MAX_PLAN_CLASSES + 1)])
    with pytest.raises(FileError, match=f"at most {MAX_PLAN_CLASSES}"):
        _load_plan(tmp_path, text)


def test_a_plan_file_over_its_byte_limit_is_refused_unread(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="larger than"):
        _load_plan(tmp_path, _plan_text() + "#" * 600_000 + "\n")


def test_ten_million_candidates_are_refused(tmp_path: Path) -> None:
    """The schema allowed 10^7 candidates: 9.9 M hung the planner."""
    with pytest.raises(FileError, match=r"search\.max_candidates"):
        _load_plan(tmp_path, _plan_text(search={"max_candidates": 9_900_000}))
    assert _load_plan(tmp_path, _plan_text(search={"max_candidates": MAX_CANDIDATES})).search.max_candidates


def test_a_search_too_large_for_the_time_is_refused_before_it_starts() -> None:
    from configurator.engine.planner import load_plan, plan_service

    plan = load_plan(SEED_B)
    nodes = [n.model_copy(update={"max_nodes": 60}) for n in plan.nodes]  # 91,560 fleets x 4 classes
    result = plan_service(plan.model_copy(update={"nodes": nodes}), base_dir=SEED_B.parent)
    assert [p.code for p in result.errors] == ["SEARCH_TOO_LARGE"]
    assert result.search.candidates == 0 and not result.fleets


def test_too_many_sizings_are_refused_before_the_matrix() -> None:
    from configurator.engine.planner import load_plan, plan_service

    plan = load_plan(SEED_B)
    classes = [plan.classes[0].model_copy(update={"name": f"c{i}"}) for i in range(40)]  # 40 x 11 devices
    result = plan_service(plan.model_copy(update={"classes": classes}), base_dir=SEED_B.parent)
    assert "PLAN_TOO_LARGE" in [p.code for p in result.errors] and not result.matrix


@pytest.mark.parametrize("wait", [1e-300, 0.001])
def test_a_tiny_wait_target_is_refused(tmp_path: Path, wait: float) -> None:
    """The planner window on a 1e-300 h wait target stayed on "planning…" for 30 s."""
    data = yaml.safe_load(SEED_B.read_text(encoding="utf-8"))
    data["classes"][0]["wait_target_hours"] = wait
    with pytest.raises(FileError, match="wait_target_hours"):
        _load_plan(tmp_path, yaml.safe_dump(data))


# ---- price lists and builds ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["yaml", "csv"])
def test_too_many_services_are_refused(fmt: str) -> None:
    """A 12,000-service price list took minutes (4,000: 7 s): every service is a row of the sheet."""
    from configurator.catalog.prices import parse_price_list

    n = MAX_PRICE_SERVICES + 1
    if fmt == "csv":
        text = "field,value\ncurrency,EUR\n" + "".join(f"services.s{i},{i}\n" for i in range(n))
    else:
        text = "currency: EUR\nservices:\n" + "".join(f"  - {{name: s{i}, price: {i}}}\n" for i in range(n))
    with pytest.raises(FileError, match=f"at most {MAX_PRICE_SERVICES}"):
        parse_price_list(text, f"prices.{fmt}", set(), fmt)


def test_too_many_jobs_are_refused(tmp_path: Path) -> None:
    from configurator.engine.model.buildfile import parse_build

    data = yaml.safe_load(DEFAULT_BUILD.read_text(encoding="utf-8"))
    data["jobs"] = [{**data["jobs"][1], "name": f"j{i}"} for i in range(MAX_BUILD_JOBS + 1)]
    with pytest.raises(FileError, match=f"at most {MAX_BUILD_JOBS}"):
        parse_build(yaml.safe_dump(data), "many.yaml")


def test_a_build_file_over_its_byte_limit_is_refused_unread(tmp_path: Path) -> None:
    from configurator.engine.model.buildfile import load_build

    path = tmp_path / "big.yaml"
    path.write_text(DEFAULT_BUILD.read_text(encoding="utf-8") + "#" * 1_100_000 + "\n", encoding="utf-8")
    with pytest.raises(FileError, match="larger than 1 MB"):
        load_build(path)
