"""The card catalog (specs/cards.yaml): schema-valid and consistent with the seed articles' figures."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from configurator.catalog.cards import CardSpec, MigProfile
from configurator.catalog.yamlio import parse_yaml

CARDS_YAML = Path(__file__).resolve().parents[2] / "specs" / "cards.yaml"

REQUIRED_IDS = {
    "h200-nvl",
    "rtx-pro-6000-ws",
    "rtx-pro-6000-server",
    "rtx-pro-6000-maxq",
    "h100-sxm",
    "h100-nvl",
    "h200-sxm",
    "l40s",
    "a100-80gb-pcie",
    "h100-pcie",
}
RTX_PRO = ("rtx-pro-6000-ws", "rtx-pro-6000-maxq", "rtx-pro-6000-server")
EIGHT_SLICE_MIG = ("h200-nvl", "h200-sxm", "h100-sxm", "h100-nvl", "h100-pcie", "a100-80gb-pcie")


@pytest.fixture(scope="module")
def raw() -> dict:
    return yaml.safe_load(CARDS_YAML.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def cards(raw: dict) -> dict[str, CardSpec]:
    specs = [CardSpec.model_validate(entry) for entry in raw["cards"]]
    return {c.id: c for c in specs}


def test_file_shape(raw: dict) -> None:
    assert raw["schema_version"] == 1
    assert isinstance(raw["cards"], list) and raw["cards"]


def test_project_loader_accepts_file() -> None:
    # The project's own safe loader (alias-bomb and size guards) must accept the file.
    data, lines = parse_yaml(CARDS_YAML.read_text(encoding="utf-8"), str(CARDS_YAML))
    assert data["schema_version"] == 1
    assert lines


def test_ids_unique_and_required_present(raw: dict, cards: dict[str, CardSpec]) -> None:
    ids = [entry["id"] for entry in raw["cards"]]
    assert len(ids) == len(set(ids)), Counter(ids).most_common(3)
    assert set(cards) >= REQUIRED_IDS


def test_visible_memory_matches_seed(cards: dict[str, CardSpec]) -> None:
    assert cards["h200-nvl"].visible_gb == pytest.approx(150.8, abs=0.05)
    assert cards["rtx-pro-6000-ws"].visible_gb == pytest.approx(102.6, abs=0.05)


@pytest.mark.parametrize(
    ("card_id", "mib"),
    [
        ("h200-nvl", 143771),
        ("h200-sxm", 143771),
        ("rtx-pro-6000-ws", 97887),
        ("rtx-pro-6000-maxq", 97887),
        ("rtx-pro-6000-server", 97887),
        ("h100-sxm", 81559),
        ("h100-nvl", 95830),
        ("h100-pcie", 81559),
        ("a100-80gb-pcie", 81920),
        ("l40s", 46068),
    ],
)
def test_visible_mib(cards: dict[str, CardSpec], card_id: str, mib: int) -> None:
    assert cards[card_id].memory_visible_mib.value == mib


def test_ops_per_byte_matches_seed(cards: dict[str, CardSpec]) -> None:
    assert cards["h200-nvl"].ops_per_byte == pytest.approx(174, abs=1)
    assert cards["rtx-pro-6000-ws"].ops_per_byte == pytest.approx(281, abs=1)


def test_bf16_ratios_match_seed(cards: dict[str, CardSpec]) -> None:
    h200 = cards["h200-nvl"].bf16_dense_tflops.require("h200")
    ws = cards["rtx-pro-6000-ws"].bf16_dense_tflops.require("ws")
    maxq = cards["rtx-pro-6000-maxq"].bf16_dense_tflops.require("maxq")
    assert round(h200 / ws, 2) == 1.66
    assert round(h200 / maxq, 2) == 1.90
    fp8_ratio = cards["h200-nvl"].fp8_dense_tflops.require("h200") / cards[
        "rtx-pro-6000-ws"
    ].fp8_dense_tflops.require("ws")
    assert round(fp8_ratio, 2) == 1.66


def test_server_edition_has_no_published_dense_rate(cards: dict[str, CardSpec]) -> None:
    server = cards["rtx-pro-6000-server"]
    assert server.bf16_dense_tflops.value is None
    assert "503.8" in (server.bf16_dense_tflops.note or "")
    with pytest.raises(ValueError, match="not published"):
        _ = server.ops_per_byte


def test_bandwidths(cards: dict[str, CardSpec]) -> None:
    expected = {
        "h200-nvl": 4800,
        "rtx-pro-6000-ws": 1792,
        "rtx-pro-6000-maxq": 1792,
        "rtx-pro-6000-server": 1597,
        "h100-sxm": 3350,
        "h100-nvl": 3900,
        "h100-pcie": 2000,
        "h200-sxm": 4800,
        "a100-80gb-pcie": 1935,
        "l40s": 864,
    }
    for card_id, gb_s in expected.items():
        assert cards[card_id].memory_bandwidth_gb_s.value == gb_s, card_id


def test_every_null_is_explained(raw: dict) -> None:
    # CardSpec already enforces this for Sourced values; SourcedText needs the check here.
    for entry in raw["cards"]:
        pc = entry["power_connector"]
        if pc["value"] is None:
            assert pc.get("note"), entry["id"]


def test_nvlink(cards: dict[str, CardSpec]) -> None:
    nvl = cards["h200-nvl"].nvlink
    assert nvl is not None and nvl.fabric == "bridge" and nvl.bridge_sizes == [2, 4]
    assert nvl.gb_s_bidirectional.value == 900
    assert nvl.measured_busbw_gb_s.source.startswith("derived:")
    assert "UNCONFIRMED" in (nvl.measured_busbw_gb_s.note or "")
    for card_id in ("h100-sxm", "h200-sxm"):
        link = cards[card_id].nvlink
        assert link is not None and link.fabric == "nvswitch" and link.bridge_sizes == []
        assert link.gb_s_bidirectional.value == 900
        assert link.measured_busbw_gb_s.value == 370
    h100_nvl = cards["h100-nvl"].nvlink
    assert h100_nvl is not None and h100_nvl.bridge_sizes == [2]
    assert h100_nvl.gb_s_bidirectional.value == 600
    for card_id in (*RTX_PRO, "l40s"):
        assert cards[card_id].nvlink is None, card_id


def test_mig_presence(cards: dict[str, CardSpec]) -> None:
    for card_id in (*EIGHT_SLICE_MIG, *RTX_PRO):
        assert cards[card_id].mig is not None, card_id
    assert cards["l40s"].mig is None


def test_mig_grids(cards: dict[str, CardSpec]) -> None:
    for card_id in EIGHT_SLICE_MIG:
        mig = cards[card_id].mig
        assert mig is not None
        assert (mig.grid_units, mig.max_instances) == (8, 7), card_id
        assert not mig.display_mode_required
    for card_id in RTX_PRO:
        mig = cards[card_id].mig
        assert mig is not None
        assert (mig.grid_units, mig.max_instances) == (12, 4), card_id
    assert cards["rtx-pro-6000-ws"].mig.display_mode_required
    assert cards["rtx-pro-6000-maxq"].mig.display_mode_required
    assert not cards["rtx-pro-6000-server"].mig.display_mode_required


def test_mig_placements_inside_grid(cards: dict[str, CardSpec]) -> None:
    for card in cards.values():
        if card.mig is None:
            continue
        names = [p.name for p in card.mig.profiles]
        assert len(names) == len(set(names)), card.id
        for p in card.mig.profiles:
            assert p.placement.starts, (card.id, p.name)
            assert p.placement.starts == sorted(set(p.placement.starts)), (card.id, p.name)
            for start in p.placement.starts:
                assert start >= 0 and start + p.placement.size <= card.mig.grid_units, (card.id, p.name)
            # every profile can actually be placed max_count times without overlap
            assert _max_disjoint(p.placement.starts, p.placement.size) >= p.max_count, (card.id, p.name)
            assert 1 <= p.compute_slices <= (7 if card.mig.grid_units == 8 else 4)
            if p.media_engines:
                assert p.max_count == 1, (card.id, p.name)


def test_mig_presets_fit(cards: dict[str, CardSpec]) -> None:
    for card in cards.values():
        if card.mig is None:
            continue
        assert "all-balanced" in card.mig.presets and "all-1g" in card.mig.presets, card.id
        for preset, names in card.mig.presets.items():
            profiles = [card.mig.profile(n) for n in names]
            assert len(profiles) <= card.mig.max_instances, (card.id, preset)
            assert _placeable(profiles, card.mig.grid_units), (card.id, preset)


def test_h200_nvl_mig_matches_seed(cards: dict[str, CardSpec]) -> None:
    mig = cards["h200-nvl"].mig
    assert mig is not None
    small = mig.profile("1g.18gb")
    assert small.max_count == 7
    assert small.memory_nominal_gb.value == 16.5
    double = mig.profile("1g.35gb")
    assert double.max_count == 4
    assert double.memory_nominal_gb.value == 35
    assert mig.presets["all-balanced"] == ["1g.18gb", "1g.18gb", "2g.35gb", "3g.71gb"]
    assert mig.presets["all-1g"] == ["1g.18gb"] * 7
    assert mig.profile("1g.18gb+me").media_engines


def test_h100_pcie_is_its_own_card_not_the_sxm(cards: dict[str, CardSpec]) -> None:
    """The H100 PCIe (0x2331) has the H100 SXM's memory and MIG names but 114 SMs, so its MIG profiles get fewer
    SMs than the SXM's (as its -lgip prints them); half the sparse rates, 350 W, a 2-card 600 GB/s bridge."""
    pcie, sxm = cards["h100-pcie"], cards["h100-sxm"]
    assert (pcie.architecture, pcie.compute_capability.value, pcie.memory_type) == ("Hopper", 9.0, "HBM2e")
    rates = (pcie.bf16_dense_tflops.value, pcie.fp8_dense_tflops.value, pcie.fp4_dense_tflops.value)
    assert rates == (756.5, 1513, None)
    assert pcie.sm_count is not None and pcie.sm_count.value == 114
    assert (pcie.power.tdp_w.value, pcie.power.min_w.value, pcie.power.max_w.value) == (350, 300, 350)
    form = pcie.form_factor
    assert (form.kind, form.slot_width.value, form.length_mm.value) == ("pcie", 2, 267)
    assert pcie.cooling.kind == "passive" and (pcie.pcie_generation.value, pcie.pcie_lanes.value) == (5, 16)
    assert "UNCONFIRMED" in (pcie.power_connector.note or "")
    link = pcie.nvlink
    assert link is not None and link.fabric == "bridge" and link.bridge_sizes == [2]
    assert (link.gb_s_bidirectional.value, link.measured_busbw_gb_s.value) == (600, 116)
    assert "nccl/issues/1161" in link.measured_busbw_gb_s.source
    assert pcie.mig is not None and sxm.mig is not None
    assert [p.name for p in pcie.mig.profiles] == [p.name for p in sxm.mig.profiles]
    assert [p.profile_id for p in pcie.mig.profiles] == [p.profile_id for p in sxm.mig.profiles]
    sms = {p.name: p.sm_count.value for p in pcie.mig.profiles}
    assert sms == {"1g.10gb": 14, "1g.10gb+me": 14, "1g.20gb": 14, "2g.20gb": 30, "3g.40gb": 46, "4g.40gb": 62,
                   "7g.80gb": 114}  # fmt: skip
    assert all(sms[p.name] < (p.sm_count.value or 0) for p in sxm.mig.profiles)
    assert pcie.mig.profile("7g.80gb").memory_gib.value == 79.00
    assert pcie.mig.presets == sxm.mig.presets


