"""Low-precision training per card (engine/lowprecision/checks.py): support by compute capability and software, the
memory each recipe keeps, the measured step speed-ups, and the checks a job gets.

Sources of the expected values are named at each table; the rules themselves cite Transformer Engine's
transformer_engine/pytorch/quantization.py (main at d0067d0, 2.20.0.dev0) and torchao 0.19.0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.catalog.units import GB
from configurator.engine import Build, evaluate
from configurator.engine.lowprecision.checks import (
    RECIPES,
    default_fp8_recipe,
    support,
    supported_recipes,
)
from configurator.engine.model.buildfile import load_build
from tests.helpers import single_job

CARDS = default_catalog().cards

# ---- support: the seed statements as a table ----------------------------------------------------------------
# Seed A: "Both cards train in FP8 through NVIDIA's Transformer Engine ... MXFP8 and NVFP4 are listed for
# Blackwell GPUs only, so neither is an option on the H200 NVL; on the RTX PRO 6000 only NVFP4 is, because
# Transformer Engine's own support check still refuses MXFP8 on compute capability 12.0 and above, 'not
# supported on 12.0+ architectures yet'." And Ampere has no FP8: nothing below FP8 on A100.
SEED_SUPPORT = [
    # card, recipe, allowed, words of the reason (refusals: TE's own message)
    ("h200-nvl", "fp8-delayed", True, ""),
    ("h200-nvl", "fp8-current", True, ""),
    ("rtx-pro-6000-ws", "fp8-delayed", True, ""),
    ("rtx-pro-6000-ws", "fp8-current", True, ""),
    ("rtx-pro-6000-server", "fp8-current", True, ""),
    ("h200-nvl", "mxfp8", False, "Device compute capability 10.0 or higher required for MXFP8 execution."),
    ("h200-nvl", "nvfp4", False, "Device compute capability 10.0 or higher required for NVFP4 execution."),
    ("rtx-pro-6000-ws", "mxfp8", False, "MXFP8 (for all gemm layouts) is not supported on 12.0+ architectures yet."),
    ("rtx-pro-6000-server", "mxfp8", False, "not supported on 12.0+ architectures yet"),
    ("rtx-pro-6000-ws", "nvfp4", True, ""),
    ("rtx-pro-6000-server", "nvfp4", True, ""),
    ("a100-80gb-pcie", "fp8-delayed", False, "Device compute capability 8.9 or higher required for FP8 execution."),
    ("a100-80gb-pcie", "fp8-current", False, "8.9 or higher required for FP8"),
    ("a100-80gb-pcie", "fp8-block", False, "requires compute capability 9.0 or higher and CUDA >= 12.9"),
    ("a100-80gb-pcie", "mxfp8", False, "10.0 or higher required for MXFP8"),
    ("a100-80gb-pcie", "nvfp4", False, "10.0 or higher required for NVFP4"),
    ("b200", "mxfp8", True, ""),
    ("b200", "nvfp4", True, ""),
    ("l40s", "fp8-current", True, ""),
    ("l40s", "mxfp8", False, "10.0 or higher"),
]


@pytest.mark.parametrize(("card", "recipe", "allowed", "reason"), SEED_SUPPORT)
def test_seed_support_statements(card: str, recipe: str, allowed: bool, reason: str) -> None:
    s = support(CARDS[card], recipe)  # type: ignore[arg-type]
    assert s.allowed is allowed
    assert reason in s.reason
    assert "quantization.py" in s.source and "_compute_" in s.source  # file and function of the check


def test_nothing_below_fp8_on_a100() -> None:
    assert supported_recipes([CARDS["a100-80gb-pcie"]]) == []


def test_nvfp4_on_sm120_passes_the_code_but_says_the_docs_disagree() -> None:
    """TE's _compute_nvfp4_support gates on >= 10.0, but nvfp4.rst lists training for SM 10.0 / 10.3 only."""
    on_rtx, on_b200 = support(CARDS["rtx-pro-6000-ws"], "nvfp4"), support(CARDS["b200"], "nvfp4")
    assert on_rtx.allowed and "SM 10.0 and SM 10.3 only" in on_rtx.note
    assert on_b200.allowed and on_b200.note == ""


