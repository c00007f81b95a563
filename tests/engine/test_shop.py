"""The shop side of the sheet, without Qt: price lists, the bill of materials, build codes, the wall circuit,
and the catalog's sources being public references a reader can follow."""

from __future__ import annotations

import base64
import datetime as dt
import re
import zlib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from configurator.catalog.errors import FileError
from configurator.catalog.loader import default_catalog
from configurator.catalog.prices import PriceList, load_price_list, parse_price_list
from configurator.engine import Build, evaluate
from configurator.engine.model.bom import bill_of_materials, money
from configurator.engine.model.buildcode import MAX_CODE_CHARS, PREFIX, CodeTooLarge, decode_build, encode_build
from configurator.engine.model.buildfile import build_to_yaml, load_build, parse_build, save_build
from configurator.engine.model.wall import SITE_PRESETS, wall_draw
from tests.shop_data import PRICES, private_sources

ROOT = Path(__file__).resolve().parents[2]
BUILDS = ROOT / "resources" / "builds"
DAY = dt.date(2026, 3, 2)


PRICES_CSV = """\
field,value
currency,EUR
tax_rate,0.19
valid_days,30
parts.rtx-pro-6000-ws,8900.50
parts.generic-workstation-4,3200
parts.nvlink-bridge-h200-nvl-2way,650
parts.dimm-16gb,95
parts.nvme-1.92tb,240
services.Assembly and burn-in,450
services.3-year warranty,1200
"""


def ids() -> set[str]:
    cat = default_catalog()
    return set(cat.cards) | set(cat.chassis)


def desk_build(site: Any = None, n: int = 4) -> Build:
    """n x RTX PRO 6000 Workstation (600 W each) in the generic desk tower."""
    data: dict[str, Any] = {"name": "Desk", "chassis": "generic-workstation-4",
                            "cards": [{"slot": s, "card": "rtx-pro-6000-ws"} for s in range(1, n + 1)]}  # fmt: skip
    if site is not None:
        data["site"] = site
    return Build.model_validate(data)


# ---- price lists ------------------------------------------------------------------------------------------------


def test_yaml_and_csv_price_lists_read_the_same() -> None:
    a = parse_price_list(PRICES, "p.yaml", ids())
    b = parse_price_list(PRICES_CSV, "p.csv", ids(), fmt="csv")
    assert a == b
    assert a.parts["rtx-pro-6000-ws"] == Decimal("8900.50")  # exact, not 8900.5000000001
    assert a.tax_rate == Decimal("0.19") and a.valid_days == 30 and len(a.services) == 2


def test_load_price_list_picks_the_format_by_suffix(tmp_path: Path) -> None:
    (tmp_path / "p.csv").write_text(PRICES_CSV)
    (tmp_path / "p.yaml").write_text(PRICES)
    assert load_price_list(tmp_path / "p.csv") == load_price_list(tmp_path / "p.yaml")


@pytest.mark.parametrize(
    ("text", "fmt", "says"),
    [
        ("currency: EURO\n", "yaml", (":1: ", "currency", "three-letter ISO 4217 code")),
        ("currency: EUR\nparts: {h200-nvll: 3}\n", "yaml", (":2: ", "parts.h200-nvll", "did you mean h200-nvl")),
        ("currency: EUR\nparts:\n  h200-nvl: -5\n", "yaml", ("parts", "between 0 and")),
        ("currency: EUR\ntax_rate: 19\n", "yaml", (":2: ", "tax_rate", "less than or equal to 1")),
        ("currency: EUR\nshipping: 40\n", "yaml", (":2: ", "shipping", "unknown key")),
        ("currency: EUR\nservices: [{name: Burn-in}]\n", "yaml", ("services[0].price", "required key is missing")),
        ("- EUR\n", "yaml", ("a list at the top level",)),
        ("tax_rate: 0.2\n", "yaml", ("currency", "required key is missing")),
        ("field,value\ncurrency,EUR\nparts.h200-nvl,abc\n", "csv", (":3: ", "parts.h200-nvl", "decimal")),
        ("field,value\ncurrency,EUR\nfreight,12\n", "csv", (":3: ", "freight", "unknown field")),
        ("id,price\nh200-nvl,1\n", "csv", (":1: ", "header 'field,value'")),
        ("field,value\ncurrency,EUR,extra\n", "csv", (":2: ", "expected 2 columns")),
    ],
)
def test_bad_price_lists_say_file_line_and_field(text: str, fmt: str, says: tuple[str, ...]) -> None:
    with pytest.raises(FileError) as err:
        parse_price_list(text, "prices." + fmt, ids(), fmt=fmt)
    message = str(err.value)
    for words in says:
        assert words in message, message


