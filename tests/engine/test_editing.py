"""Qt-free edits: jobs, MIG layouts, card swaps, the fit-frontier sweep and the build comparison."""

from __future__ import annotations

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine import Build, evaluate
from configurator.engine.compare import compare
from configurator.engine.editing import (
    EditRefused,
    add_job,
    assign_job,
    default_swap_target,
    duplicate_job,
    instance_mapping,
    lost_placements,
    remove_job,
    rename_job,
    set_mig_layout,
    swap_cards,
    swap_note,
    update_job,
)
from configurator.engine.model.build import InstanceRef
from configurator.engine.model.buildfile import load_build
from configurator.engine.sweep import fit_frontier
from tests.paths import BUILDS

CAT = default_catalog()


@pytest.fixture
def build() -> Build:
    return load_build(BUILDS / "default.yaml")


def test_job_list_edits(build: Build) -> None:
    """Add, duplicate, rename and remove keep names unique and refuse clashes."""
    b = add_job(build)
    assert b.jobs[-1].name == "8B LoRA" and b.jobs[-1].cards == [1]  # named for its model and method (issue 15)
    b = add_job(b)
    assert b.jobs[-1].name == "8B LoRA (2)"
    b = duplicate_job(b, 0)
    assert b.jobs[1].name == f"{build.jobs[0].name} copy" and b.jobs[1].model == build.jobs[0].model
    with pytest.raises(EditRefused, match="already called"):
        rename_job(b, 0, b.jobs[1].name)
    with pytest.raises(EditRefused):
        rename_job(b, 0, "  ")
    b = remove_job(rename_job(b, 0, "Renamed"), 1)
    assert b.jobs[0].name == "Renamed" and len(b.jobs) == 4
    with pytest.raises(ValueError):
        update_job(b, 0, sequence_length=0)


def test_assign_job_to_cards_and_instances() -> None:
    """Assigning moves a job to a card or instance; several whole cards switch a single job to FSDP."""
    b = load_build(BUILDS / "default.yaml")
    b = assign_job(b, CAT, 1, 1, add=True)
    assert b.jobs[1].cards == [1, 3] and b.jobs[1].parallelism == "fsdp"
    b = assign_job(b, CAT, 1, 2)
    assert b.jobs[1].cards == [2] and b.jobs[1].parallelism == "single"
    mig = load_build(BUILDS / "seed-mig-four-tenants.yaml")
    moved = assign_job(mig, CAT, 0, 1, instance=3)
    assert moved.jobs[0].cards == [InstanceRef(slot=1, instance=3)]
    with pytest.raises(EditRefused, match="MIG instances"):
        assign_job(mig, CAT, 0, 1)
    with pytest.raises(EditRefused, match="no MIG instance 9"):
        assign_job(mig, CAT, 0, 1, instance=9)


def test_set_mig_layout_refuses_invalid_and_drops_orphans() -> None:
    """A layout is placed or refused with its reason; jobs on removed instances leave the card."""
    mig = load_build(BUILDS / "seed-mig-four-tenants.yaml")
    two = set_mig_layout(mig, CAT, 1, [("2g.48gb", None), ("2g.48gb", None)])
    assert [r.profile for r in two.card_in(1).mig] == ["2g.48gb", "2g.48gb"]
    assert not any(j.cards for j in two.jobs)  # no 1g.24gb instance is left
    with pytest.raises(EditRefused):
        set_mig_layout(mig, CAT, 1, [("1g.24gb", None)] * 5)
    off = set_mig_layout(mig, CAT, 1, None)
    assert off.card_in(1).mig is None


def test_swap_cards_drops_what_no_longer_applies(build: Build) -> None:
    """H200 NVL -> RTX PRO 6000 Server: the NVLink bridge goes, the jobs stay on their slots."""
    swapped = swap_cards(build, CAT, "h200-nvl", "rtx-pro-6000-server")
    assert {c.card for c in swapped.cards} == {"rtx-pro-6000-server"}
    assert swapped.bridges == [] and swapped.jobs[0].cards == [1, 2]
    assert not [c for c in evaluate(swapped).checks if c.code.startswith("BRIDGE")]