@pytest.mark.parametrize(
    ("card", "default"),
    # TE get_default_fp8_recipe: MXFP8 where supported, Float8CurrentScaling on >= 12.0, else DelayedScaling
    [("h200-nvl", "fp8-delayed"), ("l40s", "fp8-delayed"), ("b200", "mxfp8"), ("rtx-pro-6000-ws", "fp8-current")],
)
def test_default_fp8_recipe(card: str, default: str) -> None:
    assert default_fp8_recipe(CARDS[card].capability) == default


@pytest.mark.parametrize(
    ("card", "recipe", "version", "allowed"),
    [
        ("rtx-pro-6000-ws", "mxfp8", (2, 5), True),  # before #1939 (TE 2.6) the gate was only >= 10.0
        ("rtx-pro-6000-ws", "mxfp8", (2, 6), False),
        ("rtx-pro-6000-ws", "nvfp4", (2, 8), False),  # NVFP4 recipe arrives in TE 2.9 (#2177)
        ("b200", "fp8-block", (2, 8), False),  # TE 2.3-2.8: block scaling on Hopper only
        ("b200", "fp8-block", (2, 9), True),  # #2157 (TE 2.9): Blackwell too
        ("h200-nvl", "fp8-current", (2, 1), False),  # Float8CurrentScaling first in TE 2.2 (#1471)
    ],
)
def test_support_by_te_version(card: str, recipe: str, version: tuple[int, int], allowed: bool) -> None:
    assert support(CARDS[card], recipe, version=version).allowed is allowed  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("card", "recipe", "allowed"),
    [
        ("h200-nvl", "fp8-current", True),  # torchao float8 tensorwise
        ("h200-nvl", "fp8-delayed", False),  # torchao has dynamic scaling only
        ("a100-80gb-pcie", "fp8-current", False),
        ("rtx-pro-6000-ws", "mxfp8", True),  # torchao's is_sm_at_least_100 gate passes on 12.0 ...
        ("b200", "mxfp8", True),
    ],
)
def test_support_in_torchao(card: str, recipe: str, allowed: bool) -> None:
    s = support(CARDS[card], recipe, "torchao")  # type: ignore[arg-type]
    assert s.allowed is allowed
    assert "torchao" in s.source
    if card == "rtx-pro-6000-ws" and recipe == "mxfp8":
        assert "undocumented" in s.note  # ... where its docs measured only B200: said, not chosen silently


def test_every_card_has_a_capability_and_sourced_rates() -> None:
    for card in CARDS.values():
        assert card.capability is not None, card.id
        assert "cuda-gpus" in card.compute_capability.source
        # null rates carry a note (Sourced enforces it); Hopper/Ampere/Ada publish no FP4
        if card.architecture in ("Hopper", "Ampere", "Ada Lovelace"):
            assert card.fp4_dense_tflops.value is None


# ---- jobs: checks and the intersection ------------------------------------------------------------------------


def _job(cards: list[str], chassis: str = "generic-server-8", **job: object):  # type: ignore[no-untyped-def]
    data = {
        "name": "t", "chassis": chassis,
        "cards": [{"slot": i + 1, "card": c} for i, c in enumerate(cards)],
        "jobs": [{"name": "j", "model": "llama-3.1-8b", "method": "lora", "cards": list(range(1, len(cards) + 1)),
                  "parallelism": "single" if len(cards) == 1 else "ddp", **job}],
    }  # fmt: skip
    result = evaluate(Build.model_validate(data))
    return result, result.jobs[0]


@pytest.mark.parametrize("card", ["h200-nvl", "rtx-pro-6000-ws"])
def test_fp8_job_on_both_seed_a_cards(card: str) -> None:
    result, job = _job([card], chassis="generic-workstation-4" if card.endswith("ws") else "generic-server-8",
                       precision="fp8")  # fmt: skip
    assert not [c for c in result.checks if c.code == "PRECISION_UNSUPPORTED"]
    assert job.precision is not None and job.precision.recipe == ("fp8-current" if "rtx" in card else "fp8-delayed")


def test_unsupported_recipe_names_card_capability_and_source() -> None:
    result, _ = _job(["h200-nvl"], precision="nvfp4")
    (check,) = [c for c in result.checks if c.code == "PRECISION_UNSUPPORTED"]
    assert check.severity == "error" and check.slot == 1
    for words in ("NVIDIA H200 NVL", "compute capability 9.0", "_compute_nvfp4_support", "quantization.py"):
        assert words in check.message


