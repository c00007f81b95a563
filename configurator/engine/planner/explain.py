"""The planner's answer in words a platform team reads: per class its waits, MIG gain and devices in the
recommended fleet; what drives the ranking; the best fleet of each server mix beside it; and the reversal, the
roadmap month and job class at which the recommended servers change (seed B: "if the roadmap includes
full-parameter fine-tuning above roughly 13B ... the RTX PRO 6000 is the wrong purchase").

The reversal searches the fleet again at the months where it can change: month 1, each month a class first
arrives, and the sizing month. A change between two of them is pinned to a class's first month when the month
before it still recommends the old servers; otherwise it is put down to growth between the two.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from configurator.catalog.loader import Catalog
from configurator.engine.model.labels import bound_words, method_phrase, parameters_label
from configurator.engine.planner.fleet import Model, ranked_by
from configurator.engine.planner.fleet_result import fleet_label, fleet_result, kinds
from configurator.engine.planner.matrix import _DEMAND_FIELDS, cached_cell, node_devices
from configurator.engine.planner.nodes import ResolvedNode
from configurator.engine.planner.plan import JobClass, Plan
from configurator.engine.planner.prepare import Prepared
from configurator.engine.planner.result import (
    Alternative,
    ClassInfo,
    FitCell,
    FleetResult,
    Recommendation,
    Reversal,
    SlowEnd,
    Totals,
)
from configurator.engine.planner.search import Mix, Ranked, best_feasible, candidate_count


def class_infos(pre: Prepared, fleets: list[FleetResult], cells: list[FitCell]) -> list[ClassInfo]:
    """The classes with their waits, devices and MIG gain in the recommended fleet (the first ranked)."""
    best = fleets[0] if fleets else None
    out = []
    for info in pre.infos:
        routes = [r for r in best.routes if r.job_class == info.name and r.device] if best else []
        nodes = {pre.devices[r.device].node for r in routes if r.device in pre.devices}
        unstable = any(r.peak_unstable for r in routes)
        means = [r.mean_wait_hours for r in routes if r.mean_wait_hours is not None]
        p95s = [r.wait_p95_hours for r in routes if r.wait_p95_hours is not None]
        mean = None if unstable or not means else max(means)
        p95 = None if unstable or not p95s else max(p95s)
        met = None
        if info.wait_target_hours is not None and routes:
            met = (not unstable) and p95 is not None and p95 <= info.wait_target_hours + 1e-9
        mine = [c for c in cells if c.job_class == info.name and c.mig_gain is not None]
        here = [c for c in mine if pre.devices[c.device].node in nodes] or mine
        gain = max(here, key=lambda c: (round(c.mig_gain or 0.0, 2), c.devices_per_card), default=None)
        cards = [pre.devices[r.device].cards for r in routes if r.device in pre.devices]
        out.append(
            info.model_copy(
                update={
                    "wait_mean_h": mean,
                    "wait_p95_h": p95,
                    "peak_unstable": unstable,
                    "wait_target_met": met,
                    "mig_gain": gain.mig_gain if gain else None,
                    "mig_gain_device": gain.device if gain else None,
                    "mig_gain_basis": gain.mig_gain_basis if gain else None,
                    "mig_gain_estimated": gain.mig_gain_estimated is not False if gain else True,
                    "mig_gain_full_card": bool(gain and pre.devices[gain.device].compute_share >= 1 - 1e-9),
                    "routed_to": [r.device for r in routes],
                    "cards_per_job": min(cards) if cards else None,
                }
            )
        )
    return out


def _alternatives(model: Model, mixes: dict[Mix, Ranked]) -> list[tuple[Alternative, Ranked]]:
    out = []
    for mix, ranked in sorted(mixes.items(), key=lambda kv: kv[1][0]):
        _key, cand, s = ranked
        alt = Alternative(
            kinds=[model.nodes[t].name for t, on in enumerate(mix) if on],
            label=fleet_label(model, cand),
            feasible=s[0],
            # a fleet that cannot run every job has no cost or energy a job: it would divide by jobs it never runs
            cost_per_job=s[1] if s[0] else None,
            kwh_per_job=s[2] if s[0] and math.isfinite(s[2]) else None,
            cards=s[3],
            nodes=s[4],
        )
        out.append((alt, ranked))
    return out


def plan_money(x: float | None, currency: str | None, whole: bool = False) -> str:
    """A plan's amount as its why-lines, text report and sheet write it: '1,234.50 USD', 'unknown' where no
    price was given (the plan's currency is a code, not the shop's symbols of engine/bom.money). ``whole``: to the
    whole unit ('1,182,240 USD'), for capital and monthly costs: cents on a fleet's price claim a precision its
    street prices do not have."""
    digits = 0 if whole else 2
    return "unknown" if x is None else f"{x:,.{digits}f} {currency}" if currency else f"{x:,.{digits}f}"


def _kinds_words(names: list[str]) -> str:
    if not names:
        return "no servers"
    return (names[0] + " only") if len(names) == 1 else "a mix of " + " and ".join(names)


def _busy(fleet: FleetResult) -> float:
    """The fleet's cards' busy fraction over the day at the sizing month."""
    cap = sum(u.capacity_card_hours_per_day for u in fleet.use)
    return sum(u.busy_card_hours_per_day for u in fleet.use) / cap if cap > 0 else 0.0


def _compare(best: FleetResult, other: FleetResult, currency: str | None) -> str:
    """One sentence: how the recommended fleet beats another on cards, utilisation, energy and cost."""
    bt, ot = best.totals, other.totals
    bu = sum(u.busy_card_hours_per_day for u in best.use) / max(
        1e-9, sum(u.capacity_card_hours_per_day for u in best.use)
    )
    ou = sum(u.busy_card_hours_per_day for u in other.use) / max(
        1e-9, sum(u.capacity_card_hours_per_day for u in other.use)
    )
    parts = [
        f"{bt.cards} cards against {ot.cards}",
        f"busy {bu:.0%} of the day against {ou:.0%}",
        f"{bt.kwh_per_job or 0:.1f} kWh a job against {ot.kwh_per_job or 0:.1f}",
    ]
    if bt.cost_per_job is not None and ot.cost_per_job is not None:
        parts.append(f"{plan_money(bt.cost_per_job, currency)} a job against {plan_money(ot.cost_per_job, currency)}")
    text = f"Against {other.label} ({_kinds_words(other.kinds)}): " + ", ".join(parts) + "."
    split = [f"{_capital_share(t):.0%}" for t in (bt, ot) if _capital_share(t) is not None]
    if len(split) == 2:  # each fleet's own split of its monthly cost (the recommended one's first)
        text += f" Capital is {split[0]} of the recommended fleet's monthly cost against {split[1]} of this one's."
    return text


def _capital_share(t: Totals) -> float | None:
    """A fleet's capital (straight-line over the service life) over its monthly cost; None where either is unknown."""
    if not t.cost_per_month or t.capital_per_month is None or t.energy_cost_per_month is None:
        return None
    return t.capital_per_month / t.cost_per_month


