"""MIG placement engine: validation by placement, auto placement, enumeration, commands.

Specs are built inline from hardware-facts §1.2 (H100 80GB) and §1.5 (RTX PRO 6000), so these tests do not
depend on specs/cards.yaml.
"""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from configurator.catalog.cards import MigProfile, MigSpec
from configurator.engine.mig.layout import (
    LayoutCheck,
    MigRequest,
    cgi_command,
    dead_end_layouts,
    enumerate_layouts,
    mig_commands,
    mig_parted_yaml,
    place_layout,
    preset_layout,
)

SRC = "hardware-facts §1 [MIG-PROF], -lgipp [MIG-GS]"


def _profile(name: str, pid: int, gib: float, sm: int, slices: int, max_count: int, starts, size, me=False):
    return {
        "name": name,
        "profile_id": pid,
        "memory_gib": {"value": gib, "source": SRC},
        "memory_nominal_gb": {"value": float(name.split(".")[1].split("gb")[0]), "source": SRC},
        "sm_count": {"value": sm, "source": SRC},
        "compute_slices": slices,
        "max_count": max_count,
        "placement": {"starts": list(starts), "size": size},
        "media_engines": me,
    }


H100 = MigSpec.model_validate(
    {
        "grid_units": 8,
        "max_instances": 7,
        "display_mode_required": False,
        "min_driver": "R525",
        "source": SRC,
        "profiles": [
            _profile("1g.10gb", 19, 9.75, 16, 1, 7, range(7), 1),
            _profile("1g.10gb+me", 20, 9.75, 16, 1, 1, range(7), 1, me=True),
            _profile("1g.20gb", 15, 19.62, 26, 1, 4, [0, 2, 4, 6], 2),
            _profile("2g.20gb", 14, 19.62, 32, 2, 3, [0, 2, 4], 2),
            _profile("3g.40gb", 9, 39.5, 60, 3, 2, [0, 4], 4),
            _profile("4g.40gb", 5, 39.5, 64, 4, 1, [0], 4),
            _profile("7g.80gb", 0, 79.25, 132, 7, 1, [0], 8),
        ],
        "presets": {"all-balanced": ["1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb"]},
    }
)

RTX = MigSpec.model_validate(
    {
        "grid_units": 12,
        "max_instances": 4,
        "display_mode_required": True,
        "min_driver": "575.51.03",
        "source": SRC,
        "profiles": [
            _profile("1g.24gb", 14, 23.62, 46, 1, 4, [0, 3, 6, 9], 3),
            _profile("1g.24gb+me", 21, 23.62, 46, 1, 1, [0, 3, 6, 9], 3, me=True),
            _profile("2g.48gb", 5, 47.38, 94, 2, 2, [0, 6], 6),
            _profile("4g.96gb", 0, 95.12, 188, 4, 1, [0], 12),
        ],
        "presets": {"all-balanced": ["1g.24gb", "1g.24gb", "2g.48gb"]},
    }
)


def req(*items: str | tuple[str, int]) -> list[MigRequest]:
    return [MigRequest(i) if isinstance(i, str) else MigRequest(*i) for i in items]


def starts(check: LayoutCheck) -> list[tuple[str, int]]:
    return [(x.profile.name, x.start) for x in check.instances]


def assert_sound(spec: MigSpec, check: LayoutCheck, requests: list[MigRequest]) -> None:
    """A valid result: one instance per request, legal starts, explicit starts kept, no overlap, limits."""
    assert check.valid and not check.problems
    assert [x.index for x in check.instances] == list(range(len(requests)))
    occupied = 0
    for x, r in zip(check.instances, requests, strict=True):
        assert x.profile.name == r.profile
        assert x.start in x.profile.placement.starts
        assert x.size == x.profile.placement.size
        assert r.start is None or x.start == r.start
        mask = ((1 << x.size) - 1) << x.start
        assert not occupied & mask
        occupied |= mask
    assert occupied < 1 << spec.grid_units
    assert len(requests) <= spec.max_instances
    for p in spec.profiles:
        assert sum(r.profile == p.name for r in requests) <= p.max_count


# --- enumeration (hardware-facts §2.3) ---------------------------------------------------------------


