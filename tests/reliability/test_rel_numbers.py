"""Every number finite and plausible before it is printed, refused otherwise with file, line and field:
prices, hours, utilisation, volts and amps, -0.0, ISO 4217 currencies (a data list), nccl-tests busbw, a
tensor-parallel degree another parallelism ignores, and pydantic's own wording never reaching a user."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from configurator.catalog.errors import FileError
from tests.reliability.hostile import DEFAULT_BUILD, SEED_B


def _plan(tmp_path: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    data = yaml.safe_load(SEED_B.read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("price", [".inf", "1e308", ".nan", "-1", "1e300"])
def test_plan_prices_are_finite_and_plausible(tmp_path: Path, price: str) -> None:
    """`.inf` or 1e308 printed "capital inf" as a valid plan (exit 0); 1e300 printed 300-digit numbers."""
    from configurator.engine.planner import load_plan

    path = tmp_path / "plan.yaml"
    text = SEED_B.read_text(encoding="utf-8").replace("classes:\n", f"prices: {{h100-sxm: {price}}}\nclasses:\n", 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FileError) as info:
        load_plan(path)
    assert info.value.problems[0].line is not None and "prices" in str(info.value)


@pytest.mark.parametrize(("where", "key", "value"), [
    ("service", "utilisation_target", 1e-300), ("service", "hours_per_day", 1e-300),
    ("service", "days_per_month", 1e-300), ("service", "service_life_years", 1e-300),
    ("service", "rack_kw", 1e-300), ("service", "pue", float("inf")),
])  # fmt: skip
def test_plan_service_figures_are_plausible(tmp_path: Path, where: str, key: str, value: float) -> None:
    from configurator.engine.planner import load_plan

    def edit(data: dict) -> None:  # type: ignore[type-arg]
        data.setdefault(where, {})[key] = value

    with pytest.raises(FileError, match=key):
        load_plan(_plan(tmp_path, edit))


@pytest.mark.parametrize("currency", ["XYZ", "NaN", "EURO", "", "€"])
def test_a_plan_currency_is_an_iso_4217_code(tmp_path: Path, currency: str) -> None:
    """Currency XYZ and NaN were accepted: a quote read "62,000.00 NAN"."""
    from configurator.engine.planner import load_plan

    with pytest.raises(FileError, match="ISO 4217"):
        load_plan(_plan(tmp_path, lambda d: d.update(currency=currency)))


def test_the_currency_list_is_data() -> None:
    from configurator.catalog.currencies import check_currency, iso_codes
    from configurator.paths import resource

    listed = yaml.safe_load(resource("currencies", "iso4217.yaml").read_text(encoding="utf-8"))
    assert iso_codes() == frozenset(listed["codes"]) and "source" in listed
    assert {"EUR", "USD", "GBP", "JPY", "CHF"} <= iso_codes() and not {"XYZ", "NAN", "XXX", "XTS"} & iso_codes()
    assert check_currency(" eur ") == "EUR"


def test_negative_zero_prices_print_as_zero(tmp_path: Path) -> None:
    """-0.0 printed "-0.00 €"."""
    from configurator.catalog.prices import parse_price_list
    from configurator.engine.planner import load_plan

    prices = parse_price_list("currency: EUR\nparts: {h200-nvl: -0.0}\nservices: [{name: x, price: -0.0}]\n",
                              "p.yaml", {"h200-nvl"})  # fmt: skip
    assert str(prices.parts["h200-nvl"]) == "0.0" and not prices.services[0].price.is_signed()
    plan = load_plan(_plan(tmp_path, lambda d: d.update(prices={"h100-sxm": -0.0})))
    assert str(plan.prices["h100-sxm"]) == "0.0"


@given(st.decimals(allow_nan=True, allow_infinity=True))
def test_price_list_prices_are_finite_or_refused(value: Decimal) -> None:
    from configurator.catalog.prices import parse_price_list

    try:
        prices = parse_price_list(f"currency: EUR\nparts: {{h200-nvl: '{value}'}}\n", "p.yaml", {"h200-nvl"})
    except FileError as exc:
        assert exc.problems[0].line == 2
        return
    price = prices.parts["h200-nvl"]
    assert price.is_finite() and 0 <= price <= Decimal("1e9") and not (price == 0 and price.is_signed())


@pytest.mark.parametrize("site", ["{volts: 1e-300, amps: 1e-300}", "{volts: 230, amps: .inf}",
                                  "{volts: .nan, amps: 16}"])  # fmt: skip
def test_site_circuits_are_plausible(site: str) -> None:
    """volts/amps of 1e-300 printed a 304-digit current."""
    from configurator.engine.model.buildfile import parse_build

    text = DEFAULT_BUILD.read_text(encoding="utf-8") + f"site: {site}\n"
    with pytest.raises(FileError, match="site"):
        parse_build(text, "b.yaml")


def test_a_damaged_busbw_column_is_refused_with_its_line() -> None:
    """`41.2.3` in the busbw column was read as 41.2."""
    from configurator.engine.time.nccl import large_message_busbw

    row = "   134217728      33554432     float     sum      -1   1000.0  134.22  {}      0"
    text = "# header\n" + row.format("41.2.3") + "\n"
    with pytest.raises(ValueError, match=r"line 2.*41\.2\.3"):
        large_message_busbw(text)
    assert large_message_busbw("# header\n" + row.format("41.2") + "\n") == pytest.approx(41.2)


def test_the_cli_names_the_nccl_file(home: Path) -> None:
    from configurator import cli

    log = home / "allreduce.txt"
    log.write_text("   134217728      33554432     float     sum      -1   1000.0  134.22  41.2.3      0\n", "utf-8")
    assert cli.main(["nccl-busbw", str(log)]) == 2


def test_tensor_parallel_with_another_parallelism_is_a_warning() -> None:
    """tensor_parallel was ignored without a word unless parallelism was tp."""
    from configurator.engine import evaluate
    from configurator.engine.model.buildfile import load_build

    build = load_build(DEFAULT_BUILD)
    job = build.jobs[0].model_copy(update={"tensor_parallel": 2})  # an FSDP job
    result = evaluate(build.model_copy(update={"jobs": [job, *build.jobs[1:]]}), base_dir=DEFAULT_BUILD.parent)
    warned = [c for c in result.checks if c.code == "JOB_TP_DEGREE" and c.job == job.name]
    assert warned and warned[0].severity == "warning" and "fsdp" in warned[0].message


def test_leaving_tensor_parallel_resets_the_degree() -> None:
    from configurator.engine import editing
    from configurator.engine.model.buildfile import load_build

    build = load_build(DEFAULT_BUILD)
    tp = editing.set_parallelism(build, 0, "tp")
    assert tp.jobs[0].tensor_parallel == 2
    assert editing.set_parallelism(tp, 0, "fsdp").jobs[0].tensor_parallel == 1


def test_no_pydantic_wording_reaches_a_user() -> None:
    """"1 validation error for ModelSpec" leaked into a job's check."""
    from pydantic import ValidationError

    from configurator.catalog.errors import plain_message
    from configurator.catalog.models import ModelSpec
    from configurator.engine.model.build import ParamsOnlyModel
    from configurator.engine.model.resolver import ModelResolver

    with pytest.raises(ValidationError) as info:
        ModelSpec(id="x", name="x", source="test", architecture="params-only", parameters=10, adapter_fraction=1.0)
    words = plain_message(info.value)
    assert "validation error" not in words and words.startswith("adapter_fraction:")
    from configurator.catalog.loader import default_catalog

    odd = ParamsOnlyModel.model_construct(parameters=1e9, adapter_fraction=1.0, name=None)  # past the file's check
    with pytest.raises(ValueError) as err:
        ModelResolver(default_catalog()).resolve(odd)
    assert "validation error" not in str(err.value) and "adapter_fraction" in str(err.value)
