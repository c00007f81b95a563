"""The second batch of published runs for issue 12 (engine/calibration/runs_extra.py): each is traceable and
plausible."""

from __future__ import annotations

import re

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine.calibration import band as calibration
from configurator.engine.calibration.runs_extra import EXTRA_RUNS, GIB, PublishedRun

IDS = [r.label for r in EXTRA_RUNS]
# bytes per stored base weight: bf16, or NF4 (4 bits) for QLoRA
BASE_BYTES = {"full": 2.0, "lora": 2.0, "qlora": 0.5}


def _measured(run: PublishedRun) -> calibration.MeasuredRun:
    return next(r for r in calibration.NEW_RUNS + calibration.HELD_APART_RUNS if r.label == run.label)


@pytest.mark.parametrize("run", EXTRA_RUNS, ids=IDS)
def test_every_run_names_its_url_quote_and_counter(run: PublishedRun) -> None:
    assert re.match(r"https://\S+\.\S+", run.source), run.source
    assert run.counter in ("allocated", "reserved", "device")
    assert run.quote.strip(), f"{run.label}: no quoted line"


@pytest.mark.parametrize("run", EXTRA_RUNS, ids=IDS)
def test_the_quote_holds_the_figure(run: PublishedRun) -> None:
    """The stored bytes are the quoted figure in its own unit: bytes, GiB, or a card's size in GB (as GiB)."""
    if run.counter == "allocated":  # the CSV prints bytes, then model, num_gpus, peft_method, batch
        assert f",{int(run.measured_bytes)}," in run.quote
        peft = "" if run.job.method == "full" else "lora"
        assert run.quote.endswith(f",{run.shards},{peft},{run.job.micro_batch_size},")
    elif run.counter == "reserved":  # max length | samples/s | GiB with two decimals
        assert run.quote.endswith(f" | {run.measured_bytes / GIB:.2f}")
        assert f"{run.job.sequence_length} | " in run.quote
    else:  # a capacity bound: card size | Unsloth's length | the baseline's length
        assert run.quote.startswith(f"{run.measured_bytes / GIB:.0f} GB | ")
        assert run.quote.endswith(f" | {run.job.sequence_length:,}")


@pytest.mark.parametrize("run", EXTRA_RUNS, ids=IDS)
def test_every_value_is_plausible(run: PublishedRun) -> None:
    """Above the weights each card must hold, below the largest card: a GB / GiB or per-card slip fails here."""
    model = default_catalog().model(run.model_id)
    weights = model.total_params * BASE_BYTES[run.job.method] / run.shards
    assert weights < run.measured_bytes < 200e9, f"{run.label}: {run.measured_bytes / 1e9:.2f} GB"
    assert (run.shards > 1) == (run.job.parallelism == "fsdp")


def test_labels_are_unique_and_reach_the_calibration() -> None:
    assert len(set(IDS)) == len(IDS)
    for run in EXTRA_RUNS:
        measured = _measured(run)
        assert measured.measured_bytes == run.measured_bytes and measured.counter == run.counter


def test_the_sources_are_new_to_the_calibration() -> None:
    """No source of this batch was already held (a repository's documents are one source)."""
    extra = {r.label for r in EXTRA_RUNS}
    held = {calibration.source_group(r)
            for r in calibration.MEASURED_RUNS + calibration.HELD_OUT_RUNS + calibration.NEW_RUNS
            + calibration.HELD_APART_RUNS if r.label not in extra}  # fmt: skip
    mine = {calibration.source_group(_measured(r)) for r in EXTRA_RUNS}
    assert len(mine) == 3 and not mine & held


def test_the_batch_meets_the_issue() -> None:
    """Issue 12: with the first batch (11 runs from 5 sources), at least 15 runs from new sources, at least 3
    sharded over several GPUs, at least 3 at 8k tokens or more."""
    first = 11
    assert first + len(EXTRA_RUNS) >= 15
    assert sum(r.shards > 1 for r in EXTRA_RUNS) >= 3
    assert sum(r.job.sequence_length >= 8192 for r in EXTRA_RUNS) >= 3


def test_held_apart_runs_shape_nothing() -> None:
    """A held-apart run is in no fit and no band; the others are in the cross-validated pool."""
    pool = {r.label for r in calibration.cv_runs()}
    for run in EXTRA_RUNS:
        assert (run.label in pool) != run.held_apart, run.label
        assert (run.label in {r.label for r in calibration.HELD_APART_RUNS}) == run.held_apart
