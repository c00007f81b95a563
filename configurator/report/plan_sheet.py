"""The plan's PDF section: job classes, the class x device table, ranked fleets and the roadmap.

``plan_html(result)`` is the section as HTML (every figure read from the PlanResult), so the build sheet can
take it in; ``export_plan_pdf`` writes it alone, paginated by Qt's text engine, atomically (temporary file,
then rename).
"""

from __future__ import annotations

import os
from html import escape

from configurator.engine.planner.explain import plan_money
from configurator.engine.planner.result import FitCell, FleetResult, PlanResult, months_phrase
from configurator.present.plan_words import LOWER_BOUND_KEY, demand_input_words, hours_words, packing_words
from configurator.present.rl_words import method_label
from configurator.present.verdict import WORDS, plural
from configurator.report.html_pdf import write_html_pdf
from configurator.report.plan_text import answer_html
from configurator.report.sheet import APP_NAME


def _table(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th align=left>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return (
        "<table border=1 cellspacing=0 cellpadding=3 width=100% style='border-collapse:collapse;"
        f"border-color:#999'><thead><tr style='background:#E8F0E0'>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _f(x: float | None, fmt: str = "{:,.2f}") -> str:
    return "unknown" if x is None else fmt.format(x)


def _fit(c: FitCell) -> str:
    if c.fits:
        return "fits"
    word = WORDS.get(c.status, WORDS["unknown"])  # the verdict's words (present/verdict.py)
    return f"{word} (not planned on)" if c.status == "tight" else word


def _wait(mean: float | None, p95: float | None, unstable: bool) -> str:
    if unstable:
        return "<b>unstable</b>"
    return f"{_f(mean)} / {_f(p95)} h"


def _fleet(f: FleetResult, currency: str | None, months: int) -> str:
    t = f.totals
    out = [f"<h3>#{f.rank} {escape(f.label)}</h3>"]
    if not f.feasible:
        out.append(f"<p style='color:#C62828'>Does not serve: {escape(', '.join(f.unserved))}</p>")
    stops = f"month {f.stops_fitting_month}" if f.stops_fitting_month else f"not within {months} months"
    short = f"month {f.out_of_capacity_month}" if f.out_of_capacity_month else f"not within {months} months"
    out.append(
        f"<p>{plural(t.nodes, 'node')}, {plural(t.cards, 'card')}; "
        f"{t.power_kw:.1f} kW IT, {t.facility_kw:.1f} kW facility"
        + (f", {plural(t.racks, 'rack')}" if t.racks is not None else "")
        + f"; {t.energy_kwh_per_month:,.0f} kWh per month. Capital "
        f"{escape(plan_money(t.capital, currency, whole=True))}; cost per month "
        f"{escape(plan_money(t.cost_per_month, currency, whole=True))}; {t.jobs_per_month:,.0f} jobs per month; "
        f"cost per job <b>{escape(plan_money(t.cost_per_job, currency))}</b>; {_f(t.kwh_per_job, '{:.1f}')} kWh per "
        f"job. Stops fitting the largest job: {stops}; runs out of capacity: {short}.</p>"
    )
    rows = [
        [escape(r.job_class), escape(r.device or "fits no device"), str(r.devices), f"{r.share:.0%}",
         hours_words(r.service_hours, r.lower_bound).removesuffix(" h"),
         _wait(r.mean_wait_hours, r.wait_p95_hours, r.peak_unstable),
         escape(plan_money(r.cost_per_job, currency))]
        for r in f.routes
    ]  # fmt: skip
    out.append(_table(["Class", "Device", "Devices", "Share", "Hours per job", "Wait at the peak hour (mean / p95)",
                       "Cost per job"], rows))  # fmt: skip
    use = "; ".join(f"{escape(u.node)} {u.utilisation:.0%} of {plural(u.cards, 'card')}" for u in f.use)
    out.append(f"<p>Utilisation: {use}.</p>")
    out += [f"<p>{escape(packing_words(p))}.</p>" for p in f.packing]  # the plan report's words
    return "".join(out)


def plan_html(result: PlanResult, fleets: int = 3) -> str:
    """The plan section as HTML: the first ``fleets`` ranked fleets in full."""
    out = [f"<h1 style='margin:0'>Service plan: {escape(result.name)}</h1>"]
    out.append(
        f"<p>Sized for month {result.size_for_month} of {months_phrase(result.months)} roadmap. "
        f"Currency: {escape(result.currency or 'none (no prices given)')}. GB = 10<sup>9</sup> bytes.</p>"
    )
    out.append("<h2>Answer</h2>" + answer_html(result))
    problems = [p for p in result.problems if p.severity != "info"]
    if problems:
        items = "".join(f"<li>{escape(p.severity)}: {escape(p.message)}</li>" for p in problems)
        out.append(f"<h2>Problems</h2><ul>{items}</ul>")
    out.append("<h2>Job classes</h2>")
    rows = [
        [escape(c.name), escape(c.model_name),
         escape(method_label(c.method, c.objective)), f"{c.parameters / 1e9:.1f} B",
         f"{c.tokens_per_job / 1e6:,.1f} M", f"{c.jobs_per_day:,.1f} ({escape(demand_input_words(c))})",
         f"{c.wait_target_hours:g} h" if c.wait_target_hours else "none", str(c.from_month)]
        for c in result.classes
    ]  # fmt: skip
    out.append(_table(["Class", "Model", "Method", "Parameters", "Tokens per job",
                       f"Jobs per day in month {result.size_for_month}", "p95 wait target",
                       "From month"], rows))  # fmt: skip
    out.append("<h2>Classes × devices</h2>")
    rows = [
        [escape(c.job_class), escape(c.device), _fit(c), _f(c.peak_gb, "{:.1f}"), _f(c.capacity_gb, "{:.1f}"),
         (hours_words(c.service_hours, c.lower_bound).removesuffix(" h") + (" (est.)" if c.estimated_rate else ""))
         if c.fits else "",
         _f(c.jobs_per_day_per_card, "{:.1f}") if c.fits else "",
         "" if c.devices_needed is None else str(c.devices_needed)]
        for c in result.matrix
    ]  # fmt: skip
    out.append(_table(["Class", "Device", "Fit", "Peak GB", "Capacity GB", "Hours per job", "Jobs/day per card",
                       "Devices needed"], rows))  # fmt: skip
    if any(c.lower_bound for c in result.matrix):
        out.append(f"<p>{escape(LOWER_BOUND_KEY)}.</p>")
    s = result.search
    out.append(
        f"<h2>Fleets</h2><p>{s.candidates:,} candidate fleets searched, {s.feasible:,} serve every class; "
        f"ranked by {escape(result.fleets[0].ranked_by if result.fleets else 'cost per job')}.</p>"
    )
    if len(result.fleets) > fleets:  # the text and JSON list every ranked fleet: say this shows fewer
        out.append(f"<p>The first {fleets} of {len(result.fleets)} ranked fleets are shown here; "
                   "<tt>configurator plan</tt> (text or --json) lists all of them.</p>")  # fmt: skip
    for f in result.fleets[:fleets]:
        out.append(_fleet(f, result.currency, result.months))
    if result.fleets:
        best = result.fleets[0]
        out.append("<h2>Roadmap of fleet #1</h2>")
        unserved = any(m.unserved for m in best.months)  # a column only where some month has a class unserved
        rows = [
            [str(m.month), f"{m.demand_card_hours_per_day:,.1f}", f"{m.capacity_card_hours_per_day:,.1f}",
             f"{m.demand_card_hours_per_day / m.capacity_card_hours_per_day:.0%}"
             if m.capacity_card_hours_per_day else "",
             "yes" if m.fits_largest else "no", "yes" if m.enough_capacity else "no"]
            + ([escape(", ".join(m.unserved))] if unserved else [])
            for m in best.months
        ]  # fmt: skip
        out.append(_table(["Month", "Demand card-h/day", "Capacity card-h/day", "Load", "Fits largest", "Enough"]
                          + (["Unserved"] if unserved else []), rows))  # fmt: skip
    out.append("<h2>Notes</h2>" + "".join(f"<p>{escape(n)}</p>" for n in result.notes))
    return "".join(out)


def export_plan_pdf(path: str | os.PathLike[str], result: PlanResult, page: str = "a4") -> int:
    """Write the plan section as a PDF; returns the page count. FileError when it cannot be written."""
    return write_html_pdf(path, plan_html(result), page=page, title=f"Service plan: {result.name}",
                          creator=APP_NAME, what="the plan sheet")
