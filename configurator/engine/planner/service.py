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
from typing import Literal

from configurator.catalog.limits import MAX_SEARCH_WORK
from configurator.catalog.loader import Catalog, default_catalog
from configurator.engine.planner.cancel import Cancel, check, never
from configurator.engine.planner.energy import idle_draws
from configurator.engine.planner.explain import class_infos, recommend
from configurator.engine.planner.fleet import Candidate, Model, Score
from configurator.engine.planner.fleet_result import fleet_result
from configurator.engine.planner.matrix import Device, whole_card_id
from configurator.engine.planner.nodes import ResolvedNode
from configurator.engine.planner.packing import placeable
from configurator.engine.planner.plan import Plan
from configurator.engine.planner.prepare import Prepared, prepare
from configurator.engine.planner.queueing import devices_needed, mean_wait_hours, peak_load, wait_quantile_hours
from configurator.engine.planner.result import (
    CostInputs,
    DeviceInfo,
    FitCell,
    FleetResult,
    NodeCapital,
    PlanProblem,
    PlanResult,
    SearchStats,
    UnitPrice,
    is_estimate,
    mig_gain_basis,
)
from configurator.engine.planner.search import Mix, Ranked, candidate_count, search
from configurator.engine.planner.slowend import slow_end

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


def _fit_cells(plan: Plan, pre: Prepared, cancel: Cancel = never) -> list[FitCell]:
    """The matrix cells for the result, at the sizing month: each device alone serving the class's demand, its
    waits in the peak hour, and a MIG instance's gain over the whole card."""
    svc = plan.service
    model, devices, month = pre.model, pre.devices, pre.month
    index = {d.id: i for i, d in enumerate(devices.values())}
    node_pos = {n.index: t for t, n in enumerate(pre.resolved)}
    pos = {k: i for i, k in enumerate(pre.usable)}
    caps = pre.applied.instance_caps if pre.applied else {}
    fitting = {(c.job_class, c.device): c for c in pre.cells if c.fits}
    out_cells = []
    for c in pre.cells:
        check(cancel)  # a cell's Erlang sizing takes ~10 ms at a million jobs a day
        dev = devices[c.device]
        node = pre.resolved[node_pos[dev.node]]
        lam = model.classes[pos[c.job_class]].demand(month)
        per_day = need = wait = p95 = cost = gain = gain_basis = None
        per_card = _devices_per_card(dev, pre.resolved, node_pos)
        if dev.kind == "mig" and dev.profile and (node.name, dev.profile) in caps:
            per_card = min(per_card, float(caps[(node.name, dev.profile)]))
        if c.fits and c.service_hours:
            per_day = svc.utilisation_target * svc.hours_per_day / c.service_hours
            cls = plan.classes[c.job_class]
            need = devices_needed(
                lam, c.service_hours, svc.utilisation_target, svc.hours_per_day, cls.wait_target_hours, svc.peak_share
            )
            load = peak_load(lam, c.service_hours, svc.hours_per_day, svc.peak_share)
            w = mean_wait_hours(need, load, c.service_hours)
            wait = None if not math.isfinite(w) else w
            q = wait_quantile_hours(need, load, c.service_hours)
            p95 = None if not math.isfinite(q) else q
            cost = model.job_cost(index[c.device], c.service_hours)
            whole = fitting.get((c.job_class, whole_card_id(node.name)))
            if dev.kind == "mig" and whole is not None and whole.service_hours:
                gain = per_card * whole.service_hours / c.service_hours
                # a ratio of two cells: what it rests on comes from both (result.mig_gain_basis)
                gain_basis = mig_gain_basis(c.basis, whole.basis, c.ratio_basis)
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
                wait_p95_hours=p95,
                cost_per_job=cost,
                estimated_rate=c.estimated_rate,
                note=c.note,
                mig_gain=gain,
                basis=c.basis,
                mig_gain_basis=gain_basis.basis if gain_basis else None,
                mig_gain_estimated=gain_basis.estimated if gain_basis else None,
                lower_bound=c.lower_bound and is_estimate(c.basis),
            )
        )
    return out_cells