def test_mixed_cards_get_the_intersection() -> None:
    """H200 NVL (9.0) + RTX PRO 6000 (12.0): FP8 yes, NVFP4 only on the RTX, so not for the job."""
    result, job = _job(["h200-nvl", "rtx-pro-6000-server"], precision="nvfp4")
    assert job.precision is not None and job.precision.supported == ["fp8-delayed", "fp8-current", "fp8-block"]
    errors = [c for c in result.checks if c.code == "PRECISION_UNSUPPORTED"]
    assert [c.slot for c in errors] == [1]  # only the H200 refuses
    assert "together support: fp8-delayed, fp8-current, fp8-block" in errors[0].message
    result, _ = _job(["h200-nvl", "rtx-pro-6000-server"], precision="fp8-current")
    assert not [c for c in result.checks if c.code == "PRECISION_UNSUPPORTED"]


def test_fp8_base_needs_fp8_support() -> None:
    result, _ = _job(["a100-80gb-pcie"], base_weights="fp8")
    (check,) = [c for c in result.checks if c.code == "PRECISION_UNSUPPORTED"]
    assert "an FP8 base" in check.message and "compute capability 8.0" in check.message


# ---- memory ---------------------------------------------------------------------------------------------------


# Seed B: "low-rank adaptation on a 30B model ... base weights 30e9 x 2 B = 60 GB ... adapter ... 2.4 GB;
# activations and workspace ... say 15 GB; total = 77.4 GB ... on H100 SXM (80 GB): does not fit comfortably;
# needs the base in FP8 or a second card".
def test_seed_b_fp8_base_fits_one_h100() -> None:
    kw = dict(card="h100-sxm", chassis="hgx-8", activation_memory_gb=15)
    _, bf16 = single_job({"parameters": 30e9}, "lora", **kw)  # type: ignore[arg-type]
    _, fp8 = single_job({"parameters": 30e9}, "lora", base_weights="fp8", **kw)  # type: ignore[arg-type]
    assert bf16.status in ("tight", "does-not-fit")
    assert fp8.status == "fits"
    assert fp8.cards[0].weights_gb == pytest.approx(30.0, abs=0.01)  # 30e9 x 1 B
    assert fp8.cards[0].peak_allocated_gb == pytest.approx(30 + 2.4 + 15, abs=0.01)


# Llama 3.1 8B decoder linears, by hand from its config (hidden 4096, 32 layers, 32 heads of 128, 8 KV heads,
# intermediate 14336): q 4096x4096, k and v 4096x1024, o 4096x4096, gate and up 4096x14336, down 14336x4096.
LAYER = 4096 * (4096 + 1024 + 1024 + 4096) + 3 * 4096 * 14336  # 218,103,808 per layer
LINEAR = 32 * LAYER  # 6,979,321,856
TENSORS = 32 * 7  # 224 linear weight tensors
AMAX = 1024 * (3 + 2) * 4  # DelayedScaling amax_history_len 1024 (TE recipe/__init__.py), fwd x3 + bwd x2, FP32

# (card, recipe): (copies, scales, transient) in bytes without activation checkpointing, from TE's docs:
# one quantized usage of each weight kept for backward (performance_considerations.rst, "Memory usage": "2 MB
# (weight) + 1 MB (weight in FP8)" after forward), both usages alive for the layer being quantized; on Hopper the
# second is a transpose, on Blackwell per-tensor FP8 has one tensor for both; MXFP8 1 B + one E8M0 per 32
# (mxfp8.rst); NVFP4 0.5 B + one E4M3 per 16 and an FP32 per tensor per usage (nvfp4.rst); block scaling one FP32
# per 128x128 weight tile (fp8_blockwise_scaling.rst); per-tensor recipes 3 FP32 (scale, scale_inv, amax).
HAND = {
    ("h100-sxm", "fp8-delayed"): (LINEAR * 1, TENSORS * (12 + AMAX), LAYER * 1),
    ("h100-sxm", "fp8-current"): (LINEAR * 1, TENSORS * 12, LAYER * 1),
    ("h100-sxm", "fp8-block"): (LINEAR * (1 + 4 / 16384), 0, LAYER * (1 + 4 / 16384)),
    ("rtx-pro-6000-server", "fp8-current"): (LINEAR * 1, TENSORS * 12, 0),
    ("b200", "mxfp8"): (LINEAR * (1 + 1 / 32), 0, LAYER * (1 + 1 / 32)),
    ("b200", "nvfp4"): (LINEAR * (0.5 + 1 / 16), TENSORS * 4 * 2, LAYER * (0.5 + 1 / 16)),
}