def test_h100_counts_placeable_and_full_compute():
    layouts = enumerate_layouts(H100, maximal_only=False)
    assert len(layouts) == 77  # distinct placeable base multisets (empty layout not counted)
    full = {layout for layout in layouts if sum(H100.profile(n).compute_slices for n in layout) == 7}
    assert len(full) == 17
    assert ("7g.80gb",) in full
    assert ("4g.40gb", "3g.40gb") in full
    assert ("2g.20gb", "2g.20gb", "2g.20gb", "1g.20gb") in full
    assert ("1g.20gb",) + ("1g.10gb",) * 6 in full


def test_h100_maximal_multisets_vs_reference_dead_ends():
    maximal = set(enumerate_layouts(H100))
    # No further instance can be added in ANY arrangement: 28 multisets. hardware-facts §2.3 says 38,
    # which counts multisets having SOME arrangement that leaves no room (dead ends); reproduced below.
    assert len(maximal) == 28
    dead_ends = set(dead_end_layouts(H100))
    assert len(dead_ends) == 38
    assert maximal <= dead_ends
    # 3g@0 + 2g@4 + 1g@6 strands slice 7, yet 3g+2g+1g+1g places (3g@4, 2g@0, 1g@2, 1g@3).
    assert ("3g.40gb", "2g.20gb", "1g.10gb") in dead_ends - maximal
    assert ("3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb") in maximal
    # Every one of the 17 full-compute layouts is maximal under both definitions.
    full = {m for m in maximal if sum(H100.profile(n).compute_slices for n in m) == 7}
    assert len(full) == 17
    # Not fully packed, but maximal: 3g+3g, 1g.2x x4.
    assert ("3g.40gb", "3g.40gb") in maximal
    assert ("1g.20gb",) * 4 in maximal


def test_h100_counts_with_media_variant():
    # hardware-facts §2.3: including +me variants, 127 multisets, 64 "maximal" (dead-end definition).
    assert len(enumerate_layouts(H100, maximal_only=False, include_variants=True)) == 127
    assert len(dead_end_layouts(H100, include_variants=True)) == 64
    assert len(enumerate_layouts(H100, include_variants=True)) == 44


def test_rtx_pro_maximal_shapes():
    shapes = set(enumerate_layouts(RTX))
    assert shapes == {
        ("4g.96gb",),
        ("2g.48gb", "2g.48gb"),
        ("2g.48gb", "1g.24gb", "1g.24gb"),
        ("1g.24gb",) * 4,
    }
    assert set(dead_end_layouts(RTX)) == shapes


def test_rtx_pro_all_variants_count():
    # hardware-facts §2.3: 171 placeable multisets over all suffix variants without the (UNCONFIRMED)
    # media-engine budget rule, which this engine does not model.
    rows = [
        ("1g.24gb", 14, 4, 1, 3),
        ("1g.24gb+me", 21, 1, 1, 3),
        ("1g.24gb+gfx", 47, 4, 1, 3),
        ("1g.24gb+me.all", 65, 1, 1, 3),
        ("1g.24gb-me", 67, 4, 1, 3),
        ("2g.48gb", 5, 2, 2, 6),
        ("2g.48gb+gfx", 35, 2, 2, 6),
        ("2g.48gb+me.all", 64, 1, 2, 6),
        ("2g.48gb-me", 66, 2, 2, 6),
        ("4g.96gb", 0, 1, 4, 12),
        ("4g.96gb+gfx", 32, 1, 4, 12),
    ]
    starts_for = {3: [0, 3, 6, 9], 6: [0, 6], 12: [0]}
    full = RTX.model_copy(
        update={
            "profiles": [
                MigProfile.model_validate(
                    _profile(n, pid, 23.62 * c, 46 * c, c, mx, starts_for[size], size, me="+me" in n)
                )
                for n, pid, mx, c, size in rows
            ]
        }
    )
    assert len(enumerate_layouts(full, maximal_only=False, include_variants=True)) == 171
    # Base profiles only: the same three as the small spec.
    assert set(enumerate_layouts(full)) == set(enumerate_layouts(RTX))


