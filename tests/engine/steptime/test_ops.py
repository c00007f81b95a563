"""The per-op model: FLOPs and bytes by op class, compute- or memory-bound, MoE by active parameters,
recompute, the optimizer sharded under FSDP (issue 24, item 1)."""

from __future__ import annotations

import math

import pytest

from configurator.catalog.loader import Catalog
from configurator.engine.memory.estimate import job_parameters
from configurator.engine.memory.precision import trained_bytes
from configurator.engine.model.build import Job
from configurator.engine.time.steptime import Device, job_step
from configurator.engine.time.steptime.efficiency import efficiency
from configurator.engine.time.steptime.ops import (
    OP_CLASSES,
    Shape,
    fused_attention,
    gemm_work,
    micro_batch,
    op_seconds,
)

H100 = Device("Hopper", 989.5, 3350, 132)


def _job(**kw: object) -> Job:
    return Job.model_validate({"name": "j", "model": "m", **kw})


def _step(catalog: Catalog, model: str, dev: Device = H100, cards: int = 1, **kw: object):  # type: ignore[no-untyped-def]
    m = catalog.model(model)
    job = _job(**kw)
    p = job_parameters(m, job)
    return job_step(job, m, p, trained_bytes(job.method, job.optimizer, job.precision), dev, cards=cards)


def test_every_class_is_named_and_split_adds_up(catalog: Catalog) -> None:
    step = _step(catalog, "llama-3.1-8b", method="qlora", sequence_length=2048)
    names = [c.name for c in step.classes]
    assert {"projections", "mlp", "attention", "elementwise", "lora", "dequant", "loss", "recompute",
            "optimizer"} <= set(names)  # fmt: skip
    assert set(names) <= set(OP_CLASSES) | {"host"}
    assert math.isclose(sum(c.seconds for c in step.classes), step.seconds)


def test_big_gemms_compute_bound_adapters_and_dequant_memory_bound(catalog: Catalog) -> None:
    """Seed A: the up-projection at ~1,250 FLOPs/byte is compute-bound; rank-16 adapters (~16 FLOPs/byte) and the
    NF4 dequantisation are memory-bound."""
    step = _step(catalog, "llama-3.1-8b", method="qlora", sequence_length=2048)
    bound = {c.name: c.bound for c in step.classes}
    assert bound["mlp"] == bound["projections"] == bound["attention"] == "compute"
    assert bound["lora"] == bound["dequant"] == bound["elementwise"] == bound["optimizer"] == "memory"


def test_recompute_is_one_more_forward(catalog: Catalog) -> None:
    on = _step(catalog, "llama-3.1-8b", method="lora", gradient_checkpointing=True)
    off = _step(catalog, "llama-3.1-8b", method="lora", gradient_checkpointing=False)
    rec = next(c for c in on.classes if c.name == "recompute")
    fwd_mlp = 2 * 2048 * sum(m.weights for m in catalog.model("llama-3.1-8b").linear_modules() if m.group == "mlp")
    assert rec.flops > fwd_mlp  # the forward's GEMMs again (plus attention and projections)
    assert "recompute" not in {c.name for c in off.classes}
    assert on.seconds > off.seconds


def test_attention_flops_flash_formula(catalog: Catalog) -> None:
    """FlashAttention-2 section 4.1: forward 4 s^2 d h per layer, backward 2.5x, causal halves."""
    m = catalog.model("llama-3.1-8b")
    shape = Shape(4096, 1, False, False, 16, "all-linear", 0.0, "standard", "eager")
    mb = micro_batch(m, shape, H100)
    att = next(c for c in mb.classes if c.name == "attention")
    assert m.num_layers and m.head_dim and m.num_attention_heads
    fwd = 4 * 4096**2 * m.head_dim * m.num_attention_heads * m.num_layers * 0.5
    assert math.isclose(att.flops, fwd * (1 + efficiency().attention_backward), rel_tol=1e-9)


