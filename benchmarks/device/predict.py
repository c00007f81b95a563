"""The engine's predictions for the device kit, fixed before anything is measured (benchmarks/device/README.md).

Writes ``benchmarks/device/predictions.json``: for catalog card ``h200-sxm``,

- kernels: BF16 GEMMs at the forward shapes the per-op model times for Llama-3.1-8B (tokens 4096 and 16384:
  q, k, v, o, gate, up, down, lm_head), each at the engine's own achieved fraction
  (``Efficiency.gemm_fraction``: the architecture's large-GEMM fraction, tiles over SMs, a short K); causal
  attention forward + backward at sequence 2048, 4096 and 8192 (32 heads, head dim 128, about 16k tokens), once
  per SDPA kernel (FlashAttention-2, cuDNN) at the engine's fraction for that kernel on the chip; a streaming copy
  and add at the engine's bandwidth fraction;
- training steps: single-card jobs (LoRA r=16 on every linear layer, full fine-tunes), evaluated whole by the
  engine (``evaluate``): step time and its band, tokens/s, and the peak as the two torch counters
  (``torch.cuda.max_memory_allocated``: CardMemory.peak_allocated_gb; ``max_memory_reserved``:
  CardMemory.allocator_reserved_gb), each with the engine's memory band applied relatively (as
  engine/acceptance/predict.py does for allocated).

Each kernel carries two predictions: ``predicted`` (the kernel alone: the table's measured large-GEMM or
FlashAttention fraction, which came from isolated kernel benchmarks) and ``predicted_in_step`` (times the FITTED
``sustained_compute_fraction``, as the per-op model times the same kernel inside a training step). compare.py
scores the first; the second tests nothing on its own (the training steps test it).

The HF config of each training case is the catalog's (engine/acceptance/kit.py ``hf_config_of``), so measure.py
builds exactly the model the engine sized. ``python benchmarks/device/predict.py`` rewrites the file;
tests/benchmarks_device/test_device_kit.py fails when the engine no longer predicts what it holds.

``--trace PYTHON`` also runs the engine's exact tracer (configurator/trace/, torch on meta tensors, CPU only) on
each training case with an interpreter that has the ``trace`` extra, into ``traced.json`` with the library versions
it ran; the test checks that its requests are still the cases' (the traced figures themselves need torch).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: the repository root on the path, as `python -m` would put it
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from configurator.catalog.fileio import atomic_write_text
from configurator.catalog.loader import default_catalog
from configurator.engine.acceptance.kit import hf_config_of
from configurator.engine.evaluate import evaluate
from configurator.engine.model.build import Build
from configurator.engine.time.compute import card_device
from configurator.engine.time.steptime import Device
from configurator.engine.time.steptime.efficiency import efficiency
from configurator.engine.time.steptime.ops import attention_kernel_of, fused_attention, gemm_work, op_seconds
from configurator.engine.time.steptime.step_protocol import step_protocol
from configurator.trace.request import prepare_trace

HERE = Path(__file__).resolve().parent
PREDICTIONS = HERE / "predictions.json"
TRACED = HERE / "traced.json"
FORMAT = 1
CARD = "h200-sxm"
CHASSIS = "hgx-8"  # the catalog's HGX H100/H200 baseboard; one card in slot 1
GEMM_MODEL = "llama-3.1-8b"
GEMM_TOKENS = (4096, 16384)
# causal FlashAttention, 32 heads x 128 (Llama-3.1-8B's query heads), batch x sequence = 16,384 tokens
ATTENTION_SHAPES: tuple[tuple[int, int], ...] = ((8, 2048), (4, 4096), (2, 8192))  # (batch, sequence)
ATTENTION_HEADS, ATTENTION_HEAD_DIM = 32, 128
STREAM_ELEMENTS = 1 << 28  # 268M bf16 elements: 512 MiB per tensor, far past the 50 MB L2
# How measure.py runs each case: warm-up iterations (not timed), then timed ones; one source for both scripts.
PROTOCOL = {
    "kernel_warmup": 5,
    "kernel_iters": 20,
    "train_warmup_steps": 2,
    "train_timed_steps": 5,
    "budget_s": 420,
    "notes": (
        "Timed with torch.cuda.Event around each timed iteration or optimizer step, read after "
        "torch.cuda.synchronize(); warm-up excluded; tokens per step = micro_batch x sequence x gradient "
        "accumulation. Peak counters reset (torch.cuda.reset_peak_memory_stats) before each case's model is built."
    ),
}
# Training steps: one card, hf-trainer (the engine's Transformers Trainer + PEFT stack: eager kernels, standard
# cross-entropy, fused AdamW, gradient clipping), which a plain PyTorch + PEFT loop reproduces step for step.
# LoRA: mixed-bf16 (bf16 base, PEFT's fp32 adapters, bf16 autocast: Trainer bf16=True); full: pure-bf16 (bf16
# weights and AdamW states, no autocast: the model as from_config(dtype=bfloat16) builds it).
TRAIN_CASES: tuple[dict[str, Any], ...] = (
    {"id": "llama-3.1-8b-lora-r16-ckpt", "model": "llama-3.1-8b", "method": "lora", "seq": 2048, "micro_batch": 2,
     "checkpointing": True},
    {"id": "llama-3.1-8b-lora-r16-nockpt", "model": "llama-3.1-8b", "method": "lora", "seq": 2048, "micro_batch": 2,
     "checkpointing": False},
    {"id": "qwen3-8b-lora-r16-ckpt", "model": "qwen3-8b", "method": "lora", "seq": 2048, "micro_batch": 2,
     "checkpointing": True},
    {"id": "llama-3.2-1b-full-nockpt", "model": "llama-3.2-1b", "method": "full", "seq": 2048, "micro_batch": 4,
     "checkpointing": False},
    {"id": "llama-3.2-3b-full-ckpt", "model": "llama-3.2-3b", "method": "full", "seq": 2048, "micro_batch": 2,
     "checkpointing": True},
)  # fmt: skip
LORA_RANK = 16


def _r(x: float | None, digits: int = 6) -> float | None:
    """Significant digits kept in the file (readable, and stable against float noise in the currentness test)."""
    return None if x is None else float(f"{x:.{digits}g}")


def _device() -> Device:
    """The card as the per-op model sees it (engine/time/compute.card_device)."""
    dev = card_device(default_catalog().card(CARD))
    assert dev is not None, CARD
    return dev


def _timed(flops: float, moved: float, rate: float, bandwidth: float) -> dict[str, Any]:
    """One kernel as the per-op model times it (ops.py op_seconds: max(FLOPs / achieved rate, bytes / achieved
    bandwidth))."""
    seconds, bound = op_seconds(flops, moved, rate, bandwidth)
    return {"seconds": _r(seconds), "tflops": _r(flops / seconds / 1e12), "bound": bound, "fraction_of_peak": None}


def gemm_cases() -> list[dict[str, Any]]:
    eff = efficiency()
    dev = _device()
    peak, bw, arch = dev.peak_tflops * 1e12, dev.bandwidth_gb_s * 1e9, eff.arch(dev.arch)
    model = default_catalog().model(GEMM_MODEL)
    assert model.hidden_size and model.vocab_size
    shapes = [(m.name, m.in_features, m.out_features) for m in model.linear_modules()]
    shapes.append(("lm_head", model.hidden_size, model.vocab_size))
    out = []
    for tokens in GEMM_TOKENS:
        for name, k, n in shapes:
            m = tokens
            flops, moved = gemm_work(m, n, k)  # as ops.py micro_batch counts every GEMM
            # the kernel alone, as measure.py times it; in a step: with the FITTED sustained fraction
            kernel = eff.gemm_kernel_fraction(arch, m, n, k, dev.sms, dev.card)
            frac = eff.gemm_fraction(arch, m, n, k, dev.sms, dev.card)
            alone = _timed(flops, moved, peak * kernel, bw * eff.bandwidth)
            alone["fraction_of_peak"] = _r(kernel)
            in_step = _timed(flops, moved, peak * frac, bw * eff.bandwidth)
            in_step["fraction_of_peak"] = _r(frac)
            out.append({"id": f"gemm-{name}-t{tokens}", "kind": "gemm", "module": name, "m": m, "n": n, "k": k,
                        "layout": "F.linear(x[m,k], W[n,k]) as nn.Linear runs it", "flops": flops,
                        "bytes": moved, "predicted": alone, "predicted_in_step": in_step})  # fmt: skip
    return out


ATTENTION_KERNELS = ("flash", "cudnn")  # the SDPA backends measure.py forces, each timed at its own table figure


def attention_cases() -> list[dict[str, Any]]:
    """One case per kernel and shape: FlashAttention-2 and cuDNN forced (each at the engine's fraction for that
    kernel on this chip); ``sdpa_default`` names the kernel the engine says SDPA picks here by itself."""
    eff = efficiency()
    dev = _device()
    peak, bw, arch, cc = dev.peak_tflops * 1e12, dev.bandwidth_gb_s * 1e9, eff.arch(dev.arch), dev.compute_capability
    sustained = eff.sustained.get(arch, 1.0)
    h, d = ATTENTION_HEADS, ATTENTION_HEAD_DIM
    out = []
    for kernel in ATTENTION_KERNELS:
        frac = eff.attention_fraction(arch, cc, kernel)
        for batch, seq in ATTENTION_SHAPES:
            # one layer's fused kernel, forward + backward, as ops.py micro_batch counts it (h query and kv heads)
            flops, moved = fused_attention(seq, batch, h, h, d).with_backward(eff.attention_backward)
            alone = _timed(flops, moved, peak * frac, bw * eff.bandwidth)
            alone["fraction_of_peak"] = _r(frac)
            in_step = _timed(flops, moved, peak * frac * sustained, bw * eff.bandwidth)
            in_step["fraction_of_peak"] = _r(frac * sustained)
            out.append({"id": f"attention-{kernel}-s{seq}", "kind": "attention", "kernel": kernel,
                        "sdpa_default": eff.attention_kernel("sdpa", cc), "batch": batch, "seq": seq, "heads": h,
                        "head_dim": d, "causal": True, "passes": "forward + backward", "flops": flops,
                        "bytes": moved, "predicted": alone, "predicted_in_step": in_step})  # fmt: skip
    return out


def stream_cases() -> list[dict[str, Any]]:
    eff = efficiency()
    bw = _device().bandwidth_gb_s * 1e9
    out = []
    for op, tensors in (("copy", 2), ("add", 3)):  # copy: read + write; add: two reads + one write
        moved = 2.0 * STREAM_ELEMENTS * tensors
        seconds, _ = op_seconds(0.0, moved, 0.0, bw * eff.bandwidth)  # no FLOPs: the bytes at the achieved bandwidth
        out.append({"id": f"stream-{op}", "kind": "stream", "op": op, "elements": STREAM_ELEMENTS, "dtype": "bf16",
                    "bytes": moved, "predicted": {"seconds": _r(seconds), "gb_s": _r(moved / seconds / 1e9),
                                                  "fraction_of_peak": _r(eff.bandwidth)}})  # fmt: skip
    return out


def _job(case: dict[str, Any]) -> dict[str, Any]:
    lora = case["method"] == "lora"
    return {"name": case["id"], "model": case["model"], "method": case["method"],
            "lora": {"rank": LORA_RANK, "targets": "all-linear", "dropout": 0.0},
            "precision": "mixed-bf16" if lora else "pure-bf16", "optimizer": "adamw", "framework": "hf-trainer",
            "attention": "sdpa", "sequence_length": case["seq"], "micro_batch_size": case["micro_batch"],
            "gradient_accumulation_steps": 1, "gradient_checkpointing": case["checkpointing"],
            "cards": [1]}  # fmt: skip


def _build() -> Build:
    return Build.model_validate({"name": "device kit", "chassis": CHASSIS, "cards": [{"slot": 1, "card": CARD}],
                                 "jobs": [_job(c) for c in TRAIN_CASES]})  # fmt: skip


def trace_requests() -> dict[str, dict[str, Any]]:
    """The exact tracer's request for each training case (configurator/trace/request.py), by case id."""
    build, catalog = _build(), default_catalog()
    return {job.name: prepare_trace(build, job, catalog).request.wire() for job in build.jobs}