def test_layouts_sorted_largest_first():
    for layout in enumerate_layouts(H100, maximal_only=False, include_variants=True):
        keys = [(-H100.profile(n).placement.size, -H100.profile(n).compute_slices) for n in layout]
        assert keys == sorted(keys)
    assert enumerate_layouts(H100)[0] == ("7g.80gb",)


@pytest.mark.parametrize("spec", [H100, RTX], ids=["h100", "rtx"])
def test_every_enumerated_layout_revalidates(spec):
    checked = 0
    for layout in enumerate_layouts(spec, maximal_only=False, include_variants=True):
        requests = req(*layout)
        assert_sound(spec, place_layout(spec, requests), requests)
        # Same multiset in reverse (smallest first) order must still be placed: search is order-free.
        requests = req(*reversed(layout))
        assert_sound(spec, place_layout(spec, requests), requests)
        checked += 1
    assert checked == {8: 127, 12: 15}[spec.grid_units]


def test_maximal_layouts_cannot_grow():
    for layout in enumerate_layouts(H100):
        for p in H100.profiles:
            if p.media_engines:
                continue
            assert not place_layout(H100, req(*layout, p.name)).valid, (layout, p.name)


# --- refusals that "sum correctly" -----------------------------------------------------------------------


def test_3g_at_4_blocks_double_memory_1g_at_6():
    check = place_layout(H100, req(("3g.40gb", 4), ("1g.20gb", 6)))
    assert not check.valid
    assert len(check.problems) == 1
    assert "1g.20gb at slices 6-7 overlaps 3g.40gb at slices 4-7" in check.problems[0]
    # The same pair with the 3g at 0 is fine (hardware-facts §2.3 placement detail).
    assert place_layout(H100, req(("3g.40gb", 0), ("1g.20gb", 6))).valid
    assert place_layout(H100, req(("3g.40gb", 0), ("2g.20gb", 4), ("1g.10gb", 6))).valid


def test_2g_cannot_start_at_6():
    # 4 + 2 + 1 memory slices sum to 7, but 2g starts are {0,2,4}.
    check = place_layout(H100, req(("3g.40gb", 0), ("2g.20gb", 6)))
    assert check.problems == ("2g.20gb cannot start at slice 6: allowed starts are 0, 2, 4",)
    # A 3g at 4 leaves 2g only starts 0 and 2; a third 2g has nowhere to go.
    check = place_layout(H100, req(("3g.40gb", 4), "2g.20gb", "2g.20gb", "2g.20gb"))
    assert not check.valid
    assert "cannot be placed together" in check.problems[0]
    assert "remove one" in check.problems[0]


def test_3g_at_0_with_2g_and_two_1g_suggests_other_starts():
    # 3g+2g+1g+1g is placeable (3g@4), but not with the 3g fixed at 0: 1g cannot use slice 7.
    check = place_layout(H100, req(("3g.40gb", 0), "2g.20gb", "1g.10gb", "1g.10gb"))
    assert not check.valid
    (problem,) = check.problems
    assert "with the fixed starts (3g.40gb at slice 0)" in problem
    assert "3g.40gb at slice 4" in problem
    assert "change the starts or leave them empty" in problem
    # Partial placement still shown for the GUI.
    assert {x.profile.name for x in check.instances} >= {"3g.40gb", "2g.20gb"}
    auto = place_layout(H100, req("3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"))
    assert starts(auto) == [("3g.40gb", 4), ("2g.20gb", 0), ("1g.10gb", 2), ("1g.10gb", 3)]


def test_start_not_in_starts_rtx():
    check = place_layout(RTX, req(("2g.48gb", 3)))
    assert check.problems == ("2g.48gb cannot start at grid position 3: allowed starts are 0, 6",)
    assert check.instances == ()


def test_five_instances_on_rtx_pro():
    check = place_layout(RTX, req(*["1g.24gb"] * 4, "1g.24gb+me"))
    assert not check.valid
    assert any("5 instances requested but this card allows at most 4" in p for p in check.problems)
    check = place_layout(RTX, req(*["1g.24gb"] * 5))
    assert any("5 × 1g.24gb requested but this card allows at most 4" in p for p in check.problems)