def test_the_public_op_helpers_are_the_micro_batchs_own_figures(catalog: Catalog) -> None:
    """fused_attention, gemm_work and op_seconds (what benchmarks/device/predict.py times its kernels with) give the
    micro-batch's attention class and a GEMM's max(compute, memory) exactly."""
    m = catalog.model("llama-3.1-8b")
    assert m.num_layers and m.head_dim and m.num_attention_heads and m.num_key_value_heads
    shape = Shape(4096, 2, False, False, 16, "all-linear", 0.0, "standard", "eager")
    att = next(c for c in micro_batch(m, shape, H100).classes if c.name == "attention")
    work = fused_attention(4096, 2, m.num_attention_heads, m.num_key_value_heads, m.head_dim, m.num_layers)
    assert (att.flops, att.bytes) == work.with_backward(efficiency().attention_backward)
    assert gemm_work(4096, 1024, 4096) == (2.0 * 4096 * 1024 * 4096, 2.0 * (4096 * 4096 + 4096 * 1024 + 4096 * 1024))
    assert op_seconds(2e12, 1e9, 1e12, 1e12) == (2.0, "compute")
    assert op_seconds(1e9, 3e12, 1e12, 1e12) == (3.0, "memory")
    assert op_seconds(0.0, 1e9, 0.0, 1e12) == (1e-3, "memory")  # a stream: no FLOPs, no rate needed


def test_moe_flops_by_active_parameters(catalog: Catalog) -> None:
    """Mixtral: a step timed on the ~12.9 B active parameters, not all 46.7 B (issue 24)."""
    mix = catalog.model("mixtral-8x7b")
    shape = Shape(2048, 1, False, True, 0, "all-linear", 0.0, "standard", "fused")
    mb = micro_batch(mix, shape, H100)
    mlp = next(c for c in mb.classes if c.name == "mlp")
    expert = sum(m.weights for m in mix.linear_modules() if m.group == "expert")
    active = expert * mix.num_experts_per_tok / mix.num_experts
    # forward + input gradient + weight gradient: 6 FLOPs per active expert weight per token
    assert math.isclose(mlp.flops, 6 * 2048 * (active + sum(m.weights for m in mix.linear_modules()
                                                           if m.group == "router")), rel_tol=1e-6)  # fmt: skip
    assert mlp.flops < 6 * 2048 * expert / 3  # far below every expert's FLOPs


def test_fsdp_optimizer_divided_over_cards(catalog: Catalog) -> None:
    one = _step(catalog, "llama-3.1-8b", method="full", parallelism="fsdp", cards=1)
    four = _step(catalog, "llama-3.1-8b", method="full", parallelism="fsdp", cards=4)
    ddp = _step(catalog, "llama-3.1-8b", method="full", parallelism="ddp", cards=4)
    opt = {s: next(c for c in s.classes if c.name == "optimizer").seconds for s in (one, four, ddp)}
    assert math.isclose(opt[four] * 4, opt[one], rel_tol=1e-9)
    assert math.isclose(opt[ddp], opt[one], rel_tol=1e-9)  # DDP: every card steps the whole optimizer


def test_small_gemm_loses_to_wave_quantisation() -> None:
    """NVIDIA performance guide: a partial last wave costs a whole one."""
    eff = efficiency()
    full = eff.gemm_fraction("Hopper", 128 * 132, 256, 4096, 132)  # exactly one wave
    partial = eff.gemm_fraction("Hopper", 128 * 133, 256, 4096, 132)  # one tile into a second wave
    assert partial < 0.55 * full


def test_launch_floor_for_tiny_batches(catalog: Catalog) -> None:
    tiny = _step(catalog, "llama-3.2-1b", method="lora", sequence_length=64)
    assert tiny.launch_bound and any(c.name == "host" for c in tiny.classes)
    big = _step(catalog, "llama-3.2-1b", method="lora", sequence_length=4096)
    assert not big.launch_bound


def test_moe_step_flops_count_active_parameters(catalog: Catalog) -> None:
    """Mixtral 8x7B: FLOPs per token from ~12.9 B active parameters (top-2 of 8 experts), not all 46.7 B."""
    from configurator.engine.time.compute import flops_per_token

    mix = catalog.model("mixtral-8x7b")
    job = _job(method="full", gradient_checkpointing=False, sequence_length=2048)
    p = job_parameters(mix, job)
    dense = flops_per_token(job, mix, p) - 2 * mix.num_layers * 2048 * mix.num_attention_heads * mix.head_dim * 3
    assert dense / 6 / 1e9 == pytest.approx(12.88, abs=0.05)
    assert p.total / 1e9 == pytest.approx(46.7, abs=0.1)


