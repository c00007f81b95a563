"""``plan_service(plan) -> PlanResult``: size a fleet for a multi-tenant fine-tuning service.

Never raises on a structurally valid plan: unknown ids, unreadable price lists, node types that are not
valid builds and classes that fit nowhere come back as problems with the plan field they concern. The
steps: :func:`~configurator.engine.planner.prepare.prepare` (nodes, prices, the class x device matrix),
the matrix cells at the sizing month (here), the search, and each ranked fleet in full
(:func:`~configurator.engine.planner.fleet_result.fleet_result`).
"""

from __future__ import annotations

import math
from pathlib import Path

from configurator.catalog.limits import MAX_SEARCH_WORK
from configurator.catalog.loader import Catalog
from configurator.engine.planner.fleet import Model, Score
from configurator.engine.planner.fleet_result import fleet_result
from configurator.engine.planner.matrix import Cell, Device
from configurator.engine.planner.nodes import ResolvedNode
from configurator.engine.planner.packing import placeable
from configurator.engine.planner.plan import Plan
from configurator.engine.planner.prepare import Prepared, prepare
from configurator.engine.planner.queueing import devices_needed, mean_wait_hours, offered_load
from configurator.engine.planner.result import (
    DeviceInfo,
    FitCell,
    FleetResult,
    PlanProblem,
    PlanResult,
    SearchStats,
)
from configurator.engine.planner.search import Ranked, candidate_count, search

__all__ = ["Prepared", "plan_service", "prepare"]  # prepare: tests and benchmarks import it from here


def _distinct(model: Model, ranked: list[Ranked], top: int) -> list[Ranked]:
    """Drop a fleet that ties a better-ranked one on score with the same node counts: an unused MIG layout
    change is not another answer."""
    seen: set[tuple[tuple[int, ...], Score]] = set()
    out: list[Ranked] = []
    for key, cand, s in ranked:
        sig = (tuple(n for n, _l, _k in cand), s)
        if sig in seen:
            continue
        seen.add(sig)
        out.append((key, cand, s))
    return out[:top]


def _devices_per_card(dev: Device, resolved: list[ResolvedNode], node_pos: dict[int, int]) -> float:
    """Devices one card holds: a whole-card device's share of a card, or the most instances of a MIG
    profile that the card's placements take at once."""
    per_card = 1.0 / dev.cards
    if dev.kind == "mig" and dev.profile:
        spec = resolved[node_pos[dev.node]].card.mig
        assert spec is not None
        limit = spec.profile(dev.profile).max_count
        per_card = float(max((k for k in range(1, limit + 1) if placeable(spec, [dev.profile] * k)), default=0))
    return per_card


def _fit_cells(plan: Plan, pre: Prepared) -> list[FitCell]:
    """The matrix cells for the result, at the sizing month."""
    svc = plan.service
    model, devices, month = pre.model, pre.devices, pre.month
    index = {d.id: i for i, d in enumerate(devices.values())}
    node_pos = {n.index: t for t, n in enumerate(pre.resolved)}
    pos = {k: i for i, k in enumerate(pre.usable)}
    out_cells = []
    for c in pre.cells:
        lam = model.classes[pos[c.job_class]].demand(month)
        per_day = need = wait = cost = None
        if c.fits and c.service_hours:
            per_day = svc.utilisation_target * svc.hours_per_day / c.service_hours
            cls = plan.classes[c.job_class]
            need = devices_needed(
                lam, c.service_hours, svc.utilisation_target, svc.hours_per_day, cls.wait_target_hours
            )
            w = mean_wait_hours(need, offered_load(lam, c.service_hours, svc.hours_per_day), c.service_hours)
            wait = None if not math.isfinite(w) else w
            rate = model.device_cost_per_hour(index[c.device])
            cost = None if rate is None else c.service_hours * rate / svc.utilisation_target
        per_card = _devices_per_card(devices[c.device], pre.resolved, node_pos)
        out_cells.append(
            FitCell(
                devices_per_card=per_card,
                jobs_per_day_per_card=None if per_day is None else per_day * per_card,
                job_class=plan.classes[c.job_class].name,
                device=c.device,
                status=c.status,
                fits=c.fits,
                peak_gb=c.peak_gb,
                capacity_gb=c.capacity_gb,
                step_seconds=c.step_seconds,
                service_hours=c.service_hours,
                jobs_per_day_per_device=per_day,
                devices_needed=need,
                mean_wait_hours=wait,
                cost_per_job=cost,
                estimated_rate=c.estimated_rate,
                note=c.note,
            )
        )
    return out_cells


