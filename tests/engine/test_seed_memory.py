"""Seed figures for parameters and memory (shared/reference/seed-figures.md), through the public API.

Tolerances follow the articles' rounding: ±0.1 GB where a figure is printed with one decimal,
±0.6 GB where it is printed in whole GB. GB = 10^9 bytes.
"""

from __future__ import annotations

import pytest

from tests.helpers import single_job

LORA = {"lora": {"rank": 16, "targets": "all-linear"}}
# Seed A counts QLoRA's embeddings, norms and lm_head in bf16: a stack without PEFT's fp32 cast
# (prepare_model_for_kbit_training), which the default Transformers/TRL + PEFT stack does (engine/model/stack.py).
QLORA_SEED = {**LORA, "behaviour": {"kbit_fp32_prep": False}}

# (model, total params, LoRA r16 all-linear trainable) -- seed A, "Model sizes"
SIZES = [
    ("llama-3.1-8b", 8.03e9, 41.9e6),  # "a rank-16 LoRA on Llama 3.1 8B trains 41.9 million parameters"
    ("qwen3-32b", 32.8e9, 134.2e6),
    ("llama-3.3-70b", 70.6e9, 207.1e6),
]


@pytest.mark.parametrize(("model", "total", "trainable"), SIZES, ids=[s[0] for s in SIZES])
def test_model_sizes(model: str, total: float, trainable: float) -> None:
    """Seed A's model sizes and LoRA trainable counts, to the printed rounding."""
    _, job = single_job(model, "lora", **LORA)
    assert round(job.params_total / 1e9, 2 if total < 10e9 else 1) == pytest.approx(total / 1e9)
    assert round(job.params_trainable / 1e6, 1) == pytest.approx(trainable / 1e6)


def test_llama_8b_trainable_exact() -> None:
    """41,943,040 adapters: rank 16 x (in + out) over q, k, v, o, gate, up, down in 32 layers."""
    _, job = single_job("llama-3.1-8b", "lora", **LORA)
    assert job.params_trainable == 41_943_040