def _search(
    plan: Plan, pre: Prepared, cancel: Cancel = never
) -> tuple[list[FleetResult], SearchStats, dict[Mix, Ranked], Candidate | None]:
    """The ranked fleets, each in full, the search's statistics, the best fleet of each server mix and the first
    ranked candidate (the slow end sizes its mix); a search over search.max_candidates is refused as a problem
    instead."""
    model, month = pre.model, pre.month
    fleets: list[FleetResult] = []
    mixes: dict[Mix, Ranked] = {}
    best: Candidate | None = None
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
                    f"{n_cand:,} candidate fleets × {len(model.classes)} classes is more than the search does in "
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
        ranked, n, feasible, seconds, workers = search(
            model, month, plan.search.top * 16, plan.search.processes, mixes, cancel
        )
        ranked = _distinct(model, ranked, plan.search.top)
        stats = SearchStats(candidates=n, feasible=feasible, seconds=seconds, processes=workers)
        fleets = [
            fleet_result(model, cand, i + 1, month, pre.months, pre.resolved, plan, cancel)
            for i, (_key, cand, _s) in enumerate(ranked)
        ]
        best = ranked[0][1] if ranked else None
    return fleets, stats, mixes, best


def _notes(plan: Plan, pre: Prepared) -> list[str]:
    """The result's notes: the queueing, MIG and energy assumptions, and which service times are estimates."""
    cells, devices = pre.cells, pre.devices
    svc = plan.service
    profile = (
        f"arrivals follow a daily profile whose busiest hour brings {svc.peak_factor:.2f}× the mean hourly rate "
        "(service.hourly_arrivals or peak_hour_factor)"
        if svc.peak_share is not None
        else "arrivals are spread evenly over the hours of operation (no daily profile given: "
        "service.hourly_arrivals or peak_hour_factor)"
    )
    notes = [
        "GB = 10^9 bytes. A device runs one job at a time; devices needed = jobs per day × service hours / "
        f"(utilisation target × hours of operation), at least a stable queue in the peak hour; {profile}. Waits "
        "are the M/M/c mean (Erlang C) and p95 in the peak hour, P(W > t) = C e^-(c mu - lambda) t (Gross, "
        "Shortle, Thompson and Harris, Fundamentals of Queueing Theory, 4th ed., section 2.3), the peak hour "
        "taken as stationary (Green and Kolesar 1991); wait targets apply to the p95.",
        "MIG gain = jobs per card-day on a card split into instances over jobs per card-day on the whole card: "
        "the engine's times on an instance and on the whole card, or measurements: tokens/s on both, or DCGM "
        "SM_ACTIVE u on a whole card, which runs a job on a slice of compute share s at min(1, s / u) of the whole "
        "card's rate (tokens/s on the whole card alone scales both by the same factor: the gain stays the "
        "engine's). A gain with one of its two times measured says which.",
    ]
    missing = sorted({n.card.id for n in pre.resolved if n.card.id not in idle_draws(plan)})
    idle = (
        "every card at its measured idle draw (resources/plans/idle-power.yaml) for every operating hour and at "
        "its default power limit while it runs a job, plus the chassis platform throughout, x PUE"
    )
    if missing:
        idle += f"; {', '.join(missing)}: no measured idle draw, taken at the power limit (an upper bound)"
    notes.append("Energy: " + idle + ".")
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


def _mark_lower_bounds(fleets: list[FleetResult], cells: list[FitCell]) -> list[FleetResult]:
    """Each route whose time is the engine's lower bound says so, as its cell does (FitCell.lower_bound)."""
    lower = {(c.job_class, c.device) for c in cells if c.lower_bound}
    if not lower:
        return fleets
    out = []
    for f in fleets:
        routes = [r.model_copy(update={"lower_bound": (r.job_class, r.device) in lower}) for r in f.routes]
        out.append(f.model_copy(update={"routes": routes}))
    return out