def _why(plan: Plan, pre: Prepared, best: FleetResult, alts: list[tuple[Alternative, FleetResult | None]],
         infos: list[ClassInfo], currency: str | None, slow_end: SlowEnd | None = None) -> list[str]:  # fmt: skip
    if not best.feasible:
        return _why_unserved(plan, pre, best)
    why = [f"Ranked by {best.ranked_by}."]
    why += _mig_split_words(best)
    targets = [i for i in infos if i.wait_target_hours is not None]
    peak = plan.service.peak_factor
    sized = (
        f"Sized for the busiest hour ({peak:.2f}× the mean arrival rate)"
        if plan.service.peak_share is not None
        else "Sized for arrivals spread evenly over the day (no daily profile given)"
    )
    met = sum(1 for i in targets if i.wait_target_met)
    counted = f"{len(targets)} p95 wait target{'' if len(targets) == 1 else 's'}"
    why.append(
        f"{sized} and {counted}, {met} met: its cards are busy {_busy(best):.0%} of the "
        f"day on average against a {plan.service.utilisation_target:.0%} utilisation target."
    )
    if slow_end is not None:
        why.append(slow_end.words)
    if best.ranked_by.startswith("cards"):
        why.append(
            "Without prices the planner cannot weigh an H100 against an RTX PRO 6000: it counts cards and the "
            "energy they draw (idle draw modelled); add prices: and a power price to rank by cost per job."
        )
    shown = [fr for alt, fr in alts if alt.kinds != best.kinds and fr is not None][:3]
    for other in shown:
        why.append(_compare(best, other, currency))
    for alt, fr in alts:
        if fr is None and alt.kinds != best.kinds:
            why.append(
                f"{_kinds_words(alt.kinds)}: no fleet within the search's bounds (nodes[].max_nodes) serves every "
                f"class in month {pre.month}."
            )
    multi = [i for i in infos if i.cards_per_job and i.cards_per_job > 1]
    if multi:
        why.append(
            "Jobs that need more than one card: "
            + "; ".join(f"{i.name} ({i.cards_per_job} cards) on {', '.join(sorted(set(i.routed_to)))}" for i in multi)
            + "."
        )
    for i in infos:
        if i.mig_gain is None:
            continue
        where = f"{i.mig_gain_device}"
        verdict = "more" if i.mig_gain > 1.005 else "no more"
        if i.mig_gain_full_card:  # the full-card instance is the whole card under MIG: nothing to gain
            why.append(f"MIG: only the full-card instance ({where}) holds {i.name}, so MIG gains it nothing "
                       f"({i.mig_gain:.2f}× a whole card's jobs per card-day).")  # fmt: skip
            continue
        why.append(
            f"MIG: {i.name} runs {i.mig_gain:.2f}× the jobs per card-day on {where} "
            f"({verdict} than a whole card; {i.mig_gain_basis_words})."
        )
        if i.mig_gain > 1.005 and i.mig_gain_estimated:
            # the whole card's loss is wave quantisation at one GEMM tile per architecture (efficiency.yaml tiles);
            # MIGProfiler's small steps read the whole instance too slow for that reason (throughput-runs.yaml)
            why.append(
                f"That gain is an estimate: it comes from the whole card's matrix multiplies leaving part of its "
                f"last wave of SMs idle at {i.name}'s sizes, with one tile size per card family; the math library "
                "picks its tile per shape and fills more of them, so the gain may be smaller. DCGM SM_ACTIVE of the "
                "class on a whole card, or its tokens/s on both the slice and the whole card, replaces it (tokens/s "
                "on the whole card alone scales the slice by the engine's ratio and leaves the gain as it is)."
            )
    return why


