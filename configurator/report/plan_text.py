"""Plain-text report of a service plan for ``configurator plan``. Every figure comes from the PlanResult."""

from __future__ import annotations

import textwrap
from html import escape

from configurator.engine.planner.explain import plan_money
from configurator.engine.planner.result import ClassInfo, FitCell, FleetResult, PlanResult
from configurator.present.plan_words import LOWER_BOUND_KEY, demand_input_words, hours_words, packing_words
from configurator.present.rl_words import method_label
from configurator.present.verdict import plural

WIDTH = 100  # a line of the plan report wraps here, its continuation indented under it (a terminal or a mail)


def _num(x: float | None, fmt: str = "{:,.2f}", unknown: str = "unknown") -> str:
    return unknown if x is None else fmt.format(x)


def _cell(c: FitCell) -> str:
    if c.fits:
        svc = hours_words(c.service_hours, c.lower_bound, "time unknown")
        per = f", {c.jobs_per_day_per_card:.1f} jobs/day per card" if c.jobs_per_day_per_card is not None else ""
        need = f", {c.devices_needed} needed" if c.devices_needed is not None else ""
        if c.mig_gain is not None:
            need += f", MIG gain {c.mig_gain:.2f}×"
        if c.basis != "engine":
            need += f" [{c.basis}]"
        est = " (est. rate)" if c.estimated_rate else ""
        return f"fits {c.peak_gb:.1f}/{c.capacity_gb:.1f} GB, {svc}{est}{per}{need}"
    if c.status == "tight":
        return f"TIGHT {c.peak_gb:.1f}/{c.capacity_gb:.1f} GB (not planned on)"
    if c.peak_gb is not None and c.capacity_gb is not None:
        return f"does not fit {c.peak_gb:.1f}/{c.capacity_gb:.1f} GB"
    return f"? {c.note or ''}"


def wait_words(mean: float | None, p95: float | None, unstable: bool) -> str:
    """A class's wait in the peak hour: mean and p95, or that the peak hour is unstable (never a finite wait)."""
    if unstable:
        return "UNSTABLE at the peak hour: the queue grows (no finite wait)"
    if mean is None or p95 is None:
        return "wait unknown"
    return f"wait at the peak hour: mean {mean:.2f} h, p95 {p95:.2f} h"


def route_wait(mean: float | None, p95: float | None, unstable: bool) -> str:
    return wait_words(mean, p95, unstable)


def class_line(c: ClassInfo) -> str:
    """One class in the recommended fleet: where it runs, its waits against its target, and its MIG gain."""
    where = "on " + ", ".join(sorted(set(c.routed_to))) if c.routed_to else "not served"
    target = ""
    if c.wait_target_hours is not None:
        met = "met" if c.wait_target_met else "NOT met"
        target = f" (p95 target {c.wait_target_hours:g} h: {met})"
    if c.mig_gain is None:
        mig = "MIG gain: no MIG instance holds it"
    elif c.mig_gain_full_card:
        mig = f"MIG gain: none, only the full-card instance {c.mig_gain_device} holds it"
    else:
        mig = f"MIG gain {c.mig_gain:.2f}× jobs per card-day on {c.mig_gain_device} ({c.mig_gain_tag})"
    wait = wait_words(c.wait_mean_h, c.wait_p95_h, c.peak_unstable)
    if len(set(c.routed_to)) > 1 and c.wait_p95_h is not None:
        wait += f" on the worst of its {len(set(c.routed_to))} routes"
    return f"  {c.name}: {where}; {wait}{target}; {mig}"


def recommendation_lines(result: PlanResult) -> list[str]:
    """The answer first: the recommended fleet, why, the best of each server mix, each class, the reversal."""
    rec = result.recommendation
    if rec is None:
        return ["Recommendation: none (no fleet of these servers serves the plan)", ""]
    if rec.serves:
        out = [f"Recommendation: {rec.fleet}"]
    else:
        out = [f"Recommendation: none. No fleet within the search's bounds serves month {result.size_for_month}"]
    out += [f"  {w}" for w in rec.why]
    out.append("")
    out.append("Best fleet of each server mix (pure fleets beside mixed ones), best first")
    for a in rec.alternatives:
        per = plan_money(a.cost_per_job, result.currency) + " a job" if a.cost_per_job is not None else "cost unknown"
        kwh = "" if a.kwh_per_job is None else f", {a.kwh_per_job:.1f} kWh a job"
        serve = "" if a.feasible else "  [does not serve every class: no cost a job]"
        size = f"{plural(a.nodes, 'server')}, {plural(a.cards, 'card')}"
        money = f", {per}{kwh}" if a.feasible else ""
        out.append(f"  {' + '.join(a.kinds)}: {a.label}; {size}{money}{serve}")
    out.append("")
    which = "the recommended fleet" if rec.serves else "the first fleet listed"
    out.append(f"Per class in {which} (peak hour: {result.peak_factor:.2f}× the mean arrival rate)")
    out += [class_line(c) for c in result.classes]
    out.append("")
    if rec.reversal is not None:
        out.append(rec.reversal.words)
    if rec.full_ft_test:
        out.append(rec.full_ft_test)
    out += rec.one_card
    out.append("")
    return out