def test_two_4g_and_two_me_refused():
    check = place_layout(H100, req("4g.40gb", "4g.40gb"))  # 8 slices, 8 compute "fits" by sums
    assert not check.valid
    assert "2 × 4g.40gb requested but this card allows at most 1: remove 1" in check.problems[0]
    check = place_layout(H100, req("1g.10gb+me", "1g.10gb+me"))
    assert not check.valid and "at most 1" in check.problems[0]
    check = place_layout(RTX, req("1g.24gb+me", "1g.24gb+me"))
    assert not check.valid and "at most 1" in check.problems[0]


def test_unknown_profile_lists_offered():
    check = place_layout(RTX, req("3g.72gb", "1g.24gb"))
    assert not check.valid
    assert check.problems[0].startswith("unknown MIG profile '3g.72gb': this card offers 4g.96gb, 2g.48gb")
    assert starts(check) == [("1g.24gb", 0)]


def test_4g_plus_3g_allowed():
    # [MIG-CONC]: the 4g+3g restriction ended with R510.
    assert starts(place_layout(H100, req("3g.40gb", "4g.40gb"))) == [("3g.40gb", 4), ("4g.40gb", 0)]


def test_overlap_with_7g_and_empty_layout():
    check = place_layout(H100, req(("7g.80gb", 0), ("1g.10gb", 3)))
    assert not check.valid and "overlaps 7g.80gb at slices 0-7" in check.problems[0]
    empty = place_layout(H100, [])
    assert empty.valid and empty.instances == ()


# --- automatic placement ------------------------------------------------------------------------------


def test_auto_all_balanced_h100():
    requests = preset_layout(H100, "all-balanced")
    check = place_layout(H100, requests)
    assert_sound(H100, check, requests)
    assert starts(check) == [("1g.10gb", 2), ("1g.10gb", 3), ("2g.20gb", 0), ("3g.40gb", 4)]


def test_auto_rtx_pair_of_1g_and_2g():
    requests = req("1g.24gb", "1g.24gb", "2g.48gb")
    check = place_layout(RTX, requests)
    assert_sound(RTX, check, requests)
    assert starts(check) == [("1g.24gb", 6), ("1g.24gb", 9), ("2g.48gb", 0)]
    # Fixing the 2g at 6 moves the 1g instances into the first half.
    check = place_layout(RTX, req("1g.24gb", "1g.24gb", ("2g.48gb", 6)))
    assert starts(check) == [("1g.24gb", 0), ("1g.24gb", 3), ("2g.48gb", 6)]


def test_auto_keeps_explicit_and_fills_around():
    check = place_layout(H100, req("1g.10gb", ("1g.20gb", 0), "2g.20gb", "1g.10gb", "1g.10gb"))
    assert starts(check) == [("1g.10gb", 4), ("1g.20gb", 0), ("2g.20gb", 2), ("1g.10gb", 5), ("1g.10gb", 6)]
    # One more 1g would need slice 7, which no 1g.10gb start reaches ...
    check = place_layout(H100, req("1g.10gb", ("1g.20gb", 0), "2g.20gb", "1g.10gb", "1g.10gb", "1g.10gb"))
    assert not check.valid
    # ... yet the same six instances fit with the 1g.20gb moved to slices 6-7, and the message says so.
    assert "with the fixed starts (1g.20gb at slice 0)" in check.problems[0]
    assert "1g.20gb at slice 6" in check.problems[0]


def test_preset_unknown():
    with pytest.raises(ValueError, match="unknown MIG preset 'balanced': this card has all-balanced"):
        preset_layout(H100, "balanced")


def test_place_layout_seven_instances():
    """Seven instances place (their time per call, < 50 µs, is benchmarks/test_bench_limits.py's: a timing
    asserted here failed `make test` on a loaded machine, 115 µs against 100 µs)."""
    requests = req("1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.20gb")
    assert place_layout(H100, requests).valid


# --- commands -----------------------------------------------------------------------------------------


def test_cgi_command_explicit_largest_first():
    check = place_layout(H100, preset_layout(H100, "all-balanced"))
    assert cgi_command(H100, check, 3) == "sudo nvidia-smi mig -i 3 -cgi 9:4,14:0,19:2,19:3 -C"
    check = place_layout(RTX, req("1g.24gb", "1g.24gb+me", "2g.48gb"))
    assert cgi_command(RTX, check, 0) == "sudo nvidia-smi mig -i 0 -cgi 5:0,14:6,21:9 -C"
    with pytest.raises(ValueError, match="not valid"):
        cgi_command(H100, place_layout(H100, req("4g.40gb", "4g.40gb")), 0)


