"""The build sheet: exported through the CLI and the GUI action, then read back with poppler's tools.

Each figure the engine computed for the build is looked up in the PDF's text, so a sheet that prints a
number the engine did not produce (or drops one) fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths

from configurator.catalog.errors import FileError
from configurator.engine import evaluate
from configurator.engine.model.buildfile import load_build
from configurator.engine.model.result import BuildResult
from configurator.present.job_words import parameters_words
from configurator.present.link_words import rate_words
from configurator.present.words import check_ref
from configurator.report.pdf import export_pdf
from configurator.report.sheet import SheetOptions

ROOT = Path(__file__).resolve().parents[2]
BUILDS = ROOT / "resources" / "builds"
SHEETS = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "out" / "screens")).parent / "sheets"
CASES = ["default.yaml", "seed-mig-four-tenants.yaml", "seed-70b-lora-8x-h200-nvl.yaml", "mixed-with-errors.yaml"]
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")


def pdf_text(path: Path) -> str:
    out = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True)
    return out.stdout


def pdf_pages(path: Path) -> int:
    out = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", out, re.M).group(1))  # type: ignore[union-attr]


def assert_fonts_embedded(path: Path) -> None:
    out = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout.splitlines()
    rows = out[2:]
    assert rows, "no fonts: the text is not real text"
    for row in rows:
        assert row.split()[-5] == "yes", f"font not embedded: {row}"


def expected_figures(result: BuildResult) -> list[str]:
    """Every number the sheet must print, formatted as the sheet prints it."""
    figs: list[str] = []
    for job in result.jobs:
        figs.append(parameters_words(job.params_total, job.params_trainable))  # the text report's words
        for r in job.cards:
            for v in (r.weights_gb, r.adapters_gb, r.gradients_gb, r.optimizer_gb, r.activations_gb, r.transient_gb,
                      r.overhead_gb, r.peak_reserved_gb, r.capacity_gb, r.headroom_gb):  # fmt: skip
                figs.append(f"{v:,.1f}")
            figs.append(f"{r.headroom_gb:+.1f} GB" if r.fits else f"short {-r.headroom_gb:.1f} GB")
        for c in job.communication.collectives:
            # the rate, and its basis in the shared words (was "174 (measured)": read as measured on this machine)
            figs += [f"{c.bytes_per_card / 1e9:,.2f}", f"{c.seconds:.3f}", f"{c.rate_gb_s:,.0f}",
                     rate_words(c.rate_basis)]
        if job.compute:
            figs.append(f"{job.compute.flops_per_step / 1e12:,.1f} TFLOP")
    if result.power:
        figs.append(f"{result.power.total_w:,.0f} W")
        if result.power.margin_w is not None:
            figs.append(f"margin {result.power.margin_w:,.0f} W")
        else:  # unpublished PSU rating: said in words, never as a 0 W supply
            figs.append("PSU rating not published")
    for m in result.mig:
        for i in m.instances:
            figs.append(f"{i.capacity_gb:.1f}")
        figs += [c for c in m.commands if "-cgi" in c]
    figs += [check_ref(c.code) for c in result.checks]  # the sheet quotes 'psu-tight', not PSU_TIGHT
    return figs


def squash(text: str) -> str:
    """Whitespace runs as one space; the PDF's fi/fl ligatures as the two letters."""
    return re.sub(r"\s+", " ", text).replace("\ufb01", "fi").replace("\ufb02", "fl")


