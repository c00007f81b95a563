"""``evaluate(build) -> BuildResult``: the one function the CLI, GUI and PDF call.

Never raises on a structurally valid build: unknown ids, impossible placements and jobs that do not
fit become checks with a code, a severity and a sentence. The build-wide steps live here; one job's
evaluation in ``engine/evaluate_job.py``.
"""

from __future__ import annotations

from pathlib import Path

from configurator.catalog.cards import CardSpec, MigSpec
from configurator.catalog.chassis import ChassisSpec
from configurator.catalog.errors import UnknownIdError
from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.models import ModelSpec
from configurator.catalog.units import GB
from configurator.engine.cache import CACHE
from configurator.engine.checks.host import host_checks
from configurator.engine.context import CardUse, EvalContext, JobEvaluation
from configurator.engine.evaluate_job import (  # re-exported: sweep and the tests import them from here
    _fits_clearly,
    capacity_of,
    evaluate_job,
)
from configurator.engine.memory import rl
from configurator.engine.memory.host import host_result
from configurator.engine.mig.layout import LayoutCheck, MigRequest, MigSetup, place_layout
from configurator.engine.model.build import Assumptions, Build, Job, ParamsOnlyModel
from configurator.engine.model.resolver import RESOLVE_ERRORS, ModelResolver
from configurator.engine.model.result import BuildResult, Check, JobResult, MigCard, MigInstanceResult, Topology
from configurator.engine.topology.links import LEGEND, RATE_BASIS_WORDS, TopologyModel, build_topology, calibration_map
from configurator.engine.topology.physical import bridge_checks, power_budget, slot_checks

__all__ = ["_fits_clearly", "capacity_of", "evaluate", "resolve_model"]


def resolve_model(ref: str | ParamsOnlyModel, catalog: Catalog, base_dir: Path | None) -> ModelSpec:
    """A catalog id, a path to a Hugging Face config.json, or {parameters: N} (see ``ModelResolver``)."""
    return ModelResolver(catalog, base_dir).resolve(ref)


def _mig_layouts(build: Build, cards: dict[int, CardSpec]) -> tuple[dict[int, LayoutCheck], list[Check]]:
    layouts: dict[int, LayoutCheck] = {}
    checks: list[Check] = []
    for placement in build.cards:
        card = cards.get(placement.slot)
        if placement.mig is None or card is None:
            continue
        if card.mig is None:
            checks.append(
                Check(
                    severity="error",
                    code="MIG_UNSUPPORTED",
                    slot=placement.slot,
                    message=(f"{card.name} does not support MIG; remove the layout from slot {placement.slot}."),
                )
            )
            continue
        layout = _place(card.mig, [MigRequest(r.profile, r.start) for r in placement.mig])
        layouts[placement.slot] = layout
        for problem in layout.problems:
            checks.append(
                Check(
                    severity="error",
                    code="MIG_LAYOUT_INVALID",
                    slot=placement.slot,
                    message=f"Slot {placement.slot} ({card.name}): {problem}",
                )
            )
        if card.mig.display_mode_required:
            checks.append(Check(severity="warning", code="MIG_DISPLAY_MODE", slot=placement.slot, message=(
                f"{card.name} in slot {placement.slot} must be switched from graphics to compute display mode "
                "(DisplayModeSelector --gpumode=compute, then reboot) before MIG can be enabled; its display "
                "outputs turn off.")))  # fmt: skip
    return layouts, checks


def _topology(build: Build, cards: dict[int, CardSpec], chassis: ChassisSpec) -> tuple[TopologyModel, Topology]:
    """The links between the cards and their nvidia-smi matrix: they depend on the chassis, the cards by slot,
    the occupied slots and the bridges only."""
    specs = (chassis, *(c for _, c in sorted(cards.items())))
    key = (tuple(sorted(cards)), tuple(p.slot for p in build.cards), tuple(tuple(b.slots) for b in build.bridges))

    def make() -> tuple[TopologyModel, Topology]:
        topo = build_topology(build, cards, chassis)
        return topo, Topology(slots=topo.slots, matrix=topo.matrix(), nvlink_domains=topo.domains, legend=LEGEND)

    return CACHE.memo("topology", specs, key, make)


def _place(spec: MigSpec, requests: list[MigRequest]) -> LayoutCheck:
    """``place_layout``, memoised on the card's MIG spec and the requests."""
    return CACHE.memo("mig-layout", (spec,), tuple(requests), lambda: place_layout(spec, requests))