# (case, model, method, extra job settings, card, model states GB, tolerance, room left GB or None)
# Seed A: "Set against the memory the driver shows, 150.8 GB on the H200 NVL and 102.6 GB on the
# RTX PRO 6000, they leave this much for activations."
STATES = [
    ("8B LoRA: RTX PRO 6000 holds it with 86 GB left", "llama-3.1-8b", "lora", LORA, "rtx-pro-6000-server",
     16.7, 0.1, 86),
    ("8B QLoRA: 6.4 GB of model states", "llama-3.1-8b", "qlora", QLORA_SEED, "rtx-pro-6000-server", 6.4, 0.1, None),
    ("32B LoRA: RTX PRO 6000 with 35 GB left", "qwen3-32b", "lora", LORA, "rtx-pro-6000-server", 67.7, 0.1, 35),
    ("70B LoRA leaves about 6 GB on the H200 NVL", "llama-3.3-70b", "lora", LORA, "h200-nvl", 144.4, 0.1, 6),
    ("70B QLoRA: 108 GB left on H200 NVL", "llama-3.3-70b", "qlora", QLORA_SEED, "h200-nvl", 42.8, 0.1, 108),
    ("70B QLoRA: 60 GB left on RTX PRO 6000", "llama-3.3-70b", "qlora", QLORA_SEED, "rtx-pro-6000-server", 42.8, 0.1,
     60),
    ("8B full, 32-bit Adam: 128 GB, 22 GB left on H200 NVL", "llama-3.1-8b", "full", {}, "h200-nvl", 128, 0.6, 22),
    ("8B full, 8-bit Adam: about 80 GB", "llama-3.1-8b", "full", {"optimizer": "adamw-8bit"}, "rtx-pro-6000-server",
     80, 0.6, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("model", "method", "extra", "card", "states", "tol", "room"), [s[1:] for s in STATES], ids=[s[0] for s in STATES]
)
def test_model_states_on_one_card(
    model: str, method: str, extra: dict, card: str, states: float, tol: float, room: float | None
) -> None:
    """Model states (weights + adapters + gradients + optimizer) and the room left for activations."""
    _, job = single_job(model, method, card=card, **extra)
    row = job.cards[0]
    assert row.model_states_gb == pytest.approx(states, abs=tol)
    if room is not None:
        assert row.room_for_activations_gb == pytest.approx(room, abs=0.6)


def test_visible_memory() -> None:
    """Seed A: the driver shows 150.8 GB on the H200 NVL and 102.6 GB on the RTX PRO 6000."""
    _, nvl = single_job("llama-3.1-8b", "lora", card="h200-nvl", **LORA)
    _, rtx = single_job("llama-3.1-8b", "lora", card="rtx-pro-6000-ws", chassis="generic-workstation-4", **LORA)
    assert nvl.cards[0].capacity_gb == pytest.approx(150.8, abs=0.05)
    assert rtx.cards[0].capacity_gb == pytest.approx(102.6, abs=0.05)


@pytest.mark.parametrize(
    ("model", "method", "extra", "card"),
    [
        # "The model states of a full 8B fine-tune with 32-bit Adam fit one H200 NVL but not one RTX PRO 6000"
        ("llama-3.1-8b", "full", {}, "rtx-pro-6000-server"),
        # "70B LoRA ... does not fit" the RTX PRO 6000
        ("llama-3.3-70b", "lora", LORA, "rtx-pro-6000-server"),
    ],
)
def test_does_not_fit(model: str, method: str, extra: dict, card: str) -> None:
    """Runs the seed says need a second card are reported as not fitting, with an error check."""
    result, job = single_job(model, method, card=card, **extra)
    assert not job.fits and job.status == "does-not-fit"
    assert job.cards[0].room_for_activations_gb < 0
    assert any(c.code == "JOB_DOES_NOT_FIT" for c in result.checks)


def test_70b_lora_on_h200_is_not_plannable() -> None:
    """Seed A: 70B LoRA on a BF16 base leaves about 6 GB even on the H200 NVL, "too little to plan on"."""
    result, job = single_job("llama-3.3-70b", "lora", card="h200-nvl", **LORA)
    assert job.status in ("tight", "does-not-fit")
    assert any(c.code in ("JOB_TIGHT", "JOB_DOES_NOT_FIT") for c in result.checks)


def test_8bit_adam_fits_one_rtx() -> None:
    """Seed A: with 8-bit Adam a full 8B fine-tune fits one RTX PRO 6000 (about 80 GB)."""
    _, job = single_job("llama-3.1-8b", "full", card="rtx-pro-6000-server", optimizer="adamw-8bit")
    assert job.fits


def test_fsdp_full_8b_over_two_rtx() -> None:
    """Seed A: "the RTX PRO 6000 needs a second card and FSDP, at 64.2 GB per card"."""
    _, job = single_job("llama-3.1-8b", "full", card="rtx-pro-6000-server", n=2, parallelism="fsdp")
    assert [round(c.model_states_gb, 1) for c in job.cards] == [64.2, 64.2]
    assert job.fits


# Seed B: "base weights 30e9 x 2 B = 60 GB; adapter parameters at ~0.5% of the base, with optimizer state
# at 16 B per parameter: 0.15e9 x 16 = 2.4 GB; activations and workspace ... say 15 GB; total = 77.4 GB;
# on RTX PRO 6000 (96 GB): fits, with 18.6 GB spare; on H100 SXM (80 GB): does not fit comfortably"
def test_seed_b_30b_lora_budget() -> None:
    """Seed B's 30B LoRA sizing with a fixed 15 GB activation budget and 0.5 % adapters."""
    _, rtx = single_job({"parameters": 30e9}, "lora", card="rtx-pro-6000-server", activation_memory_gb=15)
    row = rtx.cards[0]
    assert row.weights_gb == pytest.approx(60.0, abs=0.01)
    assert row.adapters_gb + row.gradients_gb + row.optimizer_gb == pytest.approx(2.4, abs=0.01)
    assert row.peak_allocated_gb == pytest.approx(77.4, abs=0.01)
    assert row.capacity_nominal_gb == pytest.approx(96)
    assert row.headroom_nominal_gb == pytest.approx(18.6, abs=0.01)
    # fits with 18.6 GB spare; the cross-validated band of the default stack (issue 12: the measured runs'
    # out-of-source errors reach -42 %) straddles the capacity, so the verdict is tight, never does-not-fit
    assert rtx.fits and rtx.status in ("fits", "tight")
    _, h100 = single_job({"parameters": 30e9}, "lora", card="h100-sxm", chassis="hgx-8", activation_memory_gb=15)
    assert h100.cards[0].headroom_nominal_gb == pytest.approx(2.6, abs=0.01)
    assert h100.status in ("tight", "does-not-fit")  # "does not fit comfortably"


@pytest.mark.parametrize(("params", "states"), [(8e9, 128), (13e9, 208), (30e9, 480)])
def test_seed_b_full_fine_tune_16_bytes(params: float, states: float) -> None:
    """Seed B: full fine-tuning at 16 B/param: 8B 128 GB, 13B 208 GB, 30B 480 GB."""
    _, job = single_job({"parameters": params}, "full", card="h100-sxm", chassis="hgx-8", activation_memory_gb=0)
    assert job.cards[0].model_states_gb == pytest.approx(states, abs=0.6)
    assert not job.fits
