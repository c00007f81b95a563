"""The build sheet's content: HTML sections built from the engine's result, with markers where the
vector figures go. Every figure printed here is read from the result (or the catalog entry it cites).

The sections live in three modules beside this one: sheet_jobs (jobs, MIG), sheet_sources (checks,
assumptions, sources) and sheet_tables (the tables and their page breaks).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from configurator.catalog.chassis import ChassisSpec
from configurator.catalog.loader import Catalog
from configurator.catalog.prices import PriceList
from configurator.engine import Build, BuildResult
from configurator.engine.model.bom import BillOfMaterials, bill_of_materials, money
from configurator.engine.model.buildfile import build_to_yaml
from configurator.engine.model.result import HostResult, Power
from configurator.engine.topology.physical import CARD_EXCURSION
from configurator.present.verdict import plural
from configurator.report.sheet_acceptance import acceptance_section
from configurator.report.sheet_cover import cover_page
from configurator.report.sheet_host import host_part_rows, host_section, host_sources_section
from configurator.report.sheet_jobs import job_section, mig_section
from configurator.report.sheet_sources import assumptions_section, checks_section, sources_section
from configurator.report.sheet_tables import (
    FIGURE_MARK,
    H2,
    NEW_PAGE_H2,
    ROW_BREAKS,
    counted_tables,
    html_table,
    table_parts,
    tax_percent,
)
from configurator.trace.cache import CachedTrace
from configurator.trace.request import PreparedTrace, cached_traces

__all__ = ["FIGURE_MARK", "ROW_BREAKS", "SheetOptions", "build_html", "priced_bom", "reference_number", "seller",
           "table_parts"]  # fmt: skip


# The app's name, which Preferences stores as the seller's until one is typed: never printed as the seller
APP_NAME = "GPU Build Configurator"


@dataclass
class SheetOptions:
    seller_name: str = ""  # blank (or the app's name): lines to fill in by hand, see seller()
    seller_logo: str | None = None  # path to an SVG or PNG; the app icon when unset
    page: str = "a4"  # a4 | letter
    date: dt.date = field(default_factory=dt.date.today)
    prices: PriceList | None = None  # the seller's price list: a bill of materials when set
    build_code: str | None = None  # the build as a GBC1: code, printed under the QR (engine.model.buildcode)
    customer: str = ""  # who the quote is for; blank lines to fill in by hand when empty
    # Traced results (configurator/trace): None reads each job's newest from the trace cache (the sheet never
    # traces); base_dir is where the build's relative config.json paths point (its folder)
    traces: dict[str, tuple[PreparedTrace, CachedTrace]] | None = None
    base_dir: Path | None = None


def seller(options: SheetOptions) -> str:
    """The seller's name as the sheet prints it: '' when none was given (the app's name is not a seller's)."""
    name = options.seller_name.strip()
    return "" if name == APP_NAME else name


def reference_number(build: Build, date: dt.date) -> str:
    """Stable per build content and day: GBC-YYYYMMDD-XXXXXX."""
    digest = hashlib.sha1(build_to_yaml(build).encode()).hexdigest()[:6].upper()
    return f"GBC-{date:%Y%m%d}-{digest}"


def quote_number(build: Build, date: dt.date) -> str:
    """The quote's number: the sheet's reference with a Q, so a quote and its sheet name each other."""
    return "Q" + reference_number(build, date).removeprefix("GBC")


def priced_bom(build: Build, catalog: Catalog, options: SheetOptions,
               host: HostResult | None = None) -> BillOfMaterials | None:  # fmt: skip
    """The quote's lines; ``host`` (the result's) adds the DIMMs and drives."""
    if options.prices is None:
        return None
    return bill_of_materials(build, catalog, options.prices, quote_number(build, options.date), options.date, host)


def build_html(build: Build, result: BuildResult, catalog: Catalog, options: SheetOptions) -> str:
    """The whole sheet as HTML, its tables numbered for the PDF layout's row breaks (ROW_BREAKS)."""
    with counted_tables():
        return _build_html(build, result, catalog, options)