def test_lm_head_among_lora_targets_is_timed_not_refused(catalog: Catalog) -> None:
    """A target list naming lm_head (as PEFT allows) times the block adapters; lm_head alone adapts no block."""
    step = _step(catalog, "llama-3.1-8b", method="lora", lora={"targets": ["q_proj", "v_proj", "lm_head"]})
    assert any(c.name == "lora" for c in step.classes)
    head_only = _step(catalog, "llama-3.1-8b", method="lora", lora={"targets": ["lm_head"]})
    assert head_only.seconds > 0 and not any(c.name == "lora" for c in head_only.classes)


def test_moe_expert_adapters_see_only_their_routed_tokens(catalog: Catalog) -> None:
    """LoRA on every expert of Qwen3-30B-A3B: an expert's adapter runs on the tokens routed to it (top-8 of 128),
    as the expert does; it was timed on every token, so the adapters counted all 128 experts' FLOPs."""
    from configurator.engine.time.steptime.ops import _adapted

    q = catalog.model("qwen3-30b-a3b")
    tokens, rank = 2048, 16
    shape = Shape(tokens, 1, False, False, rank, "all-linear", 0.0, "standard", "eager")
    lora = next(c for c in micro_batch(q, shape, H100).classes if c.name == "lora")
    k_of_e = q.num_experts_per_tok / q.num_experts
    # forward x@A and (xA)@B, backward dX through both and dA, dB: 6 FLOPs per adapter weight per token it sees
    expected = sum(6 * tokens * (k_of_e if expert else 1) * rank * (k_in + n_out) * count
                   for k_in, n_out, count, expert in _adapted(q, "all-linear"))  # fmt: skip
    assert math.isclose(lora.flops, expected, rel_tol=1e-9)
    every_token = sum(6 * tokens * rank * (k_in + n_out) * count for k_in, n_out, count, _ in _adapted(q, "all-linear"))
    assert lora.flops < every_token / 5


def test_grouped_experts_share_the_waves_on_the_fused_stack(catalog: Catalog) -> None:
    """Qwen3-30B-A3B: each expert gets 16,384 x 8 / 128 = 1,024 rows, 24 tiles of 128 x 256 on 132 SMs. Looping over
    the experts (HF eager) runs each at 24/132 of the card; a grouped GEMM (Megatron GroupedMLP, torch._grouped_mm)
    runs the layer's 128 experts' tiles together. Same FLOPs, the fused stack's expert GEMMs several times faster."""
    q = catalog.model("qwen3-30b-a3b")
    eager = Shape(4096, 4, False, True, 0, "all-linear", 0.0, "standard", "eager")
    fused = Shape(4096, 4, False, True, 0, "all-linear", 0.0, "standard", "fused")
    mlp = {s.stack: next(c for c in micro_batch(q, s, H100).classes if c.name == "mlp") for s in (eager, fused)}
    assert math.isclose(mlp["eager"].flops, mlp["fused"].flops, rel_tol=1e-12)
    assert mlp["fused"].seconds < mlp["eager"].seconds / 2.5


def test_step_memo_is_keyed_by_everything_the_step_reads(catalog: Catalog) -> None:
    """job_step is memoised by shape (CACHE space "job-step"): the same settings give the very same step, and each
    setting the step reads gives its own (a memo keyed too coarsely would hand one job another's time)."""
    base = {"method": "full", "sequence_length": 1024}
    first, again = _step(catalog, "llama-3.2-1b", **base), _step(catalog, "llama-3.2-1b", **base)
    assert first is again
    changes = ({"gradient_accumulation_steps": 2}, {"optimizer": "adamw-8bit"}, {"precision": "pure-bf16"},
               {"framework": "torchtitan"}, {"micro_batch_size": 2}, {"gradient_checkpointing": False})  # fmt: skip
    for change in changes:
        other = _step(catalog, "llama-3.2-1b", **base, **change)
        assert other.seconds != first.seconds, change
    assert _step(catalog, "llama-3.2-1b", cards=4, parallelism="fsdp", **base).seconds < first.seconds


