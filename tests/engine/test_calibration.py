"""The memory model against published peak-memory measurements (shared/reference/measured-runs.md)."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine import evaluate
from configurator.engine.calibration import band as calibration
from configurator.engine.calibration.band import GIB, HELD_OUT_RUNS, MEASURED_RUNS, model_error
from configurator.engine.memory.estimate import memory_for_card
from configurator.engine.model.buildfile import load_build
from configurator.report.sheet import SheetOptions, build_html

TOLERANCE = 0.15


def _error(run: calibration.MeasuredRun) -> float:
    return model_error(run, default_catalog().model(run.model_id))


@pytest.mark.parametrize("run", MEASURED_RUNS + HELD_OUT_RUNS, ids=[r.label for r in MEASURED_RUNS + HELD_OUT_RUNS])
def test_within_15_percent(run: calibration.MeasuredRun) -> None:
    """Each case lands within 15 % of its measured peak, in the counter that case measured, under its stack."""
    err = _error(run)
    assert abs(err) <= TOLERANCE, f"{run.label}: {err:+.1%} ({run.source})"


def test_median_error_within_7_percent() -> None:
    errors = sorted(abs(_error(r)) for r in MEASURED_RUNS + HELD_OUT_RUNS)
    assert statistics.median(errors) <= 0.07


# Held-out runs outside the in-sample spread, and why; the test fails when one comes inside (drop it here).
HELD_OUT_OUTSIDE_THE_SPREAD = {
    # 10 x 2048 on a 24 GiB card: the model's pool (23.96 GiB) passes the card, so it is capped at the card less
    # the context (calibration.MeasuredRun.device_bytes); the allocator, releasing its cache and retrying, stops
    # under that (20.97 measured, the pool before a 2.4 GiB logits-sized request failed)
    "Answer.AI QLoRA 10x2048",
}


@pytest.mark.parametrize("run", HELD_OUT_RUNS, ids=[r.label for r in HELD_OUT_RUNS])
def test_held_out_runs_within_the_band(run: calibration.MeasuredRun) -> None:
    """Runs no constant was fitted to land inside the spread of the fitted runs, but the named ones."""
    err = _error(run)
    inside = calibration.MODEL_ERROR_MIN <= err <= calibration.MODEL_ERROR_MAX
    assert inside != (run.label in HELD_OUT_OUTSIDE_THE_SPREAD), f"{run.label}: {err:+.1%}"


def test_band_matches_the_spread() -> None:
    """The uncertainty band reported around each peak is the spread of the model's errors on these runs."""
    errors = [_error(r) for r in MEASURED_RUNS]
    assert calibration.MODEL_ERROR_MIN <= min(errors) < calibration.MODEL_ERROR_MIN + 0.02
    assert calibration.MODEL_ERROR_MAX - 0.02 < max(errors) <= calibration.MODEL_ERROR_MAX
    low, high = calibration.uncertainty_band(100.0)
    assert low < 100.0 < high


def test_every_measured_counter_is_named() -> None:
    """Each case says which counter it measured, so the comparison is like for like."""
    assert {r.counter for r in MEASURED_RUNS} == {"allocated", "reserved"}
    assert len(MEASURED_RUNS) == 18


def _answerai(label: str) -> calibration.MeasuredRun:
    return next(r for r in MEASURED_RUNS + HELD_OUT_RUNS if r.label == label)


def test_fsdp_setup_pool_matches_the_published_one() -> None:
    """benchmarks_03_2024.md: 'about 3.72GiB (see reserved_after_model_wrap)' for the QLoRA 1x512 command."""
    run = _answerai("Answer.AI QLoRA 1x512")
    mem = memory_for_card(default_catalog().model(run.model_id), run.job, shards=run.shards)
    assert mem.setup_pool / calibration.FSDP_SETUP_POOL_MEASURED == pytest.approx(1.0, abs=0.02)