@needs_poppler
@pytest.mark.parametrize("name", CASES)
def test_cli_export_prints_the_engine_figures(name: str, tmp_path: Path) -> None:
    """`configurator export` writes a PDF whose text holds every figure of the engine's result."""
    out = tmp_path / f"{Path(name).stem}.pdf"
    headless = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "QT_QPA_PLATFORM")}
    command = [sys.executable, "-m", "configurator", "export", str(BUILDS / name), "-o", str(out), "--page", "a4"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, env=headless)
    assert run.returncode == 0, run.stderr
    text = squash(pdf_text(out))
    build = load_build(BUILDS / name)
    result = evaluate(build)
    missing = [f for f in expected_figures(result) if squash(f) not in text]
    assert not missing, f"figures missing from the sheet: {missing[:10]}"
    reported = re.search(r"(\d+) pages?\b", run.stdout)
    assert reported and pdf_pages(out) == int(reported.group(1))
    assert f"Page 1 of {pdf_pages(out)}" in text
    assert_fonts_embedded(out)
    for section in ("Parts list", "Power and cooling", "Checks", "Assumptions and sources"):
        assert section in text
    SHEETS.mkdir(parents=True, exist_ok=True)
    shutil.copy(out, SHEETS / out.name)
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-r", "60", "-png", str(out), str(SHEETS / out.stem)], check=True)


@needs_poppler
def test_letter_page_size(tmp_path: Path) -> None:
    """--page letter gives US Letter pages (612 x 792 pt)."""
    out = tmp_path / "letter.pdf"
    build = load_build(BUILDS / "default.yaml")
    export_pdf(out, build, evaluate(build), options=SheetOptions(page="letter"))
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True, check=True).stdout
    assert "612 x 792 pts (letter)" in info


def test_unwritable_path_leaves_nothing(tmp_path: Path) -> None:
    """Exporting into a path that cannot be written raises FileError and leaves no half-written file."""
    build = load_build(BUILDS / "default.yaml")
    (tmp_path / "afile").write_text("x")
    with pytest.raises(FileError) as err:
        export_pdf(tmp_path / "afile" / "sheet.pdf", build, evaluate(build))
    assert "cannot write" in str(err.value)
    with pytest.raises(FileError):
        export_pdf(tmp_path / "missing-folder" / "sheet.pdf", build, evaluate(build))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """If the final rename fails (disk full, permissions), an existing sheet stays as it was and no temp remains."""
    build = load_build(BUILDS / "default.yaml")
    target = tmp_path / "sheet.pdf"
    target.write_bytes(b"old sheet")

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(FileError) as err:
        export_pdf(target, build, evaluate(build))
    assert "No space left" in str(err.value)
    assert target.read_bytes() == b"old sheet"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.pdf"]


def test_big_build_exports(tmp_path: Path) -> None:
    """A full 8-card, 4-job build exports (its time, under 2 s, is benchmarks/test_bench_limits.py's)."""
    from benchmarks.test_bench_engine import BIG

    pages = export_pdf(tmp_path / "big.pdf", BIG, evaluate(BIG))
    assert pages >= 3


@needs_poppler
def test_gui_export_action_and_preview(qtbot, tmp_path: Path) -> None:
    """File > Export build sheet: the preview paints the pages, and saving writes the same figures."""
    from PySide6.QtPrintSupport import QPrintPreviewWidget

    from tests.gui_helpers import make_window

    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    window.settings.set("seller_name", "Eurokommerz Demo Shop")
    dialog = window.sheet.preview_dialog()
    dialog.show()
    qtbot.waitUntil(lambda: dialog.findChild(QPrintPreviewWidget).pageCount() > 0, timeout=10000)
    preview_pages = dialog.findChild(QPrintPreviewWidget).pageCount()
    dialog.close()
    out = tmp_path / "gui.pdf"
    with qtbot.waitSignal(window.sheet.written, timeout=30000) as written:  # written on a worker thread
        assert window.sheet.export_to(out, "a4")
    assert written.args[1] == preview_pages
    text = squash(pdf_text(out))
    assert "Eurokommerz Demo Shop" in text
    missing = [f for f in expected_figures(window.doc.result) if squash(f) not in text]
    assert not missing
    assert pdf_pages(out) == preview_pages
    assert "Build sheet saved" in window.statusBar().currentMessage()
