"""The build sheet's content: HTML sections built from the engine's result, with markers where the
vector figures go. Every figure printed here is read from the result (or the catalog entry it cites).
"""

from __future__ import annotations

import contextvars
import datetime as dt
import hashlib
from dataclasses import dataclass, field
from html import escape

from configurator.catalog.cards import short_card_name
from configurator.catalog.loader import Catalog
from configurator.catalog.prices import PriceList
from configurator.engine import Build, BuildResult, calibration
from configurator.engine.bom import BillOfMaterials, bill_of_materials, money
from configurator.engine.buildfile import build_to_yaml
from configurator.engine.memory import (
    ALLOCATOR_DYNAMIC_FRACTION,
    ALLOCATOR_STATIC_FRACTION,
    CUDA_CONTEXT_BYTES,
    FSDP_SETUP_UNIT_COPIES,
)
from configurator.engine.result import Power
from configurator.engine.wall import PSU_EFFICIENCY, wall_draw
from configurator.present.memory_words import reserved_basis_note
from configurator.report.text import compute_phrase, overlap_phrase

FIGURE_MARK = "[[figure:{}]]"


@dataclass
class SheetOptions:
    seller_name: str = "GPU Build Configurator"
    seller_logo: str | None = None  # path to an SVG or PNG; the app icon when unset
    page: str = "a4"  # a4 | letter
    date: dt.date = field(default_factory=dt.date.today)
    prices: PriceList | None = None  # the seller's price list: a bill of materials when set
    build_code: str | None = None  # the build as a GBC1: code, printed under the QR (engine.buildcode)


def reference_number(build: Build, date: dt.date) -> str:
    """Stable per build content and day: GBC-YYYYMMDD-XXXXXX."""
    digest = hashlib.sha1(build_to_yaml(build).encode()).hexdigest()[:6].upper()
    return f"GBC-{date:%Y%m%d}-{digest}"


def quote_number(build: Build, date: dt.date) -> str:
    """The quote's number: the sheet's reference with a Q, so a quote and its sheet name each other."""
    return "Q" + reference_number(build, date).removeprefix("GBC")


def priced_bom(build: Build, catalog: Catalog, options: SheetOptions) -> BillOfMaterials | None:
    if options.prices is None:
        return None
    return bill_of_materials(build, catalog, options.prices, quote_number(build, options.date), options.date)


# Rows a table starts a new page before, by the order the sheet emits its tables: set by the PDF layout
# (report.pdf) when a row would otherwise break across a page, so no cell's sentence is split. Each part
# after a break is a table of its own with the header row again, starting on a new page.
ROW_BREAKS: contextvars.ContextVar[dict[int, frozenset[int]] | None] = contextvars.ContextVar(
    "ROW_BREAKS", default=None
)
_TABLES: contextvars.ContextVar[list[int]] = contextvars.ContextVar("_TABLES")


def _table(headers: list[str], rows: list[list[str]], widths: list[int] | None = None,
           right: frozenset[int] = frozenset()) -> str:  # fmt: skip
    head = "".join(
        f"<th{f' width={widths[i]}%' if widths else ''} align={'right' if i in right else 'left'}>{escape(h)}</th>"
        for i, h in enumerate(headers)
    )
    counter = _TABLES.get(None)
    ordinal = counter[0] if counter is not None else -1
    if counter is not None:
        counter[0] += 1
    cuts = sorted(b for b in (ROW_BREAKS.get() or {}).get(ordinal, frozenset()) if 0 < b < len(rows))
    parts = [rows[a:b] for a, b in zip([0, *cuts], [*cuts, len(rows)], strict=True)]
    out = []
    for n, part in enumerate(parts):
        body = "".join(
            "<tr>" + "".join(f"<td{' align=right' if i in right else ''}>{c}</td>" for i, c in enumerate(row))
            + "</tr>"
            for row in part
        )
        brk = "page-break-before:always;" if n else ""
        out.append(
            "<table border=1 cellspacing=0 cellpadding=3 width=100% style='border-collapse:collapse;"
            f"{brk}border-color:#999'><thead><tr style='background:#E8F0E0'>{head}</tr></thead><tbody>{body}</tbody>"
            "</table>"
        )
    return "".join(out)