def test_mig_commands_display_mode():
    check = place_layout(RTX, preset_layout(RTX, "all-balanced"))
    lines = mig_commands(RTX, check, 1, display_mode_switch=True)
    assert "sudo ./DisplayModeSelector --gpumode=compute --gpu=1" in lines
    assert any(line.startswith("#") and "reboot" in line for line in lines)
    assert lines[-2:] == ["sudo nvidia-smi -i 1 -mig 1", "sudo nvidia-smi mig -i 1 -cgi 5:0,14:6,14:9 -C"]
    assert lines.index("sudo ./DisplayModeSelector --gpumode=compute --gpu=1") < lines.index(lines[-2])
    quiet = mig_commands(RTX, check, 1, display_mode_switch=False)
    assert [line for line in quiet if not line.startswith("#")] == lines[-2:]
    h100 = place_layout(H100, req("7g.80gb"))
    assert mig_commands(H100, h100, 0, display_mode_switch=True) == [
        "sudo nvidia-smi -i 0 -mig 1",
        "sudo nvidia-smi mig -i 0 -cgi 0:0 -C",
    ]


def test_mig_parted_yaml_round_trip():
    check = place_layout(H100, preset_layout(H100, "all-balanced"))
    text = mig_parted_yaml(H100, check, config_name="custom-h100")
    doc = yaml.safe_load(text)
    assert doc["version"] == "v1"
    (entry,) = doc["mig-configs"]["custom-h100"]
    assert entry == {
        "devices": "all",
        "mig-enabled": True,
        "mig-devices": {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2},
    }
    doc = yaml.safe_load(
        mig_parted_yaml(RTX, place_layout(RTX, req(*["1g.24gb"] * 4)), config_name="x", devices=[0, 2])
    )
    assert doc["mig-configs"]["x"][0]["devices"] == [0, 2]
    assert doc["mig-configs"]["x"][0]["mig-devices"] == {"1g.24gb": 4}


# --- property test ------------------------------------------------------------------------------------


def _brute_force_valid(spec: MigSpec, requests: list[MigRequest]) -> bool:
    """Oracle: some assignment of legal starts (explicit ones fixed) with counts and no overlap."""
    names = {p.name: p for p in spec.profiles}
    if any(r.profile not in names for r in requests) or len(requests) > spec.max_instances:
        return False
    if any(sum(r.profile == p.name for r in requests) > p.max_count for p in spec.profiles):
        return False
    choices = [[r.start] if r.start is not None else names[r.profile].placement.starts for r in requests]

    def fits(k: int, cells: frozenset[int]) -> bool:  # plain depth-first, request order, no heuristics
        if k == len(requests):
            return True
        p = names[requests[k].profile]
        for s in choices[k]:
            span = frozenset(range(s, s + p.placement.size))
            if s in p.placement.starts and not span & cells and fits(k + 1, cells | span):
                return True
        return False

    return fits(0, frozenset())


def _requests(spec: MigSpec):
    names = [p.name for p in spec.profiles] + ["9g.1tb"]
    one = st.builds(
        MigRequest, st.sampled_from(names), st.one_of(st.none(), st.none(), st.integers(-1, spec.grid_units))
    )
    return st.lists(one, max_size=spec.max_instances + 1)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_place_layout(data):
    spec = data.draw(st.sampled_from([H100, RTX]))
    requests = data.draw(_requests(spec))
    check = place_layout(spec, requests)  # never raises
    assert check.valid == (not check.problems)
    # Partial or full, what is shown never overlaps and sits on legal starts.
    occupied = 0
    for x in check.instances:
        assert x.start in x.profile.placement.starts
        mask = ((1 << x.size) - 1) << x.start
        assert not occupied & mask
        occupied |= mask
    if check.valid:
        assert_sound(spec, check, requests)
    # Complete and sound: valid exactly when some legal assignment exists.
    assert check.valid == _brute_force_valid(spec, requests)