def cost_lines(result: PlanResult) -> list[str]:
    """The figures the cost ranking uses, with their sources: each part's unit price, each node type's capital,
    power price, PUE, service life and utilisation target (PlanResult.costs)."""
    c = result.costs
    if c is None:
        return []
    cur = c.currency
    out = ["Costs used (what the ranking rests on)"]
    for u in c.unit_prices:
        src = u.source or "no source given"
        out.append(f"  {u.name} ({u.role}, {u.part}): {plan_money(u.price, cur, whole=True)}; {src}")
    whole = {u.part for u in c.unit_prices if u.role == "node"}
    for n in c.nodes:
        how = f"{plan_money(n.capital, cur, whole=True)} a server"
        parts = "its whole-node price" if n.node in whole else f"{n.chassis} + {n.cards_per_node} × {n.card}"
        out.append(f"  {n.node}: {how} ({parts})")
    if c.power_price_per_kwh is None:
        out.append("  power price: none given (energy has no cost, so no cost per job)")
    else:
        src = f"; {c.power_price_source}" if c.power_price_source else ""
        unit = f"{cur} per kWh" if cur else "per kWh"
        out.append(f"  power price: {c.power_price_per_kwh:g} {unit}{src}")
    out.append(f"  PUE: {c.pue:g}" + (f"; {c.pue_source}" if c.pue_source else ""))
    out.append(
        f"  service life: {c.service_life_years:g} years (capital straight-line over {c.service_life_years * 12:g} "
        f"months); utilisation target {c.utilisation_target:.0%}; {c.hours_per_day:g} h a day, "
        f"{c.days_per_month:g} days a month"
    )
    out += [f"  {k} (not used by these node types): {v}" for k, v in c.other_sources.items()]
    out.append("")
    return out


def costs_html(result: PlanResult) -> str:
    """The cost ranking's inputs as the window and PDF show them: a table of unit prices with their sources, then
    each node type's capital and the service's figures (the text report's lines, cost_lines)."""
    c = result.costs
    if c is None:
        return ""
    lines = cost_lines(result)
    rows = "".join(
        f"<tr><td>{escape(u.name)}<br><small>{escape(u.part)}, {u.role}</small></td>"
        f"<td align=right>{escape(plan_money(u.price, c.currency, whole=True))}</td>"
        f"<td><small>{escape(u.source or 'no source given')}</small></td></tr>"
        for u in c.unit_prices
    )
    table = ("<table cellspacing='0' cellpadding='3' border='1' width='100%'><tr><th>Part</th><th>Unit price</th>"
             f"<th>Source</th></tr>{rows}</table>") if rows else ""  # fmt: skip
    rest = lines[1 + len(c.unit_prices) :]
    items = "".join(f"<li>{escape(w.strip())}</li>" for w in rest if w.strip())
    return f"<h4>{escape(lines[0])}</h4>{table}<ul>{items}</ul>"


