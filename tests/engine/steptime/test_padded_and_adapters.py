"""Two mechanisms read from the training code (issue 24; specs/throughput-runs.yaml universal-llm-trainer
read_after_scoring): a padded batch's attention mask takes SDPA to its memory-efficient kernel over every tile, and
PEFT's fp32 adapters stream casts and fp32 passes around every adapted linear."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from configurator.catalog.loader import Catalog
from configurator.engine.model.build import Job
from configurator.engine.model.result import JobResult
from configurator.engine.time.steptime import adapter_compute
from configurator.engine.time.steptime.efficiency import efficiency
from configurator.engine.time.steptime.ops import (
    LORA_DROPOUT_BYTES,
    LORA_STREAM_BYTES,
    Device,
    Shape,
    attention_groups,
    micro_batch,
)

A100 = Device("Ampere", 312.0, 2039, 108, 8.0)
H100 = Device("Hopper", 989.5, 3350, 132, 9.0)


def _shape(**kw: object) -> Shape:
    base: dict[str, object] = {"seq": 8192, "batch": 2, "checkpointing": False, "full": False, "rank": 8,
                               "targets": "all-linear", "dequant_bytes": 0.0, "loss": "standard", "stack": "eager",
                               "attention": "sdpa"}  # fmt: skip
    return Shape(**{**base, **kw})  # type: ignore[arg-type]


def _classes(catalog: Catalog, shape: Shape, device: Device = A100, model: str = "llama-3.1-8b") -> dict[str, float]:
    return {c.name: c for c in micro_batch(catalog.model(model), shape, device).classes}  # type: ignore[return-value]


def test_a_padded_batch_runs_every_tile_at_the_memory_efficient_rate(catalog: Catalog) -> None:
    """On an A100 (no cuDNN preference) SDPA without a mask runs FlashAttention-2 causally; with a padded batch's
    mask it runs the memory-efficient kernel over every tile: twice the FLOPs at 0.48 of the rate, 2 / 0.48 the
    compute-bound time. FlashAttention (the flash-attn package) unpads instead: unchanged."""
    model = catalog.model("llama-3.1-8b")
    assert attention_groups(model, "sdpa", A100, 8192) == ((32, "flash", False),)
    assert attention_groups(model, "sdpa", A100, 8192, padded=True) == ((32, "efficient", False),)
    assert attention_groups(model, "sdpa", H100, 8192, padded=True) == ((32, "efficient", False),)  # not cuDNN
    assert attention_groups(model, "flash", A100, 8192, padded=True) == ((32, "flash", False),)
    plain = _classes(catalog, _shape())["attention"]
    padded = _classes(catalog, _shape(padded=True))["attention"]
    assert padded.flops == pytest.approx(2 * plain.flops)  # type: ignore[attr-defined]
    ratio = efficiency().efficient_attention_ratio
    assert padded.compute_seconds == pytest.approx(plain.compute_seconds * 2 / ratio)  # type: ignore[attr-defined]
    flash = _classes(catalog, _shape(attention="flash", padded=True))["attention"]
    assert flash.seconds == pytest.approx(_classes(catalog, _shape(attention="flash"))["attention"].seconds)  # type: ignore[attr-defined]


def test_a_padded_job_is_timed_slower_says_so_and_keeps_its_masks(one_job: Callable[..., JobResult]) -> None:
    base = {"model": "llama-3.1-8b", "method": "lora", "sequence_length": 8192, "micro_batch_size": 2}
    plain = one_job("a100-sxm4-80gb", base)
    padded = one_job("a100-sxm4-80gb", {**base, "padded_batches": True})
    assert plain.compute and padded.compute and plain.step_seconds and padded.step_seconds
    assert padded.step_seconds > plain.step_seconds
    assert padded.compute.attention_kernel == "memory-efficient, every tile, at 0.48 of FlashAttention-2's rate"
    assert plain.compute.attention_kernel == "FlashAttention-2"
    # the mask SDPA turns into a bias, kept by every layer's kernel for its backward, and k and v expanded to all 32
    # heads from 8 (repeat_kv: no GQA in SDPA with a mask; activations.py _mask_bytes): per token and layer
    # 2 x 4096 bias + 2 x 2 x (4096 - 1024) k/v bytes, without checkpointing over 32 layers
    kept = {**base, "gradient_checkpointing": False, "sequence_length": 4096, "micro_batch_size": 1}
    more = (one_job("a100-sxm4-80gb", {**kept, "padded_batches": True}).cards[0].activations_gb
            - one_job("a100-sxm4-80gb", kept).cards[0].activations_gb)  # fmt: skip
    assert more == pytest.approx((2 * 4096 + 4 * (4096 - 1024)) * 4096 * 32 / 1e9, rel=0.01)
    # a stack that passes no padding mask (torchtitan keeps is_causal): the setting changes nothing
    titan = {**base, "framework": "torchtitan"}
    assert one_job("a100-sxm4-80gb", {**titan, "padded_batches": True}).step_seconds == pytest.approx(
        one_job("a100-sxm4-80gb", titan).step_seconds)
    flash = one_job("a100-sxm4-80gb", {**base, "attention": "flash", "padded_batches": True})
    flash_plain = one_job("a100-sxm4-80gb", {**base, "attention": "flash"})
    assert flash.step_seconds == pytest.approx(flash_plain.step_seconds)
    assert flash.cards[0].activations_gb == pytest.approx(flash_plain.cards[0].activations_gb)


def test_the_padded_check_names_the_cost_and_the_fix(catalog: Catalog) -> None:
    from configurator.engine.evaluate import evaluate
    from configurator.engine.model.build import Build

    def checks(**job: object) -> list[str]:
        spec = {"name": "j", "cards": [1], "model": "llama-3.1-8b", **job}
        build = Build.model_validate({"name": "t", "chassis": "generic-workstation-4",
                                      "cards": [{"slot": 1, "card": "a100-sxm4-80gb"}], "jobs": [spec]})  # fmt: skip
        return [c.message for c in evaluate(build, catalog).checks if c.code == "JOB_ATTENTION_PADDED"]

    (message,) = checks(padded_batches=True)
    assert "memory-efficient kernel" in message and "every tile" in message and "4×" in message
    assert "padding-free collator" in message and "FlashAttention" in message
    assert checks(padded_batches=True, attention="flash") == []
    assert checks() == []


def test_peft_adapters_compute_in_fp32_on_a_transformers_stack() -> None:
    """PEFT's autocast_adapter_dtype=True keeps the adapters in fp32 where the model's own dtypes run (one card or
    DDP on a Transformers stack); under autocast in every precision but pure-bf16; a sharded stack computes them in
    bf16, and a full fine-tune has none."""

    def job(**kw: object) -> Job:
        return Job.model_validate({"name": "j", "model": "llama-3.1-8b", **kw})

    assert adapter_compute(job(method="lora")) == "fp32-autocast"
    assert adapter_compute(job(method="lora", precision="pure-bf16")) == "fp32"
    assert adapter_compute(job(method="qlora", parallelism="ddp")) == "fp32-autocast"
    assert adapter_compute(job(method="lora", parallelism="fsdp")) == "bf16"
    assert adapter_compute(job(method="full")) == "bf16"


def test_fp32_adapters_stream_their_casts_and_passes(catalog: Catalog) -> None:
    """The lora class's bytes differ from bf16 adapters' by LORA_STREAM_BYTES per input and output feature of every
    adapted linear, per token, forward and backward; dropout adds LORA_DROPOUT_BYTES per input each way."""
    model = catalog.model("llama-3.1-8b")
    tokens = 8192 * 2
    mods = model.lora_modules("all-linear")
    ins, outs = sum(m.in_features * m.count for m in mods), sum(m.out_features * m.count for m in mods)

    def lora_bytes(**kw: object) -> float:
        return _classes(catalog, _shape(**kw))["lora"].bytes  # type: ignore[attr-defined]

    def per_token(mode: str) -> float:
        (fi, fo), (bi, bo) = LORA_STREAM_BYTES[mode]
        return (fi + bi) * ins + (fo + bo) * outs

    bf16 = lora_bytes(adapters="bf16")
    for mode in ("fp32", "fp32-autocast"):
        assert lora_bytes(adapters=mode) - bf16 == pytest.approx(tokens * (per_token(mode) - per_token("bf16")))
    assert LORA_STREAM_BYTES["fp32"][0] == (8.0, 26.0) and LORA_STREAM_BYTES["fp32"][1] == (16.0, 24.0)
    dropped = lora_bytes(adapters="fp32", dropout=True) - lora_bytes(adapters="fp32")
    assert dropped == pytest.approx(tokens * 2 * LORA_DROPOUT_BYTES["fp32"] * ins)
    # checkpointing repeats the forward's branch in the recompute class
    again = _classes(catalog, _shape(adapters="fp32", checkpointing=True))["recompute"]
    none = _classes(catalog, _shape(adapters="bf16", checkpointing=True))["recompute"]
    fwd = LORA_STREAM_BYTES["fp32"][0][0] * ins + LORA_STREAM_BYTES["fp32"][0][1] * outs
    bf16_fwd = LORA_STREAM_BYTES["bf16"][0][0] * ins + LORA_STREAM_BYTES["bf16"][0][1] * outs
    assert again.bytes - none.bytes == pytest.approx(tokens * (fwd - bf16_fwd))  # type: ignore[attr-defined]
    # bf16: the scale (read, write) and the add to the base output (two reads, a write): as fp32-autocast's after B
    assert LORA_STREAM_BYTES["bf16"][0] == (0.0, 10.0) and LORA_STREAM_BYTES["fp32-autocast"][0][1] == 10.0