def _mig_split_words(best: FleetResult) -> list[str]:
    """The fleet's MIG cards in full: per server and in total (its label says '2 of 8 cards in each as 4×1g.24gb',
    each server's split, not the fleet's total)."""
    out = []
    for n in best.nodes:
        if not n.count or not n.mig_cards_per_node or not n.mig_layout:
            continue
        layout = " + ".join(f"{c}×{p}" if c > 1 else p for p, c in Counter(n.mig_layout).items())
        total, mig = n.count * n.cards_per_node, n.count * n.mig_cards_per_node
        out.append(
            f"MIG split: {n.mig_cards_per_node} of the {n.cards_per_node} cards in each {n.node} "
            f"({mig} of its {total} cards) as {layout}; the other {total - mig} run whole."
        )
    return out


def _why_unserved(plan: Plan, pre: Prepared, best: FleetResult) -> list[str]:
    """No fleet within the search's bounds serves the sizing month: say so and what to raise, and no utilisation
    or cost a job (the fleet shown cannot run part of the jobs, so neither figure means anything)."""
    fit = {pre.infos[pre.usable.index(c.job_class)].name for c in pre.cells if c.fits and c.job_class in pre.usable}
    nowhere = [n for n in best.unserved if n not in fit]
    short = [n for n in best.unserved if n in fit]
    why = []
    if short:
        caps = ", ".join(f"{n.name}: {n.max_nodes}" for n in plan.nodes)
        why.append(
            f"No fleet within the search's bounds serves month {pre.month}: even the largest it may buy leaves "
            f"{_names(short)} without enough devices. Raise nodes[].max_nodes (now {caps}) or lower the demand."
        )
    if nowhere:
        why.append(
            f"{_names(nowhere)} {'fits' if len(nowhere) == 1 else 'fit'} no device of these node types: add a node "
            "type whose cards hold it (or more cards a job), or change the class."
        )
    why.append(
        f"The fleets listed (first {best.label}) do not run every job: no utilisation or cost a job is given for "
        "them, as it would be spread over jobs they cannot run."
    )
    return why