def fleet_lines(f: FleetResult, currency: str | None, months: int) -> list[str]:
    t = f.totals
    out = [f"#{f.rank}  {f.label}" + ("" if f.feasible else "   [DOES NOT SERVE: " + ", ".join(f.unserved) + "]")]
    out.append(
        f"    {plural(t.nodes, 'node')}, {plural(t.cards, 'card')}, "
        f"{t.power_kw:.1f} kW IT / {t.facility_kw:.1f} kW facility"
        + (f", {plural(t.racks, 'rack')}" if t.racks is not None else "")
        + f", {t.energy_kwh_per_month:,.0f} kWh/month"
    )
    out.append(f"    ranked by {f.ranked_by}" if f.ranked_by else "    ranked by cost per job")
    out.append(
        f"    capital {plan_money(t.capital, currency, whole=True)}, "
        f"per month {plan_money(t.cost_per_month, currency, whole=True)}, "
        f"{t.jobs_per_month:,.0f} jobs/month, cost per job {plan_money(t.cost_per_job, currency)}, "
        f"{_num(t.kwh_per_job, '{:.1f}')} kWh per job"
    )
    for r in f.routes:
        if not r.device:
            out.append(f"    {r.job_class}: fits no device of this fleet")
            continue
        wait = f", {route_wait(r.mean_wait_hours, r.wait_p95_hours, r.peak_unstable)}"
        out.append(
            f"    {r.job_class} -> {r.devices} × {r.device} ({r.share:.0%} of its jobs, "
            f"{hours_words(r.service_hours, r.lower_bound)} each{wait})"
        )
    for u in f.use:
        out.append(f"    utilisation {u.node}: {u.utilisation:.0%} of {plural(u.cards, 'card')}")
    out += [f"    {packing_words(p)}" for p in f.packing]
    stops = f"month {f.stops_fitting_month}" if f.stops_fitting_month else f"never within {months} months"
    short = f"month {f.out_of_capacity_month}" if f.out_of_capacity_month else f"never within {months} months"
    out.append(f"    roadmap: stops fitting the largest job {stops}; runs out of capacity {short}")
    return out


def roadmap_lines(result: PlanResult) -> list[str]:
    """Fleet #1 month by month, as the PDF's roadmap table: the demand routed against its capacity at the
    utilisation target, and the classes it leaves unserved."""
    if not result.fleets:
        return []
    out = ["Roadmap of fleet #1 (card-hours a day: demand / capacity at the utilisation target, load)"]
    for m in result.fleets[0].months:
        cap = m.capacity_card_hours_per_day
        load = f"{m.demand_card_hours_per_day / cap:.0%}" if cap else ""
        gaps = "" if m.enough_capacity and m.fits_largest else "; unserved: " + (", ".join(m.unserved) or "some jobs")
        out.append(f"  month {m.month:>3}: {m.demand_card_hours_per_day:,.1f} / "
                   f"{m.capacity_card_hours_per_day:,.1f}, {load}{gaps}")  # fmt: skip
    out.append("")
    return out


def render_plan(result: PlanResult) -> str:
    out = [
        f"Plan: {result.name}",
        f"sized for month {result.size_for_month} of {result.months}; currency {result.currency or 'none (no prices)'}",
        "",
    ]
    for p in result.problems:
        where = f" [{p.field}]" if p.field else ""
        out.append(f"{p.severity.upper():7s} {p.code}{where}: {p.message}")
    if result.problems:
        out.append("")
    out += recommendation_lines(result)
    if result.measurements:
        out.append("Measurements")
        out += [f"  {m}" for m in result.measurements]
        out.append("")
    out += cost_lines(result)
    out.append(f"Job classes (jobs/day in month {result.size_for_month}, the month the fleet is sized for)")
    for c in result.classes:
        wait = f", p95 wait target {c.wait_target_hours:g} h" if c.wait_target_hours else ""
        start = f", from month {c.from_month}" if c.from_month > 1 else ""
        out.append(
            f"  {c.name}: {c.model_name}, {method_label(c.method, c.objective)}, "
            f"{c.parameters / 1e9:.1f} B parameters, "
            f"{c.tokens_per_job / 1e6:,.1f} M tokens per job, {c.jobs_per_day:,.1f} jobs/day in month "
            f"{result.size_for_month} ({demand_input_words(c)}){wait}{start}"
        )
    out.append("")
    out.append("Classes × devices (peak/capacity per card, service time per job)")
    if any(c.lower_bound for c in result.matrix):
        out.append(f"  {LOWER_BOUND_KEY}")
    by_class: dict[str, list[FitCell]] = {}
    for m in result.matrix:  # grouped once: a scan of the matrix per class was classes x cells
        by_class.setdefault(m.job_class, []).append(m)
    for c in result.classes:
        out.append(f"  {c.name}")
        for cell in by_class.get(c.name, []):
            out.append(f"    {cell.device:42s} {_cell(cell)}")
    out.append("")
    s = result.search
    out.append(
        f"Fleets: {s.candidates:,} candidates searched in {s.seconds:.2f} s "
        f"on {plural(s.processes, 'process', 'processes')}, "
        f"{s.feasible:,} serve every class; best first"
    )
    for f in result.fleets:
        out += fleet_lines(f, result.currency, result.months)
    out.append("")
    out += roadmap_lines(result)
    out += [f"Note: {n}" for n in result.notes]
    return "\n".join(line for text in out for line in wrapped(text)) + "\n"


