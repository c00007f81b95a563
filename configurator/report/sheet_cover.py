"""The build sheet's first page, the one a customer reads and signs: who sells to whom, the quote, the verdict
per job in plain words, the total and the acceptance lines. Every figure is the engine's (present.verdict says
it); the engineering detail follows in the appendix."""

from __future__ import annotations

from html import escape

from configurator.catalog.cards import short_card_name
from configurator.engine import Build, BuildResult
from configurator.engine.model.bom import BillOfMaterials, money
from configurator.present.colours import STATUS_INK
from configurator.present.job_words import setup_words
from configurator.present.verdict import build_verdict, job_verdict, plural
from configurator.report.sheet_tables import H2, html_table, tax_percent

BLANK = "<span style='white-space:nowrap'>______________________________</span>"
SHORT_BLANK = "<span style='white-space:nowrap'>________________</span>"
# the status colours, darkened where needed to read as text on white (the amber #E69F00 is 2.0:1)
INK = STATUS_INK


def _runs_on(job_cards: list[tuple[int, str]]) -> str:
    """'2 × H200 NVL (slots 1, 2)': the cards a job runs on, by type."""
    by_card: dict[str, list[int]] = {}
    for slot, name in job_cards:
        by_card.setdefault(short_card_name(name), []).append(slot)
    parts = []
    for name, slots in by_card.items():
        where = f"slot {slots[0]}" if len(slots) == 1 else f"slots {', '.join(map(str, sorted(set(slots))))}"
        parts.append(f"{len(slots)} × {escape(name)} ({where})")
    return "; ".join(parts) or "no card yet"


def _total(bom: BillOfMaterials | None) -> str:
    if bom is None:
        return "<p><b>Price:</b> on request (this sheet was printed without the seller's price list).</p>"
    tax = (f" including {tax_percent(bom.tax_rate)} % tax" if bom.tax is not None and bom.tax_rate is not None
           else " net of tax")  # fmt: skip
    valid = f", valid until {bom.valid_until:%d %B %Y}" if bom.valid_until else ""
    missing = ("" if bom.complete else f" <span style='color:#C62828'>Incomplete: no price for "
               f"{escape(', '.join(bom.unpriced))}.</span>")  # fmt: skip
    return (f"<p style='font-size:12pt'><b>Total: <span style='white-space:nowrap'>{money(bom.total, bom.currency)}"
            f"</span></b>{tax} (quote {escape(bom.quote_number)}{valid}; its lines are in the bill of materials after "
            f"the parts list).{missing}</p>")


