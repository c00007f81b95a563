"""The MIG build's sheet (four tenants on one card): the card tile's words fit the tile."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sheet_text import ROOT, sheet_pages


@pytest.fixture(scope="module")
def mig_sheet(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    import datetime as dt

    from configurator.engine import evaluate
    from configurator.engine.model.buildfile import load_build
    from configurator.report.pdf import export_pdf
    from configurator.report.sheet import SheetOptions

    build = load_build(ROOT / "resources" / "builds" / "seed-mig-four-tenants.yaml")
    out: Path = tmp_path_factory.mktemp("mig") / "sheet.pdf"
    export_pdf(out, build, evaluate(build), options=SheetOptions(page="a4", date=dt.date(2026, 12, 3)))
    return [" ".join(p.split()) for p in sheet_pages(out)]


def test_the_card_tile_counts_equal_profiles(mig_sheet: list[str]) -> None:
    assert "MIG 4 × 1g.24gb" in mig_sheet[1]
    assert "1g.24gb+1g.24gb" not in " ".join(mig_sheet)


def test_tile_text_shrinks_to_its_box(qapp) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter

    from configurator.report.figures import TILE_FLAGS, _fit_text

    image = QImage(600, 200, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        box = QRectF(0, 0, 180, 36)
        size = _fit_text(
            painter, box, "RTX PRO 6000 Blackwell Server Edition\n102.6 GB · 600 W · MIG 2 × 1g.24gb, 2g.48gb"
        )
        assert size < 7.5
        need = painter.boundingRect(box, TILE_FLAGS, "RTX PRO 6000 Blackwell Server Edition\n102.6 GB · 600 W · MIG "
                                    "2 × 1g.24gb, 2g.48gb")  # fmt: skip
        assert need.height() <= box.height()
    finally:
        painter.end()


def test_what_the_tenants_share_is_said_once(mig_sheet: list[str]) -> None:
    """One "Bands." sentence and one host-source row for all four tenants, not four copies word for word."""
    text = " ".join(mig_sheet)
    assert "Bands. For all 4 jobs: memory" in text
    assert "tenant B: memory" not in text  # the acceptance page's band sentence, once per tenant before
    assert text.count("huggingface_hub MAX_SHARD_SIZE") == 1  # the model-loading source
    assert "all 4 jobs RAM model loading" in text


def test_the_shared_band_caveat_speaks_of_every_tenant(mig_sheet: list[str]) -> None:
    """The four tenants' one "Bands." sentence ended 'as this job is'; each job's own section keeps it."""
    text = " ".join(mig_sheet)
    shared = text.split("Bands. For all 4 jobs:", 1)[1].split("Under load", 1)[0]
    assert shared.rstrip().endswith("none of the runs is QLoRA or on a MIG slice as these jobs are.")
    assert text.count("on a MIG slice as this job is") == 4


def test_the_slot_column_keeps_the_instance_whole(mig_sheet: list[str]) -> None:
    text = " ".join(mig_sheet)
    for i in range(4):
        assert f"1g.24gb #{i}" in text  # '1g.24gb#0' wrapped as '1g.24 / gb#0' in its narrow column