def test_fit_frontier_matches_the_engine(build: Build) -> None:
    """The sweep's last fitting length is where the engine's own headroom turns negative."""
    frontier = fit_frontier(build, 0, CAT)
    own = next(c for c in frontier.curves if c.is_job)
    assert own.max_fitting_length is not None
    fits = evaluate(update_job(build, 0, sequence_length=own.max_fitting_length)).jobs[0]
    assert fits.fits
    beyond = own.lengths[own.lengths.index(own.max_fitting_length) + 1]
    assert not evaluate(update_job(build, 0, sequence_length=beyond)).jobs[0].fits
    assert {c.label for c in frontier.curves if not c.is_job} >= {"Full fine-tune, 8-bit Adam", "QLoRA"}


def test_compare_h200_against_rtx(build: Build) -> None:
    """Comparing with the RTX PRO 6000 version: the H200 NVL side has more headroom and is marked better."""
    left = evaluate(build)
    right = evaluate(swap_cards(build, CAT, "h200-nvl", "rtx-pro-6000-server"))
    rows = compare(left, right)
    head = next(r for r in rows if r.job == build.jobs[0].name and r.what.startswith("headroom"))
    assert head.better == "left"
    assert any(r.what == "power" for r in rows)


def test_compare_shows_differing_rate_bases(build: Build) -> None:
    """Step times on different link or compute rate bases are flagged in the comparison, not ranked."""
    left = evaluate(build)
    a = build.assumptions.model_copy(update={"link_rates": "nominal", "compute_rates": "published"})
    rows = compare(left, evaluate(build.model_copy(update={"assumptions": a})))
    bases = {r.what: r for r in rows if r.what in ("link rates", "compute rates")}
    assert bases["link rates"].left == "measured" and bases["link rates"].right == "nominal"
    assert bases["compute rates"].right == "published" and bases["compute rates"].better is None
    assert not any(r.what.endswith("rates") for r in compare(left, left))


def test_fit_frontier_agrees_with_evaluate_for_ddp() -> None:
    """The sweep shares evaluate's sharding rule: DDP replicas keep their gradient buckets at the peak."""
    b = load_build(BUILDS / "default.yaml")
    b = update_job(b, 0, model="llama-3.1-8b", method="full", parallelism="ddp", sequence_length=1024)
    frontier = fit_frontier(b, 0, CAT, lengths=[1024])
    own = next(c for c in frontier.curves if c.is_job)
    row = evaluate(b).jobs[0].cards[0]
    assert own.headroom_gb[0] == pytest.approx(row.headroom_gb, abs=1e-9)


def test_bridge_group_for_a_dropped_bridge() -> None:
    """A 2-way bridge dropped on a card joins the run of identical bridgeable cards that starts there (or
    ends there); refusals say why in the words Ctrl+B uses."""
    from configurator.engine.editing import bridge_group_for, place_card, remove_bridge

    base = remove_bridge(load_build(BUILDS / "default.yaml"), 1)  # H200 NVL in 1 and 2, RTX PRO Server in 3
    assert bridge_group_for(base, CAT, 1, 2) == ([1, 2], None)
    assert bridge_group_for(base, CAT, 2, 2) == ([1, 2], None)
    four = place_card(place_card(base, CAT, 4, "h200-nvl"), CAT, 5, "h200-nvl")
    assert bridge_group_for(four, CAT, 4, 2) == ([4, 5], None)  # the run starting at slot 4 comes first
    group, why = bridge_group_for(base, CAT, 3, 2)
    assert group is None and "no NVLink bridge connector" in (why or "")
    group, why = bridge_group_for(base, CAT, 1, 3)
    assert group is None and "bridges join 2 or 4 cards, not 3" in (why or "")
    assert bridge_group_for(base, CAT, 6, 2) == (None, "drop the bridge onto a card")
    group, why = bridge_group_for(load_build(BUILDS / "default.yaml"), CAT, 1, 2)  # already bridged
    assert group is None and "already has a bridge" in (why or "")


def test_demo_method_switch_renames_generated_job_names_only() -> None:
    """The demo's method buttons follow the editor's naming rule: '70B LoRA' switched to a full fine-tune reads
    '70B full fine-tune'; a name a person chose ('70B, slot 1') is kept."""
    from configurator.engine.editing.kiosk import set_method
    from configurator.engine.model.resolver import ModelResolver

    build = Build.model_validate(
        {"chassis": "generic-server-8", "cards": [{"card": "h200-nvl", "slot": 1}, {"card": "h200-nvl", "slot": 3}],
         "jobs": [{"name": "70B LoRA", "model": "llama-3.3-70b", "cards": [1]},
                  {"name": "70B, slot 3", "model": "llama-3.3-70b", "cards": [3]}]}
    )  # fmt: skip
    after = set_method(build, "full", ModelResolver(default_catalog()))
    assert [j.name for j in after.jobs] == ["70B full fine-tune", "70B, slot 3"]
    assert [j.method for j in after.jobs] == ["full", "full"]
    assert [j.name for j in set_method(build, "full").jobs] == ["70B LoRA", "70B, slot 3"]  # no resolver: as before