def _build_html(build: Build, result: BuildResult, catalog: Catalog, options: SheetOptions) -> str:
    """The sheet's sections in order (the order the PDF layout counts tables in)."""
    chassis = catalog.chassis.get(build.chassis)
    bom = priced_bom(build, catalog, options, result.host)
    names = {**{c.id: c.name for c in catalog.cards.values()}, **{c.id: c.name for c in catalog.chassis.values()}}
    # page 1, what the customer signs: parties, quote, verdict per job, total, acceptance (report/sheet_cover.py)
    out = cover_page(build, result, names, seller(options), options.customer,
                     reference_number(build, options.date), f"{options.date:%d %B %Y}", bom)  # fmt: skip
    out.append(NEW_PAGE_H2.format("Your build"))
    out += _header(build, result, options)
    out.append(f"<p>{FIGURE_MARK.format('chassis')}</p>")
    out += _parts(build, catalog, chassis, result.host)
    out += host_section(result.host)
    if bom is not None:
        out.append(H2.format("Bill of materials"))
        out.append(_bom_html(bom))
    out += _power(build, result, catalog, chassis)
    out += acceptance_section(build, result, catalog)  # what the built machine must measure
    out += _reopen(options)
    # the engineering detail the verdicts rest on, after what the customer needs
    out.append(NEW_PAGE_H2.format("Appendix: engineering detail"))
    out.append("<p>How each job was sized: memory per card, communication and compute per step, the checks, the "
               "assumptions and the sources of every figure.</p>")  # fmt: skip
    traces = options.traces if options.traces is not None else cached_traces(build, catalog, base_dir=options.base_dir)
    for i, job in enumerate(result.jobs):
        out += job_section(i, job, build.jobs[i], traces.get(job.name))
    out += mig_section(result, catalog)
    out += checks_section(result)
    out += assumptions_section(build, result)
    out += host_sources_section(result.host)
    out += sources_section(build, result, catalog, chassis)
    return "\n".join(out)


def _header(build: Build, result: BuildResult, options: SheetOptions) -> list[str]:
    """The chassis and the counts, with the errors the checks found."""
    out: list[str] = []
    out.append(
        f"<p>Chassis: <b>{escape(result.chassis_name or build.chassis)}</b> · {plural(len(build.cards), 'card')}, "
        f"{plural(len(build.bridges), 'NVLink bridge')}, {plural(len(build.jobs), 'job')}. "
        "GB = 10<sup>9</sup> bytes throughout.</p>"
    )
    errors = [c for c in result.checks if c.severity == "error"]
    if errors:
        out.append(f"<p><span style='color:#C62828'><b>{plural(len(errors), 'error')}</b></span>: see Checks in "
                   "the appendix.</p>")  # fmt: skip
    return out


def _parts(build: Build, catalog: Catalog, chassis: ChassisSpec | None, host: HostResult | None) -> list[str]:
    """The parts list: cards by type with their key specifications, the chassis, the bridges, DIMMs and drives."""
    out: list[str] = []
    out.append(H2.format("Parts list"))
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
    rows += host_part_rows(host)
    out.append(html_table(["Qty", "Part", "Key specifications", "Slots"], rows, [6, 28, 52, 14]))
    return out


def _power(build: Build, result: BuildResult, catalog: Catalog, chassis: ChassisSpec | None) -> list[str]:
    """Power per card, the supply against the PSUs, airflow and the wall circuit."""
    out: list[str] = []
    out.append(H2.format("Power and cooling"))
    if result.power and chassis:
        p = result.power
        rows = []
        limits = {c.slot: c.power_limit_w for c in build.cards}
        for c in build.cards:
            card = catalog.cards.get(c.card)
            if card:
                limit = limits.get(c.slot) or card.power.tdp_w.value or 0
                rows.append([str(c.slot), escape(card.name), f"{limit:,.0f} W", escape(card.cooling.kind)])
        out.append(html_table(["Slot", "Card", "Power limit", "Cooling"], rows, [8, 52, 20, 20]))
        red = (f" ({plural(chassis.psu.redundant_units, 'redundant unit')} held back)"
               if chassis.psu.redundant_units else "")  # fmt: skip
        # the demand always: with no published excursion rating (server PSUs) the sheet said nothing of 16,100 W
        # of card excursions beside an 8,100 W supply, where the shop has to ask the PSU's maker
        transient = (f"; transient demand up to {p.transient_demand_w:,.0f} W against {p.transient_capacity_w:,.0f} W "
                     "of PSU excursion rating" if p.transient_capacity_w else
                     f"; transient demand up to {p.transient_demand_w:,.0f} W for 100 µs (cards up to "
                     f"{CARD_EXCURSION:g}× their limit, PCIe CEM 5.0), and the PSU's excursion rating is not "
                     "published: check with its maker that it carries this")  # fmt: skip
        airflow = "front-to-rear server airflow" if chassis.airflow == "server" else "desk (tower) airflow"
        supply = (
            f"against {p.psu_capacity_w:,.0f} W of PSU capacity{red}: margin <b>{p.margin_w:,.0f} W</b>{transient}"
            if p.psu_capacity_w is not None and p.margin_w is not None
            else f"(PSU rating not published: check it against the vendor's configuration){transient}"
        )
        out.append(
            f"<p>Cards {p.cards_w:,.0f} W + platform {p.platform_w:,.0f} W = <b>{p.total_w:,.0f} W</b> {supply}. "
            f"Airflow: {airflow}.</p>"
        )
        out.append(_wall_html(p))
    return out