def _best_at(model: Model, month: int, processes: int | None) -> list[str]:
    cand = best_feasible(model, month)
    return [] if cand is None else kinds(model, cand)


def _class_words(info: ClassInfo, pre: Prepared) -> str:
    k = next(i for i, c in enumerate(pre.infos) if c.name == info.name)
    plan_k = pre.usable[k]
    cards = [pre.devices[c.device].cards for c in pre.cells if c.job_class == plan_k and c.fits]
    need = min(cards) if cards else None
    what = (
        f"{method_phrase(info.method, info.objective)} of {info.model_name} ({info.parameters / 1e9:.1f} B parameters)"
    )
    return what + (f", {need} card{'' if need == 1 else 's'} a job" if need else "")


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def slow_end_words(se: SlowEnd, rec_kinds: list[str], currency: str | None) -> str:
    """The recommendation at the slow end of the step-time band, in words a platform team reads (slowend.py)."""
    # the consequence first, what the band rests on last (a platform team reads the first clause)
    band = f"the slow end of the step-time band ({se.factor:.2f}× the engine's time)"
    basis = f" The band: {se.basis}."
    if not se.scaled:
        return (f"Every service time is measured ({se.measured} class × device times), so {band} does not apply: the "
                "fleet stands as sized.")  # fmt: skip
    text = f"If jobs run at {band}, "
    if se.targets_met:
        text += f"the same {se.servers} servers still keep every p95 wait target."
    else:
        need = (f"more than {se.grown_up_to}" if se.servers_needed is None
                else f"{se.servers_needed}")  # fmt: skip
        text += f"the same fleet needs {need} servers instead of {se.servers} to keep its p95 targets"
        if se.fleet_needed is not None:
            cost = "" if se.needed_cost_per_job is None else f", {plan_money(se.needed_cost_per_job, currency)} a job"
            text += f" ({se.fleet_needed}{cost})"
        if se.over_bounds:  # the fleet it needs is one the search could not buy: say which cap and its value
            caps = _names([f"{n} of {m}" for n, m in zip(se.over_bounds, se.over_bounds_max_nodes, strict=True)])
            text += (f", above this plan's max_nodes for {caps}: raise it to buy for the slow end"
                     if len(se.over_bounds) == 1 else f", above this plan's max_nodes for {caps}: raise them to buy "
                     "for the slow end")  # fmt: skip
        text += f"; as bought, {_names(se.short)} {'runs' if len(se.short) == 1 else 'run'} short."
    best = se.best
    if best is not None and len(se.mixes) > 1:
        cost = "" if best.cost_per_job is None else f" ({plan_money(best.cost_per_job, currency)} a job)"
        if best.kinds == rec_kinds:
            text += (" The best fleet of each other server mix, grown the same way, ranks below it: "
                     f"{_kinds_words(rec_kinds)} stays the best mix at that end{cost}.")  # fmt: skip
        else:
            text += (" Of the best fleet of each server mix, grown the same way, "
                     f"{_kinds_words(best.kinds)} ranks first at that end: {best.fleet}{cost}.")  # fmt: skip
    if se.unbanded:
        one = len(se.unbanded) == 1
        text += (f" {_names(se.unbanded)} {'has' if one else 'have'} no band of {'its' if one else 'their'} own "
                 "(parameter count only, or RL: the band is the per-op step time's): taken at the same "
                 f"{se.factor:.2f}×.")  # fmt: skip
    if se.measured:
        text += f" {se.measured} measured class × device times are kept as measured."
    if not se.targets_met:  # what narrows it: the plan's own measurements replace the engine's times
        text += (" Measuring each class's tokens/s on the chosen card (the plan's measurements) replaces the "
                 "engine's time, and this band with it.")  # fmt: skip
    return text + basis