def test_mig_off_puts_instance_jobs_on_the_whole_card() -> None:
    """Running without MIG means running on the whole card: the tenants keep the card (sharing it), none is lost."""
    mig = load_build(BUILDS / "seed-mig-four-tenants.yaml")
    off = set_mig_layout(mig, CAT, 1, None)
    assert [j.cards for j in off.jobs] == [[1]] * 4
    assert lost_placements(mig, off, 1) == []
    one = off.model_copy(update={"jobs": off.jobs[:1]})
    assert evaluate(one, CAT).jobs[0].cards  # tenant A alone: sized on the whole card


def test_layout_change_keeps_jobs_on_instances_of_their_profile() -> None:
    """A new layout keeps each job on an instance of the profile it had (same index first) and names the ones
    whose profile is gone."""
    mig = load_build(BUILDS / "seed-mig-four-tenants.yaml")
    mixed = set_mig_layout(mig, CAT, 1, [("2g.48gb", None), ("1g.24gb", None), ("1g.24gb", None)])
    assert [j.cards for j in mixed.jobs] == [[], [InstanceRef(slot=1, instance=1)],
                                             [InstanceRef(slot=1, instance=2)], []]  # fmt: skip
    assert lost_placements(mig, mixed, 1) == ["tenant A", "tenant D"]
    # fewer instances of the profile: the ones left keep their jobs, by index first
    moved = set_mig_layout(mig, CAT, 1, [("2g.48gb", None), ("1g.24gb", None)])
    assert moved.jobs[0].cards == [] and moved.jobs[1].cards == [InstanceRef(slot=1, instance=1)]
    assert instance_mapping(["1g", "2g", "1g"], ["2g", "1g"]) == {0: 1, 1: 0}
    assert lost_placements(mig, moved, 1) == ["tenant A", "tenant C", "tenant D"]


def test_swap_carries_a_mig_layout_or_puts_its_jobs_on_the_whole_card() -> None:
    """Review 2 #8: the Server -> Workstation swap keeps the four 1g.24gb instances and their tenants; a card
    without those profiles runs the tenants on the whole card (CARD_SHARED speaks), and the note says which."""
    mig = load_build(BUILDS / "seed-mig-four-tenants.yaml")
    ws = swap_cards(mig, CAT, "rtx-pro-6000-server", "rtx-pro-6000-ws")
    assert ws.card_in(1).mig == mig.card_in(1).mig and [j.cards for j in ws.jobs] == [j.cards for j in mig.jobs]
    assert "carried" in swap_note(mig, CAT, "rtx-pro-6000-server", "rtx-pro-6000-ws")
    nvl = swap_cards(mig, CAT, "rtx-pro-6000-server", "h200-nvl")
    assert nvl.card_in(1).mig is None and [j.cards for j in nvl.jobs] == [[1]] * 4
    assert "whole card" in swap_note(mig, CAT, "rtx-pro-6000-server", "h200-nvl")
    assert any(c.code == "CARD_SHARED" for c in evaluate(nvl, CAT).checks)
    assert default_swap_target(mig, CAT, "rtx-pro-6000-server", ["h200-nvl", "rtx-pro-6000-ws"]) == "rtx-pro-6000-ws"


def test_compare_lists_build_rows_first_and_absent_jobs_once() -> None:
    """Review 2 #7: the build-level rows compare two builds with no job in common; a job one side lacks reads
    'absent' there, with no difference and no rows of dashes."""
    left = evaluate(load_build(BUILDS / "default.yaml"), CAT)
    right = evaluate(load_build(BUILDS / "seed-70b-lora-8x-h200-nvl.yaml"), CAT)
    rows = compare(left, right)
    build = [r.what for r in rows if r.job is None]
    assert rows[0].job is None and {"cards", "fit (worst job)", "headroom (GB, tightest card)", "power"} <= set(build)
    cards = next(r for r in rows if r.what == "cards")
    assert (cards.left, cards.right) == ("3", "8")
    other = [r for r in rows if r.job == right.jobs[0].name]
    assert [r.left for r in other] == ["absent"] * 3 and all(r.right != "absent" and not r.delta for r in other)