def _costs(plan: Plan, pre: Prepared) -> CostInputs:
    """The figures the cost ranking uses, as numbers: each part's unit price with its source, each node type's
    capital, PUE, power price, service life and utilisation target (prepare._node_model prices a node)."""
    sources = plan.price_sources
    listed = f"price list {Path(plan.price_list).name}" if plan.price_list else ""
    units: dict[str, UnitPrice] = {}
    nodes = []
    for n, model in zip(pre.resolved, pre.model.nodes, strict=True):
        nodes.append(NodeCapital(node=n.name, chassis=n.chassis.id, card=n.card.id,
                                 cards_per_node=n.cards_per_node, capital=model.capital))  # fmt: skip
        if n.price is not None:
            units[n.name] = UnitPrice(part=n.name, name=n.name, role="node", price=n.price,
                                      source=sources.get(n.name, f"nodes[{n.index}].price"))  # fmt: skip
            continue
        parts: tuple[tuple[str, str, Literal["chassis", "card"]], ...] = (
            (n.chassis.id, n.chassis.name, "chassis"),
            (n.card.id, n.card.name, "card"),
        )
        for part, name, role in parts:
            if part in pre.prices and part not in units:
                src = sources.get(part) or (listed if part not in plan.prices else "")
                units[part] = UnitPrice(part=part, name=name, role=role, price=pre.prices[part], source=src)
    svc = plan.service
    return CostInputs(
        currency=pre.currency,
        unit_prices=list(units.values()),
        nodes=nodes,
        power_price_per_kwh=svc.power_price_per_kwh,
        power_price_source=sources.get("power", ""),
        pue=svc.pue,
        pue_source=sources.get("pue", ""),
        service_life_years=svc.service_life_years,
        utilisation_target=svc.utilisation_target,
        hours_per_day=svc.hours_per_day,
        days_per_month=svc.days_per_month,
        other_sources={k: v for k, v in sources.items() if k not in units and k not in ("power", "pue")},
    )


def plan_service(
    plan: Plan, catalog: Catalog | None = None, base_dir: str | Path | None = None, cancel: Cancel = never
) -> PlanResult:
    """Size a fleet for the plan's service: the class x device matrix, ranked fleets, the roadmap.

    ``cancel`` is asked between steps; when it answers True, :class:`~configurator.engine.planner.cancel.
    PlanCancelled` is raised (the planner window's Stop)."""
    pre = prepare(plan, catalog, base_dir, cancel)
    out_cells = _fit_cells(plan, pre, cancel)
    fleets, stats, mixes, best = _search(plan, pre, cancel)
    check(cancel)
    fleets = _mark_lower_bounds(fleets, out_cells)
    infos = class_infos(pre, fleets, out_cells)
    cat = catalog or default_catalog()
    base = Path(base_dir) if base_dir else None
    # the recommended fleet at the slow end of the step-time band, where it is feasible as sized
    slow = slow_end(pre, best, mixes) if best is not None and fleets[0].feasible else None
    check(cancel)
    rec = recommend(plan, pre, fleets, mixes, infos, cat, base, slow, out_cells) if fleets else None
    check(cancel)
    return PlanResult(
        name=plan.name,
        currency=pre.currency,
        size_for_month=pre.month,
        months=pre.months,
        classes=infos,
        devices=_device_infos(pre),
        matrix=out_cells,
        fleets=fleets,
        search=stats,
        problems=pre.problems,
        notes=_notes(plan, pre),
        peak_factor=plan.service.peak_factor,
        recommendation=rec,
        slow_end=slow,
        measurements=pre.applied.words if pre.applied else [],
        price_sources=dict(plan.price_sources),
        costs=_costs(plan, pre),
    )
