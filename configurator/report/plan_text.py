"""Plain-text report of a service plan for ``configurator plan``. Every figure comes from the PlanResult."""

from __future__ import annotations

from configurator.engine.planner.result import FitCell, FleetResult, PlanResult


def _num(x: float | None, fmt: str = "{:,.2f}", unknown: str = "unknown") -> str:
    return unknown if x is None else fmt.format(x)


def money(x: float | None, currency: str | None) -> str:
    if x is None:
        return "unknown"
    return f"{x:,.2f} {currency}" if currency else f"{x:,.2f}"


def _cell(c: FitCell) -> str:
    if c.fits:
        svc = f"{c.service_hours:.2f} h" if c.service_hours is not None else "time unknown"
        per = f", {c.jobs_per_day_per_card:.1f} jobs/day per card" if c.jobs_per_day_per_card is not None else ""
        need = f", {c.devices_needed} needed" if c.devices_needed is not None else ""
        est = " (est. rate)" if c.estimated_rate else ""
        return f"fits {c.peak_gb:.1f}/{c.capacity_gb:.1f} GB, {svc}{est}{per}{need}"
    if c.status == "tight":
        return f"TIGHT {c.peak_gb:.1f}/{c.capacity_gb:.1f} GB (not planned on)"
    if c.peak_gb is not None and c.capacity_gb is not None:
        return f"does not fit {c.peak_gb:.1f}/{c.capacity_gb:.1f} GB"
    return f"? {c.note or ''}"


def fleet_lines(f: FleetResult, currency: str | None, months: int) -> list[str]:
    t = f.totals
    out = [f"#{f.rank}  {f.label}" + ("" if f.feasible else "   [DOES NOT SERVE: " + ", ".join(f.unserved) + "]")]
    out.append(
        f"    {t.nodes} node(s), {t.cards} card(s), {t.power_kw:.1f} kW IT / {t.facility_kw:.1f} kW facility"
        + (f", {t.racks} rack(s)" if t.racks is not None else "")
        + f", {t.energy_kwh_per_month:,.0f} kWh/month"
    )
    out.append(
        f"    capital {money(t.capital, currency)}, per month {money(t.cost_per_month, currency)}, "
        f"{t.jobs_per_month:,.0f} jobs/month, cost per job {money(t.cost_per_job, currency)}, "
        f"{_num(t.kwh_per_job, '{:.1f}')} kWh per job"
    )
    for r in f.routes:
        if not r.device:
            out.append(f"    {r.job_class}: fits no device of this fleet")
            continue
        wait = f", mean wait {r.mean_wait_hours:.2f} h" if r.mean_wait_hours is not None else ""
        out.append(
            f"    {r.job_class} -> {r.devices} x {r.device} ({r.share:.0%} of its jobs, "
            f"{_num(r.service_hours)} h each{wait})"
        )
    for u in f.use:
        out.append(f"    utilisation {u.node}: {u.utilisation:.0%} of {u.cards} card(s)")
    for p in f.packing:
        layouts = "; ".join("+".join(c.profiles) for c in p.cards)
        out.append(
            f"    MIG packing on {p.card}: {sum(p.demand.values())} instance(s) on {len(p.cards)} card(s) "
            f"({p.method}, lower bound {p.lower_bound}): {layouts}; "
            f"{p.stranded_compute_slices} stranded compute slice(s)"
        )
    stops = f"month {f.stops_fitting_month}" if f.stops_fitting_month else f"never within {months} months"
    short = f"month {f.out_of_capacity_month}" if f.out_of_capacity_month else f"never within {months} months"
    out.append(f"    roadmap: stops fitting the largest job {stops}; runs out of capacity {short}")
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
    out.append("Job classes")
    for c in result.classes:
        wait = f", wait target {c.wait_target_hours:g} h" if c.wait_target_hours else ""
        start = f", from month {c.from_month}" if c.from_month > 1 else ""
        out.append(
            f"  {c.name}: {c.model_name}, {c.method}, {c.parameters / 1e9:.1f} B parameters, "
            f"{c.tokens_per_job / 1e6:,.1f} M tokens per job, {c.jobs_per_day:,.1f} jobs/day{wait}{start}"
        )
    out.append("")
    out.append("Classes x devices (peak/capacity per card, service time per job)")
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
        f"Fleets: {s.candidates:,} candidates searched in {s.seconds:.2f} s on {s.processes} process(es), "
        f"{s.feasible:,} serve every class; best first"
    )
    for f in result.fleets:
        out += fleet_lines(f, result.currency, result.months)
    out.append("")
    out += [f"Note: {n}" for n in result.notes]
    return "\n".join(out) + "\n"