REVERSAL_CANDIDATES = 4000  # searches up to this size are searched again at the roadmap's other months


def reversal(plan: Plan, pre: Prepared, best: FleetResult) -> Reversal:
    """The first roadmap month whose recommended fleet buys other server kinds, and the class that brings it."""
    model, last = pre.model, pre.month
    n = candidate_count(model)
    if n > REVERSAL_CANDIDATES:
        return Reversal(
            month=None,
            before=best.kinds,
            after=best.kinds,
            sized=best.kinds,
            settled=False,
            words=(
                f"The reversal was not searched: {n:,} candidate fleets is more than the "
                f"{REVERSAL_CANDIDATES:,} searched again at the roadmap's other months; lower nodes[].max_nodes or "
                "list fewer mig_layouts to see it."
            ),
        )
    arrivals = sorted({i.from_month for i in pre.infos if 1 < i.from_month <= last})
    # month 1, each month a class arrives and the month before it, and the sizing month: a search per month (~25 ms
    # for seed B) at every month of the roadmap doubled the re-plan an edit waits for (0.29 -> 0.60 s), so the
    # words name the months searched and claim nothing of the others
    months = sorted({1, *arrivals, *(m - 1 for m in arrivals), last})
    seen: dict[int, list[str]] = {last: best.kinds}
    for m in months:
        if m not in seen:
            seen[m] = _best_at(model, m, plan.search.processes)
    final = seen[last]
    differ = [m for m in months if seen[m] != final]
    if not differ:
        return Reversal(
            month=None,
            before=best.kinds,
            after=best.kinds,
            sized=best.kinds,
            words=(
                f"No reversal within the {pre.months}-month roadmap: {_kinds_words(best.kinds)} stays the best fleet "
                f"from month 1 to month {last}, the month it is sized for."
            ),
        )
    b = next(m for m in months if m > differ[-1])  # from b on, the sizing month's servers stay best
    prior = max(m for m in months if m < b)
    if seen[1] != final:  # the change lasts to the sizing month
        cause = next((i for i in pre.infos if i.from_month == b), None)
        if cause is not None and prior != b - 1:
            cause = None  # not checked the month before: growth may have done it
        before, after = seen[prior], final
        if cause is not None:
            words = (
                f"The reversal: until month {b - 1} the best fleet is {_kinds_words(before)}; from month {b}, when "
                f"{cause.name} arrives ({_class_words(cause, pre)}), it is {_kinds_words(after)}, and it stays so "
                f"to month {last}, the month the fleet is sized for. In other words: once the roadmap includes "
                f"{cause.name}, {_kinds_words(before)} is no longer the right purchase."
            )
        else:
            words = (
                f"The reversal: the best fleet is {_kinds_words(before)} in month {prior} and {_kinds_words(after)} "
                f"from month {b} to month {last}, as demand grows (no class arrives in between)."
            )
        return Reversal(month=b, job_class=cause.name if cause else None, before=before, after=after, sized=final,
                        words=words)  # fmt: skip
    # the sizing month's servers are best in month 1 and again by the sizing month: a change that does not last
    first = differ[0]
    cause = next((i for i in pre.infos if i.from_month == first), None)
    when = f" (month {first} is when {cause.name} arrives)" if cause is not None else ""
    others = sorted({tuple(seen[m]) for m in differ})
    other_words = " or ".join(_kinds_words(list(k)) for k in others)
    searched = _names([str(m) for m in months])
    words = (
        f"No lasting reversal: {_kinds_words(final)} is the best fleet in month 1 and in month {last}, the month "
        f"the fleet is sized for. Of the months searched (months {searched}: month 1, each class's arrival and the "
        f"month before it, and the sizing month), in {_month_list(differ)}{when} {other_words} costs less at that "
        f"month's demand, and {_kinds_words(final)} is best again by month {last}: a step of whole server counts as "
        "demand grows, not a change of server the roadmap calls for."
    )
    return Reversal(month=first, job_class=cause.name if cause else None, before=final, after=seen[first],
                    sized=final, words=words)  # fmt: skip