def test_a_chip_with_its_own_measured_attention_rate_uses_it(catalog: Catalog) -> None:
    """FlashAttention-2 (the flash-attn package: ``attention: flash``) on a B200 (CC 10.0) is measured at ~15 % of
    peak (efficiency.yaml attention_fraction_by_compute_capability), far below the Blackwell family's figure that
    the RTX PRO 6000 (CC 12.0) keeps; only the attention ops of the CC 10.0 chip slow down."""
    eff = efficiency()
    assert eff.attention_fraction("Blackwell", 10.0) == pytest.approx(0.148)
    assert eff.attention_fraction("Blackwell", 12.0) == eff.attention["Blackwell"]
    b200 = catalog.card("b200")
    plain = Device("Blackwell", 2250, 7700, 148)
    chip = Device("Blackwell", 2250, 7700, 148, b200.compute_capability.value or 0.0)
    kw = {"method": "full", "sequence_length": 8192, "attention": "flash"}
    by = {d: {c.name: c for c in _step(catalog, "llama-3.1-8b", d, **kw).classes} for d in (plain, chip)}
    ratio = by[chip]["attention"].seconds / by[plain]["attention"].seconds
    assert ratio == pytest.approx(eff.attention["Blackwell"] / 0.148, rel=0.01)
    assert by[chip]["mlp"].seconds == pytest.approx(by[plain]["mlp"].seconds)


@pytest.mark.parametrize(("card", "kernel"), [("h100-sxm", "cudnn"), ("h200-nvl", "cudnn"), ("b200", "cudnn"),
                                              ("a100-sxm4-80gb", "flash"), ("rtx-pro-6000-ws", "flash"),
                                              ("l40s", "flash")])  # fmt: skip
def test_sdpa_runs_cudnn_attention_where_pytorch_prefers_it(catalog: Catalog, card: str, kernel: str) -> None:
    """PyTorch SDPA (the default ``attention: sdpa``) runs cuDNN's attention first on CC 9.0 and 10.0 (the pinned
    PyTorch's check_prefer_cudnn_attention, as the tracer routes it), FlashAttention-2 elsewhere; the flash-attn
    package is FlashAttention-2 on every chip. Only the attention class changes, by the ratio of the two rates."""
    eff = efficiency()
    c = catalog.card(card)
    cc = c.compute_capability.value or 0.0
    dev = Device(c.architecture, c.bf16_dense_tflops.value or 0.0, c.memory_bandwidth_gb_s.value or 0.0,
                 c.sm_count.value if c.sm_count and c.sm_count.value else 100.0, cc)  # fmt: skip
    assert eff.attention_kernel("sdpa", cc) == kernel and eff.attention_kernel("flash", cc) == "flash"
    kw = {"method": "full", "sequence_length": 8192}
    sdpa = {k.name: k for k in _step(catalog, "llama-3.1-8b", dev, **kw).classes}
    flash = {k.name: k for k in _step(catalog, "llama-3.1-8b", dev, attention="flash", **kw).classes}
    arch = eff.arch(c.architecture)
    expected = eff.attention_fraction(arch, cc, "flash") / eff.attention_fraction(arch, cc, kernel)
    assert sdpa["attention"].seconds / flash["attention"].seconds == pytest.approx(expected, rel=1e-6)
    assert (sdpa["attention"].seconds < flash["attention"].seconds) == (kernel == "cudnn")
    assert sdpa["mlp"].seconds == pytest.approx(flash["mlp"].seconds)


