"""The build sheet's "Acceptance" section: what the finished machine must measure, with the pass thresholds,
read from :func:`configurator.engine.acceptance.predict`. Also the verify report's HTML (its PDF joins the
sheet by the same reference)."""

from __future__ import annotations

from html import escape

from configurator.catalog.loader import Catalog
from configurator.engine import Build, BuildResult
from configurator.engine.acceptance.predict import AcceptancePrediction, predict
from configurator.engine.acceptance.verify import VerifyReport
from configurator.engine.model.labels import figure_band_words
from configurator.present.job_words import band_basis_words
from configurator.present.words import jobs_named
from configurator.report.acceptance_text import kit_missing
from configurator.report.sheet_tables import H2, html_table, source_text

COLOUR = {"pass": "#2E7D32", "warn": "#EF6C00", "fail": "#C62828", "missing": "#757575", "incomplete": "#757575"}


def _num(v: float | None, fmt: str = "{:,.1f}") -> str:
    return "—" if v is None else fmt.format(v)


_LAST: list[tuple[Build, BuildResult, Catalog, AcceptancePrediction]] = []


def _predicted(build: Build, result: BuildResult, catalog: Catalog) -> AcceptancePrediction:
    """The prediction of the last sheet, reused while the PDF layout rebuilds the same sheet (row-break passes)."""
    if _LAST and _LAST[0][0] is build and _LAST[0][1] is result and _LAST[0][2] is catalog:
        return _LAST[0][3]
    p = predict(build, result, catalog)
    _LAST[:] = [(build, result, catalog, p)]
    return p


def acceptance_section(
    build: Build, result: BuildResult, catalog: Catalog, prediction: AcceptancePrediction | None = None
) -> list[str]:
    """The section's HTML parts; empty for a build without cards."""
    p = prediction or _predicted(build, result, catalog)
    if not p.gpus:
        return []
    out = [H2.format("Acceptance: what the built machine must measure")]
    out.append(
        "<p>The shop runs the burn-in kit (<tt>configurator burnin</tt>) on the finished machine and checks "
        "its results with <tt>configurator verify</tt>. Figures below are predictions with their tolerance; "
        "speeds are <i>estimated</i>.</p>"
    )
    rows = []
    for g in p.gpus:
        mig = (
            ", ".join(g.mig_layout) if g.mig_layout else (f"{len(g.mig_profiles)} profiles" if g.mig_profiles else "—")
        )
        rows.append(
            [
                f"GPU{g.index}",
                str(g.slot),
                escape(g.name),
                _num(g.memory_total_mib, "{:,.0f}") + " MiB",
                _num(g.power_limit_w, "{:,.0f}") + " W",
                f"Gen{g.pcie_gen} x{g.pcie_width}",
                escape(mig),
            ]
        )
    out.append(
        html_table(
            ["GPU", "Slot", "nvidia-smi name", "Memory total", "Power limit", "lspci LnkSta", "MIG"],
            rows,
            [7, 6, 33, 14, 12, 13, 15],
        )
    )
    migs = [g for g in p.gpus if g.mig_layout]
    for g in migs:
        listed = "; ".join(
            f"{m.name} (ID {m.profile_id}, {m.memory_gib} GiB, {m.instances_total}×)" for m in g.mig_profiles
        )
        out.append(f"<p>GPU{g.index} <tt>nvidia-smi mig -lgip</tt> must list: {escape(listed)}.</p>")
    if p.topology:
        # as nvidia-smi prints it (monospace text, not a table: a table of n x n cells costs the layout ~10x more)
        lines = ["      " + "".join(f"{f'GPU{i}':7s}" for i in p.topology.gpus)]
        lines += [
            f"{f'GPU{i}':6s}" + "".join(f"{c:7s}" for c in row)
            for i, row in zip(p.topology.gpus, p.topology.matrix, strict=True)
        ]
        out.append("<p><b><tt>nvidia-smi topo -m</tt></b> (predicted; PHB and NODE both pass where NODE is shown):</p>")
        out.append("<pre style='font-size:7pt'>" + escape("\n".join(line.rstrip() for line in lines)) + "</pre>")
    if p.nccl:
        # pairs with the same link and thresholds in one row (8 GPUs: 28 pairs in 2-3 rows); groups one row each
        pairs: dict[tuple[str, float, float, float], list[str]] = {}
        rows = []
        for n in p.nccl:
            if len(n.gpus) == 2:
                key = (n.link, n.expected_busbw_gb_s, n.pass_min_gb_s, n.warn_min_gb_s)
                pairs.setdefault(key, []).append(f"{n.gpus[0]}-{n.gpus[1]}")
            else:
                rows.append([escape(n.name), n.link, f"{n.expected_busbw_gb_s:.1f}", f"≥ {n.pass_min_gb_s:.1f}",
                             f"≥ {n.warn_min_gb_s:.1f}"])  # fmt: skip
        for (link, typical, ok, warn), names in pairs.items():
            label = f"pair GPU{names[0]}" if len(names) == 1 else f"{len(names)} pairs: GPU {', '.join(names)}"
            rows.append([escape(label), link, f"{typical:.1f}", f"≥ {ok:.1f}", f"≥ {warn:.1f}"])
        more = ""
        out.append(f"<p><b>nccl-tests <tt>all_reduce_perf</tt></b> bus bandwidth at ≥ 64 MiB, GB/s{more}:</p>")
        out.append(html_table(["GPUs", "Link", "Typical", "Pass", "Warn"], rows, [46, 10, 14, 15, 15]))
        out.append(f"<p style='color:#555'>{source_text(p.nccl[0].source)}</p>")
    if p.jobs:
        rows = []
        for j in p.jobs:
            step = "not predicted" if j.step_seconds is None else figure_band_words(j.step_seconds, j.step_low_s,
                                                                                    j.step_high_s, "s")  # fmt: skip
            tok = f"{j.tokens_per_second:,.0f}" if j.tokens_per_second else "—"
            rows.append(
                [
                    escape(j.name),
                    figure_band_words(j.peak_allocated_gb, j.allocated_low_gb, j.allocated_high_gb, "GB", 1),
                    figure_band_words(j.nvidia_smi_gb, j.nvidia_smi_low_gb, j.nvidia_smi_high_gb, "GB", 1),
                    step,
                    tok,
                ]
            )
        out.append(
            html_table(
                ["Job", "Peak allocated", "nvidia-smi", "Step (estimated)", "Tokens/s"],
                rows,
                [23, 20, 21, 24, 12],
            )
        )
        here = [f"{escape(j.name)}: {escape(line)}" for j in p.jobs for line in j.measured_here]
        if here:
            out.append("<p><b>Measured on this machine:</b><br>" + "<br>".join(here) + "</p>")
        # each job's own: the step band differs between a per-op job and one that falls back to the assumption;
        # jobs with the same bases share one sentence (four MIG tenants repeated one long sentence four times), its
        # caveat said for all of them ('as these jobs are', where the engine's basis says 'as this job is')
        same: dict[tuple[str, str], list[str]] = {}
        for j in p.jobs:
            same.setdefault((j.band_basis, j.step_source), []).append(j.name)
        every = [j.name for j in p.jobs]
        outside = {j.name: j.step_band_outside for j in result.jobs}
        bands = ""
        for (basis, step), names in same.items():
            if outside.get(names[0]):  # the runs' band, its caveat said for every job in the group
                step = band_basis_words(outside[names[0]], len(names))
            bands += f" For {escape(jobs_named(names, every))}: memory {escape(basis)}; step {escape(step)}."
        out.append(f"<p style='color:#555'>Bands.{bands}</p>")
    if p.power:
        w = p.power
        out.append(
            f"<p><b>Under load:</b> PSU output about {w.dc_w:,.0f} W (cards {w.cards_w:,.0f} W at their limits + "
            f"platform {w.platform_w:,.0f} W); at the wall about <b>{w.wall_w:,.0f} W</b>, a reading above "
            f"{w.wall_max_w:,.0f} W fails.</p>"
        )
    return out


