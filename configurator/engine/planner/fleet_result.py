"""One ranked candidate fleet written out in full: its routes, node counts, totals, MIG packing and roadmap.

The arithmetic is :mod:`configurator.engine.planner.fleet`'s; this module only reads a candidate back into
the :class:`FleetResult` the report and the window show.
"""

from __future__ import annotations

import math
from collections import Counter

from configurator.engine.planner.cancel import Cancel, check, never
from configurator.engine.planner.fleet import (
    Candidate,
    Model,
    Routing,
    busy_kwh_per_month,
    fleet_cost,
    jobs_per_month,
    rank_key,
    ranked_by,
    route,
    score,
    wait_of,
)
from configurator.engine.planner.nodes import ResolvedNode
from configurator.engine.planner.packing import Packing, pack
from configurator.engine.planner.plan import Plan
from configurator.engine.planner.result import (
    DeviceUse,
    FleetResult,
    MonthPoint,
    NodeCount,
    Route,
    Totals,
)


def fleet_label(model: Model, cand: Candidate, short: bool = False) -> str:
    """A candidate fleet in words: '2 × RTX + 1 × HGX (3 of 8 cards in each as 2×1g.10gb + 3g.40gb)'
    (FleetResult.label, Alternative.label): the MIG split is each server's ('3 of 8 cards as …' read as three cards
    in all). ``short``: the same in fewer characters for a chart's legend, '2×RTX + 1×HGX (3 of 8 each as
    2×1g.10gb + 3g.40gb)' (FleetResult.short_label): nothing left out, so two fleets never read alike."""
    times, cards = ("×", " each") if short else (" × ", " cards in each")
    parts = []
    for t, (n, layout, k) in enumerate(cand):
        if not n:
            continue
        node = model.nodes[t]
        text = f"{n}{times}{node.name}"
        if layout >= 0:
            names = Counter(node.layouts[layout])
            mig = " + ".join(f"{c}×{p}" if c > 1 else p for p, c in names.items())
            text += f" ({k} of {node.cards_per_node}{cards} as {mig})"
        parts.append(text)
    return " + ".join(parts)


def _racks(model: Model, cand: Candidate) -> int | None:
    """Racks at service.rack_kw each: whole nodes per rack, one node type per rack (a node over the budget
    takes a rack of its own)."""
    if not model.rack_kw:
        return None
    racks = 0
    for t, (n, _l, _k) in enumerate(cand):
        if n:
            per_rack = max(1, math.floor(model.rack_kw / model.nodes[t].kw)) if model.nodes[t].kw > 0 else n
            racks += math.ceil(n / per_rack)
    return racks


def _routes(model: Model, r: Routing, month: int) -> tuple[list[Route], dict[int, float], dict[int, Counter[str]]]:
    """The routing at the sizing month as rows, with the busy card-hours per day and the MIG instances in
    use per node type."""
    routes: list[Route] = []
    busy: dict[int, float] = {}
    mig_use: dict[int, Counter[str]] = {}
    for ci, d, count, share in r.routes:
        dev = model.devices[d]
        c = model.classes[ci]
        s = model.service_hours(ci, d)
        busy[dev.node] = busy.get(dev.node, 0.0) + c.demand(month) * share * s * dev.card_fraction
        if dev.kind == "mig":
            mig_use.setdefault(dev.node, Counter())[dev.profile or ""] += count
        mean, p95 = wait_of(model, ci, d, count, share, month)
        stable = math.isfinite(mean)
        routes.append(
            Route(
                job_class=c.name,
                device=dev.id,
                devices=count,
                share=share,
                service_hours=s,
                mean_wait_hours=mean if stable else None,
                wait_p95_hours=p95 if stable and math.isfinite(p95) else None,
                peak_unstable=not stable,
                cost_per_job=model.job_cost(d, s),
            )
        )
    for ci in r.unfit:
        routes.append(Route(job_class=model.classes[ci].name, device="", devices=0, share=0.0))
    return routes, busy, mig_use


def _node_rows(model: Model, cand: Candidate, busy: dict[int, float]) -> tuple[list[NodeCount], list[DeviceUse]]:
    """Per node type in the fleet: its count and MIG layout, and its cards' use at the sizing month."""
    counts = []
    use = []
    for t, (n, layout, k) in enumerate(cand):
        if not n:
            continue
        node = model.nodes[t]
        counts.append(
            NodeCount(
                node=node.name,
                count=n,
                cards_per_node=node.cards_per_node,
                mig_layout=list(node.layouts[layout]) if layout >= 0 else [],
                mig_cards_per_node=k if layout >= 0 else 0,
            )
        )
        cap = n * node.cards_per_node * model.hours_per_day
        use.append(
            DeviceUse(
                node=node.name,
                card=node.card,
                cards=n * node.cards_per_node,
                busy_card_hours_per_day=busy.get(t, 0.0),
                capacity_card_hours_per_day=cap,
                utilisation=busy.get(t, 0.0) / cap,
            )
        )
    return counts, use