def test_a_sliding_window_model_runs_sdpas_memory_efficient_kernel(one_job) -> None:  # type: ignore[no-untyped-def]
    """Transformers passes an explicit mask to a sliding-window model's attention, and SDPA takes it to its
    memory-efficient kernel on every chip (as the tracer routes it): no cuDNN rate on an H100; timed at its measured
    ratio to FlashAttention-2's rate (efficiency.yaml efficient_attention_ratio, FlashAttention-2 paper Figure 4), and
    named so."""
    eff = efficiency()
    assert eff.attention_kernel("sdpa", 9.0, masked=True) == "efficient"
    assert eff.efficient_attention_ratio == 0.48
    assert eff.attention_fraction("Hopper", 9.0, "efficient") == pytest.approx(eff.attention["Hopper"] * 0.48)
    assert eff.attention_fraction("Ampere", 8.0, "efficient") == pytest.approx(eff.attention["Ampere"] * 0.48)
    job = one_job("h100-nvl", {"model": "gemma-3-12b", "method": "lora"})
    assert job.compute.attention_kernel.startswith(
        "memory-efficient, every tile, at 0.48 of FlashAttention-2's rate, on 40 sliding"
    )
    # below the window Transformers keeps is_causal and no mask (masking_utils.py _ignore_causal_mask_sdpa): the
    # fused kernel, cuDNN on an H100; from the window's length on, the mask
    short = one_job("h100-nvl", {"model": "gemma-3-12b", "method": "lora", "sequence_length": 1023})
    assert short.compute.attention_kernel == "cuDNN"
    at = one_job("h100-nvl", {"model": "gemma-3-12b", "method": "lora", "sequence_length": 1024})
    assert at.compute.attention_kernel == ("memory-efficient, every tile, at 0.48 of FlashAttention-2's rate, on 40 "
                                           "sliding-window layers; cuDNN on 8 full-attention layers")  # fmt: skip


def test_a_sliding_window_models_full_layers_keep_the_fused_kernel(catalog: Catalog) -> None:
    """Only the sliding layers pass a mask (masking_utils.py: a full layer's causal mask is dropped for is_causal):
    Gemma 3's 8 full-attention layers of 48 run cuDNN on an H100 while its 40 sliding layers run the memory-efficient
    kernel over every tile (an explicit mask: no causal skip), so its attention is timed faster than all 48 masked, by
    exactly the 8 layers' causal half and rates; the step band and the chart name both kernels."""
    from configurator.engine.time.compute import attention_kernel_word
    from configurator.engine.time.steptime.ops import attention_groups

    eff = efficiency()
    model = catalog.model("gemma-3-12b")
    h100 = Device("Hopper", 989.5, 3350, 132, 9.0)
    assert attention_groups(model, "sdpa", h100, 8192) == ((8, "cudnn", False), (40, "efficient", True))
    assert attention_groups(model, "sdpa", h100, 512) == ((8, "cudnn", False), (40, "cudnn", True))  # no mask yet
    shape = Shape(seq=8192, batch=1, checkpointing=False, full=False, rank=16, targets="all-linear",
                  dequant_bytes=0.0, loss="standard", stack="eager", attention="sdpa")  # fmt: skip
    mixed = {c.name: c for c in micro_batch(model, shape, h100).classes}["attention"]
    every = model.model_copy(update={"sliding_layers": tuple(range(48))})  # all 48 masked: one kernel
    masked = {c.name: c for c in micro_batch(every, shape, h100).classes}["attention"]
    # the masked layers' kernel visits every tile (no causal skip with an explicit mask): twice a causal layer's work
    assert mixed.flops == pytest.approx(masked.flops * (40 * 2 + 8) / (48 * 2))
    cudnn, efficient = (eff.attention_fraction("Hopper", 9.0, k) for k in ("cudnn", "efficient"))
    expected = masked.seconds * (40 * 2 + 8 * efficient / cudnn) / (48 * 2)
    assert mixed.seconds == pytest.approx(expected, rel=1e-6)
    label = ("memory-efficient, every tile, at 0.48 of FlashAttention-2's rate, on 40 sliding-window layers; cuDNN "
             "on 8 full-attention layers")  # fmt: skip
    assert attention_kernel_word(label) == "memory-efficient and cuDNN"