def _evaluate_job_memo(job: Job, ctx: EvalContext) -> JobEvaluation:
    """evaluate_job, memoised on what it reads: the job, its model, the assumptions, the catalog, the card and
    MIG layout at each slot it names (and a vLLM server's own cards, engine/checks/rl.py) and the links between
    those slots."""
    try:
        model = ctx.models.resolve(job.model)
    except RESOLVE_ERRORS:
        return evaluate_job(job, ctx)
    cards, layouts = ctx.cards, ctx.layouts
    slots = sorted({s for s, _ in job.card_keys})
    try:  # PPO's critic checkpoint, by identity as the model is (None where none is named or it names nothing)
        critic = rl.critic_model(job, ctx.models)
    except RESOLVE_ERRORS:
        critic = None
    inputs = (job, model, critic, ctx.assumptions, ctx.catalog,
              *(x for s in slots for x in (cards.get(s), layouts.get(s))),
              *(cards.get(s) for s in job.rl.generation_cards))  # fmt: skip
    # the links it reads, by value: between its own cards (a card moved elsewhere leaves them alone)
    links = tuple(ctx.topo.link(a, b) for i, a in enumerate(slots) for b in slots[i + 1 :]
                  if a in cards and b in cards)  # fmt: skip
    # and the power limit at each slot it times (a cap raises POWER_LIMIT_NOT_TIMED), slot by slot
    caps = ctx.power_limits
    limits = tuple((s, caps.get(s)) for s in (*slots, *job.rl.generation_cards))
    # and the card id placed at each slot where the catalog lacks it (JOB_CARD_UNKNOWN names it)
    unknown = tuple((s, p.card) for s in slots if s not in cards and (p := ctx.build.card_in(s)) is not None)
    return CACHE.memo("job", inputs, (*links, limits, unknown), lambda: evaluate_job(job, ctx))


def _sentence(text: str) -> str:
    """``text`` ended once: "did you mean h100-sxm?" took a full stop after its question mark."""
    return text if text.endswith(("?", ".")) else text + "."


def _place_cards(build: Build, chassis: ChassisSpec, catalog: Catalog) -> tuple[dict[int, CardSpec], list[Check]]:
    """The card spec in each slot the chassis has; a check for each unknown slot or card."""
    cards: dict[int, CardSpec] = {}
    checks: list[Check] = []
    slots_in_chassis = {p.slot for p in chassis.positions}
    for placement in build.cards:
        if placement.slot not in slots_in_chassis:
            checks.append(
                Check(
                    severity="error",
                    code="SLOT_UNKNOWN",
                    slot=placement.slot,
                    message=(f"{chassis.name} has no slot {placement.slot} (slots: {sorted(slots_in_chassis)})."),
                )
            )
            continue
        try:
            cards[placement.slot] = catalog.card(placement.card)
        except UnknownIdError as exc:
            checks.append(
                Check(
                    severity="error",
                    code="CARD_UNKNOWN",
                    slot=placement.slot,
                    message=_sentence(f"Slot {placement.slot}: {exc}"),
                )
            )
    return cards, checks


def _sharing_checks(card_use: CardUse, cards: dict[int, CardSpec], layouts: dict[int, LayoutCheck]) -> list[Check]:
    """Jobs that share one card or instance: an error when together they need more than it holds."""
    checks: list[Check] = []
    for (slot, instance), users in card_use.items():
        if len(users) > 1:
            total = sum(peak for _, peak in users)
            capacity = capacity_of(cards[slot], layouts.get(slot), instance)[0]
            where = f"slot {slot}" + (f" instance {instance}" if instance is not None else "")
            sev = "error" if total > capacity else "warning"
            checks.append(Check(severity=sev, code="CARD_SHARED", slot=slot, message=(
                f"Jobs {', '.join(n for n, _ in users)} share {where}: together they need {total / GB:.1f} GB "
                f"of {capacity / GB:.1f} GB. Run them one after another, or give each its own card or MIG "
                "instance.")))  # fmt: skip
    return checks