def _totals(model: Model, cand: Candidate, month: int, r: Routing) -> Totals:
    """Nodes, cards, power, racks, energy and money of the fleet, per month and per job."""
    cards = nodes = 0
    kw = capital = idle_kw = 0.0
    capital_known = True
    for t, (n, _layout, _k) in enumerate(cand):
        if not n:
            continue
        node = model.nodes[t]
        cards += n * node.cards_per_node
        nodes += n
        kw += n * node.kw
        idle_kw += n * node.base_kw
        if node.capital is None:
            capital_known = False
        else:
            capital += n * node.capital
    busy = busy_kwh_per_month(model, r, month)
    energy = idle_kw * model.pue * model.hours_per_day * model.days_per_month + busy
    energy_cost = None if model.power_price is None else energy * model.power_price
    monthly = fleet_cost(model, cand, busy)
    idle_known = all(model.nodes[t].idle_kw is not None for t, (n, _l, _k) in enumerate(cand) if n)
    jobs = jobs_per_month(model, month)
    served = not r.unserved and not r.unfit
    return Totals(
        nodes=nodes,
        cards=cards,
        power_kw=kw,
        facility_kw=kw * model.pue,
        idle_kw=idle_kw if idle_known else None,
        racks=_racks(model, cand),
        energy_kwh_per_month=energy,
        capital=capital if capital_known else None,
        capital_per_month=capital / model.life_months if capital_known else None,
        energy_cost_per_month=energy_cost,
        cost_per_month=monthly,
        jobs_per_month=jobs,
        # per job only where the fleet runs every job: else the month's jobs include ones it cannot run
        kwh_per_job=energy / jobs if jobs > 0 and served else None,
        cost_per_job=monthly / jobs if monthly is not None and jobs > 0 and served else None,
    )


def _packing(mig_use: dict[int, Counter[str]], resolved: list[ResolvedNode], cand: Candidate) -> list[Packing]:
    """The MIG instances in use per node type packed onto its cards' placements, with the card's name and the
    node type's cards in the fleet (the words say how many run whole)."""
    packing = []
    for t, profiles in mig_use.items():
        node = resolved[t]
        if node.card.mig is not None:
            packed = pack(node.card.mig, node.card.id, dict(profiles))
            n, layout, k = cand[t]
            packing.append(packed.model_copy(update={
                "card_name": node.card.name, "node_cards": n * node.cards_per_node,
                "node_mig_cards": n * k if layout >= 0 else 0}))  # fmt: skip
    return packing


def _month_demand(model: Model, rm: Routing, m: int) -> float:
    """Card-hours per day the month's demand takes: the routed part on its devices, the part without
    devices at its cheapest device's card-hours."""
    demand = 0.0
    for ci, d, _count, share in rm.routes:
        c = model.classes[ci]
        s = model.service_hours(ci, d)
        demand += c.demand(m) * share * s * model.devices[d].card_fraction
    for ci in rm.unserved:  # the part without devices, at its cheapest device's card-hours
        c = model.classes[ci]
        taken = sum(share for cj, _d, _n, share in rm.routes if cj == ci)
        if c.options:
            d, s = min(c.options, key=lambda o: o[1] * model.devices[o[0]].card_fraction)
            demand += c.demand(m) * (1 - taken) * s * model.devices[d].card_fraction
    return demand


def _roadmap(
    model: Model, cand: Candidate, months: int, utilisation_target: float, cancel: Cancel = never
) -> tuple[list[MonthPoint], int | None, int | None]:
    """The fleet against every month of the roadmap, with the first month a class stops fitting and the
    first month it runs out of capacity."""
    total_cards = sum(n * model.nodes[t].cards_per_node for t, (n, _l, _k) in enumerate(cand) if n)
    points = []
    stops = short = None
    for m in range(1, months + 1):
        check(cancel)  # a month's routing sizes every class's queue: ~70 ms at a million jobs a day
        rm = route(model, cand, m)
        fits_all = not rm.unfit
        enough = not rm.unserved and fits_all
        if not fits_all and stops is None:
            stops = m
        if rm.unserved and short is None:
            short = m
        points.append(
            MonthPoint(
                month=m,
                demand_card_hours_per_day=_month_demand(model, rm, m),
                capacity_card_hours_per_day=total_cards * model.hours_per_day * utilisation_target,
                fits_largest=fits_all,
                enough_capacity=enough,
                unserved=[model.classes[ci].name for ci in rm.unfit + rm.unserved],
            )
        )
    return points, stops, short


def fleet_result(
    model: Model,
    cand: Candidate,
    rank: int,
    month: int,
    months: int,
    resolved: list[ResolvedNode],
    plan: Plan,
    cancel: Cancel = never,
) -> FleetResult:
    """The candidate ``cand`` (ranked ``rank``) in full, sized at ``month`` over a ``months`` roadmap."""
    r = route(model, cand, month)
    routes, busy, mig_use = _routes(model, r, month)
    counts, use = _node_rows(model, cand, busy)
    points, stops, short = _roadmap(model, cand, months, plan.service.utilisation_target, cancel)
    sc = score(model, cand, month)
    return FleetResult(
        rank=rank,
        label=fleet_label(model, cand),
        short_label=fleet_label(model, cand, short=True),
        nodes=counts,
        feasible=not r.unserved and not r.unfit,
        totals=_totals(model, cand, month, r),
        routes=routes,
        use=use,
        packing=_packing(mig_use, resolved, cand),
        stops_fitting_month=stops,
        out_of_capacity_month=short,
        months=points,
        unserved=[model.classes[ci].name for ci in r.unfit + r.unserved],
        ranked_by=ranked_by(sc),
        kinds=kinds(model, cand),
    )


def kinds(model: Model, cand: Candidate) -> list[str]:
    """The node types a candidate buys, in the plan's order."""
    return [model.nodes[t].name for t, (n, _l, _k) in enumerate(cand) if n]


__all__ = ["fleet_label", "fleet_result", "kinds", "rank_key"]
