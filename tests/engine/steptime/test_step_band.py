"""The step time's band (specs/steptime-band.yaml): derived from the held-apart throughput runs, recomputed here,
and carried by every per-op job result, the reports and the acceptance kit in place of the old +-30 % assumption."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from configurator.catalog.errors import FileError
from configurator.catalog.loader import Catalog
from configurator.engine.acceptance.predict import predict
from configurator.engine.calibration.step_band import step_band_from
from configurator.engine.evaluate import evaluate
from configurator.engine.model.build import Build
from configurator.engine.model.result import JobResult
from configurator.engine.time.steptime.band import rounded_outward, step_band
from configurator.engine.time.steptime.validation import Scored, score
from configurator.present.job_words import step_range_words
from configurator.report.text import render


def test_the_band_is_what_the_held_apart_runs_give(catalog: Catalog) -> None:
    """The file holds what the rows give: a change to the rows or the model is followed by a change to the file."""
    band = step_band()
    d = step_band_from(score(catalog=catalog), band.method.coverage)
    assert (band.band.low, band.band.high) == rounded_outward(d.low, d.high)
    assert (band.band.runs, band.band.sources, band.band.seen) == (d.runs, d.sources, d.seen)
    assert (band.band.largest_source, band.band.largest_source_runs) == (d.largest_source, d.largest_source_runs)
    assert band.band.methods == d.methods and band.band.frameworks == d.frameworks


def _row(source: str, error: float, held: bool = True) -> Scored:
    return Scored(source, "h100-sxm", "m", "lora", 2048, 1, 1000.0, 1000.0 * (1 + error), held, True)


def test_the_band_leaves_the_calibration_rows_out_and_trims_the_farthest() -> None:
    rows = [_row("a", e) for e in (-0.1, 0.0, 0.1, 0.2, 3.0)] + [_row("cal", 5.0, held=False)]
    d = step_band_from(rows, 0.8)  # 4 of 5 held-apart rows: the +300 % one goes
    assert (round(d.low, 6), round(d.high, 6), d.runs, d.sources, d.largest_source_runs) == (0.9, 1.2, 5, 1, 5)
    assert rounded_outward(0.8412, 2.6330) == (0.84, 2.64)


def test_a_band_that_leaves_out_the_models_own_time_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "band.yaml"
    path.write_text("schema_version: 1\nmethod: {coverage: 0.9, pool: held-apart, derived_by: x}\n"
                    "band: {low: 1.1, high: 2.0, runs: 3, sources: 1, seen: 0, largest_source: a,\n"
                    "       largest_source_runs: 3, methods: [lora], frameworks: [hf-trainer]}\n")  # fmt: skip
    with pytest.raises((ValueError, FileError)):
        step_band.__wrapped__(path)


def test_a_per_op_job_carries_the_band_and_says_what_it_rests_on(one_job: Callable[..., JobResult]) -> None:
    job = one_job("h100-nvl", {"model": "llama-3.1-8b", "method": "lora", "attention": "flash"})
    band = step_band()
    assert job.step_seconds is not None and job.step_low_seconds is not None and job.step_high_seconds is not None
    assert job.step_low_seconds == pytest.approx(job.step_seconds * band.band.low)
    assert job.step_high_seconds == pytest.approx(job.step_seconds * band.band.high)
    assert job.step_band_basis == band.basis and "not used to fit the model" in job.step_band_basis
    # the wording is the fix: the 20 seen runs are named as such beside the 8 blind ones (was "23 scored blind")
    assert ("15 of the runs from universal-llm-trainer; 8 of them scored blind and 20 seen: scored before a later "
            "change to the model)") in job.step_band_basis  # fmt: skip
    assert step_range_words(job) == f"{job.step_low_seconds:.2f}–{job.step_high_seconds:.2f} s"


def test_a_job_of_a_kind_no_run_is_says_so(one_job: Callable[..., JobResult]) -> None:
    """The runs are BF16 full fine-tunes and LoRA on whole cards, timed with FlashAttention-2: a QLoRA job on a MIG
    slice is outside them, as is a job SDPA runs on cuDNN's attention (an H100), and its band says so beside the
    figures."""
    lora = one_job("h100-nvl", {"model": "llama-3.1-8b", "method": "lora", "attention": "flash"})
    assert lora.step_band_basis is not None and "none of the runs" not in lora.step_band_basis
    qlora = one_job("h100-nvl", {"model": "llama-3.1-8b", "method": "qlora", "attention": "flash"},
                    mig=["3g.47gb"], instance=0)  # fmt: skip
    assert qlora.step_band_basis is not None
    assert qlora.step_band_basis.endswith("none of the runs is QLoRA or on a MIG slice as this job is")
    sdpa = one_job("h100-nvl", {"model": "llama-3.1-8b", "method": "lora"})
    assert sdpa.compute is not None and sdpa.compute.attention_kernel == "cuDNN"
    assert (sdpa.step_band_basis or "").endswith("none of the runs is timed with cuDNN attention as this job is")
    rtx = one_job("rtx-pro-6000-ws", {"model": "llama-3.1-8b", "method": "lora"})
    assert rtx.compute is not None and rtx.compute.attention_kernel == "FlashAttention-2"
    assert "none of the runs" not in (rtx.step_band_basis or "")
    # FlashAttention-2 skipping a sliding window's tiles (ops.py local_attention_share): no run has a window
    windowed = one_job("h100-nvl", {"model": "gemma-3-12b", "method": "lora", "attention": "flash",
                                    "sequence_length": 8192})  # fmt: skip
    assert (windowed.step_band_basis or "").endswith(
        "none of the runs is a sliding-window model under FlashAttention-2 as this job is")
    inside = one_job("h100-nvl", {"model": "gemma-3-12b", "method": "lora", "attention": "flash",
                                  "sequence_length": 1024})  # fmt: skip
    assert "none of the runs" not in (inside.step_band_basis or "")  # the window spans the whole sequence
    # the runs are timed on two stack profiles (the band's frameworks): a torchtune job is on neither
    torchtune = one_job("rtx-pro-6000-ws", {"model": "llama-3.1-8b", "method": "lora", "framework": "torchtune"})
    assert (torchtune.step_band_basis or "").endswith("none of the runs is on torchtune as this job is")
    assert "timed on the Transformers Trainer / TRL + PEFT and torchtitan stacks" in (torchtune.step_band_basis or "")


def test_no_band_where_no_run_validates_the_time(one_job: Callable[..., JobResult]) -> None:
    """The utilisation model's constant and an RL step (generation, extra passes) have no measured run: no band."""
    util = one_job("h100-nvl", {"model": "llama-3.1-8b", "method": "lora"}, step_model="utilization")
    assert util.step_seconds is not None and util.step_low_seconds is None and util.step_band_basis is None
    assert step_range_words(util) == ""
    dpo = one_job("h100-nvl", {"model": "llama-3.2-1b", "method": "lora", "objective": "dpo"})
    assert dpo.step_seconds is not None and dpo.step_low_seconds is None


def test_the_report_and_the_acceptance_kit_use_the_band() -> None:
    job_spec = {"name": "8B LoRA", "model": "llama-3.1-8b", "method": "lora", "cards": [1]}
    build = Build.model_validate({"name": "band", "chassis": "generic-workstation-4",
                                  "cards": [{"slot": 1, "card": "h100-nvl"}], "jobs": [job_spec]})
    result = evaluate(build)
    job = result.jobs[0]
    assert f"(band {step_range_words(job, 3)}: {job.step_band_basis})" in render(result)
    assert "of it achieved, attention timed as cuDNN" in render(result)  # the kernel the H100's SDPA runs
    expect = predict(build, result).jobs[0]
    assert expect.step_low_s == pytest.approx(job.step_low_seconds)
    assert expect.step_high_s == pytest.approx(job.step_high_seconds)
    assert expect.step_source == job.step_band_basis
    assert expect.tokens_per_second is not None and expect.tokens_low is not None and expect.tokens_high is not None
    # tokens/s is inverse to the time: the band's slow end is the low tokens/s
    assert expect.tokens_low == pytest.approx(expect.tokens_per_second / step_band().band.high)
    assert expect.tokens_high == pytest.approx(expect.tokens_per_second / step_band().band.low)