def test_short_fsdp_runs_are_held_up_by_the_setup_pool() -> None:
    """Answer.AI: reserved 4.98 GiB at 512 tokens and 5.21 at 2048 (LoRA: 10.24 and 10.22) while allocated
    grows 8.28 -> 9.16 GiB: a floor, not the step. The model says the set-up pool binds at 512, so the
    reserved figure grows much less than allocated does over the longer sequence."""
    model = default_catalog().model("llama-2-7b")
    for short, long in (("Answer.AI QLoRA 1x512", "Answer.AI QLoRA 1x2048"),
                        ("Answer.AI LoRA 1x512", "Answer.AI LoRA 1x2048")):  # fmt: skip
        a, b = (_answerai(label) for label in (short, long))
        mem_a = memory_for_card(model, a.job, shards=2)
        mem_b = memory_for_card(model, b.job, shards=2)
        assert mem_a.setup_bound and not mem_b.setup_bound
        allocated_growth = mem_b.peak_allocated - mem_a.peak_allocated
        assert allocated_growth > 0.5 * GIB
        # (the model's set-up pool sits 7-8 % under the measured one at 512, so its reserved figure still grows
        # more than the measured one, which stays flat)
        assert mem_b.allocator_reserved - mem_a.allocator_reserved < 0.8 * allocated_growth


def test_setup_pool_only_with_fsdp() -> None:
    """One card and DDP replicas keep no FSDP set-up pool; a fixed activation budget keeps it (set-up comes
    before any activation), and the pool then still floors the reserved figure."""
    model = default_catalog().model("llama-2-7b")
    run = _answerai("Answer.AI QLoRA 1x512")
    assert memory_for_card(model, run.job, shards=1).setup_pool == 0
    assert memory_for_card(model, run.job, shards=1, ddp=True).setup_pool == 0
    sized = memory_for_card(model, run.job, shards=2)
    fixed = memory_for_card(model, run.job.model_copy(update={"activation_memory_gb": 0.5}), shards=2)
    assert fixed.setup_pool == pytest.approx(sized.setup_pool)
    assert fixed.setup_bound and fixed.allocator_reserved >= fixed.setup_pool


# ---------------------------------------------------------------- cross-validated band


@pytest.fixture(scope="module")
def cv_scores() -> list[calibration.CvScore]:
    catalog = default_catalog()
    return calibration.cross_validate({r.model_id: catalog.model(r.model_id) for r in calibration.cv_runs()})


def test_every_run_is_scored_out_of_its_source(cv_scores: list[calibration.CvScore]) -> None:
    """Each run is scored once, by constants fitted without any run of its source: refitting on the other
    sources alone gives the same constants."""
    assert len(cv_scores) == len(calibration.cv_runs())
    catalog = default_catalog()
    models = {r.model_id: catalog.model(r.model_id) for r in calibration.cv_runs()}
    score = cv_scores[0]
    others = tuple(r for r in calibration.cv_runs()
                   if calibration.source_group(r) != calibration.source_group(score.run))  # fmt: skip
    group = calibration.source_group(score.run)
    changed = tuple(r for r in calibration.cv_runs() if calibration.source_group(r) == group)
    # doubling the held-out source's measurements must not move the constants it is scored with
    doubled = tuple(calibration.MeasuredRun(r.label, r.source, r.model_id, r.job, r.shards, r.counter,
                                            2 * r.measured_bytes) for r in changed)  # fmt: skip
    again = calibration.cross_validate(models, others + doubled)
    mine = next(s for s in again if s.run.label == score.run.label)
    assert mine.constants == score.constants


def test_printed_bands_are_the_cross_validated_ones(cv_scores: list[calibration.CvScore]) -> None:
    """CV_BANDS (what every verdict prints) is bands_from(cross_validate(...)), rounded outward to 0.5 %."""
    bands = calibration.bands_from(cv_scores)
    expected = {k: (math.floor(b.err_min * 200) / 200, math.ceil(b.err_max * 200) / 200) for k, b in bands.items()}
    assert set(calibration.CV_BANDS) == set(expected)
    for key, (low, high) in expected.items():
        assert calibration.CV_BANDS[key] == (pytest.approx(low), pytest.approx(high)), key


def test_band_covers_90_percent_of_runs(cv_scores: list[calibration.CvScore]) -> None:
    """Every run scored out of its source; at least 90 % land inside the band printed for a job like theirs."""
    bands = calibration.bands_from(cv_scores)
    picked = [(calibration.pick_band(bands, s.run.job), s.error) for s in cv_scores]
    inside = [band.err_min <= error <= band.err_max for band, error in picked]
    assert sum(inside) / len(inside) >= 0.90, f"{sum(inside)} of {len(inside)}"


# The runs outside the band printed for their kind of job, and why (the band holds 92 % of each pool, so the
# few worst misses stay outside and are named here rather than widening every verdict).
OUTSIDE_THE_BAND = {
    # FSDP1 set-up pool: 3.3 unit copies fitted on this source alone. Out of it the model takes the 2 copies the
    # code gives (FSDP1_CODE_UNIT_COPIES) and misses by -18 %: the rest is how the allocator places each unit's
    # long-lived shard among the blocks earlier units freed, which no code reading sizes
    "Answer.AI QLoRA 1x512",
}