def verify_html(report: VerifyReport, reference: str, date_text: str, seller: str) -> str:
    """The acceptance report: verdict, every figure, and the shop's sign-off lines."""
    v = report.result  # "incomplete" when too little was measured: never a PASS on one figure of twenty
    by = f" · {escape(seller)}" if seller else ""  # no seller named: nothing, not the app's name
    out = [
        f"<h1 style='margin:0'>Acceptance report: {escape(report.build_name)}</h1>",
        f"<p>Build sheet reference <b>{escape(reference)}</b> · verified {escape(date_text)}{by}</p>",
        f"<p><b>Result: <span style='color:{COLOUR[v]}'>{v.upper()}</span></b> — {report.count('pass')} pass, "
        f"{report.count('warn')} warn, {report.count('fail')} fail, {report.count('missing')} not measured.</p>",
    ]
    if report.not_accepted:  # nothing, or too little, measured, or a figure failed: said under the result, first
        out.append(f"<p><b>{escape(report.not_accepted)}</b></p>")
    order = {"fail": 0, "warn": 1, "missing": 2, "pass": 3}
    rows = []
    for c in sorted(report.checks, key=lambda c: order[c.status]):
        cause = escape(c.cause) if c.cause and c.status != "pass" else ""
        rows.append(
            [
                f"<span style='color:{COLOUR[c.status]};white-space:nowrap'><b>{c.status.upper()}</b></span>",
                escape(c.figure),
                escape(c.expected),
                escape(c.measured or "—"),
                escape(c.difference or ""),
                cause,
            ]
        )
    out.append(H2.format("Figures"))
    out.append(
        html_table(["", "Figure", "Expected", "Measured", "Difference", "Likely cause"], rows, [10, 21, 19, 15, 11, 24])
    )
    if report.problems:
        out.append(
            "<p><b>Files that could not be read:</b><br>" + "<br>".join(escape(p) for p in report.problems) + "</p>"
        )
    missing = kit_missing(report)
    if missing:
        out.append(
            "<p><b>The burn-in kit could not measure:</b><br>" + "<br>".join(escape(m) for m in missing) + "</p>"
        )
    if report.stored:
        earlier = [f"{escape(job)}: {escape(line)}" for job, lines in report.stored.items() for line in lines]
        out.append("<p><b>Earlier measurements of this machine:</b><br>" + "<br>".join(earlier) + "</p>")
    if report.versions:
        out.append(
            "<p>Measured with " + escape(", ".join(f"{k} {val}" for k, val in report.versions.items())) + ".</p>"
        )
    if report.nothing_measured:  # no sign-off lines at all: nothing was burnt in
        return "\n".join(out)
    out.append(H2.format("Sign-off"))
    # the customer signs a passing report only (report.not_accepted, said under the result)
    sign = [["Burn-in performed by (shop)", "", ""], ["Checked by", "", ""]]
    if report.not_accepted is None:
        sign.append(["Accepted by (customer)", "", ""])
    out.append(html_table(["Role", "Name and signature", "Date"], sign, [34, 46, 20]))
    return "\n".join(out)