def _month_list(months: list[int]) -> str:
    return ("month " if len(months) == 1 else "months ") + _names([str(m) for m in months])


def _fits_one_card(template: JobClass, parameters: float, node: ResolvedNode, plan: Plan, catalog: Catalog,
                   base: Path | None) -> bool:  # fmt: skip
    data = template.model_dump()
    data["model"] = {"parameters": parameters}
    cls = JobClass.model_validate(data)
    return cached_cell(cls, 0, node, node_devices(node)[0], plan, catalog, base).fits


def one_card_limits(plan: Plan, pre: Prepared, catalog: Catalog, base: Path | None) -> list[str]:
    """Seed B's criterion, "decide by whether any single job needs more than one card", as sizes: per node type
    and training method of the plan's classes, the largest model one card holds with the settings of the plan's
    largest class of that method (the memory engine on a parameter-count model, by bisection to about 5 %)."""
    methods: dict[str, JobClass] = {}
    for info in sorted(pre.infos, key=lambda i: -i.parameters):
        k = pre.usable[pre.infos.index(info)]
        methods.setdefault(method_phrase(info.method, info.objective), plan.classes[k])
    key = (
        plan.model_dump_json(include={"assumptions", "service", "nodes", "measurements"}),
        tuple(t.model_dump_json(exclude=_DEMAND_FIELDS) for t in methods.values()),
        str(base),
        id(catalog),
    )
    if key not in _LIMITS:
        if len(_LIMITS) > 256:
            _LIMITS.clear()
        _LIMITS[key] = _limits(plan, pre, methods, catalog, base)
    return list(_LIMITS[key])


_LIMITS: dict[tuple[object, ...], list[str]] = {}


def _limits(plan: Plan, pre: Prepared, methods: dict[str, JobClass], catalog: Catalog, base: Path | None) -> list[str]:
    out = []
    for node in pre.resolved:
        parts = []
        for method, template in methods.items():
            lo, hi = 0.1e9, 2e12
            if not _fits_one_card(template, lo, node, plan, catalog, base):
                continue
            while hi / lo > 1.05:
                mid = math.sqrt(lo * hi)
                if _fits_one_card(template, mid, node, plan, catalog, base):
                    lo = mid
                else:
                    hi = mid
            parts.append(f"{method} up to about {parameters_label(lo)}")
        if parts:
            out.append(f"One {node.card.name} ({node.name}) holds " + ", and ".join(parts) + " parameters.")
    if out:
        out.append("Above those sizes a job needs several cards, and the link between them carries its traffic.")
    return out


# The claim tested: full-parameter fine-tuning above roughly 13B needs several cards, and there the link between
# them (PCIe against NVLink) decides the server (the project's seed B article, /work/shared/seeds/)
FULL_FT_SEVERAL_CARDS = 13e9