def test_printed_band_covers_every_run_but_the_named_ones(cv_scores: list[calibration.CvScore]) -> None:
    outside = set()
    for score in cv_scores:
        band = calibration.band_for(score.run.job)
        if "no measured" in band.basis:
            continue
        if not band.err_min <= score.error <= band.err_max:
            outside.add(score.run.label)
    assert outside == OUTSIDE_THE_BAND


def test_band_is_wider_for_stacks_without_a_measured_run() -> None:
    from configurator.engine.model.build import Job

    fsdp1 = Job(name="a", model="x", framework="fsdp-qlora", parallelism="fsdp", fsdp_version=1)
    measured = calibration.band_for(fsdp1)
    fsdp2 = calibration.band_for(Job(name="a", model="x", framework="fsdp-qlora", parallelism="fsdp"))
    unseen = calibration.band_for(Job(name="a", model="x", framework="torchtitan"))
    family = calibration.band_for(Job(name="a", model="x", framework="hf-trainer"))  # LoRA on one card: measured
    assert fsdp2.err_max - fsdp2.err_min > measured.err_max - measured.err_min
    assert unseen.err_max - unseen.err_min > family.err_max - family.err_min


# ---------------------------------------------------------------- runs collected for issue 12

# New runs the model misses by more than 15 %, with what reading the code suggests; the test fails when one of
# them comes within 15 % (remove it here) or another run leaves the 15 % (explain it here, or fix the model).
# None since the torchtune README "Memory and training speed" rows are read as the counter they name, none
# ("unnamed"): scored against reserved, as before, they missed by +35 % (8B QLoRA), +20 % (8B LoRA) and +20 %
# (70B LoRA); against allocated they are at +14.7 %, +11.1 % and +11.1 %. Those rows ran with torch.compile,
# which the engine does not model, and the same table lists the same configs on a 48 GB A6000 at 30.3 GiB (LoRA)
# and 37.4 GiB (full) against 16.2 and 18.9 GiB on the 4090: one config cannot read both, so the 4090 rows ran
# with settings the README does not state (test_readme_4090_rows_sit_under_their_stated_floor).
KNOWN_MISSES: dict[str, str] = {}


def _run(label: str) -> calibration.MeasuredRun:
    return next(r for r in calibration.cv_runs() + calibration.HELD_APART_RUNS if r.label == label)


def test_an_unnamed_counter_is_met_anywhere_from_allocated_to_reserved() -> None:
    """A figure that does not say which counter it is meets the model anywhere between the model's allocated peak
    and its reserved pool; outside that range it is scored against the nearer end, never the farther."""
    run = _run("torchtune Llama 3.1 70B LoRA, FSDP2 x8")
    assert run.counter == "unnamed"
    model = default_catalog().model(run.model_id)
    mem = memory_for_card(model, run.job, shards=run.shards)
    low, high = mem.peak_allocated, mem.allocator_reserved
    assert low < high
    for measured, expected in ((0.5 * low, low), ((low + high) / 2, (low + high) / 2), (2 * high, high)):
        probe = calibration.MeasuredRun(run.label, run.source, run.model_id, run.job, run.shards, "unnamed",
                                        measured)  # fmt: skip
        assert calibration.predicted_bytes(probe, model) == pytest.approx(expected)
    # the published figure lies under the allocated peak: scored against it, +11 %, not against reserved (+20 %)
    assert run.measured_bytes < low
    assert _error(run) == pytest.approx(low / run.measured_bytes - 1)
    assert 0.10 < _error(run) < 0.12 and high / run.measured_bytes - 1 > 0.15


def test_readme_4090_rows_sit_under_their_stated_floor() -> None:
    """The 8B LoRA 4090 row (16.2 GiB) is below what its stated settings must hold at once at the start of backward:
    the bf16 weights, the layer inputs activation checkpointing keeps, and the bf16 logits the loss reads. So the
    row ran with something the README does not say (activation offloading would move the layer inputs off)."""
    run = _run("torchtune Llama 3.1 8B LoRA qv, 4090, 2x2048")
    spec = default_catalog().model(run.model_id)
    tokens = run.job.sequence_length * run.job.micro_batch_size
    assert spec.num_layers and spec.hidden_size and spec.vocab_size
    weights = spec.total_params * 2
    layer_inputs = spec.num_layers * tokens * spec.hidden_size * 2
    logits = tokens * spec.vocab_size * 2
    assert weights + layer_inputs + logits > run.measured_bytes * 1.04
    assert weights + logits < run.measured_bytes  # without the layer inputs the figure is reachable