def _reopen(options: SheetOptions) -> list[str]:
    """The QR code and the build code to reopen the build from, when the sheet carries one."""
    out: list[str] = []
    if options.build_code:
        out.append(H2.format("Reopen this build"))
        out.append(
            f"<p>{FIGURE_MARK.format('qr')}</p><p>Scan the code, or type it, into the configurator "
            "(File &gt; Open from code, or <tt>configurator open-code CODE</tt>) to reopen this build; the PDF also "
            "carries the build file as an attachment (build.yaml).</p>"
            f"<p style='font-family:monospace;font-size:6pt'>{_breakable(options.build_code)}</p>"
        )
    return out


def _breakable(code: str, width: int = 96) -> str:
    """The code in lines of ``width`` characters (it has no spaces to break at)."""
    return "<br>".join(escape(code[i : i + width]) for i in range(0, len(code), width))


def _wall_html(p: Power) -> str:
    w = p.wall
    if w is None:
        return ("<p>Wall circuit: no site given in the build, so the draw at the wall is not checked (set "
                "<tt>site:</tt>, e.g. us-120v-15a or eu-230v-16a).</p>")  # fmt: skip
    verdict = ("<span style='color:#C62828'><b>over</b></span> its continuous rating" if w.overloaded
               else "within its continuous rating")  # fmt: skip
    fraction = f" × {w.continuous_fraction:.0%}" if w.continuous_fraction < 1 else ""
    return (
        f"<p>Wall circuit: <b>{escape(w.circuit)}</b>. Sustained draw about <b>{w.sustained_w:,.0f} W</b> "
        f"({p.total_w:,.0f} W at {w.psu_efficiency:.0%} PSU efficiency, {w.amps:,.1f} A) against "
        f"<b>{w.continuous_w:,.0f} W</b> continuous ({w.volts:g} V × {w.breaker_amps:g} A{fraction}; "
        f"{escape(w.basis)}): "
        f"{verdict}. Transient card excursions (to {w.transient_w:,.0f} W for 100 µs) are carried by the PSU's "
        "capacitors, far shorter than a breaker takes to trip. All PSUs are assumed on this one circuit.</p>"
    )


def _bom_html(bom: BillOfMaterials) -> str:
    cur = bom.currency
    rows = []
    for ln in bom.lines:
        unit = money(ln.unit_price, cur) if ln.unit_price is not None else "<i>no price in the list</i>"
        total = money(ln.line_total, cur) if ln.line_total is not None else "—"
        rows.append([str(ln.quantity), escape(ln.description), unit, total])  # the name, not the price-list id
    rows.append(["", "<b>Subtotal (net)</b>", "", f"<b>{money(bom.subtotal, cur)}</b>"])
    if bom.tax is not None and bom.tax_rate is not None:
        rows.append(["", f"Tax {tax_percent(bom.tax_rate)} %", "", money(bom.tax, cur)])
    rows.append(["", "<b>Total</b>" + ("" if bom.complete else " (incomplete)"), "", f"<b>{money(bom.total, cur)}</b>"])
    valid = (f"valid until {bom.valid_until:%d %B %Y}" if bom.valid_until
             else "no validity period in the price list")  # fmt: skip
    tax = "" if bom.tax is not None else " Prices are net; the price list gives no tax rate."
    missing = ("" if bom.complete else
               f" <span style='color:#C62828'><b>Incomplete:</b> no price for {escape(', '.join(bom.unpriced))}; "
               "the total leaves them out.</span>")  # fmt: skip
    return (
        f"<p>Quote <b>{escape(bom.quote_number)}</b> of {bom.date:%d %B %Y}, {valid}. Currency {cur}.{tax}{missing}</p>"
        + html_table(["Qty", "Item", "Unit price", "Line total"], rows, [7, 55, 19, 19], right=frozenset({0, 2, 3}))
    )