def _search(plan: Plan, pre: Prepared) -> tuple[list[FleetResult], SearchStats]:
    """The ranked fleets, each in full, and the search's statistics; a search over
    search.max_candidates is refused as a problem instead."""
    model, month = pre.model, pre.month
    fleets: list[FleetResult] = []
    n_cand = candidate_count(model) if model.nodes else 0
    stats = SearchStats(candidates=0, feasible=0, seconds=0.0, processes=1)
    work = n_cand * max(len(model.classes), 1)  # each candidate routes every class (catalog/limits.py)
    if n_cand <= plan.search.max_candidates and work > MAX_SEARCH_WORK:
        pre.problems.append(
            PlanProblem(
                severity="error",
                code="SEARCH_TOO_LARGE",
                field="search.max_candidates",
                message=(
                    f"{n_cand:,} candidate fleets x {len(model.classes)} classes is more than the search does in "
                    f"about 2 s ({MAX_SEARCH_WORK:,}): lower nodes[].max_nodes, list fewer mig_layouts or classes"
                ),
            )
        )
    elif n_cand > plan.search.max_candidates:
        pre.problems.append(
            PlanProblem(
                severity="error",
                code="SEARCH_TOO_LARGE",
                field="search.max_candidates",
                message=(
                    f"{n_cand:,} candidate fleets exceed search.max_candidates "
                    f"({plan.search.max_candidates:,}): lower nodes[].max_nodes or list "
                    "fewer mig_layouts, or raise the limit"
                ),
            )
        )
    elif n_cand > 0 and model.classes:
        ranked, n, feasible, seconds, workers = search(model, month, plan.search.top * 16, plan.search.processes)
        ranked = _distinct(model, ranked, plan.search.top)
        stats = SearchStats(candidates=n, feasible=feasible, seconds=seconds, processes=workers)
        fleets = [
            fleet_result(model, cand, i + 1, month, pre.months, pre.resolved, plan)
            for i, (_key, cand, _s) in enumerate(ranked)
        ]
    return fleets, stats


def _notes(cells: list[Cell], devices: dict[str, Device]) -> list[str]:
    """The result's notes: the queueing, MIG and energy assumptions, and which service times are estimates."""
    notes = [
        "GB = 10^9 bytes. A device runs one job at a time; devices needed = jobs per day x service hours / "
        "(utilisation target x hours of operation), and with a wait target the Erlang C (M/M/c) count "
        "(Gross, Shortle, Thompson and Harris, Fundamentals of Queueing Theory, 4th ed., section 2.3).",
        "A MIG instance runs at its share of the card's compute and bandwidth in the compute model, so MIG "
        "multiplies the tenants a card holds at once (up to its instance limit), not the jobs per day the "
        "model predicts; measured per-slice throughput (DCGM_FI_PROF_SM_ACTIVE) decides how much of that a "
        "small job gains on real hardware.",
        "Energy: every node at its cards' default power limit plus the chassis platform for every operating "
        "hour (an upper bound: idle power is not in the catalog), x PUE.",
    ]
    if any(c.estimated_rate for c in cells):
        names = sorted({devices[c.device].id.split(" / ")[0] for c in cells if c.estimated_rate})
        notes.append(
            f"Service times on {', '.join(names)} use the catalog's UNCONFIRMED compute-rate estimate "
            "(no dense BF16 rate is published)."
        )
    return notes


def _device_infos(pre: Prepared) -> list[DeviceInfo]:
    """Every device of the matrix with its node type and card."""
    resolved = pre.resolved
    node_pos = {n.index: t for t, n in enumerate(resolved)}
    return [
        DeviceInfo(
            id=d.id,
            node=resolved[node_pos[d.node]].name,
            card=resolved[node_pos[d.node]].card.id,
            kind=d.kind,
            profile=d.profile,
            cards=d.cards,
            memory_gb=d.memory_gb,
            compute_share=d.compute_share,
            card_fraction=d.card_fraction,
        )
        for d in pre.devices.values()
    ]


def plan_service(plan: Plan, catalog: Catalog | None = None, base_dir: str | Path | None = None) -> PlanResult:
    """Size a fleet for the plan's service: the class x device matrix, ranked fleets, the roadmap."""
    pre = prepare(plan, catalog, base_dir)
    out_cells = _fit_cells(plan, pre)
    fleets, stats = _search(plan, pre)
    return PlanResult(
        name=plan.name,
        currency=pre.currency,
        size_for_month=pre.month,
        months=pre.months,
        classes=pre.infos,
        devices=_device_infos(pre),
        matrix=out_cells,
        fleets=fleets,
        search=stats,
        problems=pre.problems,
        notes=_notes(pre.cells, pre.devices),
    )
