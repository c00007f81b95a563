"""The build sheet as a customer gets it, read back from the PDF: the priced bill of materials and its sums,
the QR decoded from the rendered page back to the same build, the attached build file, public sources only,
the wall circuit, paragraphs kept whole, and the user's file permissions."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.catalog.prices import parse_price_list
from configurator.cli import main
from configurator.engine import Build, evaluate
from configurator.engine.model.bom import money
from configurator.engine.model.buildcode import decode_build, encode_build
from configurator.engine.model.buildfile import load_build, parse_build, save_build
from configurator.report.pdf import export_pdf, read_attached_build
from configurator.report.sheet import SheetOptions, priced_bom
from tests.shop_data import PRICES, private_sources

ROOT = Path(__file__).resolve().parents[2]
BUILDS = ROOT / "resources" / "builds"
DAY = dt.date(2026, 3, 2)
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None or shutil.which("pdftoppm") is None,
                                   reason="poppler-utils not installed")  # fmt: skip


def ids() -> set[str]:
    cat = default_catalog()
    return set(cat.cards) | set(cat.chassis)


def pdf_text(path: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


def page_texts(path: Path) -> list[str]:
    return pdf_text(path).split("\f")


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def rejoin_urls(text: str) -> str:
    """Undo the sheet's line breaks inside a long URL ('https://github.com/ owner/repo/ README.md'), also those
    after a hyphen in a name ('https://github.com/owner/nano- serve/ README.md')."""
    broken = re.compile(r"(https?://(?:\S*[/-])?)\s+(?=[\w.%~+-]+(?:/|\.[A-Za-z0-9]+\b))")
    while (joined := broken.sub(r"\1", text)) != text:
        text = joined
    return text


def desk_build() -> Build:
    return Build.model_validate({
        "name": "Four RTX PRO 6000 on a desk", "chassis": "generic-workstation-4", "site": "us-120v-15a",
        "cards": [{"slot": s, "card": "rtx-pro-6000-ws"} for s in (1, 2, 3, 4)],
        "jobs": [{"name": "8B LoRA", "model": "llama-3.1-8b", "method": "lora", "cards": [1]}],
    })  # fmt: skip


def read_qr_codes(pdf: Path, tmp: Path) -> list[str]:
    """Every QR code on the sheet's pages, rendered at 150 dpi in grey and read with zxing-cpp."""
    zxingcpp = pytest.importorskip("zxingcpp")
    import numpy as np

    subprocess.run(["pdftoppm", "-r", "150", "-gray", str(pdf), str(tmp / "page")], check=True)
    found = []
    for pgm in sorted(tmp.glob("page*.pgm")):
        data = pgm.read_bytes()
        m = re.match(rb"P5\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
        assert m, "pdftoppm -gray writes binary PGM"
        w, h = int(m[1]), int(m[2])
        image = np.frombuffer(data[m.end() : m.end() + w * h], dtype=np.uint8).reshape(h, w)
        found += [r.text for r in zxingcpp.read_barcodes(image) if r.format == zxingcpp.BarcodeFormat.QRCode]
    return found


@pytest.fixture(scope="module")
def priced_sheet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Build]:
    folder = tmp_path_factory.mktemp("sheet")
    build = desk_build()
    prices = parse_price_list(PRICES, "prices.yaml", ids())
    out = folder / "desk.pdf"
    export_pdf(out, build, evaluate(build), options=SheetOptions(prices=prices, date=DAY, page="a4"))
    return out, build