def test_no_price_list_ships_with_prices() -> None:
    """The product never carries prices of its own: no shipped file has a price list's keys. The one exception
    is a service plan's public street prices (issue 24: seed B's plan ranks by cost), each with its source and
    date in price_sources; they price the planner's fleets, never a quote."""
    from configurator.engine.planner import load_plan

    shipped = [p for d in ("resources", "specs") for p in (ROOT / d).rglob("*") if p.suffix in {".yaml", ".csv"}]
    assert shipped
    for p in shipped:
        text = p.read_text(encoding="utf-8")
        if p.parent == ROOT / "resources" / "plans" and re.search(r"^classes:", text, re.M):
            plan = load_plan(p)
            assert set(plan.prices) <= set(plan.price_sources), p  # every shipped price says where it is from
            continue
        assert not (re.search(r"^currency:", text, re.M) or text.startswith("field,value")), p


# ---- bill of materials ------------------------------------------------------------------------------------------


def test_bill_of_materials_sums_lines_tax_and_total() -> None:
    build = desk_build(n=2)
    bom = bill_of_materials(build, default_catalog(), parse_price_list(PRICES, "p", ids()), "Q-1", DAY)
    by = {ln.description: ln for ln in bom.lines}
    assert by["NVIDIA RTX PRO 6000 Blackwell Workstation Edition"].quantity == 2
    assert by["NVIDIA RTX PRO 6000 Blackwell Workstation Edition"].line_total == Decimal("17801.00")
    # 3,200 + 2 x 8,900.50 + 450 + 1,200 = 22,651.00; 19 % tax 4,303.69; total 26,954.69
    assert bom.subtotal == Decimal("22651.00")
    assert bom.tax == Decimal("4303.69")
    assert bom.total == Decimal("26954.69")
    assert bom.complete and bom.valid_until == dt.date(2026, 4, 1)


def test_unpriced_parts_are_lines_and_make_the_total_incomplete() -> None:
    build = Build.model_validate({"chassis": "generic-server-8", "cards": [
        {"slot": 1, "card": "h200-nvl"}, {"slot": 2, "card": "h200-nvl"}], "bridges": [{"slots": [1, 2]}]})  # fmt: skip
    bom = bill_of_materials(build, default_catalog(), parse_price_list(PRICES, "p", ids()), "Q-1", DAY)
    unpriced = {ln.description for ln in bom.lines if ln.unit_price is None}
    assert unpriced == {"Generic 8-GPU PCIe server", "NVIDIA H200 NVL"} or "NVIDIA H200 NVL" in unpriced
    assert not bom.complete and set(bom.unpriced) == unpriced
    bridge = next(ln for ln in bom.lines if ln.kind == "bridge")
    assert bridge.part_id == "nvlink-bridge-h200-nvl-2way" and bridge.line_total == Decimal("650.00")
    assert bom.subtotal == Decimal("650") + Decimal("450") + Decimal("1200")


@pytest.mark.parametrize(
    ("amount", "currency", "text"),
    [("31000", "EUR", "31,000.00 €"), ("1440.5", "USD", "$1,440.50"), ("0.125", "GBP", "£0.13"),
     ("1234567", "JPY", "¥1,234,567"), ("12.3", "XAU", "12.30 XAU"), ("-5", "USD", "-$5.00"),
     ("99", "CHF", "CHF 99.00")],
)  # fmt: skip
def test_money_is_written_for_its_currency(amount: str, currency: str, text: str) -> None:
    assert money(Decimal(amount), currency) == text


# ---- build codes ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in BUILDS.glob("*.yaml")))
def test_build_code_round_trips_every_shipped_build(name: str) -> None:
    build = load_build(BUILDS / name)
    code = encode_build(build)
    assert code.startswith(PREFIX) and len(code) <= MAX_CODE_CHARS
    assert re.fullmatch(r"GBC1:[A-Za-z0-9_-]+", code)
    assert decode_build(code) == build
    assert decode_build("  " + code[:40] + "\n" + code[40:] + " ") == build  # a scanner's line breaks


