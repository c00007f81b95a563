"""The plan's PDF section: written headless, its text carries the result's figures."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from configurator.catalog.errors import FileError
from configurator.cli import main
from configurator.engine.planner import load_plan, plan_service
from configurator.paths import resource
from configurator.present.verdict import plural
from configurator.report.plan_sheet import export_plan_pdf, plan_html

SEED_B = resource("plans", "seed-b-service.yaml")
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")


def _text(path: Path) -> str:  # in reading order: a cell wrapped in a narrow column still reads whole
    out = subprocess.run(["pdftotext", "-raw", str(path), "-"], capture_output=True, text=True, check=True)
    return " ".join(out.stdout.replace("ﬁ", "fi").split())


def test_plan_html_holds_every_class_device_and_fleet() -> None:
    result = plan_service(load_plan(SEED_B), base_dir=SEED_B.parent)
    html = plan_html(result)
    for c in result.classes:
        assert c.name in html
    for cell in result.matrix:
        assert cell.device in html
    assert result.fleets[0].label in html and "Roadmap of fleet #1" in html


@needs_poppler
def test_plan_pdf_from_the_cli(tmp_path: Path) -> None:
    pdf = tmp_path / "plan.pdf"
    assert main(["plan", str(SEED_B), "--pdf", str(pdf)]) == 0
    assert pdf.read_bytes()[:5] == b"%PDF-"
    text = _text(pdf)
    result = plan_service(load_plan(SEED_B), base_dir=SEED_B.parent)
    best = result.fleets[0]
    assert "Service plan: Multi-tenant fine-tuning service (example)" in text
    assert "Classes × devices" in text and f"#1 {best.label}" in text
    assert plural(best.totals.cards, "card") in text and "(s)" not in text
    assert f"{best.totals.energy_kwh_per_month:,.0f} kWh per month" in text
    assert "30B LoRA HGX H100 / whole card tight (not planned on)" in text


def test_plan_pdf_unwritable_folder(tmp_path: Path) -> None:
    result = plan_service(load_plan(SEED_B), base_dir=SEED_B.parent)
    with pytest.raises(FileError):
        export_plan_pdf(tmp_path / "missing" / "plan.pdf", result)
