"""The build sheet's Acceptance section, for the default build and seed B's two servers."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.report.sheet import SheetOptions, build_html


@pytest.mark.parametrize(
    "name", ["default.yaml", "seed-30b-lora-h100-sxm.yaml", "seed-30b-lora-rtx-pro-6000-server.yaml"]
)
def test_sheet_has_the_acceptance_section(name: str, evaluate_shipped) -> None:  # type: ignore[no-untyped-def]
    build, result = evaluate_shipped(name)
    html = build_html(build, result, default_catalog(), SheetOptions())
    assert "Acceptance: what the built machine must measure" in html
    section = html.split("Acceptance: what the built machine must measure", 1)[1]
    section = re.sub(r"<span style='white-space:nowrap'>(.*?)</span>", r"\1", section)  # the sheet keeps numbers whole
    assert "nvidia-smi name" in section and "lspci LnkSta" in section and "Peak allocated" in section
    assert "at the wall about" in section
    for card in build.cards:
        spec = default_catalog().cards[card.card]
        assert f"{spec.memory_visible_mib.value:,.0f} MiB" in section
    if len(build.cards) > 1:
        assert "topo -m" in section and "all_reduce_perf" in section


def test_exported_sheet_prints_it(tmp_path: Path, evaluate_shipped) -> None:  # type: ignore[no-untyped-def]
    from pypdf import PdfReader

    from configurator.report.pdf import ensure_app, export_pdf

    build, result = evaluate_shipped("default.yaml")
    ensure_app()
    export_pdf(tmp_path / "sheet.pdf", build, result, options=SheetOptions())
    text = " ".join(
        unicodedata.normalize(
            "NFKC", "\n".join(p.extract_text() for p in PdfReader(tmp_path / "sheet.pdf").pages)
        ).split()
    )
    # 139.2 = the H200 NVL pair's NVLink bridge busbw (specs/cards.yaml measured_busbw_gb_s 174) x
    # tolerances.NCCL_PASS_FRACTION 0.80: the pass threshold the engine predicts, as the sheet prints it
    assert "Acceptance: what the built machine must measure" in text and "≥ 139.2" in text


def test_each_job_says_which_step_band_it_has() -> None:
    """A DPO job falls back to the stated +-30 % assumption, a LoRA job has the runs' band: the footnote says each
    job's own (found in review: it printed the first job's for all)."""
    from configurator.engine import Build, evaluate

    jobs = [{"name": "DPO 1B", "model": "llama-3.2-1b", "method": "lora", "objective": "dpo", "cards": [1]},
            {"name": "LoRA 8B", "model": "llama-3.1-8b", "method": "lora", "cards": [3]}]  # fmt: skip
    placed = [{"slot": 1, "card": "h100-nvl"}, {"slot": 3, "card": "h100-nvl"}]
    build = Build.model_validate({"name": "two", "chassis": "generic-workstation-4", "jobs": jobs, "cards": placed})
    html = build_html(build, evaluate(build), default_catalog(), SheetOptions())
    section = html.split("Acceptance: what the built machine must measure", 1)[1]
    assert "DPO 1B: memory" in section and "step assumption: ±30 %" in section
    assert "LoRA 8B: memory" in section and "step 90% of 28 published runs not used to fit the model" in section


def test_step_band_reads_alike_everywhere(default_build, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The step time's band, low to high with an en dash and its unit, the same words on the sheet, the acceptance
    text, verify's expected figure and the report's band phrase: it was written three ways ('0.24-0.31', '0.24–0.31',
    '0.24–0.31 s')."""
    from configurator.engine.acceptance import collect, verify
    from configurator.engine.model.labels import band_words
    from configurator.present.job_words import step_range_words
    from configurator.report.acceptance_text import render_prediction

    build, result, prediction = default_build
    html = re.sub(r"<span style='white-space:nowrap'>(.*?)</span>", r"\1",
                  build_html(build, result, default_catalog(), SheetOptions()))  # fmt: skip
    text = render_prediction(prediction)
    expected = [c.expected for c in verify(prediction, collect([tmp_path])).checks if c.figure.endswith("step time")]
    assert len(expected) == len(prediction.jobs)
    for job, expect, said in zip(result.jobs, prediction.jobs, expected, strict=True):
        assert job.step_low_seconds is not None and job.step_high_seconds is not None
        words = band_words(job.step_low_seconds, job.step_high_seconds, "s")
        assert step_range_words(job) == words
        for where, shown in (("sheet", html), ("text", text), ("verify", said)):
            assert f"{expect.step_seconds:.2f} s ({words})" in shown, (where, words)