def test_rtx_pro_mig_matches_seed(cards: dict[str, CardSpec]) -> None:
    for card_id in RTX_PRO:
        mig = cards[card_id].mig
        assert mig is not None
        one = mig.profile("1g.24gb")
        two = mig.profile("2g.48gb")
        assert (one.max_count, one.memory_nominal_gb.value) == (4, 24)
        assert (two.max_count, two.memory_nominal_gb.value) == (2, 48)
        assert mig.profile("4g.96gb").memory_nominal_gb.value == 96
        assert mig.profile("1g.24gb+me").max_count == 1
        assert mig.presets["all-balanced"] == ["1g.24gb", "1g.24gb", "2g.48gb"]
        assert mig.presets["all-1g"] == ["1g.24gb"] * 4
        assert mig.min_driver.startswith("R575")


def test_mig_memory_below_visible_total(cards: dict[str, CardSpec]) -> None:
    for card in cards.values():
        if card.mig is None:
            continue
        for p in card.mig.profiles:
            if p.memory_gib.value is not None:
                assert p.capacity_gb < card.visible_gb, (card.id, p.name)


def _max_disjoint(starts: list[int], size: int) -> int:
    """Greedy: how many non-overlapping instances of one profile the legal starts allow."""
    count, free_from = 0, 0
    for s in sorted(starts):
        if s >= free_from:
            count += 1
            free_from = s + size
    return count


def _placeable(profiles: list[MigProfile], grid: int) -> bool:
    """Backtracking search for a non-overlapping placement of all profiles on the grid."""
    order = sorted(profiles, key=lambda p: -p.placement.size)
    used = [False] * grid

    def place(i: int) -> bool:
        if i == len(order):
            return True
        p = order[i]
        for s in p.placement.starts:
            span = range(s, s + p.placement.size)
            if any(used[u] for u in span):
                continue
            for u in span:
                used[u] = True
            if place(i + 1):
                return True
            for u in span:
                used[u] = False
        return False

    return place(0)


def test_rate_estimates_are_marked_and_only_stand_in_for_missing_rates(cards: dict[str, CardSpec]) -> None:
    """An estimated BF16 rate exists only where no rate is published, and its source says UNCONFIRMED."""
    estimated = [c for c in cards.values() if c.bf16_dense_tflops_estimate is not None]
    assert [c.id for c in estimated] == ["rtx-pro-6000-server"]
    for card in estimated:
        assert card.bf16_dense_tflops.value is None
        assert card.bf16_dense_tflops_estimate.source.startswith("UNCONFIRMED")
        assert card.bf16_dense_tflops_estimate.value == cards["rtx-pro-6000-ws"].bf16_dense_tflops.value