def _code_of(raw: bytes) -> str:
    return PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(
    ("code", "says"),
    [
        ("", "empty code"),
        ("hello", "not a build code"),
        ("GBC2:abcd", "newer configurator"),
        ("GBC1:ab$cd", "outside URL-safe base64"),
        ("GBC1:" + "A" * 5, "base64 is broken"),
        (_code_of(b"not zlib at all"), "damaged"),
        (_code_of(zlib.compress(b"name: x\nchassis: generic-server-8\n")[:-6]), "cut short"),
        (_code_of(zlib.compress(b" " * 300_000, 9)), "more than 200,000 bytes"),
        (_code_of(zlib.compress(b"name: x\nchassis: no-such-box\n")), "unknown chassis"),
        (_code_of(zlib.compress(b"name: [unclosed\n")), "not valid YAML"),
        (_code_of(zlib.compress(b"\xff\xfe")), "UTF-8"),
    ],
)
def test_corrupt_codes_say_what_is_wrong(code: str, says: str) -> None:
    with pytest.raises(FileError) as err:
        decode_build(code)
    assert says in str(err.value)


def test_truncated_real_code_is_refused() -> None:
    code = encode_build(load_build(BUILDS / "default.yaml"))
    with pytest.raises(FileError) as err:
        decode_build(code[: len(code) // 2])
    assert "cut short" in str(err.value) or "broken" in str(err.value)


def test_qr_modules_are_square_with_a_quiet_zone() -> None:
    from configurator.engine.model.buildcode import qr_modules

    rows = qr_modules(encode_build(load_build(BUILDS / "default.yaml")))
    n = len(rows)
    assert all(len(r) == n for r in rows) and (n - 8 - 17) % 4 == 0  # version v has 17 + 4v modules a side
    assert not any(rows[0]) and not any(r[0] for r in rows)  # quiet zone
    assert rows[4][4] and rows[4][10]  # the finder pattern's dark frame


def test_a_build_too_large_for_one_qr_says_so() -> None:
    build = load_build(BUILDS / "default.yaml")
    import hashlib

    # incompressible names: 60 jobs (under the 64 a build may hold) of 128 hex digits each
    names = [hashlib.sha512(str(i).encode()).hexdigest() for i in range(60)]
    big = build.model_copy(update={"jobs": [build.jobs[0].model_copy(update={"name": n}) for n in names]})
    big = parse_build(build_to_yaml(big), "big")  # valid as a file
    with pytest.raises(CodeTooLarge, match="one QR code holds"):
        encode_build(big)


def test_saved_build_gets_the_users_umask(tmp_path: Path) -> None:
    import os

    old = os.umask(0o022)
    try:
        save_build(load_build(BUILDS / "default.yaml"), tmp_path / "b.yaml")
    finally:
        os.umask(old)
    assert (tmp_path / "b.yaml").stat().st_mode & 0o777 == 0o644


# ---- wall circuit -----------------------------------------------------------------------------------------------


def test_four_600w_cards_overload_a_120v_15a_circuit_with_the_numbers() -> None:
    result = evaluate(desk_build("us-120v-15a"))
    wall = [c for c in result.checks if c.code == "WALL_CIRCUIT_OVERLOAD"]
    assert len(wall) == 1 and wall[0].severity == "error"
    # 4 x 600 W + 600 W platform = 3,000 W; / 0.89 = 3,371 W; 120 V x 15 A x 0.8 = 1,440 W
    for words in ("3,371 W", "3,000 W", "1,440 W continuously", "120 V × 15 A × 80%"):
        assert words in wall[0].message


def test_the_same_build_passes_on_230v_16a() -> None:
    result = evaluate(desk_build("eu-230v-16a"))
    assert not [c for c in result.checks if c.code == "WALL_CIRCUIT_OVERLOAD"]
    assert result.power is not None
    w = wall_draw("eu-230v-16a", result.power.total_w, result.power.transient_demand_w)
    assert w.continuous_w == 3680 and w.sustained_w == pytest.approx(3000 / 0.89)


def test_no_site_no_wall_check_and_custom_circuits() -> None:
    assert not [c for c in evaluate(desk_build()).checks if c.code.startswith("WALL")]
    two = desk_build({"volts": 240, "amps": 20}, n=2)  # 1,800 W / 0.89 = 2,022 W against 3,840 W
    assert not [c for c in evaluate(two).checks if c.code.startswith("WALL")]
    tight = desk_build({"volts": 120, "amps": 20, "continuous_fraction": 1.0}, n=2)  # 2,022 W vs 2,400 W
    assert not [c for c in evaluate(tight).checks if c.code.startswith("WALL")]
    over = desk_build({"volts": 120, "amps": 15, "continuous_fraction": 1.0}, n=2)  # 2,022 W vs 1,800 W
    assert [c.code for c in evaluate(over).checks if c.code.startswith("WALL")] == ["WALL_CIRCUIT_OVERLOAD"]


def test_presets_and_bad_sites() -> None:
    for name in ("us-120v-15a", "us-120v-20a", "eu-230v-10a", "eu-230v-16a", "dc-208v-30a"):
        assert name in SITE_PRESETS
    assert SITE_PRESETS["dc-208v-30a"].volts * SITE_PRESETS["dc-208v-30a"].amps * 0.8 == pytest.approx(4992)
    with pytest.raises(FileError) as err:
        parse_build("chassis: generic-workstation-4\nsite: us-120-15a\n", "b.yaml")
    assert "b.yaml:2:" in str(err.value) and "did you mean us-120v-15a" in str(err.value)
    with pytest.raises(FileError) as err:
        parse_build("chassis: generic-workstation-4\nsite: {volts: 230}\n", "b.yaml")
    assert "site" in str(err.value) and "amps" in str(err.value)
    b = desk_build("eu-230v-16a")
    assert parse_build(build_to_yaml(b), "b") == b


# ---- public sources ---------------------------------------------------------------------------------------------

# Names of files outside the product, index ids and internal nicknames: none means anything to a reader.
def _strings(obj: Any, path: str = "") -> list[tuple[str, str]]:
    """(field path, text) of every source and note in a catalog entry."""
    out: list[tuple[str, str]] = []
    if isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            value = getattr(obj, name)
            if name in {"source", "note", "airflow_source"} and isinstance(value, str):
                out.append((f"{path}.{name}", value))
            else:
                out += _strings(value, f"{path}.{name}")
    elif isinstance(obj, list | tuple):
        for i, v in enumerate(obj):
            out += _strings(v, f"{path}[{i}]")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out += _strings(v, f"{path}.{k}")
    return out


def test_the_pattern_catches_what_it_is_for() -> None:
    for bad in ("seed A: 4.8 TB/s", "hardware-facts.md §4", "idx:58509401182", "chassis-power.md §2.4",
                "[S7]", "seed B", "measured-runs §2", "/work/shared/seeds/000.txt"):  # fmt: skip
        assert private_sources(bad), bad
    for good in ("https://www.nvidia.com/en-us/data-center/h200/", "derived: 4 x 600 W (NVIDIA product page)",
                 "https://github.com/Lightning-AI/litgpt/blob/main/tutorials/resource-tables.md"):  # fmt: skip
        assert not private_sources(good), good


def test_every_catalog_source_is_public() -> None:
    cat = default_catalog()
    bad = []
    for kind, items in (("cards", cat.cards), ("chassis", cat.chassis), ("models", cat.models)):
        for key, entry in items.items():
            for where, text in _strings(entry, f"{kind}.{key}"):
                if private_sources(text):
                    bad.append(f"{where}: {text[:100]}")
    assert not bad, f"{len(bad)} sources name files, index ids or nicknames outside the product:\n" + "\n".join(bad)


def test_calibration_sources_are_public() -> None:
    from configurator.engine.calibration import band as calibration

    texts = [repr(r) for r in (*calibration.MEASURED_RUNS, *calibration.HELD_OUT_RUNS)]
    bad = [t[:120] for t in texts if private_sources(t)]
    assert not bad, bad


def test_price_list_model_is_strict() -> None:
    with pytest.raises(ValueError):
        PriceList.model_validate({"currency": "EUR", "parts": {}, "extra": 1})