@pytest.mark.parametrize("run", calibration.NEW_RUNS + calibration.HELD_APART_RUNS,
                         ids=[r.label for r in calibration.NEW_RUNS + calibration.HELD_APART_RUNS])  # fmt: skip
def test_new_runs_within_15_percent_or_a_named_miss(run: calibration.MeasuredRun) -> None:
    err = _error(run)
    if run.label in KNOWN_MISSES:
        assert abs(err) > TOLERANCE, f"{run.label} now lands at {err:+.1%}: drop it from KNOWN_MISSES"
    else:
        assert abs(err) <= TOLERANCE, f"{run.label}: {err:+.1%} ({run.source})"


def test_held_apart_runs_shape_nothing(cv_scores: list[calibration.CvScore]) -> None:
    """The held-apart runs are in no fit and in no band."""
    held = {r.label for r in calibration.HELD_APART_RUNS}
    assert held and not held & {s.run.label for s in cv_scores}
    assert not held & {r.label for r in calibration.cv_runs()}


def test_the_card_caps_the_pool() -> None:
    """A pool past the card cannot be mapped: the allocator frees its cache and retries, so the reserved figure a
    run reports stays under the card less the CUDA context, and never under the live peak."""
    run = _answerai("Answer.AI QLoRA 10x2048")
    model = default_catalog().model(run.model_id)
    mem = memory_for_card(model, run.job, shards=run.shards)
    assert run.device_bytes == calibration.RTX_3090_BYTES
    assert mem.allocator_reserved > run.device_bytes - mem.cuda_context  # the uncapped pool passes the card
    assert calibration.predicted_bytes(run, model) == pytest.approx(run.device_bytes - mem.cuda_context)
    tiny = calibration.MeasuredRun(run.label, run.source, run.model_id, run.job, run.shards, "reserved",
                                   run.measured_bytes, 1 * GIB)  # fmt: skip
    assert calibration.predicted_bytes(tiny, model) == pytest.approx(mem.peak_allocated)


def test_answerai_loop_holds_fp32_logits() -> None:
    """train.py keeps `output` through backward, and the Transformers of its time returned fp32 logits."""
    from configurator.engine.memory.activations import activation_breakdown
    from configurator.engine.model.stack import PROFILES

    assert PROFILES["fsdp-qlora"].held_logits_fp32 and not PROFILES["litgpt"].held_logits_fp32
    model = default_catalog().model("llama-2-7b")
    run = _answerai("Answer.AI LoRA 1x2048")
    act = activation_breakdown(model, run.job)
    assert model.vocab_size
    assert act.held_logits_bytes == pytest.approx(2048 * model.vocab_size * 4)


def test_the_sheet_says_what_the_band_rests_on() -> None:
    """The build sheet's assumptions name the cross-validated runs and the held-apart ones with the model's own
    figures (it used to print the 18 fitted runs' in-sample spread as "the band printed with each peak")."""
    build = load_build(Path(__file__).resolve().parents[2] / "resources" / "builds" / "default.yaml")
    html = build_html(build, evaluate(build), default_catalog(), SheetOptions())
    c = calibration.summary()
    assert c.runs == len(calibration.cv_runs()) and c.held_apart == len(calibration.HELD_APART_RUNS)
    assert c.within_15 == c.runs and c.held_apart_within_15 == c.held_apart
    assert f"Checked against {c.runs} published peak-memory runs from {c.sources} projects" in html
    assert f"{c.held_apart} further runs from {c.held_apart_sources} projects" in html
    assert "that spread is the band printed" not in html
    assert c.median_abs_error <= 0.07


def test_every_run_the_project_holds_is_within_15_percent_and_the_median_within_7() -> None:
    """Issue 12's bar, over every run at once: the cross-validated ones and the held-apart ones, each in the counter
    it measured, with the shipped constants."""
    runs = calibration.cv_runs() + calibration.HELD_APART_RUNS
    errors = {r.label: _error(r) for r in runs}
    assert len(errors) == len(runs) >= 55
    outside = {label: f"{e:+.1%}" for label, e in errors.items() if abs(e) > TOLERANCE}
    assert not outside, outside
    assert statistics.median(abs(e) for e in errors.values()) <= 0.07
