"""The host's DIMMs and drives on the build sheet, read back from the PDF: priced bill-of-materials lines, the parts
list and the host section with its terms."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
import unicodedata
from decimal import Decimal
from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.catalog.prices import parse_price_list
from configurator.engine import Build, evaluate
from configurator.engine.model.bom import bill_of_materials, money
from configurator.report.pdf import export_pdf
from configurator.report.sheet import SheetOptions

DAY = dt.date(2026, 3, 2)
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")

PRICES = """\
currency: EUR
parts: {h200-nvl: 31000, generic-server-8: 12500, dimm-64gb: 310, nvme-3.84tb: 420.50}
"""


def _build() -> Build:
    """ZeRO-3 with CPU offload of an 8B full fine-tune on two H200 NVL, with the host parts stated."""
    return Build.model_validate({
        "name": "Offload host", "chassis": "generic-server-8",
        "cards": [{"slot": s, "card": "h200-nvl"} for s in (1, 2)],
        "host": {"dimms": {"count": 8, "size_gb": 64}, "drives": {"count": 2, "tb": 3.84}},
        "jobs": [{"name": "8B ZeRO-3 offload", "model": "llama-3.1-8b", "method": "full", "parallelism": "zero3",
                  "offload": "cpu", "cards": [1, 2]}],
    })  # fmt: skip


def _ids() -> set[str]:
    cat = default_catalog()
    return set(cat.cards) | set(cat.chassis)


def test_price_list_prices_dimms_and_drives_by_size() -> None:
    build = _build()
    result = evaluate(build)
    prices = parse_price_list(PRICES, "p.yaml", _ids())
    bom = bill_of_materials(build, default_catalog(), prices, "Q-1", DAY, result.host)
    lines = {ln.kind: ln for ln in bom.lines}
    assert (lines["dimm"].part_id, lines["dimm"].quantity, lines["dimm"].line_total) == ("dimm-64gb", 8,
                                                                                         Decimal("2480.00"))
    assert (lines["drive"].part_id, lines["drive"].quantity, lines["drive"].line_total) == ("nvme-3.84tb", 2,
                                                                                            Decimal("841.00"))
    assert bom.complete and bom.subtotal == Decimal("31000") * 2 + 12500 + 2480 + 841
    # without the host, the lines are not there: the total never counts parts it was not given
    assert {ln.kind for ln in bill_of_materials(build, default_catalog(), prices, "Q-1", DAY).lines} == {
        "card", "chassis"}  # fmt: skip


def test_a_size_the_list_lacks_leaves_the_total_incomplete() -> None:
    build = _build().model_copy(update={"host": None})
    result = evaluate(build)
    bom = bill_of_materials(build, default_catalog(), parse_price_list(PRICES, "p.yaml", _ids()), "Q", DAY,
                            result.host)  # fmt: skip
    assert result.host is not None and result.host.dimms is not None
    picked = result.host.dimms.part_id
    assert picked != "dimm-64gb" and not bom.complete
    assert any(picked.removeprefix("dimm-").removesuffix("gb") in u for u in bom.unpriced)


def test_unknown_host_part_ids_are_refused_with_the_forms_named() -> None:
    with pytest.raises(Exception, match="dimm-<size>gb"):
        parse_price_list("currency: EUR\nparts: {dimm-64: 1}\n", "p.yaml", _ids())


@needs_poppler
def test_sheet_prints_the_host_lines_priced(tmp_path: Path) -> None:
    build = _build()
    out = tmp_path / "host.pdf"
    prices = parse_price_list(PRICES, "p.yaml", _ids())
    export_pdf(out, build, evaluate(build), options=SheetOptions(prices=prices, date=DAY, page="a4"))
    raw = subprocess.run(["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True, check=True).stdout
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", raw))  # the PDF's "ﬄ" ligature read as "ffl"
    assert "Host memory and storage" in text
    # the wording is the fix: the quote and the parts list name the parts as a buyer reads them, without the
    # price-list ids they printed ("(dimm-64gb)"), and the DIMMs' binary labels beside the sum in GB = 10^9 B
    assert "DDR5 RDIMM, 64 GB" in text and money(Decimal("2480"), "EUR") in text
    assert "NVMe SSD, 3.84 TB (2.5in U.2 NVMe)" in text and money(Decimal("841"), "EUR") in text
    assert "dimm-64gb" not in text and "nvme-3.84tb" not in text
    assert "Host RAM: 281 GB needed" in text
    assert "8 × DDR5 RDIMM, 64 GB (64 GiB each, as DIMMs are labelled), 550 GB (10^9 B) in all installed" in text
    assert "offloaded states" in text and "checkpoint staging" in text and "checkpoints (2 kept)" in text