def cover_page(build: Build, result: BuildResult, card_names: dict[str, str], seller: str, customer: str,
               reference: str, date_text: str, bom: BillOfMaterials | None) -> list[str]:  # fmt: skip
    """The first page's HTML: parties, quote, verdicts, total, contents and the signature lines. ``seller`` empty:
    blank lines for it, filled in by hand; ``bom`` None: a build proposal, priced on request."""
    out: list[str] = []
    out.append(f"<h1 style='margin:0'>{escape(build.name)}</h1>")
    # without the seller's price list there is no quote: a proposal, priced on request; nor is there one while the
    # build has errors or parts are unpriced (the Acceptance section says NOT A QUOTE: the heading must agree)
    quote = bom is not None and bom.complete and not result.errors
    quote_word = "Quote" if quote else "Draft quote"
    kind = f"{quote_word} and build sheet" if bom is not None else "Build proposal"
    out.append(f"<p style='color:#555555;margin-top:2px'>{kind}</p>")
    dated = (f"{quote_word} {escape(bom.quote_number)} of {date_text}" if bom is not None
             else f"Build proposal of {date_text}")  # fmt: skip
    # no seller named: a line to fill in by hand, as the customer's, not the app's name
    out.append(html_table(["Customer", "Seller"], [
        [escape(customer) if customer else f"Name: {BLANK}", f"<b>{escape(seller)}</b>" if seller else
         f"Name: {BLANK}"],
        ["" if customer else f"Company: {BLANK}", f"Reference {reference}"],
        ["", dated],
    ], [50, 50]))  # fmt: skip
    verdict = build_verdict(result)
    colour = INK.get(verdict.status, "#555555")
    out.append(H2.format(f"Verdict: <span style='color:{colour}'>{escape(verdict.word)}</span>"))
    out.append(f"<p>{escape(verdict.sentence[:1].upper() + verdict.sentence[1:])}. A job that <i>fits</i> leaves "
               "the safety margin free on every card it uses; <i>tight</i> means it fits only inside the estimate's "
               "uncertainty; <i>does not fit</i> means a card runs out of memory.</p>")  # fmt: skip
    errors = result.errors
    if errors:  # on the cover, not only in the appendix's Checks: what the memory verdict above does not say
        out.append(f"<p style='color:#C62828'><b>{plural(len(errors), 'build error')}: this build cannot be built or "
                   "run as specified.</b></p><ul>" + "".join(f"<li>{escape(e.message)}</li>" for e in errors)
                   + "</ul>")  # fmt: skip
    rows = []
    for job, spec in zip(result.jobs, build.jobs, strict=False):
        v = job_verdict(job)  # against a colocated vLLM's rest where one shares the cards
        ink = INK.get(v.status, "#555555")
        cards = [(c.slot, c.card_name) for c in job.cards]
        what = f"{escape(job.model_name)}: {escape(setup_words(spec))}"
        rows.append([f"<b>{escape(job.name)}</b><br>{what}", _runs_on(cards),
                     f"<b style='color:{ink}'>{escape(v.word)}</b>: {escape(v.sentence)}"])  # fmt: skip
    if rows:
        out.append(html_table(["Job", "Runs on", "Verdict"], rows, [38, 24, 38]))
    out.append(_total(bom))
    parts = [f"1 × {escape(card_names.get(build.chassis, build.chassis))}"]
    counts: dict[str, int] = {}
    for placement in build.cards:
        counts[placement.card] = counts.get(placement.card, 0) + 1
    parts += [f"{n} × {escape(card_names.get(card, card))}" for card, n in counts.items()]
    if build.bridges:
        parts.append(plural(len(build.bridges), "NVLink bridge"))
    out.append(f"<p><b>In this build:</b> {'; '.join(parts)}.</p>")
    out.append(H2.format("Acceptance"))
    # nobody is asked to sign for a build with errors or a total that leaves parts out (review2 cli 17)
    why_not = [plural(len(errors), "build error") + " remain"] if errors else []
    if bom is not None and not bom.complete:
        why_not.append("the price is incomplete (" + ", ".join(bom.unpriced) + " unpriced)")
    if why_not:
        out.append(f"<p style='color:#C62828'><b>NOT A QUOTE, not for signature:</b> {escape('; '.join(why_not))}. "
                   f"Fix {'them' if len(why_not) > 1 else 'it'} and print the sheet again to offer it for "
                   f"acceptance. Reference {reference}.</p>")  # fmt: skip
        return out
    price = (" at the price above" if bom is not None else "")
    priced = "" if bom is not None else " The price is quoted separately."
    out.append(f"<p>By signing, the customer accepts this build{price}, as described on the following pages; the "
               f"appendix states what the verdicts rest on.{priced} Reference {reference}.</p>")  # fmt: skip
    # html_table escapes its headers: the seller's name goes in as typed ("Müller &amp; Söhne" was printed)
    out.append(html_table(["Customer", f"For {seller}" if seller else "For the seller"], [
        [f"<br>Name: {SHORT_BLANK}", f"<br>Name: {SHORT_BLANK}"],
        [f"<br><br>Signature: {SHORT_BLANK}", f"<br><br>Signature: {SHORT_BLANK}"],
        [f"<br>Place, date: {SHORT_BLANK}", f"<br>Place, date: {SHORT_BLANK}"],
    ], [50, 50]))  # fmt: skip
    return out
