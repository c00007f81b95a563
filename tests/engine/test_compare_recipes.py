"""Issues 12 and 14, Qt-free: the comparison shows each side's stack and the peak's phase and band; one job under
two recipes (precision x base weights) shows memory per card, step time and its difference, and the rule's source.
"""

from __future__ import annotations

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine import evaluate
from configurator.engine.compare import (
    UNKNOWN,
    RecipeChoice,
    compare,
    compare_recipes,
    job_cards,
    recipe_options,
    with_recipe,
)
from configurator.engine.editing import update_job
from configurator.engine.model.buildfile import load_build
from tests.paths import BUILDS

CAT = default_catalog()
H100 = load_build(BUILDS / "seed-30b-lora-h100-sxm.yaml")
RTX = load_build(BUILDS / "seed-30b-lora-rtx-pro-6000-server.yaml")
FP8_BASE, BF16_BASE = RecipeChoice("mixed-bf16", "fp8"), RecipeChoice("mixed-bf16", "bf16")


def rows_of(rows, job=None):  # type: ignore[no-untyped-def]
    return {r.what: r for r in rows if r.job == job}


def test_compare_shows_each_side_stack_peak_phase_and_band() -> None:
    """Issue 12: framework, sharding, offload and loss per side, and the phase and band of the peak (the old
    comparison had headroom, step time and fit only)."""
    left = load_build(BUILDS / "default.yaml")
    right = update_job(left, 0, framework="torchtune", fsdp_version=1, offload="cpu")
    ra, rb = evaluate(left), evaluate(right)
    rows = rows_of(compare(ra, rb), left.jobs[0].name)
    assert (rows["framework"].left, rows["framework"].right) == ("Transformers Trainer / TRL + PEFT", "torchtune")
    assert (rows["sharding"].left, rows["sharding"].right) == ("FSDP2", "FSDP1")
    assert (rows["offload"].left, rows["offload"].right) == ("none", "cpu")
    assert rows["loss"].left == ra.jobs[0].loss and rows["loss"].right == rb.jobs[0].loss == "chunked"
    tight = min(ra.jobs[0].cards, key=lambda c: c.headroom_gb)
    assert rows["peak phase"].left == tight.peak_phase
    assert rows["peak band"].left == f"{tight.band_low_gb:,.1f}–{tight.band_high_gb:,.1f} GB"
    assert all(rows[w].better is None for w in ("framework", "sharding", "offload", "loss", "peak band"))


def test_recipe_options_follow_the_cards() -> None:
    """Only what the job's cards run is open: MXFP8 and NVFP4 refused on an H100 (capability 9.0) with the
    rule's source; an FP8 base is a LoRA option, open on the H100 and on the RTX PRO 6000."""
    opts = {(o.choice.precision, o.choice.base_weights): o.refused
            for o in recipe_options(H100.jobs[0], job_cards(H100, H100.jobs[0], CAT.cards))}  # fmt: skip
    assert opts[("mixed-bf16", "fp8")] is None and opts[("fp8-delayed", "bf16")] is None
    assert opts[("mxfp8", "bf16")] and "9.0" in opts[("mxfp8", "bf16")] and "quantization.py" in opts[("mxfp8", "bf16")]
    rtx = {(o.choice.precision, o.choice.base_weights): o.refused
           for o in recipe_options(RTX.jobs[0], job_cards(RTX, RTX.jobs[0], CAT.cards))}  # fmt: skip
    assert rtx[("mixed-bf16", "fp8")] is None and rtx[("nvfp4", "bf16")] is None
    qlora = load_build(BUILDS / "default.yaml").jobs[1]
    assert {o.choice.base_weights for o in recipe_options(qlora, [CAT.cards["rtx-pro-6000-server"]])} == {"bf16"}


def test_an_option_is_refused_exactly_when_evaluate_refuses_it() -> None:
    """The pickers and the engine's PRECISION_UNSUPPORTED check agree, for every option on three cards."""
    default = load_build(BUILDS / "default.yaml")
    for build in (H100, RTX, default):
        job = build.jobs[0]
        for o in recipe_options(job, job_cards(build, job, CAT.cards)):
            result = evaluate(with_recipe(build, job.name, o.choice))
            refused = any(c.code == "PRECISION_UNSUPPORTED" and c.job == job.name for c in result.checks)
            assert refused == (o.refused is not None), (build.name, o.choice)