@pytest.mark.parametrize(("card", "recipe"), list(HAND), ids=[f"{c}-{r}" for c, r in HAND])
def test_memory_per_recipe_by_hand(card: str, recipe: str) -> None:
    copies, scales, transient = HAND[(card, recipe)]
    chassis = "hgx-8" if card in ("h100-sxm", "b200") else "generic-server-8"
    kw = dict(card=card, chassis=chassis, gradient_checkpointing=False)
    _, base = single_job("llama-3.1-8b", "lora", **kw)  # type: ignore[arg-type]
    _, low = single_job("llama-3.1-8b", "lora", precision=recipe, **kw)  # type: ignore[arg-type]
    assert low.precision is not None and low.precision.recipe == recipe
    assert low.precision.copies_gb == pytest.approx(copies / GB, rel=1e-9)
    assert low.precision.scales_gb == pytest.approx(scales / GB, rel=1e-9, abs=1e-12)
    assert low.precision.transient_gb == pytest.approx(transient / GB, rel=1e-9)
    row, ref = low.cards[0], base.cards[0]
    assert row.weights_gb - ref.weights_gb == pytest.approx((copies + scales) / GB, rel=1e-9)
    assert row.transient_gb - ref.transient_gb == pytest.approx(transient / GB, rel=1e-9)
    # master weights as before: adapters, gradients and optimizer states do not change
    assert (row.adapters_gb, row.gradients_gb, row.optimizer_gb) == (ref.adapters_gb, ref.gradients_gb,
                                                                     ref.optimizer_gb)  # fmt: skip


def test_checkpointing_keeps_one_layer_of_copies() -> None:
    _, low = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8", precision="fp8-current")
    assert low.precision is not None and low.precision.copies_gb == 0
    assert low.precision.transient_gb == pytest.approx(2 * LAYER / GB)  # rowwise + transpose of one layer


# torchao docs/source/workflows/training.md, e2e training benchmarks on NVIDIA H100 (Llama3-8b, 8xH100, batch 1,
# sequence 8192, FSDP2, per-op SAC): peak memory 47.65 GB in bfloat16 and 47.77 GB with float8 tensorwise:
# FP8 compute alone does not reduce memory. The model must not promise a saving either.
def test_fp8_compute_alone_does_not_reduce_memory() -> None:
    kw = dict(card="h100-sxm", chassis="hgx-8", n=8, parallelism="fsdp", method="full", sequence_length=8192)
    _, bf16 = single_job("llama-3.1-8b", kw.pop("method"), **kw)  # type: ignore[arg-type]
    _, fp8 = single_job("llama-3.1-8b", "full", precision="fp8-current", **kw)  # type: ignore[arg-type]
    a, b = bf16.cards[0].peak_reserved_gb, fp8.cards[0].peak_reserved_gb
    assert b >= a  # no saving
    assert b - a < 2.0  # and no large cost: torchao measured +0.12 GB
    assert (b - a) / a < 0.05


# ---- speed ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "recipe", "speedup"),
    # torchao docs/source/workflows/training.md: 8xH100 tensorwise +25.03 %; 8xB200 tensorwise +25.4 %, mxfp8 +20.0 %
    [("h100-sxm", "fp8-current", 0.2503), ("b200", "fp8-current", 0.254), ("b200", "mxfp8", 0.200)],
)
def test_step_time_uses_the_measured_speedup(card: str, recipe: str, speedup: float) -> None:
    _, bf16 = single_job("llama-3.1-8b", "lora", card=card, chassis="hgx-8")
    _, low = single_job("llama-3.1-8b", "lora", card=card, chassis="hgx-8", precision=recipe)
    assert bf16.compute and low.compute and bf16.compute.seconds_per_step
    assert low.compute.speedup == pytest.approx(speedup)
    assert low.compute.seconds_per_step == pytest.approx(bf16.compute.seconds_per_step / (1 + speedup))
    assert "torchao" in (low.compute.speedup_source or "")


