"""The shipped chassis catalog (specs/chassis.yaml) validates and holds the entries the app relies on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from configurator.catalog.chassis import ChassisSpec

CHASSIS_YAML = Path(__file__).resolve().parents[2] / "specs" / "chassis.yaml"
URL = re.compile(r"https?://\S+")


@pytest.fixture(scope="module")
def raw() -> dict:
    return yaml.safe_load(CHASSIS_YAML.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def chassis(raw: dict) -> dict[str, ChassisSpec]:
    specs = [ChassisSpec.model_validate(entry) for entry in raw["chassis"]]
    return {c.id: c for c in specs}


def test_file_shape(raw: dict) -> None:
    assert raw["schema_version"] == 1
    assert isinstance(raw["chassis"], list) and raw["chassis"]


def test_ids_unique(raw: dict) -> None:
    ids = [entry["id"] for entry in raw["chassis"]]
    assert len(ids) == len(set(ids)), ids


def test_every_entry_validates(raw: dict, chassis: dict[str, ChassisSpec]) -> None:
    assert len(chassis) == len(raw["chassis"])
    for c in chassis.values():
        assert c.positions, c.id


def test_generic_workstation(chassis: dict[str, ChassisSpec]) -> None:
    c = chassis["generic-workstation-4"]
    assert c.generic and c.kind == "workstation" and c.airflow == "desk"
    assert c.cpu_sockets == 1
    assert len(c.positions) == 4
    assert all(p.kind == "pcie" and p.max_width == 2 and p.cpu == 0 and p.switch is None for p in c.positions)
    assert [p.x for p in c.positions] == [0, 2, 4, 6]
    assert c.psu.atx3_excursion
    assert c.psu_capacity_w > 0


def test_generic_server(chassis: dict[str, ChassisSpec]) -> None:
    c = chassis["generic-server-8"]
    assert c.generic and c.kind == "server" and c.airflow == "server"
    assert c.cpu_sockets == 2
    assert len(c.positions) == 8
    assert all(p.switch for p in c.positions), "every position sits behind a PCIe switch"
    assert {p.cpu for p in c.positions} == {0, 1}
    assert [p.x for p in c.positions] == list(range(0, 16, 2))
    # two GPUs per switch, and a switch never spans sockets
    by_switch: dict[str, set[int]] = {}
    for p in c.positions:
        by_switch.setdefault(p.switch, set()).add(p.cpu)
    assert len(by_switch) == 4
    assert all(len(cpus) == 1 for cpus in by_switch.values())
    assert c.psu_capacity_w > 0


def test_generic_hgx(chassis: dict[str, ChassisSpec]) -> None:
    c = chassis["hgx-8"]
    assert c.generic and c.kind == "hgx" and c.nvswitch
    assert c.cpu_sockets == 2
    assert len(c.positions) == 8
    assert all(p.kind == "sxm" and p.max_width == 0 for p in c.positions)
    assert c.psu.units == 6 and c.psu.redundant_units == 2
    assert c.psu_capacity_w == 4 * 3000


def test_real_products_cite_urls(chassis: dict[str, ChassisSpec]) -> None:
    real = [c for c in chassis.values() if not c.generic]
    assert len(real) >= 3
    for c in real:
        assert URL.search(c.source), f"{c.id}: source needs an http(s) URL"


def test_positions_do_not_overlap(chassis: dict[str, ChassisSpec]) -> None:
    for c in chassis.values():
        covered: set[int] = set()
        for p in c.positions:
            span = set(range(p.x, p.x + max(p.max_width, 1)))
            assert not covered & span, f"{c.id} slot {p.slot} overlaps another position"
            covered |= span


def test_null_values_name_where_to_verify(chassis: dict[str, ChassisSpec]) -> None:
    for c in chassis.values():
        for field in (c.max_card_length_mm, c.platform_power_w, c.psu.watts_each):
            if field.value is None:
                assert field.note, c.id
        if c.psu.watts_each.value is None:
            assert URL.search(c.psu.watts_each.source + (c.psu.watts_each.note or "")), c.id


def test_sys_521ge_tnrt_follows_its_datasheet(chassis: dict[str, ChassisSpec]) -> None:
    """Supermicro's SYS-521GE-TNRT datasheet: 32 DIMM slots up to 32 x 256 GB, 8 NVMe bays (default), FHFL slots,
    4 x 2700 W; the 3+1 split is derived from its 8 x 600 W GPU support list (the datasheet gives no N+M)."""
    c = chassis["supermicro-sys-521ge-tnrt"]
    assert c.host is not None
    assert (c.host.dimm_slots.value, c.host.max_dimm_gb.value, c.host.drive_bays.value) == (32, 256, 8)
    assert c.max_card_length_mm.value == 312
    assert (c.psu.units, c.psu.watts_each.value, c.psu.redundant_units) == (4, 2700, 1)
    assert c.psu_capacity_w == 3 * 2700
    assert c.psu_capacity_w > 8 * 600 + (c.platform_power_w.value or 0)  # the supported 8 x 600 W build fits
    assert c.max_host_memory_gb == pytest.approx(32 * 256 * 2**30 / 1e9)


def test_r760xa_memory_and_bays_follow_dells_spec_sheet(chassis: dict[str, ChassisSpec]) -> None:
    """Dell's R760xa spec sheet (netbox copy): 32 DDR5 slots up to 8 TB (so 256 GB RDIMMs), 8 front NVMe bays."""
    c = chassis["dell-poweredge-r760xa"]
    assert c.host is not None
    assert (c.host.dimm_slots.value, c.host.max_dimm_gb.value, c.host.drive_bays.value) == (32, 256, 8)
    assert c.max_host_memory_gb == pytest.approx(8 * 2**40 / 1e9)  # Dell's "8 TB" in binary units


def test_as_4125gs_tnrt_has_four_nvme_bays(chassis: dict[str, ChassisSpec]) -> None:
    """netbox's AS-4125GS-TNRT file: NVMe Bay 0-3 at the front, the rest SATA."""
    c = chassis["supermicro-as-4125gs-tnrt"]
    assert c.host is not None and c.host.drive_bays.value == 4