def test_eager_attention_is_its_matmuls_and_its_passes_over_the_scores(catalog: Catalog) -> None:
    """Eager attention (transformers eager_attention_forward): q @ k^T and P @ v over the whole s x s (the causal
    mask halves nothing), four matmuls in backward, and 32 + 36 bytes per score element of elementwise passes (ops.py
    EAGER_FORWARD_BYTES, EAGER_BACKWARD_BYTES), its time growing with s^2 past the fused kernel's."""
    from configurator.engine.time.steptime.ops import EAGER_BACKWARD_BYTES, EAGER_FORWARD_BYTES

    model = catalog.model("llama-3.1-8b")
    s, b = 4096, 2
    kw = {"method": "lora", "sequence_length": s, "micro_batch_size": b, "gradient_checkpointing": False}
    eager = {c.name: c for c in _step(catalog, "llama-3.1-8b", attention="eager", **kw).classes}
    mats = model.num_attention_heads * b * model.num_layers  # type: ignore[operator]
    assert eager["attention"].flops == pytest.approx(12 * s * s * model.head_dim * mats, rel=1e-9)
    assert eager["attention"].bytes == pytest.approx((EAGER_FORWARD_BYTES + EAGER_BACKWARD_BYTES) * s * s * mats)
    assert "recompute" not in eager
    fused = {c.name: c for c in _step(catalog, "llama-3.1-8b", attention="flash", **kw).classes}
    # more than twice: the fused kernel skips the causal half, and eager also streams its scores several times
    assert eager["attention"].seconds > 2 * fused["attention"].seconds
    assert eager["mlp"].seconds == pytest.approx(fused["mlp"].seconds)


@pytest.mark.parametrize(("model_id", "forward", "backward"), [
    ("llama-3.1-8b", 32, 36),  # the fp32 upcast softmax makes of BF16 scores, its softmax and the cast back
    ("gemma-2-9b", 32 + 12, 36 + 14),  # + soft-capping: / cap, tanh, * cap and their gradients
    ("gpt-oss-20b", 26, 38),  # sinks: cat, row max, - max, a BF16 softmax (no casts); slice, max and sub gradients
])  # fmt: skip
def test_eager_scores_take_the_passes_of_the_familys_eager_attention_forward(
    catalog: Catalog, model_id: str, forward: int, backward: int
) -> None:
    """Bytes per score element of eager attention's elementwise passes, forward and backward, as each family's
    transformers eager_attention_forward runs them (ops.py EAGER_*: modeling_llama.py, modeling_gemma2.py's
    soft-capping, modeling_gpt_oss.py's sinks); Gemma 2 moves 26 bytes an element more than Llama, gpt-oss 4 fewer
    (6 fewer forward, its softmax staying BF16; 2 more backward)."""
    model = catalog.model(model_id)
    s, b = 4096, 1
    kw = {"method": "lora", "sequence_length": s, "micro_batch_size": b}
    off = {c.name: c for c in _step(catalog, model_id, attention="eager", gradient_checkpointing=False, **kw).classes}
    on = {c.name: c for c in _step(catalog, model_id, attention="eager", gradient_checkpointing=True, **kw).classes}
    flash = {c.name: c for c in _step(catalog, model_id, attention="flash", gradient_checkpointing=True, **kw).classes}
    scores = float(s * s * model.num_attention_heads * b * model.num_layers)  # type: ignore[operator]
    assert off["attention"].bytes == pytest.approx((forward + backward) * scores, rel=1e-12)
    # the recompute repeats the forward's passes over the scores where flash repeats its kernel's reads and writes
    fused = fused_attention(s, b, model.num_attention_heads, model.num_key_value_heads, model.head_dim,
                            model.num_layers).forward_bytes  # type: ignore[arg-type]  # fmt: skip
    assert on["recompute"].bytes - flash["recompute"].bytes + fused == pytest.approx(forward * scores, rel=1e-9)


def test_an_eager_job_names_its_kernel_and_stands_outside_the_runs(one_job) -> None:  # type: ignore[no-untyped-def]
    job = one_job("rtx-pro-6000-ws", {"model": "llama-3.1-8b", "method": "lora", "attention": "eager"})
    assert job.compute.attention_kernel == "eager (s × s matmuls and softmax)"
    assert job.step_band_basis.endswith("none of the runs is timed with eager attention as this job is")


