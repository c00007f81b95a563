"""The rules that used to live in widgets, now pure edits in engine/editing, and a guard that keeps them out of
ui/ and report/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine import editing, evaluate
from configurator.engine.editing.kiosk import fitting_status, set_card_count
from configurator.engine.model.build import InstanceRef
from configurator.engine.model.buildfile import load_build
from tests.paths import BUILDS

CAT = default_catalog()
ROOT = Path(__file__).resolve().parents[2]


def test_parallelism_follows_card_count() -> None:
    """One rule for every place a job's cards change: one card runs single, several keep a strategy (FSDP when
    the job was single), none leaves it alone."""
    b = load_build(BUILDS / "default.yaml")
    job = b.jobs[1].model_copy(update={"parallelism": "single"})
    assert editing.parallelism_for(job, 2) == "fsdp"
    assert editing.parallelism_for(job.model_copy(update={"parallelism": "ddp"}), 3) == "ddp"
    assert editing.parallelism_for(job.model_copy(update={"parallelism": "tp"}), 1) == "single"
    assert editing.parallelism_for(job, 0) == "single"
    on_two = editing.toggle_job_card(b, 1, 1, None, True)
    assert on_two.jobs[1].cards == sorted({*b.jobs[1].cards, 1}) and on_two.jobs[1].parallelism == "fsdp"
    back = editing.toggle_job_card(on_two, 1, 1, None, False)
    assert back.jobs[1].cards == b.jobs[1].cards and back.jobs[1].parallelism == "single"


def test_every_path_to_several_cards_uses_the_rule() -> None:
    """The chassis' bridged-group drop, the jobs panel's ticks and the kiosk's card count agree."""
    b = load_build(BUILDS / "seed-full-8b-two-rtx.yaml")
    single = editing.update_job(b, 0, cards=[b.jobs[0].cards[0]], parallelism="single")
    assert editing.set_job_cards(single, 0, [1, 2]).jobs[0].parallelism == "fsdp"
    assert set_card_count(single, CAT, 0, 2).jobs[0].parallelism == "fsdp"
    assert set_card_count(single, CAT, 0, 1).jobs[0].parallelism == "single"


def test_choosing_tensor_parallel_spreads_over_the_job_cards() -> None:
    b = load_build(BUILDS / "seed-full-8b-two-rtx.yaml")
    assert len(b.jobs[0].cards) == 2 and b.jobs[0].tensor_parallel == 1
    tp = editing.set_parallelism(b, 0, "tp")
    assert tp.jobs[0].parallelism == "tp" and tp.jobs[0].tensor_parallel == 2
    assert editing.set_parallelism(b, 0, "ddp").jobs[0].tensor_parallel == 1


def test_removing_a_mig_instance_renumbers_the_later_tenants() -> None:
    b = load_build(BUILDS / "seed-mig-four-tenants.yaml")
    layout: list[tuple[str, int | None]] = [(r.profile, r.start) for r in b.cards[0].mig or []]
    after = editing.remove_mig_instance(b, CAT, 1, layout, 1)
    ref = [InstanceRef(slot=1, instance=i) for i in range(3)]
    assert [j.cards for j in after.jobs] == [[ref[0]], [], [ref[1]], [ref[2]]]
    assert len(after.cards[0].mig or []) == 3
    with pytest.raises(editing.EditRefused):
        editing.remove_mig_instance(b, CAT, 1, layout, 7)


def test_mig_drop_snaps_and_checks() -> None:
    spec = CAT.cards["rtx-pro-6000-server"].mig
    assert spec is not None
    start, size = editing.snap_start(spec, "1g.24gb", 2)
    assert start <= 2 < start + size
    assert editing.check_mig_layout(spec, [("1g.24gb", None)] * 4) is None
    assert editing.check_mig_layout(spec, [("1g.24gb", None)] * 9) is not None


def test_assumption_edits_validate() -> None:
    b = load_build(BUILDS / "default.yaml")
    assert editing.set_compute_rates(b, "estimated").assumptions.compute_rates == "estimated"
    assert editing.set_link_rates(b, "nominal").assumptions.link_rates == "nominal"
    with pytest.raises(ValueError):
        editing.set_compute_rates(b, "guessed")


def test_a_job_goes_on_a_whole_card_or_one_mig_instance() -> None:
    """One refusal for the jobs panel, the MIG editor and the chassis' drag hints (editing.check_assign)."""
    b = load_build(BUILDS / "seed-mig-four-tenants.yaml")
    split = b.cards[0].slot
    reason = editing.check_assign(b, split)
    assert reason is not None and "MIG editor" in reason
    assert editing.check_assign(b, split, 0) is None
    assert editing.check_assign(b, split, 99) == f"slot {split} has no MIG instance 99"
    assert editing.check_assign(b, 999) == "slot 999 holds no card"
    with pytest.raises(editing.EditRefused, match="MIG editor"):
        editing.assign_job(b, CAT, 0, split)
    whole = load_build(BUILDS / "default.yaml")
    assert editing.check_assign(whole, whole.cards[0].slot) is None


def test_kiosk_fit_status() -> None:
    assert fitting_status(3, 3) == "fits" and fitting_status(0, 3) == "does-not-fit"
    assert fitting_status(1, 3) == "tight"


def test_psu_tight_line_comes_from_the_engine() -> None:
    """The summary colours power by the engine's PSU_TIGHT line, not a fraction typed again in ui/."""
    from configurator.engine.topology.physical import PSU_TIGHT_FRACTION

    r = evaluate(load_build(BUILDS / "default.yaml"), CAT)
    assert r.power is not None and r.power.psu_capacity_w is not None
    assert r.power.tight_above_w == pytest.approx(PSU_TIGHT_FRACTION * r.power.psu_capacity_w)