def table_parts() -> list[tuple[int, int]]:
    """For each table Qt lays out, in order: (the sheet's table ordinal, index of its first data row).

    The inverse of the splits ROW_BREAKS asks for, so a row found in the laid-out document maps back.
    """
    out: list[tuple[int, int]] = []
    breaks = ROW_BREAKS.get() or {}
    for ordinal in range(_TABLES_EMITTED.get()):
        out += [(ordinal, 0)] + [(ordinal, b) for b in sorted(breaks.get(ordinal, frozenset()))]
    return out


_TABLES_EMITTED: contextvars.ContextVar[int] = contextvars.ContextVar("_TABLES_EMITTED", default=0)


def _gb(v: float) -> str:
    return f"{v:,.1f}"


def _src(text: str | None) -> str:
    return escape(text or "not published")


def build_html(build: Build, result: BuildResult, catalog: Catalog, options: SheetOptions) -> str:
    counter = [0]
    token = _TABLES.set(counter)
    try:
        return _build_html(build, result, catalog, options)
    finally:
        _TABLES.reset(token)
        _TABLES_EMITTED.set(counter[0])


def _build_html(build: Build, result: BuildResult, catalog: Catalog, options: SheetOptions) -> str:
    chassis = catalog.chassis.get(build.chassis)
    out: list[str] = []
    h2 = "<h2 style='color:#33691E;margin-top:14px'>{}</h2>"
    out.append(f"<h1 style='margin:0'>{escape(build.name)}</h1>")
    out.append(
        f"<p>Reference <b>{reference_number(build, options.date)}</b> · {options.date:%d %B %Y} · prepared by "
        f"{escape(options.seller_name)}<br>Chassis: <b>{escape(result.chassis_name or build.chassis)}</b> · "
        f"{len(build.cards)} card(s), {len(build.bridges)} NVLink bridge(s), {len(build.jobs)} job(s). "
        "GB = 10<sup>9</sup> bytes throughout.</p>"
    )
    errors = [c for c in result.checks if c.severity == "error"]
    verdict = (
        "No errors."
        if not errors
        else f"<span style='color:#C62828'><b>{len(errors)} error(s)</b></span> — see Checks."
    )
    fits = sum(1 for j in result.jobs if j.fits)
    out.append(f"<p><b>Summary:</b> {fits} of {len(result.jobs)} job(s) fit. {verdict}</p>")

    # 2. chassis drawing
    out.append(h2.format("Chassis and cards"))
    out.append(f"<p>{FIGURE_MARK.format('chassis')}</p>")

    # 3. parts list
    out.append(h2.format("Parts list"))
    rows = []
    counts: dict[str, list[int]] = {}
    for c in build.cards:
        counts.setdefault(c.card, []).append(c.slot)
    for card_id, slots in counts.items():
        card = catalog.cards.get(card_id)
        if card is None:
            rows.append(["1", escape(card_id), "unknown card", ", ".join(map(str, slots))])
            continue
        link = f"NVLink {card.nvlink.gb_s_bidirectional.value:.0f} GB/s" if card.nvlink else "PCIe only"
        specs = (f"{card.memory_gb.value:.0f} GB {escape(card.memory_type)} ({card.visible_gb:.1f} GB visible), "
                 f"{card.power.tdp_w.value or 0:.0f} W, PCIe Gen{card.pcie_generation.value or 0:.0f} "
                 f"x{card.pcie_lanes.value or 0:.0f}, {link}, {card.cooling.kind}")  # fmt: skip
        rows.append([str(len(slots)), escape(card.name), specs, ", ".join(map(str, slots))])
    if chassis:
        psu = chassis.psu
        watts = f"{psu.units} × {psu.watts_each.value:,.0f} W" if psu.watts_each.value else f"{psu.units} PSU"
        rows.append(
            ["1", escape(chassis.name), escape(f"{chassis.form_factor}, {chassis.cpu_sockets} CPU, PSU {watts}"), "—"]
        )
    for b in build.bridges:
        rows.append(
            [
                "1",
                f"NVLink bridge, {len(b.slots)}-way",
                "joins identical bridgeable cards",
                ", ".join(map(str, b.slots)),
            ]
        )
    out.append(_table(["Qty", "Part", "Key specifications", "Slot(s)"], rows, [6, 28, 52, 14]))

    bom = priced_bom(build, catalog, options)
    if bom is not None:
        out.append(h2.format("Bill of materials"))
        out.append(_bom_html(bom))

    # 4. power and cooling
    out.append(h2.format("Power and cooling"))
    if result.power and chassis:
        p = result.power
        rows = []
        limits = {c.slot: c.power_limit_w for c in build.cards}
        for c in build.cards:
            card = catalog.cards.get(c.card)
            if card:
                limit = limits.get(c.slot) or card.power.tdp_w.value or 0
                rows.append([str(c.slot), escape(card.name), f"{limit:,.0f} W", escape(card.cooling.kind)])
        out.append(_table(["Slot", "Card", "Power limit", "Cooling"], rows, [8, 52, 20, 20]))
        red = f" ({chassis.psu.redundant_units} redundant unit(s) held back)" if chassis.psu.redundant_units else ""
        transient = (f"; transient demand up to {p.transient_demand_w:,.0f} W against {p.transient_capacity_w:,.0f} W "
                     "of PSU excursion rating" if p.transient_capacity_w else "")  # fmt: skip
        airflow = "front-to-rear server airflow" if chassis.airflow == "server" else "desk (tower) airflow"
        supply = (
            f"against {p.psu_capacity_w:,.0f} W of PSU capacity{red}: margin <b>{p.margin_w:,.0f} W</b>{transient}"
            if p.psu_capacity_w is not None and p.margin_w is not None
            else "(PSU rating not published: check it against the vendor's configuration)"
        )
        out.append(
            f"<p>Cards {p.cards_w:,.0f} W + platform {p.platform_w:,.0f} W = <b>{p.total_w:,.0f} W</b> {supply}. "
            f"Airflow: {airflow}.</p>"
        )
        out.append(_wall_html(build, p))

    # 5 and 6. jobs
    for i, job in enumerate(result.jobs):
        spec = build.jobs[i]
        out.append(h2.format(f"Job: {escape(job.name)}"))
        lora = f", LoRA rank {spec.lora.rank} on {escape(str(spec.lora.targets))}" if spec.method != "full" else ""
        quant = f", base {spec.quantization}" if spec.method == "qlora" else ""
        out.append(
            f"<p>Model <b>{escape(job.model_name)}</b> ({job.params_total / 1e9:.2f} B parameters, "
            f"{job.params_trainable / 1e6:,.1f} M trained). Method {spec.method}{lora}{quant}; optimizer "
            f"{spec.optimizer}, {spec.precision}; {spec.parallelism}"
            + (f" (tensor parallel {spec.tensor_parallel})" if spec.parallelism == "tp" else "")
            + f"; sequence {spec.sequence_length:,} × micro-batch {spec.micro_batch_size}, gradient checkpointing "
            f"{'on' if spec.gradient_checkpointing else 'off'}, attention {spec.attention}, loss {job.loss}"
            + (f"; stack: {escape(job.stack)}" if job.stack else "")
            + (f", fixed activation budget {spec.activation_memory_gb:g} GB"
               if spec.activation_memory_gb is not None else "")
            + f". Status: <b>{job.status}</b>.</p>"
        )  # fmt: skip
        if job.precision and (job.precision.recipe or job.precision.base_weights != "bf16"):  # low precision
            lp = job.precision
            out.append(f"<p>Precision: {escape(lp.recipe or 'BF16 compute')}, base {lp.base_weights}; "
                       f"support: {escape(lp.source or '')}.</p>")  # fmt: skip
        if job.cards:
            rows = []
            for r in job.cards:
                where = f"{r.slot}" + (f" {r.mig}#{r.instance}" if r.mig else "")
                rows.append([where, escape(short_card_name(r.card_name)), _gb(r.weights_gb), _gb(r.adapters_gb),
                             _gb(r.gradients_gb), _gb(r.optimizer_gb), _gb(r.activations_gb), _gb(r.transient_gb),
                             _gb(r.overhead_gb), _gb(r.peak_reserved_gb), _gb(r.capacity_gb), _gb(r.headroom_gb),
                             r.status])  # fmt: skip
            out.append(_table(["Slot", "Card", "Weights", "Adapt.", "Grads", "Optim.", "Activ.", "Trans.", "Ovhd.",
                               "Peak", "Capacity", "Headroom", "Fit"], rows,
                              [6, 14, 9, 7, 6, 7, 7, 6, 6, 6, 9, 11, 6]))  # fmt: skip
            r0 = job.cards[0]
            out.append(
                f"<p style='font-size:8pt'>Memory in GB. Model states {r0.model_states_gb:.1f} GB; peak allocated "
                f"{r0.peak_allocated_gb:.1f} GB; allocator reserved {r0.allocator_reserved_gb:.1f} GB; peak as "
                f"nvidia-smi shows it {r0.peak_reserved_gb:.1f} GB (model band {r0.peak_low_gb:.1f}–"
                f"{r0.peak_high_gb:.1f} GB, leave-one-source-out: {escape(r0.band_basis)}); peak set by the "
                f"{r0.peak_phase} phase"
                + (f"; offloaded states take {job.host_memory_gb:.1f} GB of host memory" if job.host_memory_gb else "")
                + (f"; {note}" if (note := reserved_basis_note(r0.reserved_set_by, r0.fsdp_setup_pool_gb)) else "")
                + ".</p>"
            )
            out.append(f"<p>{FIGURE_MARK.format(f'headroom:{i}')}</p>")
        comm, comp = job.communication, job.compute
        if comm.collectives or comp:
            out.append("<h3>Communication and compute per step</h3>")
        if comm.collectives:
            rows = [[escape(c.name), c.kind, str(c.count_per_step), f"{c.bytes_per_card / 1e9:,.2f}", c.link,
                     f"{c.rate_gb_s:,.0f} ({c.rate_basis})", f"{c.seconds:.3f}"] for c in comm.collectives]  # fmt: skip
            out.append(_table(["Collective", "Kind", "×/step", "GB per card", "Link", "GB/s per direction", "Seconds"],
                              rows, [30, 13, 7, 11, 10, 17, 12]))  # fmt: skip
            out.append(
                f"<p>Communication {comm.seconds_per_step:.3f} s per step over {comm.bound_by}"
                f"{overlap_phrase(comm)}.</p>"
            )
            out += [f"<p style='font-size:8pt'>{escape(n)}</p>" for n in comm.notes]
        if comp:
            secs, rate = compute_phrase(comp)
            out.append(
                f"<p>Compute {comp.flops_per_step / 1e12:,.1f} TFLOP per card per step ({comp.tokens_per_step:,} "
                f"tokens) {rate}: {secs}"
                + (f". Step time {job.step_seconds:.3f} s." if job.step_seconds is not None else ".")
                + "</p>"
            )
            out += [f"<p style='font-size:8pt'>{escape(n)}</p>" for n in comp.notes]

    # 7. MIG
    if result.mig:
        out.append(h2.format("MIG layouts"))
        for m in result.mig:
            card = catalog.cards.get(m.card)
            name = card.name if card else m.card
            rows = [[str(i.index), i.profile, str(i.start), f"{i.capacity_gb:.1f}", f"{i.capacity_nominal_gb:g}",
                     escape(", ".join(i.jobs) or "—")] for i in m.instances]  # fmt: skip
            out.append(f"<p><b>Slot {m.slot}: {escape(name)}</b> — layout {'valid' if m.valid else 'INVALID'}.</p>")
            out.append(_table(["Instance", "Profile", "Start", "GB visible", "GB nominal", "Jobs"], rows,
                              [10, 18, 10, 14, 14, 34]))  # fmt: skip
            if m.commands:
                cmds = "<br>".join(escape(c) for c in m.commands)
                out.append(f"<p style='font-family:monospace;font-size:8pt'>{cmds}</p>")
            out += [f"<p style='color:#C62828'>{escape(p)}</p>" for p in m.problems]

    # 8. checks
    out.append(h2.format("Checks"))
    if result.checks:
        colour = {"error": "#C62828", "warning": "#B26A00", "info": "#1565C0"}
        rows = [[f"<span style='color:{colour[c.severity]}'>{c.severity}</span>", c.code,
                 escape(c.message) + (f"<br/><small>{escape(c.detail)}</small>" if c.detail else "")]
                for c in result.checks]  # fmt: skip
        out.append(_table(["Severity", "Code", "What and how to fix it"], rows, [9, 34, 57]))
    else:
        out.append("<p>No problems found.</p>")

    # 9. assumptions and sources
    out.append(h2.format("Assumptions and sources"))
    a = build.assumptions
    out.append(
        "<ul>"
        "<li>GB = 10<sup>9</sup> bytes (SI prefix); capacities are what nvidia-smi shows.</li>"
        f"<li>Link rates: {result.link_rates} ("
        + ("datasheet rates per direction" if a.link_rates == "nominal" else "typical nccl-tests busbw")
        + ")"
        + (
            "; calibrated: " + ", ".join(f"{c.link} {c.busbw_gb_s:g} GB/s ({escape(c.source)})" for c in a.calibration)
            if a.calibration
            else ""
        )
        + ".</li>"
        + (
            "<li>Compute rates: published dense BF16, or the catalog's UNCONFIRMED estimate where NVIDIA publishes "
            "none (each job that uses one says so).</li>"
            if a.compute_rates == "estimated"
            else "<li>Compute rates: published dense BF16 only; a card without one has no compute time.</li>"
        )
        + f"<li>Utilisation {a.utilization:.0%} of dense BF16 peak (model FLOPs utilisation; 40–55 % is typical of "
        "large dense training, Chowdhery et al. 2022; Korthikanti et al. 2022).</li>"
        f"<li>Safety margin {a.safety_margin_fraction:.0%} of capacity; "
        f"CUDA context {CUDA_CONTEXT_BYTES / 1e9:.2f} GB; "
        f"caching-allocator reserve {ALLOCATOR_STATIC_FRACTION:.0%} of static and {ALLOCATOR_DYNAMIC_FRACTION:.0%} "
        "of dynamic memory; under FSDP, the gathered units and gradient shards keep pools of their own streams, "
        f"and the pool left from FSDP set-up (sharded weights and adapters plus {FSDP_SETUP_UNIT_COPIES:g} copies "
        "of the largest unit) is a floor under the peak.</li>"
        "<li>Activations: per-layer saved tensors of a Llama-style block (Korthikanti et al. 2022, re-derived for "
        "RMSNorm, rotary SDPA/flash attention, GQA and SwiGLU) plus logits and loss buffers. Checked against "
        f"{len(calibration.MEASURED_RUNS)} published runs: the model lands between "
        f"{calibration.MODEL_ERROR_MIN:+.0%} and {calibration.MODEL_ERROR_MAX:+.0%} of the measured peak "
        f"({len(calibration.HELD_OUT_RUNS)} further published runs, which no constant was fitted to, fall inside "
        "that range); that spread is the band printed with each peak.</li>"
        "<li>Model states follow the ZeRO count: 16 B per trained parameter with mixed-precision AdamW, 10 B with "
        "8-bit AdamW; QLoRA stores block linears in NF4 (bitsandbytes, double quantisation by default).</li>"
        "</ul>"
    )
    rows = []
    seen: set[str] = set()
    for c in build.cards:
        card = catalog.cards.get(c.card)
        if card is None or card.id in seen:
            continue
        seen.add(card.id)
        for label, s in (("visible memory", card.memory_visible_mib), ("dense BF16 rate", card.bf16_dense_tflops),
                         ("memory bandwidth", card.memory_bandwidth_gb_s), ("power", card.power.tdp_w)):  # fmt: skip
            value = f"{s.value:g}" if s.value is not None else "n/p"
            rows.append([escape(card.name.removeprefix("NVIDIA ")), label, value, _src(s.source)])
        estimate = card.bf16_dense_tflops_estimate
        if estimate is not None and a.compute_rates == "estimated" and not card.bf16_dense_tflops.value:
            rows.append([escape(card.name.removeprefix("NVIDIA ")), "dense BF16 rate, estimate used",
                         f"{estimate.value:g}", _src(estimate.source)])  # fmt: skip
        if card.nvlink:
            s = card.nvlink.gb_s_bidirectional
            rows.append([escape(card.name.removeprefix("NVIDIA ")), "NVLink GB/s (both directions)", f"{s.value:g}",
                         _src(s.source)])  # fmt: skip
    if chassis:
        rows.append([escape(chassis.name), "slot map", "—", _src(chassis.source)])
        for label, s in (("PSU W each", chassis.psu.watts_each), ("platform W", chassis.platform_power_w)):
            value = f"{s.value:g}" if s.value is not None else "n/p"
            rows.append([escape(chassis.name), label, value, _src(s.source)])
    for job in result.jobs:
        m = catalog.models.get(job.model)
        if m is not None and m.id not in seen:
            seen.add(m.id)
            rows.append([escape(m.name), "architecture", f"{m.total_params:,} params", _src(m.source)])
    out.append(_table(["Item", "Figure", "Value", "Source"], rows, [22, 18, 12, 48]))
    if options.build_code:
        out.append(h2.format("Reopen this build"))
        out.append(
            f"<p>{FIGURE_MARK.format('qr')}</p><p>Scan the code, or type it, into the configurator "
            "(File &gt; Open from code, or <tt>configurator open-code CODE</tt>) to reopen this build; the PDF also "
            "carries the build file as an attachment (build.yaml).</p>"
            f"<p style='font-family:monospace;font-size:6pt'>{_breakable(options.build_code)}</p>"
        )
    return "\n".join(out)


