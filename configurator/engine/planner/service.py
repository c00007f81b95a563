"""``plan_service(plan) -> PlanResult``: size a fleet for a multi-tenant fine-tuning service.

Never raises on a structurally valid plan: unknown ids, unreadable price lists, node types that are not
valid builds and classes that fit nowhere come back as problems with the plan field they concern.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from configurator.catalog.errors import FileError, UnknownIdError
from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.prices import PriceList, load_price_list
from configurator.engine.evaluate import resolve_model
from configurator.engine.memory import job_parameters
from configurator.engine.planner.fleet import (
    Candidate,
    ClassModel,
    DevModel,
    Model,
    NodeModel,
    Score,
    class_demand,
    fleet_cost,
    jobs_per_month,
    route,
    wait_of,
)
from configurator.engine.planner.matrix import Cell, Device, class_cells, node_devices
from configurator.engine.planner.nodes import ResolvedNode, resolve_nodes
from configurator.engine.planner.packing import pack, placeable
from configurator.engine.planner.plan import Plan
from configurator.engine.planner.queueing import devices_needed, mean_wait_hours, offered_load
from configurator.engine.planner.result import (
    ClassInfo,
    DeviceInfo,
    DeviceUse,
    FitCell,
    FleetResult,
    MonthPoint,
    NodeCount,
    PlanProblem,
    PlanResult,
    Route,
    SearchStats,
    Totals,
)
from configurator.engine.planner.search import Ranked, candidate_count, search


def _prices(plan: Plan, base: Path | None, problems: list[PlanProblem]) -> tuple[dict[str, float], str | None]:
    prices: dict[str, float] = {}
    currency = plan.currency
    if plan.price_list:
        path = Path(plan.price_list).expanduser()
        if not path.is_absolute() and base is not None:
            path = base / path
        try:
            plist: PriceList = load_price_list(path)
        except FileError as exc:
            problems.append(
                PlanProblem(
                    severity="error",
                    code="PRICE_LIST_UNREADABLE",
                    field="price_list",
                    message=str(exc).splitlines()[-1].strip(),
                )
            )
        else:
            if currency and plist.currency != currency:
                problems.append(
                    PlanProblem(
                        severity="error",
                        code="PRICE_LIST_CURRENCY",
                        field="currency",
                        message=(f"the plan is in {currency} but {path.name} is in {plist.currency}: use one currency"),
                    )
                )
            currency = currency or plist.currency
            prices.update({k: float(v) for k, v in plist.parts.items()})  # Decimal in the list, float here
    prices.update(plan.prices)
    return prices, currency


def _node_model(node: ResolvedNode, prices: dict[str, float], problems: list[PlanProblem]) -> NodeModel:
    cpn = node.cards_per_node
    capital = node.price
    if capital is None:
        missing = [i for i in (node.chassis.id, node.card.id) if i not in prices]
        if missing:
            problems.append(
                PlanProblem(
                    severity="warning",
                    code="PRICE_MISSING",
                    field=f"nodes[{node.index}]",
                    message=(
                        f"{node.name}: no price for {', '.join(missing)}; its capital and "
                        "cost per job are unknown (add prices: or a price_list)"
                    ),
                )
            )
        else:
            capital = prices[node.chassis.id] + cpn * prices[node.card.id]
    # IT power: chassis platform (CPUs, memory, fans) + each card at its default power limit (catalog TDP)
    watts = (node.chassis.platform_power_w.value or 0) + cpn * (node.card.power.tdp_w.value or 0)
    counts = tuple(dict(Counter(layout)) for layout in node.layouts)
    return NodeModel(
        name=node.name,
        card=node.card.id,
        cards_per_node=cpn,
        layouts=node.layouts,
        max_nodes=node.max_nodes,
        capital=capital,
        kw=watts / 1000,
        layout_counts=counts,
    )


def _label(model: Model, cand: Candidate) -> str:
    parts = []
    for t, (n, layout, k) in enumerate(cand):
        if not n:
            continue
        node = model.nodes[t]
        text = f"{n} x {node.name}"
        if layout >= 0:
            names = Counter(node.layouts[layout])
            mig = " + ".join(f"{c}x{p}" if c > 1 else p for p, c in names.items())
            text += f" ({k} of {node.cards_per_node} cards as {mig})"
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


def _fleet(
    model: Model, cand: Candidate, rank: int, month: int, months: int, resolved: list[ResolvedNode], plan: Plan
) -> FleetResult:
    r = route(model, cand, month)
    svc = plan.service
    routes: list[Route] = []
    busy: dict[int, float] = {}
    mig_use: dict[int, Counter[str]] = {}
    for ci, d, count, share in r.routes:
        dev = model.devices[d]
        c = model.classes[ci]
        s = next(s for dd, s in c.options if dd == d)
        rate = model.device_cost_per_hour(d)
        busy[dev.node] = busy.get(dev.node, 0.0) + c.demand(month) * share * s * dev.card_fraction
        if dev.kind == "mig":
            mig_use.setdefault(dev.node, Counter())[dev.profile or ""] += count
        routes.append(
            Route(
                job_class=c.name,
                device=dev.id,
                devices=count,
                share=share,
                service_hours=s,
                mean_wait_hours=wait_of(model, ci, d, count, share, month),
                cost_per_job=None if rate is None else s * rate / model.utilisation,
            )
        )
    for ci in r.unfit:
        routes.append(Route(job_class=model.classes[ci].name, device="", devices=0, share=0.0))
    counts = []
    use = []
    cards = nodes = 0
    kw = capital = 0.0
    capital_known = True
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
        cards += n * node.cards_per_node
        nodes += n
        kw += n * node.kw
        if node.capital is None:
            capital_known = False
        else:
            capital += n * node.capital
    energy = kw * model.pue * model.hours_per_day * model.days_per_month
    energy_cost = None if model.power_price is None else energy * model.power_price
    monthly = fleet_cost(model, cand)
    jobs = jobs_per_month(model, month)
    totals = Totals(
        nodes=nodes,
        cards=cards,
        power_kw=kw,
        facility_kw=kw * model.pue,
        racks=_racks(model, cand),
        energy_kwh_per_month=energy,
        capital=capital if capital_known else None,
        capital_per_month=capital / model.life_months if capital_known else None,
        energy_cost_per_month=energy_cost,
        cost_per_month=monthly,
        jobs_per_month=jobs,
        kwh_per_job=energy / jobs if jobs > 0 else None,
        cost_per_job=monthly / jobs if monthly is not None and jobs > 0 else None,
    )
    packing = []
    for t, profiles in mig_use.items():
        spec = resolved[t].card.mig
        if spec is not None:
            packing.append(pack(spec, resolved[t].card.id, dict(profiles)))
    points = []
    stops = short = None
    total_cards = cards
    for m in range(1, months + 1):
        rm = route(model, cand, m)
        demand = 0.0
        for ci, d, _count, share in rm.routes:
            c = model.classes[ci]
            s = next(s for dd, s in c.options if dd == d)
            demand += c.demand(m) * share * s * model.devices[d].card_fraction
        for ci in rm.unserved:  # the part without devices, at its cheapest device's card-hours
            c = model.classes[ci]
            taken = sum(share for cj, _d, _n, share in rm.routes if cj == ci)
            if c.options:
                d, s = min(c.options, key=lambda o: o[1] * model.devices[o[0]].card_fraction)
                demand += c.demand(m) * (1 - taken) * s * model.devices[d].card_fraction
        fits_all = not rm.unfit
        enough = not rm.unserved and fits_all
        if not fits_all and stops is None:
            stops = m
        if rm.unserved and short is None:
            short = m
        points.append(
            MonthPoint(
                month=m,
                demand_card_hours_per_day=demand,
                capacity_card_hours_per_day=total_cards * model.hours_per_day * svc.utilisation_target,
                fits_largest=fits_all,
                enough_capacity=enough,
                unserved=[model.classes[ci].name for ci in rm.unfit + rm.unserved],
            )
        )
    return FleetResult(
        rank=rank,
        label=_label(model, cand),
        nodes=counts,
        feasible=not r.unserved and not r.unfit,
        totals=totals,
        routes=routes,
        use=use,
        packing=packing,
        stops_fitting_month=stops,
        out_of_capacity_month=short,
        months=points,
        unserved=[model.classes[ci].name for ci in r.unfit + r.unserved],
    )


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


@dataclass
class Prepared:
    """The plan resolved and its class x device matrix evaluated: all a search needs (see :func:`prepare`)."""

    resolved: list[ResolvedNode]
    model: Model
    cells: list[Cell]
    devices: dict[str, Device]
    usable: list[int]  # plan.classes indices with a model the engine can size
    infos: list[ClassInfo]
    problems: list[PlanProblem]
    currency: str | None
    month: int
    months: int


def prepare(plan: Plan, catalog: Catalog | None = None, base_dir: str | Path | None = None) -> Prepared:
    """Resolve nodes and prices and evaluate every class on every device once (cached across calls)."""
    catalog = catalog or default_catalog()
    base = Path(base_dir) if base_dir else None
    svc = plan.service
    problems: list[PlanProblem] = []
    resolved, node_problems = resolve_nodes(plan, catalog, base)
    for p in node_problems:
        problems.append(PlanProblem(severity="error", code="NODE_INVALID", field=p.field, message=p.message))
    for node in resolved:
        for w in node.checks:
            problems.append(
                PlanProblem(
                    severity="warning", code="NODE_WARNING", field=f"nodes[{node.index}]", message=f"{node.name}: {w}"
                )
            )
    prices, currency = _prices(plan, base, problems)
    nodes = [_node_model(n, prices, problems) for n in resolved]
    months = plan.roadmap.months
    month = min(plan.search.size_for_month or 1, months)

    # ---- the class x device matrix: every class on every device once ----
    devices: dict[str, Device] = {}
    for node in resolved:
        for d in node_devices(node):
            devices[d.id] = d
    cells: list[Cell] = []
    infos: list[ClassInfo] = []
    usable: list[int] = []
    for k, cls in enumerate(plan.classes):
        try:
            model_spec = resolve_model(cls.model, catalog, base)
            params = job_parameters(model_spec, cls)  # type: ignore[arg-type]
        except (UnknownIdError, FileError, OSError, ValueError) as exc:
            problems.append(
                PlanProblem(
                    severity="error",
                    code="CLASS_MODEL",
                    field=f"classes[{k}].model",
                    message=f"class '{cls.name}': {str(exc).splitlines()[0]}",
                )
            )
            continue
        usable.append(k)
        growth = cls.growth_per_month if cls.growth_per_month is not None else plan.roadmap.growth_per_month
        by_month = tuple(cls.jobs_per_day_by_month) if cls.jobs_per_day_by_month else None
        lam = class_demand(cls.jobs_per_day or 0.0, by_month, growth, cls.from_month, month)
        infos.append(
            ClassInfo(
                name=cls.name,
                model=model_spec.id,
                model_name=model_spec.name,
                method=cls.method,
                parameters=params.total,
                tokens_per_job=cls.job_tokens,
                jobs_per_day=lam,
                wait_target_hours=cls.wait_target_hours,
                from_month=cls.from_month,
            )
        )
        class_list, groups = class_cells(cls, k, resolved, plan, catalog, base)
        cells += class_list
        for g in groups:
            devices.setdefault(g.id, g)

    dev_list = list(devices.values())
    index = {d.id: i for i, d in enumerate(dev_list)}
    node_pos = {n.index: t for t, n in enumerate(resolved)}
    dev_models = [DevModel(d.id, node_pos[d.node], d.kind, d.profile, d.cards, d.card_fraction) for d in dev_list]
    class_models = []
    for k in usable:
        cls = plan.classes[k]
        mine = [c for c in cells if c.job_class == k]
        opts = tuple((index[c.device], c.service_hours) for c in mine if c.fits and c.service_hours)
        sizes = [devices[c.device].memory_gb * devices[c.device].cards for c in mine if c.fits]
        growth = cls.growth_per_month if cls.growth_per_month is not None else plan.roadmap.growth_per_month
        class_models.append(
            ClassModel(
                cls.name,
                cls.jobs_per_day or 0.0,
                growth,
                cls.from_month,
                cls.wait_target_hours,
                opts,
                min(sizes) if sizes else math.inf,
                tuple(cls.jobs_per_day_by_month) if cls.jobs_per_day_by_month else None,
            )
        )
        if not any(c.fits for c in mine):
            problems.append(
                PlanProblem(
                    severity="warning",
                    code="CLASS_FITS_NOWHERE",
                    field=f"classes[{k}]",
                    message=f"class '{cls.name}' fits no device of any node type",
                )
            )
        elif not opts:
            problems.append(
                PlanProblem(
                    severity="warning",
                    code="CLASS_NO_SERVICE_TIME",
                    field=f"classes[{k}]",
                    message=(
                        f"class '{cls.name}' fits, but no device has a known compute rate, "
                        "so it cannot be sized (assumptions.compute_rates: estimated uses "
                        "the catalog's UNCONFIRMED estimates)"
                    ),
                )
            )
    model = Model(
        nodes=nodes,
        devices=dev_models,
        classes=class_models,
        utilisation=svc.utilisation_target,
        hours_per_day=svc.hours_per_day,
        days_per_month=svc.days_per_month,
        life_months=svc.service_life_years * 12,
        power_price=svc.power_price_per_kwh,
        pue=svc.pue,
        rack_kw=svc.rack_kw,
    )
    return Prepared(resolved, model, cells, devices, usable, infos, problems, currency, month, months)


def plan_service(plan: Plan, catalog: Catalog | None = None, base_dir: str | Path | None = None) -> PlanResult:
    """Size a fleet for the plan's service: the class x device matrix, ranked fleets, the roadmap."""
    pre = prepare(plan, catalog, base_dir)
    resolved, model, cells, devices, usable = pre.resolved, pre.model, pre.cells, pre.devices, pre.usable
    infos, problems, currency, month, months = pre.infos, pre.problems, pre.currency, pre.month, pre.months
    svc = plan.service
    class_models = model.classes
    nodes = model.nodes
    dev_list = list(devices.values())
    index = {d.id: i for i, d in enumerate(dev_list)}
    node_pos = {n.index: t for t, n in enumerate(resolved)}

    # ---- matrix cells for the result, at the sizing month ----
    pos = {k: i for i, k in enumerate(usable)}
    out_cells = []
    for c in cells:
        cm = class_models[pos[c.job_class]]
        lam = cm.demand(month)
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
        dev = devices[c.device]
        per_card = 1.0 / dev.cards
        if dev.kind == "mig" and dev.profile:
            spec = resolved[node_pos[dev.node]].card.mig
            assert spec is not None
            limit = spec.profile(dev.profile).max_count
            per_card = float(max((k for k in range(1, limit + 1) if placeable(spec, [dev.profile] * k)), default=0))
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

    # ---- the search ----
    fleets: list[FleetResult] = []
    n_cand = candidate_count(model) if nodes else 0
    stats = SearchStats(candidates=0, feasible=0, seconds=0.0, processes=1)
    if n_cand > plan.search.max_candidates:
        problems.append(
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
    elif n_cand > 0 and class_models:
        ranked, n, feasible, seconds, workers = search(model, month, plan.search.top * 16, plan.search.processes)
        ranked = _distinct(model, ranked, plan.search.top)
        stats = SearchStats(candidates=n, feasible=feasible, seconds=seconds, processes=workers)
        fleets = [
            _fleet(model, cand, i + 1, month, months, resolved, plan) for i, (_key, cand, _s) in enumerate(ranked)
        ]

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
    dev_infos = [
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
        for d in dev_list
    ]
    return PlanResult(
        name=plan.name,
        currency=currency,
        size_for_month=month,
        months=months,
        classes=infos,
        devices=dev_infos,
        matrix=out_cells,
        fleets=fleets,
        search=stats,
        problems=problems,
        notes=notes,
    )
