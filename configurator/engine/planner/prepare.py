"""``prepare(plan)``: the plan resolved (nodes, prices, class models) and its class x device matrix evaluated.

Everything :func:`configurator.engine.planner.service.plan_service` and the benchmarks search over; problems
come back with the plan field they concern rather than as exceptions.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from configurator.catalog.errors import FileError, Problem, UnknownIdError
from configurator.catalog.limits import MAX_PLAN_CELLS
from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.prices import PriceList, load_price_list
from configurator.engine.evaluate import resolve_model
from configurator.engine.memory.estimate import job_parameters
from configurator.engine.planner.cancel import Cancel, check, never
from configurator.engine.planner.energy import idle_draws, node_power
from configurator.engine.planner.fleet import ClassModel, DevModel, Model, NodeModel, class_demand
from configurator.engine.planner.matrix import Cell, Device, class_cells, node_devices
from configurator.engine.planner.measurements import Applied, apply_to_cells, measured_nodes
from configurator.engine.planner.nodes import ResolvedNode, resolve_nodes
from configurator.engine.planner.plan import IdleDraw, Plan, Service
from configurator.engine.planner.result import ClassInfo, PlanProblem, months_phrase


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


PLAUSIBLE_POWER_PRICE = 1.0  # per kWh: retail electricity is well under this in any currency priced per unit


def _service_problems(plan: Plan, month: int) -> list[PlanProblem]:
    """Inputs the plan accepts but that change the answer silently: a sizing month past the roadmap (the plan
    sizes for the roadmap's last month instead) and a power price that reads as cents."""
    out = []
    asked = plan.search.size_for_month
    if asked is not None and asked > month:
        out.append(PlanProblem(
            severity="warning", code="SIZE_MONTH_PAST_ROADMAP", field="search.size_for_month",
            message=(f"size_for_month {asked} is past the roadmap ({months_phrase(plan.roadmap.months)} "
                     f"roadmap); sized for month "
                     f"{month}, the roadmap's last (lengthen roadmap.months to size for month {asked})"),
        ))  # fmt: skip
    price = plan.service.power_price_per_kwh
    if price is not None and price > PLAUSIBLE_POWER_PRICE:
        out.append(PlanProblem(
            severity="warning", code="POWER_PRICE_IMPLAUSIBLE", field="service.power_price_per_kwh",
            message=(f"power price {price:g} per kWh is above {PLAUSIBLE_POWER_PRICE:g} per kWh: is it in cents? "
                     f"{price:g} cents is {price / 100:g} per kWh; the ranking weighs energy at the price as given"),
        ))  # fmt: skip
    return out


def _node_model(
    node: ResolvedNode, prices: dict[str, float], problems: list[PlanProblem], idle: dict[str, IdleDraw]
) -> NodeModel:
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
    # IT power: chassis platform (CPUs, memory, fans) + each card at its default power limit (catalog TDP),
    # and at idle the cards at their measured idle draw (energy.py)
    power = node_power(node, idle)
    counts = tuple(dict(Counter(layout)) for layout in node.layouts)
    return NodeModel(
        name=node.name,
        card=node.card.id,
        cards_per_node=cpn,
        layouts=node.layouts,
        max_nodes=node.max_nodes,
        capital=capital,
        kw=power.full_kw,
        layout_counts=counts,
        idle_kw=power.idle_kw,
        busy_kw_per_card=power.busy_kw_per_card,
    )


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
    applied: Applied | None = None  # what the plan's measurement files said and changed
    prices: dict[str, float] = field(default_factory=dict)  # catalog id -> unit price (price list, then prices:)


def _node_problems(resolved: list[ResolvedNode], node_problems: list[Problem]) -> list[PlanProblem]:
    """Node types that are not valid builds (errors) and the checks of those that are (warnings)."""
    problems: list[PlanProblem] = []
    for p in node_problems:
        problems.append(PlanProblem(severity="error", code="NODE_INVALID", field=p.field, message=p.message))
    for node in resolved:
        for w in node.checks:
            problems.append(
                PlanProblem(
                    severity="warning", code="NODE_WARNING", field=f"nodes[{node.index}]", message=f"{node.name}: {w}"
                )
            )
    return problems


def _class_matrix(
    plan: Plan,
    catalog: Catalog,
    base: Path | None,
    resolved: list[ResolvedNode],
    month: int,
    devices: dict[str, Device],
    problems: list[PlanProblem],
    cancel: Cancel = never,
) -> tuple[list[Cell], list[ClassInfo], list[int]]:
    """Every class with a model the engine can size on every device once: the cells, the classes' rows and
    their plan.classes indices (MIG group devices the cells name join ``devices``)."""
    cells: list[Cell] = []
    infos: list[ClassInfo] = []
    usable: list[int] = []
    for k, cls in enumerate(plan.classes):
        check(cancel)  # a class on every device is the first plan's longest step
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
                objective=cls.objective,
                parameters=params.total,
                tokens_per_job=cls.job_tokens,
                jobs_per_day=lam,
                wait_target_hours=cls.wait_target_hours,
                from_month=cls.from_month,
                jobs_per_day_input=None if by_month else (cls.jobs_per_day or 0.0),
                growth_per_month=0.0 if by_month else growth,
            )
        )
        class_list, groups = class_cells(cls, k, resolved, plan, catalog, base)
        cells += class_list
        for g in groups:
            devices.setdefault(g.id, g)
    return cells, infos, usable