def test_mig_job_compute_carries_its_bandwidth_share() -> None:
    """The roofline reads the instance's bandwidth from the engine instead of working it back from rates."""
    r = evaluate(load_build(BUILDS / "seed-mig-four-tenants.yaml"), CAT)
    card = CAT.cards["rtx-pro-6000-server"]
    job = r.jobs[0]
    assert job.compute is not None and job.compute.memory_bandwidth_gb_s is not None
    assert 0 < job.compute.memory_bandwidth_gb_s < (card.memory_bandwidth_gb_s.value or 0)


# Patterns of business rules that were once written in widgets. Each names the edit or result field that
# now owns the rule; a match in ui/ or report/ means the rule is back in a widget.
OFFENDERS = {
    r"\[\"parallelism\"\]\s*=": "editing.parallelism_for / set_job_cards",
    r"parallelism\s*=\s*\"fsdp\"": "editing.parallelism_for",
    r"if job\.parallelism != \"single\" else \"fsdp\"": "editing.parallelism_for",
    r"\[\"tensor_parallel\"\]\s*=": "editing.set_parallelism",
    r"instance\s*-\s*1\)": "editing.remove_mig_instance",
    r"assumptions\.model_copy": "editing.set_assumption",
    r"0\.9\s*\*": "Power.tight_above_w",
    r"share\s*=\s*rate\s*/": "Compute.memory_bandwidth_gb_s",
    r"\"does-not-fit\" if fits == 0": "editing.kiosk.fitting_status",
    r"(?m)^def (put_card|set_card_count|set_bridged|set_method|set_sequence_length|check_drop)\(": "editing.kiosk",
    r"(?m)^def (remove_card|place_card|move_card|assign_job|update_job)\(": "engine/editing",
    r"re\.sub\(r\"\\s\+\\d\+GB\$\"": "short_card_name(bare=True)",
    r"\bwall_draw\(|\bPSU_EFFICIENCY\b": "Power.wall (physical.wall_circuit_draw)",
    r"margin_w\s*<\s*0|total_w\s*>\s*\w+\.tight_above_w": "Power.psu_state",
    r"j\.status == s\)": "BuildResult.status_counts",
    r"split into MIG instances|= not placement\.mig": "editing.check_assign",
    r"seconds_per_step\s*/\s*total": "Compute.step_ops",
    r"\"does-not-fit\"\s*:\s*\"does not fit\"": "present.verdict.WORDS",
    r"intensity\s*>=\s*under\.ridge": "MatmulIntensity.recipe_bound",
    r"ratio is not None and ratio > 1": "Communication.dominates",
    r"kind == \"all-gather\"": "Communication.all_gather_gb_per_card",
}


def test_no_business_rules_in_widgets() -> None:
    found = []
    for folder in ("ui", "report"):
        for path in sorted((ROOT / "configurator" / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            for pattern, owner in OFFENDERS.items():
                for m in re.finditer(pattern, text):
                    line = text.count("\n", 0, m.start()) + 1
                    found.append(f"{path.relative_to(ROOT)}:{line}: {m.group(0)!r} belongs in {owner}")
    assert not found, "\n".join(found)


def test_the_guard_catches_the_old_code() -> None:
    """The patterns match the lines they were written against (a guard that cannot fail guards nothing)."""
    old = [
        'changes["parallelism"] = "fsdp"',
        'parallelism = job.parallelism if job.parallelism != "single" else "fsdp"',
        'changes["tensor_parallel"] = len(job.cards)',
        "ref = InstanceRef(slot=slot, instance=ref.instance - 1)",
        'update={"assumptions": b.assumptions.model_copy(update={"compute_rates": key})}',
        '("#E69F00" if p.total_w > 0.9 * p.psu_capacity_w else "#2E7D32")',
        "share = rate / slow.peak_tflops",
        'status = "fits" if fits == len(result.jobs) else ("does-not-fit" if fits == 0 else "tight")',
        "def set_card_count(build: Build, catalog: Catalog, job: int, count: int) -> Build:",
        'return re.sub(r"\\s+\\d+GB$", "", short_card_name(name).replace(" (SXM)", ""))',
        "w = wall_draw(build.site, p.total_w, p.transient_demand_w)",
        'colour = self._colour("error" if p.margin_w < 0 else ("warning" if tight else "ok"))',
        "tight = p.tight_above_w is not None and p.total_w > p.tight_above_w",
        'counts = {s: sum(1 for j in result.jobs if j.status == s) for s in ("fits", "tight", "does-not-fit")}',
        'return card.slot, f"slot {card.slot} is split into MIG instances: use the MIG editor to place the job"',
        "self._allowed[slot] = not placement.mig",
        "scale = comp.seconds_per_step / total if total else 1.0  # a low-precision recipe's measured speed-up",
        'STATUS_TEXT = {"fits": "fits", "tight": "tight", "does-not-fit": "does not fit", "unknown": "not evaluated"}',
        'self._bounds = ["compute" if m.intensity >= under.ridge else "memory" for m in ops]',
        "colour = self.alert if ratio is not None and ratio > 1 else self.ink",
        'value = sum(c.bytes_per_card for c in job.communication.collectives if c.kind == "all-gather") / 1e9',
    ]
    for line in old:
        assert any(re.search(p, line) for p in OFFENDERS), line
