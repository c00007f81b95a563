"""Property-based hostile inputs for the new surfaces: build codes, stored settings, plans and price lists as
arbitrary text. Each either loads or fails with a FileError (file, line, field): never another exception,
never a hang (hypothesis' quick profile; `make test-full` runs the full count)."""

from __future__ import annotations

import base64
import zlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from configurator.catalog.errors import FileError
from tests.reliability.hostile import SEED_B

YAMLISH = st.text(alphabet=st.sampled_from(list("abcdefghijklmnopqrstuvwxyz:{}[]-,.'\"&*!#|>%@`0123456789 \n\t\x00é")),
                  max_size=200)  # fmt: skip


@given(st.one_of(st.text(max_size=300), YAMLISH.map(lambda t: "GBC1:" + t)))
def test_any_code_is_a_build_or_a_file_error(code: str) -> None:
    from configurator.engine.model.buildcode import decode_build

    try:
        decode_build(code)
    except FileError as exc:
        assert exc.problems and len(str(exc)) < 2000


@given(YAMLISH)
def test_any_yaml_in_a_well_formed_code_is_a_build_or_a_file_error(text: str) -> None:
    from configurator.engine.model.buildcode import PREFIX, decode_build

    code = PREFIX + base64.urlsafe_b64encode(zlib.compress(text.encode("utf-8"))).decode().rstrip("=")
    try:
        decode_build(code)
    except FileError as exc:
        assert exc.problems


# what an INI file can hold once Qt has read it (a value QSettings cannot store is not a stored value)
STORED = st.one_of(st.none(), st.text(max_size=40), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=True),
                   st.lists(st.text(max_size=5), max_size=3), st.booleans())  # fmt: skip


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(["units", "recent_files", "autosave_seconds", "theme", "page", "price_list",
                            "demo/pin", "demo/idle_minutes", "seller_name", "demo/folder"]), raw=STORED)  # fmt: skip
def test_any_stored_setting_reads_as_a_valid_value(key: str, raw: Any, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings

    from configurator.ui.base import Settings
    from configurator.ui.base.settings import OPTIONS

    q = QSettings(str(tmp_path_factory.mktemp("s") / "s.ini"), QSettings.Format.IniFormat)
    if raw is not None:
        q.setValue(key, raw)
    s = Settings(q)
    value = s.get(key)
    option = OPTIONS[key]
    assert type(value) is type(option.default)
    if option.choices:
        assert value in option.choices
    if key == "demo/pin" and s.stored_problem(key) is None:
        assert value.isdigit() and 1 <= len(value) <= 12


@pytest.mark.parametrize("fmt", ["yaml", "csv"])
@given(text=YAMLISH)
def test_any_price_list_text_is_a_price_list_or_a_file_error(fmt: str, text: str) -> None:
    from configurator.catalog.prices import parse_price_list

    try:
        parse_price_list(text, f"p.{fmt}", {"h200-nvl"}, fmt)
    except FileError as exc:
        assert exc.problems


@settings(max_examples=30)  # each example reads seed B's plan with its references (~50 ms)
@given(st.sampled_from(["name", "currency", "prices", "service", "search", "roadmap"]),
       st.one_of(st.text(max_size=20), st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**30, 10**30),
                 st.dictionaries(st.text(max_size=8), st.floats(allow_nan=True), max_size=3)))  # fmt: skip
def test_any_value_at_a_plan_key_is_a_plan_or_a_file_error(key: str, value: object) -> None:
    import yaml

    from configurator.engine.planner.planfile import parse_plan

    data = yaml.safe_load(SEED_B.read_text(encoding="utf-8"))
    data[key] = value
    try:
        plan = parse_plan(yaml.safe_dump(data), "plan.yaml", None, SEED_B.parent)
    except FileError as exc:
        assert exc.problems and all(p.field or p.line for p in exc.problems)
        return
    for number in plan.prices.values():
        assert 0 <= number <= 1e9 and str(number) != "-0.0"