def test_seed_b_fp8_base_on_h100_against_bf16_on_rtx_pro_6000() -> None:
    """Seed B: the 30B LoRA 'does not fit comfortably' on an 80 GB H100 and 'needs the base in FP8'; on the RTX
    PRO 6000 (96 GB) the BF16 base fits. Memory per card, the rule's source, and the unknown step time."""
    ra = evaluate(with_recipe(H100, "30B LoRA", FP8_BASE))
    rb = evaluate(with_recipe(RTX, "30B LoRA", BF16_BASE))
    rows = rows_of(compare_recipes("30B LoRA", ra, rb, FP8_BASE, BF16_BASE), "30B LoRA")
    a, b = ra.jobs[0].cards[0], rb.jobs[0].cards[0]
    assert rows["recipe"].left == "mixed-bf16, FP8 base" and rows["recipe"].right == "mixed-bf16, BF16 base"
    assert "H100" in rows["card"].left and "RTX PRO 6000" in rows["card"].right
    assert rows["peak reserved"].left == f"{a.peak_reserved_gb:,.1f} GB" and a.peak_reserved_gb < b.peak_reserved_gb
    assert rows["peak reserved"].delta.startswith(f"{b.peak_reserved_gb - a.peak_reserved_gb:+,.1f} GB")
    assert rows["headroom"].right == f"{b.headroom_gb:,.1f} GB"
    assert rows["peak band"].left == f"{a.band_low_gb:,.1f}–{a.band_high_gb:,.1f} GB"
    assert rows["peak phase"].left == a.peak_phase
    assert "_compute_fp8_support" in rows["support source"].left  # the FP8 base's rule (TE quantization.py)
    assert "no low-precision rule" in rows["support source"].right
    # a parameter-count-only model is timed on its dense FLOPs, attention left out: a lower bound on both sides,
    # and said so (it read "unknown" here while the service planner timed the same job)
    sa, sb = ra.jobs[0].step_seconds, rb.jobs[0].step_seconds
    assert sa is not None and sb is not None and ra.jobs[0].compute and ra.jobs[0].compute.lower_bound
    step = rows["step time"]
    assert (step.left, step.right) == (f"≥ {sa:.2f} s", f"≥ {sb:.2f} s"), (step.left, step.right)
    assert rows["fit"].left == ra.jobs[0].status and ra.jobs[0].status != "does-not-fit"


def test_seed_b_pair_as_two_builds() -> None:
    """The seed B files side by side: the 80 GB card is tight, the 96 GB one fits with the larger headroom."""
    ra, rb = evaluate(H100), evaluate(RTX)
    rows = rows_of(compare(ra, rb), "30B LoRA")
    assert rows["fit"].left == "tight" and rows["fit"].right == "fits" and rows["fit"].better == "right"
    head = rows["headroom (GB, smallest card)"]
    assert head.better == "right"
    assert head.delta.startswith(f"{rb.jobs[0].cards[0].headroom_gb - ra.jobs[0].cards[0].headroom_gb:+,.1f} GB")
    # both timed as lower bounds (parameter count only): the H100's is the shorter
    assert rows["step time"].left.startswith("≥ ") and rows["step time"].better == "left"


def test_two_recipes_of_one_build_give_the_step_time_difference() -> None:
    """The default build's 70B LoRA on H200 NVL, BF16 against FP8 current scaling: per card rows, and the step
    time difference where both are known (or 'unknown' when the engine has no measured speed-up)."""
    build = load_build(BUILDS / "default.yaml")
    name = build.jobs[0].name
    fp8 = RecipeChoice("fp8-current", "bf16")
    ra, rb = evaluate(with_recipe(build, name, BF16_BASE)), evaluate(with_recipe(build, name, fp8))
    rows = rows_of(compare_recipes(name, ra, rb, BF16_BASE, fp8), name)
    assert {"card 1: peak reserved", "card 2: peak reserved", "card 2: headroom"} <= set(rows)
    sa, sb = ra.jobs[0].step_seconds, rb.jobs[0].step_seconds
    assert sa is not None
    if sb is None:
        assert rows["step time"].right == UNKNOWN and rows["step time"].delta == UNKNOWN
    else:
        assert rows["step time"].delta.startswith(f"{sb - sa:+.2f} s")
    assert rows["recipe in effect"].right == "fp8-current"


def test_with_recipe_leaves_other_jobs_and_refuses_bad_words() -> None:
    build = load_build(BUILDS / "default.yaml")
    after = with_recipe(build, build.jobs[1].name, RecipeChoice("fp8-delayed", "bf16"))
    assert after.jobs[0] == build.jobs[0] and after.jobs[1].precision == "fp8-delayed"
    assert with_recipe(build, "no such job", FP8_BASE) is build
    with pytest.raises(ValueError):
        with_recipe(build, build.jobs[0].name, RecipeChoice("fp16", "bf16"))