def test_delayed_scaling_on_hopper_uses_te_s_own_measurement() -> None:
    """Issue 14: FP8 step time on H200 read unknown for the default delayed recipe. TE's Llama fine-tuning
    tutorial times the same TE model in BF16 and FP8 (DelayedScaling) on H100: 217 vs 185 ms, +17.3 %."""
    _, bf16 = single_job("llama-3.1-8b", "lora", card="h200-nvl")
    _, fp8 = single_job("llama-3.1-8b", "lora", card="h200-nvl", precision="fp8")  # TE's default: delayed on 9.0
    assert fp8.precision is not None and fp8.precision.recipe == "fp8-delayed"
    assert bf16.compute and fp8.compute and bf16.compute.seconds_per_step
    assert fp8.compute.speedup == pytest.approx(217 / 185 - 1)
    assert fp8.compute.seconds_per_step == pytest.approx(bf16.compute.seconds_per_step / (217 / 185))
    assert "TransformerEngine" in (fp8.compute.speedup_source or "")
    assert any("Llama 3 8B full fine-tuning" in n for n in fp8.compute.notes)


@pytest.mark.parametrize(("card", "recipe"), [("l40s", "fp8-delayed"), ("b200", "nvfp4"), ("h100-sxm", "fp8-block")])
def test_step_time_unknown_without_a_measurement(card: str, recipe: str) -> None:
    _, low = single_job("llama-3.1-8b", "lora", card=card, chassis="hgx-8", precision=recipe)
    assert low.compute is not None and low.compute.seconds_per_step is None and low.step_seconds is None
    assert any("unknown" in n and "peak-rate ratio is not a prediction" in n for n in low.compute.notes)
    assert low.compute.recipe_peak_matmul_seconds is not None  # the bound is still there to show


def test_result_carries_the_fp8_roof() -> None:
    _, job = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8")
    assert job.compute is not None and job.compute.card_fp8_tflops == {"h100-sxm": 1979}
    assert job.compute.card_fp4_tflops == {}  # Hopper: no FP4


# ---- old files mean BF16 as before ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted((Path(__file__).parents[2] / "resources" / "builds").glob("*.yaml")),
                         ids=lambda p: p.name)  # fmt: skip
def test_shipped_builds_mean_bf16(path: Path) -> None:
    build = load_build(path)
    result = evaluate(build, base_dir=path.parent)
    for job in result.jobs:
        assert job.precision is None or (job.precision.recipe is None and job.precision.copies_gb == 0)
    assert not [c for c in result.checks if c.code.startswith("PRECISION")]
    for spec in build.jobs:
        assert spec.base_weights != "fp8"  # an MXFP4 MoE base (gpt-oss as shipped) is no FP8 recipe


def test_recipes_listed_once() -> None:
    assert RECIPES == ("fp8-delayed", "fp8-current", "fp8-block", "mxfp8", "nvfp4")


# ---- the sweep and the build sheet read the same recipe ----------------------------------------------------


def _fp8_build(card: str, chassis: str) -> Build:
    return Build.model_validate({
        "name": "t", "chassis": chassis, "cards": [{"slot": 1, "card": card}],
        "jobs": [{"name": "j", "model": "llama-3.1-8b", "method": "lora", "cards": [1], "precision": "fp8",
                  "gradient_checkpointing": False, "sequence_length": 4096}],
    })  # fmt: skip


@pytest.mark.parametrize(("card", "chassis"), [("h100-sxm", "hgx-8"), ("rtx-pro-6000-server", "generic-server-8")])
def test_frontier_counts_the_cards_copies(card: str, chassis: str) -> None:
    """The frontier's curve at the job's own length matches the result: both count the card's copies (one FP8
    tensor on Blackwell, a transpose more on Hopper)."""
    from configurator.engine.sweep import fit_frontier

    build = _fp8_build(card, chassis)
    result = evaluate(build)
    frontier = fit_frontier(build, 0, default_catalog(), lengths=[4096])
    assert frontier is not None
    own = next(c for c in frontier.curves if c.is_job)
    assert own.headroom_gb[0] == pytest.approx(result.jobs[0].cards[0].headroom_gb, abs=1e-9)


def test_build_sheet_states_recipe_and_source() -> None:
    from configurator.report.sheet import SheetOptions, build_html

    build = _fp8_build("h100-sxm", "hgx-8")
    html = build_html(build, evaluate(build), default_catalog(), SheetOptions())
    assert "Precision: fp8-delayed, base bf16; support: TransformerEngine" in html
    assert "_compute_fp8_support" in html