def _class_problem(k: int, name: str, mine: list[Cell], opts: tuple[tuple[int, float], ...]) -> PlanProblem | None:
    """A warning for a class that fits no device, or fits but has no service time anywhere."""
    if not any(c.fits for c in mine):
        return PlanProblem(
            severity="warning",
            code="CLASS_FITS_NOWHERE",
            field=f"classes[{k}]",
            message=f"class '{name}' fits no device of any node type",
        )
    if not opts:
        return PlanProblem(
            severity="warning",
            code="CLASS_NO_SERVICE_TIME",
            field=f"classes[{k}]",
            message=(
                f"class '{name}' fits, but no device has a known compute rate, "
                "so it cannot be sized (assumptions.compute_rates: estimated uses "
                "the catalog's UNCONFIRMED estimates)"
            ),
        )
    return None


def _class_models(
    plan: Plan,
    usable: list[int],
    cells: list[Cell],
    devices: dict[str, Device],
    index: dict[str, int],
    problems: list[PlanProblem],
) -> list[ClassModel]:
    """Per usable class: its demand, wait target, (device, service hours) options and smallest fitting
    device, the search's view of it."""
    class_models = []
    by_class: dict[int, list[Cell]] = {}
    for c in cells:  # grouped once: a scan of every cell per class was classes x cells
        by_class.setdefault(c.job_class, []).append(c)
    for k in usable:
        cls = plan.classes[k]
        mine = by_class.get(k, [])
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
        problem = _class_problem(k, cls.name, mine, opts)
        if problem is not None:
            problems.append(problem)
    return class_models


def _model(svc: Service, nodes: list[NodeModel], devs: list[DevModel], classes: list[ClassModel]) -> Model:
    """The search's model of the service: node types, devices and classes at the service's terms."""
    return Model(
        nodes=nodes,
        devices=devs,
        classes=classes,
        utilisation=svc.utilisation_target,
        hours_per_day=svc.hours_per_day,
        days_per_month=svc.days_per_month,
        life_months=svc.service_life_years * 12,
        power_price=svc.power_price_per_kwh,
        pue=svc.pue,
        rack_kw=svc.rack_kw,
        peak_share=svc.peak_share,
    )


def prepare(
    plan: Plan, catalog: Catalog | None = None, base_dir: str | Path | None = None, cancel: Cancel = never
) -> Prepared:
    """Resolve nodes and prices and evaluate every class on every device once (cached across calls)."""
    catalog = catalog or default_catalog()
    base = Path(base_dir) if base_dir else None
    resolved, node_problems = resolve_nodes(plan, catalog, base)
    problems = _node_problems(resolved, node_problems)
    resolved, applied = measured_nodes(plan, resolved, base, problems)
    prices, currency = _prices(plan, base, problems)
    idle = idle_draws(plan)
    nodes = [_node_model(n, prices, problems, idle) for n in resolved]
    months = plan.roadmap.months
    month = min(plan.search.size_for_month or 1, months)
    problems += _service_problems(plan, month)

    # ---- the class x device matrix: every class on every device once ----
    devices: dict[str, Device] = {}
    for node in resolved:
        for d in node_devices(node):
            devices[d.id] = d
    # refused before any sizing when even the node types' own devices are too many, and after it when the MIG
    # groups the cells add make the matrix larger than the limit (catalog/limits.py: the plan sheet's table)
    cells: list[Cell] = []
    infos: list[ClassInfo] = []
    usable: list[int] = []
    if len(plan.classes) * len(devices) <= MAX_PLAN_CELLS:
        cells, infos, usable = _class_matrix(plan, catalog, base, resolved, month, devices, problems, cancel)
    if len(plan.classes) * len(devices) > MAX_PLAN_CELLS or len(cells) > MAX_PLAN_CELLS:
        problems.append(
            PlanProblem(
                severity="error",
                code="PLAN_TOO_LARGE",
                field="classes",
                message=(
                    f"{len(plan.classes)} classes × {len(devices)} devices (node types, card groups and MIG "
                    f"layouts) is more than the {MAX_PLAN_CELLS} sizings a plan may ask for: plan fewer classes "
                    "or node types"
                ),
            )
        )
        cells, infos, usable = [], [], []
    cells = apply_to_cells(plan, cells, devices, resolved, applied)

    dev_list = list(devices.values())
    index = {d.id: i for i, d in enumerate(dev_list)}
    node_pos = {n.index: t for t, n in enumerate(resolved)}
    dev_models = [DevModel(d.id, node_pos[d.node], d.kind, d.profile, d.cards, d.card_fraction) for d in dev_list]
    class_models = _class_models(plan, usable, cells, devices, index, problems)
    model = _model(plan.service, nodes, dev_models, class_models)
    return Prepared(resolved, model, cells, devices, usable, infos, problems, currency, month, months, applied,
                    prices)  # fmt: skip