def _breakable(code: str, width: int = 96) -> str:
    """The code in lines of ``width`` characters (it has no spaces to break at)."""
    return "<br>".join(escape(code[i : i + width]) for i in range(0, len(code), width))


def _wall_html(build: Build, p: Power) -> str:
    if build.site is None:
        return ("<p>Wall circuit: no site given in the build, so the draw at the wall is not checked (set "
                "<tt>site:</tt>, e.g. us-120v-15a or eu-230v-16a).</p>")  # fmt: skip
    w = wall_draw(build.site, p.total_w, p.transient_demand_w)
    c = w.circuit
    verdict = ("<span style='color:#C62828'><b>over</b></span> its continuous rating" if w.overloaded
               else "within its continuous rating")  # fmt: skip
    fraction = f" × {c.continuous_fraction:.0%}" if c.continuous_fraction < 1 else ""
    return (
        f"<p>Wall circuit: <b>{escape(c.label)}</b>. Sustained draw about <b>{w.sustained_w:,.0f} W</b> "
        f"({p.total_w:,.0f} W at {PSU_EFFICIENCY:.0%} PSU efficiency, {w.amps:,.1f} A) against "
        f"<b>{w.continuous_w:,.0f} W</b> continuous ({c.volts:g} V × {c.amps:g} A{fraction}; {escape(c.basis)}): "
        f"{verdict}. Transient card excursions (to {w.transient_w:,.0f} W for 100 µs) are carried by the PSU's "
        "capacitors, far shorter than a breaker takes to trip. All PSUs are assumed on this one circuit.</p>"
    )