def train_cases() -> list[dict[str, Any]]:
    catalog = default_catalog()
    build = _build()
    result = evaluate(build, catalog)
    out = []
    for case, job in zip(TRAIN_CASES, build.jobs, strict=True):
        res = result.job(job.name)
        assert res is not None and res.compute is not None and res.step_seconds, job.name
        assert res.compute.step_model == "per-op", f"{job.name}: timed by {res.compute.step_model}"
        card = res.cards[0]
        # the engine's band on the nvidia-smi figure, applied relatively to each torch counter
        reserved = card.peak_reserved_gb
        lo = (card.band_low_gb or card.peak_low_gb or reserved) / reserved
        hi = (card.band_high_gb or card.peak_high_gb or reserved) / reserved
        tokens = res.compute.tokens_per_step
        step, low, high = res.step_seconds, res.step_low_seconds, res.step_high_seconds
        cfg = hf_config_of(catalog.model(case["model"]))
        assert cfg is not None, case["model"]
        out.append({
            "id": case["id"], "kind": "train", "model": case["model"], "hf_config": cfg, "method": job.method,
            "lora": {"rank": job.lora.rank, "targets": "all-linear", "dropout": job.lora.dropout}
            if job.method == "lora" else None,
            "precision": job.precision, "adapters_fp32": job.method == "lora",
            "seq": job.sequence_length, "micro_batch": job.micro_batch_size,
            "gradient_accumulation": job.gradient_accumulation_steps,
            "gradient_checkpointing": job.gradient_checkpointing,
            # the step the engine predicts (optimizer and its implementation, clipping, autocast or pure bf16,
            # checkpointing reentrant or not): what measure.py runs, through the burn-in kit's own step functions
            "step": step_protocol(job).wire(), "attn_implementation": job.attention,
            # the SDPA kernel the engine times this step's attention at on this chip: measure.py forces it
            "attention_kernel": attention_kernel_of(catalog.model(case["model"]), job.attention, _device(),
                                                    job.sequence_length),
            "attention_kernel_name": res.compute.attention_kernel,
            "framework": job.framework, "tokens_per_step": tokens,
            "predicted": {
                "step_seconds": _r(step), "step_low_seconds": _r(low), "step_high_seconds": _r(high),
                "step_band_basis": res.step_band_basis,
                "tokens_per_second": _r(tokens / step), "tokens_low": _r(tokens / high) if high else None,
                "tokens_high": _r(tokens / low) if low else None,
                "launch_bound": res.compute.launch_bound,
                "ops_seconds": {o.name: _r(o.seconds) for o in res.compute.ops},
                "max_memory_allocated_gb": _r(card.peak_allocated_gb),
                "allocated_low_gb": _r(card.peak_allocated_gb * lo),
                "allocated_high_gb": _r(card.peak_allocated_gb * hi),
                "max_memory_reserved_gb": _r(card.allocator_reserved_gb),
                "reserved_low_gb": _r(card.allocator_reserved_gb * lo),
                "reserved_high_gb": _r(card.allocator_reserved_gb * hi),
                "memory_band_basis": card.band_basis, "capacity_gb": _r(card.capacity_gb), "fits": card.fits,
                "params_trainable": res.params_trainable, "params_total": res.params_total,
            },
        })  # fmt: skip
    return out