@needs_poppler
def test_sheet_prints_every_line_total_and_sums_them(priced_sheet: tuple[Path, Build]) -> None:
    pdf, build = priced_sheet
    text = squash(pdf_text(pdf))
    prices = parse_price_list(PRICES, "prices.yaml", ids())
    bom = priced_bom(build, default_catalog(), SheetOptions(prices=prices, date=DAY), evaluate(build).host)
    assert bom is not None and bom.complete
    printed = []
    for ln in bom.lines:
        assert ln.line_total is not None
        assert money(ln.line_total, "EUR") in text, ln.description
        printed.append(ln.line_total)
    # read the figures back from the page, not from the model: they add up to the printed totals
    def amount(label: str) -> Decimal:
        m = re.search(label + r" ([\d,]+\.\d\d) €", text)
        assert m, f"{label} not on the sheet"
        return Decimal(m.group(1).replace(",", ""))

    subtotal, tax, total = amount(r"Subtotal \(net\)"), amount(r"Tax 19 %"), amount(r"Total")
    # 4 x 8,900.50 + 3,200 + eight 16 GB DIMMs (one per memory channel of the workstation's socket: the LoRA's
    # ~28 GB host need, its 16 GB model load included, fits 8 x 16 GiB) x 95 + one 1.92 TB drive 240 + 450 + 1,200
    assert subtotal == sum(printed) == Decimal("41452.00")
    assert tax == (subtotal * Decimal("0.19")).quantize(Decimal("0.01"))
    assert total == subtotal + tax
    assert "4 NVIDIA RTX PRO 6000 Blackwell Workstation Edition" in text
    assert f"Quote {bom.quote_number}" in text and "valid until 01 April 2026" in text


@needs_poppler
def test_qr_on_the_sheet_decodes_to_the_same_build(priced_sheet: tuple[Path, Build], tmp_path: Path) -> None:
    pdf, build = priced_sheet
    codes = read_qr_codes(pdf, tmp_path)
    assert len(codes) == 1, codes
    assert codes[0] == encode_build(build)
    assert decode_build(codes[0]) == build
    assert squash(codes[0][:60]) in squash(pdf_text(pdf)).replace(" ", "")  # the code is printed under it too


def test_sheet_carries_the_build_file(priced_sheet: tuple[Path, Build]) -> None:
    pdf, build = priced_sheet
    attached = read_attached_build(pdf)
    assert attached is not None
    assert parse_build(attached, "build.yaml") == build


@needs_poppler
def test_every_source_line_on_the_sheet_is_public(tmp_path: Path) -> None:
    """Every shipped build's sheet: the whole text, the sources table included, names nothing private."""
    for path in sorted(BUILDS.glob("*.yaml")):
        build = load_build(path)
        out = tmp_path / f"{path.stem}.pdf"
        export_pdf(out, build, evaluate(build, base_dir=path.parent), options=SheetOptions(page="a4"))
        text = pdf_text(out)
        assert "Assumptions and sources" in text
        bad = private_sources(rejoin_urls(squash(text)))
        assert not bad, f"{path.name}: {bad}"


@needs_poppler
def test_unpriced_parts_say_so_and_the_total_says_incomplete(tmp_path: Path) -> None:
    build = load_build(BUILDS / "seed-70b-lora-8x-h200-nvl.yaml")
    prices = parse_price_list("currency: USD\nparts: {h200-nvl: 30000}\n", "p.yaml", ids())
    out = tmp_path / "s.pdf"
    export_pdf(out, build, evaluate(build), options=SheetOptions(prices=prices, date=DAY, page="letter"))
    text = squash(pdf_text(out))
    assert "no price in the list" in text and "Total (incomplete)" in text and "Incomplete:" in text
    assert "$240,000.00" in text  # 8 x $30,000
    assert "the price list gives no tax rate" in text and "no validity period" in text


@needs_poppler
def test_wall_circuit_on_the_sheet(priced_sheet: tuple[Path, Build]) -> None:
    text = squash(pdf_text(priced_sheet[0]))
    assert "wall-circuit-overload" in text
    assert "Wall circuit: North America, 120 V / 15 A" in text and "1,440 W continuous" in text
    assert "over its continuous rating" in text


