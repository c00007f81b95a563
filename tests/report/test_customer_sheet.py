"""The build sheet as a quote a customer signs (issue 26): the first page holds the parties, the quote, the
verdict per job in plain words, the total and the signature lines; numbers never break mid-digit; counts read
"3 cards" (not "card(s)"); the set-up reads "LoRA, AdamW, FSDP" (not the file's ids); headings stay with what
follows; the engineering detail is an appendix after what the customer needs."""

from __future__ import annotations

import re

from tests.sheet_text import CUSTOMER

# ids as the build file writes them: they must not reach the sheet's sentences
RAW_IDS = re.compile(r"\b(?:lora|qlora|adamw|adamw-8bit|fsdp|mixed-bf16|sdpa|all-linear|nf4-dq|does-not-fit)\b")


def test_first_page_is_the_quote_to_sign(customer_sheet: list[str]) -> None:
    first = " ".join(customer_sheet[0].split())
    for block in ("Customer", CUSTOMER, "Seller", "Acme GPU Systems", "Quote Q-20260302-", "Verdict: fits",
                  "70B LoRA, FSDP over the bridge", "70B QLoRA", "Total: ", " €", "including 19 % tax",
                  "Acceptance", "Signature", "Place, date"):  # fmt: skip
        assert block in first, block
    assert "61.5 GB to spare" in first  # the verdict per job says why, in plain words
    # and no engineering on it
    for detail in ("Collective", "Weights", "Assumptions and sources", "Appendix"):
        assert detail not in first, detail


def test_engineering_detail_is_an_appendix_after_the_build(customer_sheet: list[str]) -> None:
    pages = [" ".join(p.split()) for p in customer_sheet]
    appendix = next(i for i, p in enumerate(pages) if "Appendix: engineering detail" in p)
    bom = next(i for i, p in enumerate(pages) if "Bill of materials" in p)
    sources = next(i for i, p in enumerate(pages) if "Assumptions and sources" in p)
    assert 0 < bom < appendix <= sources


def test_no_number_is_split(customer_sheet: list[str]) -> None:
    """A thousands group is always three digits: "70,553,706,49 / 6" broke a count across two lines."""
    for n, text in enumerate(customer_sheet, 1):
        broken = re.findall(r"\d,\d{1,2}(?!\d)\s*\n\s*\d", text) + re.findall(r"\d\.\s*\n\s*\d", text)
        assert not broken, (n, broken)


def test_counts_read_in_plain_plurals(customer_sheet: list[str]) -> None:
    text = " ".join(" ".join(customer_sheet).split())
    assert "(s)" not in text
    assert "3 cards, 1 NVLink bridge, 2 jobs" in text


def test_set_up_in_words_not_ids(customer_sheet: list[str]) -> None:
    text = " ".join(customer_sheet)
    without_urls = re.sub(r"https?://\S+", "", text)
    assert not RAW_IDS.findall(without_urls), sorted(set(RAW_IDS.findall(without_urls)))
    assert "LoRA, AdamW, FSDP" in " ".join(text.split())
    assert "not published" in text or "n/p" not in text


def test_verdict_words() -> None:
    from configurator.engine import evaluate
    from configurator.engine.model.buildfile import load_build
    from configurator.present.verdict import build_verdict, job_verdict, plural
    from tests.sheet_text import ROOT

    assert (plural(1, "job"), plural(2, "job"), plural(1, "NVLink bridge")) == ("1 job", "2 jobs", "1 NVLink bridge")
    result = evaluate(load_build(ROOT / "resources" / "builds" / "mixed-with-errors.yaml"))
    words = {job_verdict(j).word for j in result.jobs}
    assert "does not fit" in words
    verdict = build_verdict(result)
    assert verdict.word == "does not fit"
    assert re.search(r"\d+ (?:does|do) not fit", verdict.sentence), verdict.sentence


def test_headings_stay_with_what_follows(qapp) -> None:  # type: ignore[no-untyped-def]
    """In the laid-out sheet every heading starts the page its next block ends on ("Reopen this build" sat alone
    at the foot of a page, its QR code on the next)."""
    import datetime as dt

    from PySide6.QtGui import QPdfWriter

    from configurator.catalog.loader import default_catalog
    from configurator.catalog.prices import parse_price_list
    from configurator.engine import evaluate
    from configurator.engine.model.buildfile import load_build
    from configurator.report.pdf import BuildSheet, page_layout
    from configurator.report.sheet import SheetOptions
    from tests.sheet_text import PRICES, ROOT

    catalog = default_catalog()
    prices = parse_price_list(PRICES, "prices.yaml", set(catalog.cards) | set(catalog.chassis))
    for name in ("default.yaml", "seed-70b-lora-8x-h200-nvl.yaml", "mixed-with-errors.yaml"):
        build = load_build(ROOT / "resources" / "builds" / name)
        writer = QPdfWriter(str(ROOT / "out" / "heading-probe.pdf"))
        writer.setResolution(300)
        writer.setPageLayout(page_layout("a4"))
        options = SheetOptions(customer=CUSTOMER, prices=prices, page="a4", date=dt.date(2026, 3, 2))
        doc, _ = BuildSheet(build, evaluate(build), catalog, options).prepare(writer)
        page_h, layout = doc.pageSize().height(), doc.documentLayout()
        block = doc.begin()
        while block.isValid():
            nxt = block.next()
            if block.blockFormat().headingLevel() and nxt.isValid():
                page = int(layout.blockBoundingRect(block).top() // page_h)
                ends = int((layout.blockBoundingRect(nxt).bottom() - 1) // page_h)
                assert ends == page, (name, block.text(), page, ends)
            block = nxt
        del writer
