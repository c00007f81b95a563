"""The "does not fit" advice is computed for the job, and following it makes the job fit."""

from __future__ import annotations

import pytest

from configurator.engine.calibration import band as calibration
from configurator.engine.evaluate import evaluate
from configurator.engine.model.build import Build, Job


def _build(card: str, **job: object) -> Build:
    return Build.model_validate(
        {"chassis": "generic-server-8", "cards": [{"slot": 1, "card": card}],
         "jobs": [{"name": "job", "cards": [1], **job}]}
    )  # fmt: skip


def _does_not_fit_message(build: Build) -> str:
    checks = [c for c in evaluate(build).checks if c.code == "JOB_DOES_NOT_FIT"]
    assert checks, "the case must not fit to test its advice"
    return checks[0].message


def test_advice_never_suggests_what_the_job_already_uses() -> None:
    # QLoRA with checkpointing and a chunked loss, far too long a sequence for the card
    msg = _does_not_fit_message(
        _build(
            "rtx-pro-6000-server",
            model="llama-3.3-70b",
            method="qlora",
            gradient_checkpointing=True,
            loss="chunked",
            sequence_length=131072,
        )
    )
    assert "QLoRA" not in msg.split("GB.", 1)[1]
    assert "checkpointing" not in msg and "in chunks" not in msg
    assert "sequences of at most" in msg


def test_seed_a_full_8b_on_rtx_pro_needs_8bit_adam_or_a_second_card() -> None:
    # seed A: "the RTX PRO 6000 needs a second card and FSDP ... or 8-bit Adam, at about 80 GB on one card"
    msg = _does_not_fit_message(_build("rtx-pro-6000-server", model="llama-3.1-8b", method="full"))
    # with the band the measured runs now give (-13 % .. +10.5 %), 8-bit Adam's 83 GB fits the 102.6 GB card
    assert "Smallest change that fits: 8-bit Adam (peak 8" in msg and "FSDP over" in msg


def test_a_huge_shortfall_is_not_answered_with_a_small_change() -> None:
    msg = _does_not_fit_message(_build("h200-nvl", model="llama-3.3-70b", method="full", sequence_length=32768))
    assert "short by 10" in msg  # about 1,027 GB short
    assert "turn on gradient checkpointing" not in msg and "8-bit Adam (peak" not in msg


CASES = [
    ("rtx-pro-6000-server", {"model": "llama-3.1-8b", "method": "full"}),
    ("h200-nvl", {"model": "llama-3.3-70b", "method": "lora"}),
    (
        "rtx-pro-6000-server",
        {
            "model": "qwen3-32b",
            "method": "lora",
            "micro_batch_size": 16,
            "sequence_length": 8192,
            "gradient_checkpointing": False,
        },
    ),
    ("h200-nvl", {"model": "llama-3.3-70b", "method": "full", "sequence_length": 32768}),
    (
        "rtx-pro-6000-server",
        {"model": "llama-3.3-70b", "method": "qlora", "sequence_length": 65536, "gradient_checkpointing": False},
    ),
]


@pytest.mark.parametrize(("card", "job"), CASES)
def test_following_the_advice_makes_the_job_fit(card: str, job: dict[str, object]) -> None:
    from configurator.catalog.loader import default_catalog
    from configurator.engine.checks.advice import fit_advice
    from configurator.engine.evaluate import _fits_clearly, resolve_model

    build = _build(card, **job)
    result = evaluate(build)
    row = result.jobs[0].cards[0]
    assert not row.fits
    model = resolve_model(build.jobs[0].model, default_catalog(), None)
    capacity = row.capacity_gb * 1e9
    advice = fit_advice(
        model,
        build.jobs[0],
        1,
        False,
        row.peak_reserved_gb * 1e9,
        capacity,
        lambda p, j: _fits_clearly(p, capacity=capacity, margin=0.05, band=calibration.band_for(j)),
    )
    assert advice.change is not None or advice.cards_needed is not None
    if advice.change is not None:
        fixed = build.model_copy(update={"jobs": [build.jobs[0].model_copy(update=advice.fields)]})
        fixed_row = evaluate(Build.model_validate(fixed.model_dump())).jobs[0].cards[0]
        assert fixed_row.status == "fits"
        assert fixed_row.peak_reserved_gb == pytest.approx(advice.peak_gb)
    if advice.cards_needed is not None:
        n = advice.cards_needed
        sharded = Build.model_validate({
            "chassis": "generic-server-8", "cards": [{"slot": s, "card": card} for s in range(1, n + 1)],
            "jobs": [{**build.jobs[0].model_dump(), "parallelism": "fsdp", "cards": list(range(1, n + 1))}],
        }) if n <= 8 else None  # fmt: skip
        if sharded is not None:
            rows = evaluate(sharded).jobs[0].cards
            assert all(r.status == "fits" for r in rows)
            if n > 2:  # one card fewer must not fit, or the advice was not the smallest
                fewer = sharded.model_copy(
                    update={"jobs": [sharded.jobs[0].model_copy(update={"cards": list(range(1, n))})]}
                )
                assert not all(r.status == "fits" for r in evaluate(fewer).jobs[0].cards)


def test_job_model_is_unchanged_by_advice() -> None:
    job = Job(name="job", model="llama-3.1-8b", method="full", cards=[1])
    before = job.model_dump()
    _does_not_fit_message(_build("rtx-pro-6000-server", **{k: v for k, v in before.items() if k != "name"}))
    assert job.model_dump() == before


def test_advice_skips_changes_the_model_cannot_run() -> None:
    # a full fine-tune whose (unused) LoRA targets name no module of Gemma 2: switching to LoRA is no option
    msg = _does_not_fit_message(
        _build("rtx-pro-6000-server", model="gemma-2-9b", method="full", lora={"targets": ["qkv_proj"]})
    )
    assert "LoRA instead" not in msg