def wrapped(line: str, width: int = WIDTH) -> list[str]:
    """A report line cut at ``width`` between words, each continuation indented four past the line's own
    indent; a line that fits, or a word longer than the width (a URL), stays whole."""
    if len(line) <= width:
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    return textwrap.wrap(line, width=width, subsequent_indent=indent + "    ", break_long_words=False,
                         break_on_hyphens=False) or [line]  # fmt: skip


def answer_html(result: PlanResult) -> str:
    """The answer as the planner window shows it: the recommended fleet and why, per class its devices, waits at
    the peak hour against its p95 target and MIG gain, the best fleet of each server mix, and the reversal."""
    rec = result.recommendation
    if rec is None:
        return "<h3>No fleet of these servers serves the plan</h3><p>See Problems &amp; notes.</p>"
    if rec.serves:
        out = [f"<h3>Recommended: {escape(rec.fleet)}</h3>"]
    else:
        out = [f"<h3>No fleet within the search's bounds serves month {result.size_for_month}</h3>"]
    out.append("<ul>" + "".join(f"<li>{escape(w)}</li>" for w in rec.why) + "</ul>")
    if rec.reversal is not None:
        out.append(f"<p><b>{escape(rec.reversal.words)}</b></p>")
    if rec.full_ft_test:
        out.append(f"<p>{escape(rec.full_ft_test)}</p>")
    if rec.one_card:
        out.append("<p>" + " ".join(escape(w) for w in rec.one_card) + "</p>")
    out.append(
        f"<h4>Per class, in the recommended fleet (peak hour: {result.peak_factor:.2f}&times; the mean arrival "
        "rate; waits are M/M/c, Erlang C)</h4><table cellspacing='0' cellpadding='3' border='1'>"
        "<tr><th>Class</th><th>Runs on</th><th>Wait at the peak hour</th><th>p95 target</th><th>MIG gain</th></tr>"
    )
    for c in result.classes:
        where = ", ".join(sorted(set(c.routed_to))) or "not served"
        if c.peak_unstable:
            wait = "<b>unstable</b>: the queue grows"
        elif c.wait_mean_h is None or c.wait_p95_h is None:
            wait = "unknown"
        else:
            wait = f"mean {c.wait_mean_h:.2f} h, p95 {c.wait_p95_h:.2f} h"
            if len(set(c.routed_to)) > 1:
                wait += f" (worst of {len(set(c.routed_to))} routes)"
        if c.wait_target_hours is None:
            target = "none"
        else:
            target = f"{c.wait_target_hours:g} h: " + ("met" if c.wait_target_met else "<b>not met</b>")
        if c.mig_gain is None:
            gain = "no MIG instance holds it"
        elif c.mig_gain_full_card:
            gain = f"none: only the full-card instance {escape(c.mig_gain_device or '')} holds it"
        else:
            gain = f"{c.mig_gain:.2f}&times; on {escape(c.mig_gain_device or '')} ({escape(c.mig_gain_tag or '')})"
        out.append(f"<tr><td>{escape(c.name)}</td><td>{escape(where)}</td><td>{wait}</td><td>{target}</td>"
                   f"<td>{gain}</td></tr>")  # fmt: skip
    out.append("</table>")
    out.append(f"<h4>Best fleet of each server mix, ranked by {escape(rec.ranked_by)}</h4><ul>")
    for a in rec.alternatives:
        per = plan_money(a.cost_per_job, result.currency) + " a job" if a.cost_per_job is not None else "cost unknown"
        kwh = "" if a.kwh_per_job is None else f", {a.kwh_per_job:.1f} kWh a job"
        serve = "" if a.feasible else " <i>(does not serve every class within the search's bounds)</i>"
        kinds = escape(" + ".join(a.kinds))
        money = f", {per}{kwh}" if a.feasible else ""
        out.append(f"<li><b>{kinds}</b>: {escape(a.label)}; {a.cards} cards{money}{serve}</li>")
    out.append("</ul>")
    out.append(costs_html(result))
    if result.measurements:
        out.append("<h4>Measurements</h4><ul>" + "".join(f"<li>{escape(m)}</li>" for m in result.measurements))
        out.append("</ul>")
    return "".join(out)