def test_flash_attention_skips_the_tiles_outside_a_sliding_window(catalog: Catalog) -> None:
    """FlashAttention-2 with a window (flash_fwd_kernel.h n_block_min with Is_local) visits only the key tiles from
    the window's start to the causal diagonal: Gemma 3's 1024-token window on five layers of six leaves its
    attention at 8k well under half of full causal attention's, in whole tiles; SDPA (the window as an explicit mask,
    the memory-efficient kernel) and eager compute every tile, so their attention does not shrink."""
    from configurator.engine.time.steptime.ops import FA2_BLOCK_M, fa2_block_n, local_attention_share

    assert local_attention_share(8192, 8192, 256) == 1.0 and local_attention_share(4096, 8192, 128) == 1.0
    # 64 query tiles of 128 over 128 key tiles of 64 (head_dim 256): full causal visits 2 + 4 + ... + 128 tiles;
    # a 1024 window from tile (128 m - 1023) // 64 onwards
    full = sum(min(128, 2 * (m + 1)) for m in range(64))
    local = sum(min(128, 2 * (m + 1)) - max(0, (128 * m - 1023) // 64) for m in range(64))
    assert FA2_BLOCK_M == 128 and fa2_block_n(256) == 64 and fa2_block_n(64) == 128
    assert local_attention_share(8192, 1024, 256) == pytest.approx(local / full)
    assert 0.2 < local / full < 0.3  # the band of 1024 + one tile's keys, over 4096 keys on average
    shares = [local_attention_share(8192, w, 128) for w in (256, 1024, 4096, 8192)]
    assert shares == sorted(shares) and shares[-1] == 1.0

    model = catalog.model("gemma-3-12b")
    assert model.sliding_window == 1024 and len(model.sliding_layers) == 40  # 5 of 6 of its 48 layers
    no_window = model.model_copy(update={"sliding_window": None, "sliding_layers": ()})
    shape = Shape(seq=8192, batch=1, checkpointing=False, full=False, rank=16, targets="all-linear",
                  dequant_bytes=0.0, loss="standard", stack="eager", attention="flash")  # fmt: skip
    windowed = {c.name: c for c in micro_batch(model, shape, H100).classes}["attention"]
    whole = {c.name: c for c in micro_batch(no_window, shape, H100).classes}["attention"]
    share = (8 + 40 * local_attention_share(8192, 1024, 256)) / 48
    assert windowed.flops == pytest.approx(whole.flops * share, rel=1e-9)
    assert windowed.bytes == pytest.approx(whole.bytes)  # q, k, v and o still read and written once
    # SDPA takes the window as an explicit mask: its memory-efficient kernel skips nothing, not even the causal half
    # (the 40 sliding layers' work doubles); eager computes the whole s x s either way
    for kernel, more in (("sdpa", (8 + 40 * 2) / 48), ("eager", 1.0)):
        other = Shape(**{**shape.__dict__, "attention": kernel})
        masked = {c.name: c for c in micro_batch(model, other, H100).classes}["attention"]
        plain = {c.name: c for c in micro_batch(no_window, other, H100).classes}["attention"]
        assert masked.flops == pytest.approx(plain.flops * more), kernel


def test_a_card_with_its_own_measured_gemm_fraction_is_timed_at_it(catalog: Catalog) -> None:
    """efficiency.yaml's gemm_peak_fraction_by_card takes precedence over the architecture's large-GEMM fraction for
    that card alone: the H100 PCIe's compute-bound GEMMs run at its own measured 0.656 of peak, not the H100 SXM's
    0.803 (Hopper); its memory-bound work and the attention kernel's rate do not move."""
    from dataclasses import replace

    from configurator.engine.time.compute import card_device

    eff = efficiency()
    pcie = card_device(catalog.card("h100-pcie"))
    assert pcie is not None and pcie.card == "h100-pcie"
    assert eff.gemm_large("Hopper", "h100-pcie") == 0.656 and eff.gemm_large("Hopper") == eff.gemm_peak["Hopper"]
    sxm = card_device(catalog.card("h100-sxm"))
    assert sxm is not None and eff.gemm_large("Hopper", sxm.card) == eff.gemm_peak["Hopper"]  # no entry: its arch's
    kw = {"method": "full", "sequence_length": 4096}
    own = {k.name: k for k in _step(catalog, "llama-3.1-8b", pcie, **kw).classes}
    arch = {k.name: k for k in _step(catalog, "llama-3.1-8b", replace(pcie, card=""), **kw).classes}
    for name in ("projections", "mlp"):
        ratio = own[name].compute_seconds / arch[name].compute_seconds
        assert ratio == pytest.approx(eff.gemm_peak["Hopper"] / 0.656, rel=1e-6), name
    assert own["attention"].seconds == pytest.approx(arch["attention"].seconds)  # the fused kernel's own rate