def build_predictions() -> dict[str, Any]:
    """Everything predictions.json holds (no date or version in it: the file changes only when a figure does)."""
    card = default_catalog().card(CARD)
    return {
        "tool": "configurator-device-kit-predictions",
        "format": FORMAT,
        "card": CARD,
        "card_name": card.name,
        "peak_bf16_tflops": card.bf16_dense_tflops.value,
        "bandwidth_gb_s": card.memory_bandwidth_gb_s.value,
        "sm_count": card.sm_count.value if card.sm_count is not None else None,
        "written_by": "python benchmarks/device/predict.py (the engine; GB = 10^9 bytes)",
        "protocol": PROTOCOL,
        "kernels": gemm_cases() + attention_cases() + stream_cases(),
        "train": train_cases(),
    }


def render(predictions: dict[str, Any]) -> str:
    return json.dumps(predictions, indent=1) + "\n"


def traced(python: str) -> dict[str, Any]:
    """The exact tracer's peak allocated for each training case, run by ``python`` (an interpreter with the
    ``trace`` extra: torch on meta tensors, no GPU), with the versions it ran; minutes on a CPU."""
    import datetime

    from configurator.trace.protocol import TraceRequest
    from configurator.trace.runner import run_trace, worker_command

    command = worker_command(python)
    cases = []
    versions: dict[str, str | None] = {}
    for cid, wire in trace_requests().items():
        outcome = run_trace(TraceRequest.model_validate(wire), command=command, use_cache=False, timeout_s=1800)
        r = outcome.result
        versions = outcome.versions
        cases.append({"id": cid, "request": wire, "ok": r.ok, "error": r.error,
                      "peak_allocated_gb": _r(r.peak_gb), "phase": r.phase, "op": r.op, "module": r.module,
                      "breakdown_gb": {k: _r(v / 1e9) for k, v in r.breakdown.model_dump().items()},
                      "attention_kernel": r.attention_kernel, "notes": r.notes})  # fmt: skip
        print(f"traced {cid}: {r.peak_gb:.3f} GB" if r.ok else f"traced {cid}: {r.error}", flush=True)
    return {"tool": "configurator-device-kit-traced", "format": FORMAT, "versions": versions,
            "command": f"python benchmarks/device/predict.py --trace {python}",
            "date": datetime.date.today().isoformat(),
            "what": "peak allocated bytes of the engine's exact tracer (configurator/trace/worker) on meta tensors; "
                    "not counted: cuBLAS workspaces, kernel-internal allocations, reserved minus allocated",
            "cases": cases}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--trace", metavar="PYTHON", help="also trace each training case with this interpreter (one "
                    "with the trace extra) into traced.json")  # fmt: skip
    args = ap.parse_args(argv)
    atomic_write_text(PREDICTIONS, render(build_predictions()), "the device kit's predictions")
    print(f"wrote {PREDICTIONS}")
    if args.trace:
        atomic_write_text(TRACED, json.dumps(traced(args.trace), indent=1) + "\n", "the device kit's traced peaks")
        print(f"wrote {TRACED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