def full_ft_test(pre: Prepared, best: FleetResult, cells: list[FitCell], infos: list[ClassInfo],
                 currency: str | None) -> str:  # fmt: skip
    """Whether the plan reaches the rule of thumb that full fine-tuning above roughly 13B reverses the choice of
    server, with the numbers: where the recommended fleet runs each such class, its time and cost a job there,
    against the fewest cards of each other node type that hold it."""
    claim = ("Full fine-tuning above roughly 13B (where a job needs several cards and the link between them is held "
             "to decide the server)")  # fmt: skip
    big = [i for i in infos if i.method == "full" and i.parameters > FULL_FT_SEVERAL_CARDS]
    if not big:
        return f"{claim}: not tested, no class of this plan is a full fine-tune above 13B."
    node_of = {d.id: pre.resolved[[n.index for n in pre.resolved].index(d.node)].name for d in pre.devices.values()}
    single = {node_of[d] for i in infos if i.cards_per_job == 1 for d in i.routed_to if d in node_of}
    parts: list[str] = []
    reached: list[str] = []
    kept: list[str] = []
    for i in big:
        mine = [c for c in cells if c.job_class == i.name and c.fits and c.service_hours is not None]
        here = [c for c in mine if c.device in i.routed_to]
        demand = f"{i.name} ({i.jobs_per_day:,.1f} jobs/day in month {pre.month})"
        if not here:
            parts.append(f"{demand} is not served by the recommended fleet")
            continue
        cell = min(here, key=lambda c: c.service_hours or 0.0)
        home = node_of[cell.device]
        (reached if home not in single else kept).append(demand)
        others = []
        for node in sorted({node_of[c.device] for c in mine} - {home}):
            theirs = [c for c in mine if node_of[c.device] == node]
            o = min(theirs, key=lambda c: (pre.devices[c.device].cards, c.service_hours or 0.0))
            others.append(f"{_hours(o)} on {o.device}{_cost(o, currency)}")
        text = f"{i.name} takes {_hours(cell)} a job on {cell.device}{_cost(cell, currency)}"
        parts.append(text + (" against " + "; ".join(others) if others else ""))
    if reached:
        verdict = (f" is reached: the recommended fleet runs {_names(reached)} on other servers than its one-card "
                   "jobs")  # fmt: skip
    elif kept:
        verdict = (f" is not reached in this plan: the recommended fleet runs {_names(kept)} on the same servers as "
                   "its one-card jobs")  # fmt: skip
    else:
        verdict = ": not tested, the recommended fleet serves no such class"
    costs = " (cost a job on each device alone, at the utilisation target)" if any("a job)" in p for p in parts) else ""
    return f"{claim}{verdict}. " + "; ".join(parts) + f"{costs}."


def _hours(c: FitCell) -> str:
    return bound_words(f"{c.service_hours or 0.0:.2f} h", c.lower_bound, prose=True)


def _cost(c: FitCell, currency: str | None) -> str:
    return "" if c.cost_per_job is None else f" ({plan_money(c.cost_per_job, currency)} a job)"


def recommend(
    plan: Plan,
    pre: Prepared,
    fleets: list[FleetResult],
    mixes: dict[Mix, Ranked],
    infos: list[ClassInfo],
    catalog: Catalog,
    base: Path | None,
    slow_end: SlowEnd | None = None,
    cells: list[FitCell] | None = None,
) -> Recommendation:
    best = fleets[0]
    alts = _alternatives(pre.model, mixes)
    full = [
        (
            alt,
            fleet_result(pre.model, ranked[1], 0, pre.month, pre.months, pre.resolved, plan) if alt.feasible else None,
        )
        for alt, ranked in alts
    ]
    return Recommendation(
        fleet=best.label,
        serves=best.feasible,
        ranked_by=best.ranked_by or ranked_by((best.feasible, best.totals.cost_per_job, 0.0, 0, 0)),
        why=_why(plan, pre, best, full, infos, pre.currency, slow_end),
        alternatives=[alt for alt, _r in alts],
        reversal=reversal(plan, pre, best) if best.feasible else None,  # no fleet to reverse
        one_card=one_card_limits(plan, pre, catalog, base),
        full_ft_test=full_ft_test(pre, best, cells or [], infos, pre.currency) if best.feasible else "",
    )