@needs_poppler
def test_no_paragraph_splits_across_pages(tmp_path: Path) -> None:
    """Each page ends at a paragraph's end: no page's last text line stops mid-sentence (tables aside)."""
    build = load_build(BUILDS / "seed-70b-lora-8x-h200-nvl.yaml")
    out = tmp_path / "s.pdf"
    export_pdf(out, build, evaluate(build), options=SheetOptions(page="a4"))
    pages = page_texts(out)
    assert len(pages) >= 3
    for i, page in enumerate(pages[1:], start=2):
        body = [ln for ln in page.splitlines() if ln.strip()][2:]  # below the two header lines
        first = body[0].strip() if body else ""
        # a continued sentence starts lower-case; a continued list item starts without its bullet
        assert not re.match(r"^[a-z(]", first), f"page {i} starts mid-sentence: {first!r}"


def test_files_get_the_users_umask(tmp_path: Path) -> None:
    build = load_build(BUILDS / "default.yaml")
    old = os.umask(0o027)
    try:
        export_pdf(tmp_path / "s.pdf", build, evaluate(build))
        save_build(build, tmp_path / "b.yaml")
    finally:
        os.umask(old)
    assert (tmp_path / "s.pdf").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "b.yaml").stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.yaml", "s.pdf"]  # no temporary file left


def test_cli_export_with_prices_and_open_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = desk_build()
    save_build(build, tmp_path / "b.yaml")
    (tmp_path / "p.yaml").write_text(PRICES)
    assert main(["export", str(tmp_path / "b.yaml"), "-o", str(tmp_path / "s.pdf"), "--prices",
                 str(tmp_path / "p.yaml"), "--page", "a4"]) == 0  # fmt: skip
    attached = read_attached_build(tmp_path / "s.pdf")
    assert attached is not None and parse_build(attached, "a") == build
    capsys.readouterr()
    assert main(["open-code", encode_build(build), "--print"]) == 0
    assert parse_build(capsys.readouterr().out, "printed") == build
    # bad input: a clear message and exit 2, never a traceback
    (tmp_path / "bad.yaml").write_text("currency: EUR\nparts: {no-such-card: 5}\n")
    assert main(["export", str(tmp_path / "b.yaml"), "-o", str(tmp_path / "t.pdf"), "--prices",
                 str(tmp_path / "bad.yaml")]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "bad.yaml:2" in err and "no-such-card" in err and not (tmp_path / "t.pdf").exists()
    assert main(["open-code", "GBC1:broken$", "--print"]) == 2
    assert "build code" in capsys.readouterr().err


def test_open_code_as_a_subprocess_prints_yaml(tmp_path: Path) -> None:
    code = encode_build(load_build(BUILDS / "default.yaml"))
    run = subprocess.run([sys.executable, "-m", "configurator", "open-code", code, "--print"],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert parse_build(run.stdout, "out") == load_build(BUILDS / "default.yaml")


@pytest.mark.parametrize("name", ["seed-70b-lora-8x-h200-nvl.yaml", "mixed-with-errors.yaml", "default.yaml"])
def test_laid_out_sheet_breaks_no_paragraph_or_row(name: str, tmp_path: Path) -> None:
    """In the laid-out document itself: no paragraph and no table row spans two pages."""
    from PySide6.QtGui import QPdfWriter, QTextCursor

    from configurator.report.pdf import BuildSheet, ensure_app, first_split_row, page_layout

    ensure_app()
    build = load_build(BUILDS / name)
    writer = QPdfWriter(str(tmp_path / "x.pdf"))
    writer.setResolution(300)
    writer.setPageLayout(page_layout("a4"))
    doc, _ = BuildSheet(build, evaluate(build)).prepare(writer)
    assert first_split_row(doc) is None
    page_h = doc.pageSize().height()
    block = doc.begin()
    while block.isValid():
        if QTextCursor(block).currentTable() is None and block.length() > 1:
            r = doc.documentLayout().blockBoundingRect(block)
            assert int(r.top() // page_h) == int((r.bottom() - 1) // page_h), block.text()[:80]
        block = block.next()
    del writer