def _mig_cards(build: Build, cards: dict[int, CardSpec], layouts: dict[int, LayoutCheck], topo: TopologyModel,
               jobs: list[JobResult]) -> list[MigCard]:  # fmt: skip
    """Each MIG card's layout, with the jobs placed on each of its instances."""
    placed_jobs: dict[tuple[int, int], list[str]] = {}
    for result in jobs:
        for row in result.cards:
            if row.instance is not None:
                placed_jobs.setdefault((row.slot, row.instance), []).append(result.name)
    mig_cards = []
    for slot, layout in layouts.items():
        card = cards[slot]
        assert card.mig is not None
        gpu_index = topo.slots.index(slot) if slot in topo.slots else 0
        setup = MigSetup(card.mig, layout, gpu_index, f"{build.name} slot {slot}".lower().replace(" ", "-"))
        mig_cards.append(MigCard.of(
            setup, slot=slot, card=card.id, valid=layout.valid, display_mode_required=card.mig.display_mode_required,
            instances=[MigInstanceResult(
                index=i.index, profile=i.profile.name, start=i.start, size=i.size,
                capacity_gb=i.profile.capacity_gb, capacity_nominal_gb=i.profile.memory_nominal_gb.value or 0,
                jobs=placed_jobs.get((slot, i.index), [])) for i in layout.instances],
            problems=list(layout.problems),
        ))  # fmt: skip
    return mig_cards


def _notes(a: Assumptions, calib: dict[str, float], jobs: list[JobResult]) -> list[str]:
    """The units and the rates the result was computed with; the link rates only where a job communicates (a
    single-card build times no link)."""
    links = ""
    if any(j.communication.collectives for j in jobs):
        calibrated = "; calibrated from nccl-tests for " + ", ".join(sorted(calib)) if calib else ""
        links = f"Link rates: {RATE_BASIS_WORDS[a.link_rates]}{calibrated}. "
    return ["GB = 10^9 bytes. " + links
            + ("Compute rates: published, or the catalog's UNCONFIRMED estimate where none is published."
               if a.compute_rates == "estimated" else "Compute rates: published dense BF16 only.")]  # fmt: skip


def evaluate(build: Build, catalog: Catalog | None = None, base_dir: str | Path | None = None,
             models: ModelResolver | None = None) -> BuildResult:  # fmt: skip
    """``models``: the resolver for the build's model references (its folder and cache); by default one for
    ``base_dir``, the build file's folder."""
    catalog = catalog or default_catalog()
    models = models or ModelResolver(catalog, base_dir)
    CACHE.turn()
    a = build.assumptions
    checks: list[Check] = []
    try:
        chassis = catalog.chassis_spec(build.chassis)
    except UnknownIdError as exc:
        checks.append(Check(severity="error", code="CHASSIS_UNKNOWN", message=_sentence(str(exc))))
        return BuildResult(name=build.name, chassis=None, link_rates=a.link_rates, compute_rates=a.compute_rates,
                           utilization=a.utilization, checks=checks)  # fmt: skip

    cards, checks = _place_cards(build, chassis, catalog)
    checks += slot_checks(build, chassis, cards)
    checks += bridge_checks(build, chassis, cards)
    power, power_checks = power_budget(build, chassis, cards)
    checks += power_checks
    topo, topology = _topology(build, cards, chassis)
    layouts, layout_checks = _mig_layouts(build, cards)
    checks += layout_checks
    ctx = EvalContext(build, catalog, models, cards, layouts, topo, calibration_map(a.calibration))

    card_use: CardUse = {}
    jobs: list[JobResult] = []
    for job in build.jobs:
        evaluation = _evaluate_job_memo(job, ctx)
        jobs.append(evaluation.result)
        checks += evaluation.checks
        for key, peak in evaluation.uses:
            card_use.setdefault(key, []).append((job.name, peak))
    host = host_result(build, chassis, jobs)  # the jobs run at the same time: their host needs add up
    checks += host_checks(host, chassis, jobs)
    checks += _sharing_checks(card_use, cards, layouts)
    mig_cards = _mig_cards(build, cards, layouts, topo, jobs)

    severity_order = {"error": 0, "warning": 1, "info": 2}
    checks.sort(key=lambda c: severity_order[c.severity])
    return BuildResult(
        name=build.name, chassis=chassis.id, chassis_name=chassis.name, link_rates=a.link_rates,
        compute_rates=a.compute_rates,
        utilization=a.utilization, jobs=jobs, checks=checks, topology=topology, mig=mig_cards, power=power,
        notes=_notes(a, ctx.calib, jobs), host=host,
    )  # fmt: skip