def _bom_html(bom: BillOfMaterials) -> str:
    cur = bom.currency
    rows = []
    for ln in bom.lines:
        unit = money(ln.unit_price, cur) if ln.unit_price is not None else "<i>no price in the list</i>"
        total = money(ln.line_total, cur) if ln.line_total is not None else "—"
        part = f" <span style='color:#666'>({escape(ln.part_id)})</span>" if ln.part_id else ""
        rows.append([str(ln.quantity), escape(ln.description) + part, unit, total])
    rows.append(["", "<b>Subtotal (net)</b>", "", f"<b>{money(bom.subtotal, cur)}</b>"])
    if bom.tax is not None and bom.tax_rate is not None:
        rows.append(["", f"Tax {(bom.tax_rate * 100).normalize():f} %", "", money(bom.tax, cur)])
    rows.append(["", "<b>Total</b>" + ("" if bom.complete else " (incomplete)"), "", f"<b>{money(bom.total, cur)}</b>"])
    valid = (f"valid until {bom.valid_until:%d %B %Y}" if bom.valid_until
             else "no validity period in the price list")  # fmt: skip
    tax = "" if bom.tax is not None else " Prices are net; the price list gives no tax rate."
    missing = ("" if bom.complete else
               f" <span style='color:#C62828'><b>Incomplete:</b> no price for {escape(', '.join(bom.unpriced))}; "
               "the total leaves them out.</span>")  # fmt: skip
    return (
        f"<p>Quote <b>{escape(bom.quote_number)}</b> of {bom.date:%d %B %Y}, {valid}. Currency {cur}.{tax}{missing}</p>"
        + _table(["Qty", "Item", "Unit price", "Line total"], rows, [7, 55, 19, 19], right=frozenset({0, 2, 3}))
    )
