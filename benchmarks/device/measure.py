"""Measure on a GPU what benchmarks/device/predictions.json predicts: kernels (BF16 GEMMs, causal attention forward +
backward, streaming copy and add) and training steps (real optimizer steps of a model with random weights).

Runs on the device machine: the standard library, torch, transformers and peft only (no configurator import, no
network, no download: every model is ``AutoModelForCausalLM.from_config`` of the config the engine sized).

    PYTHONUNBUFFERED=1 python3 benchmarks/device/measure.py --out $OUT/measured.json --budget 420
    python3 benchmarks/device/measure.py --device cpu --tiny --out /tmp/measured-tiny.json   # smoke test, no GPU

How each figure is taken (the protocol's counts are in predictions.json):

- every timed iteration or optimizer step sits between two ``torch.cuda.Event(enable_timing=True)`` records, read
  after ``torch.cuda.synchronize()``; warm-up iterations are run first and not timed; the median is the figure
  (mean, min and max are kept);
- training: the Transformers Trainer's step as a plain loop, run by the burn-in kit's own step functions
  (configurator/acceptance_tool/measure.py, loaded from its file: a standalone script, so neither the package nor
  pydantic is imported) as the case's ``step`` says (the engine's step protocol,
  engine/time/steptime/step_protocol.py): ``model(input_ids, labels).loss`` under bf16 autocast or in pure bf16,
  backward, ``clip_grad_norm_(max_grad_norm)``, the optimizer in the framework's implementation (fused AdamW for
  the Trainer), ``zero_grad(set_to_none=True)``; LoRA through PEFT (fp32 adapters, PEFT's default); gradient
  checkpointing enabled on the base model before PEFT wraps it, reentrant or not as the step says (what the
  engine's tracer runs); attention forced to the SDPA kernel the engine timed (``attention_kernel``; if that kernel
  refuses the inputs, SDPA's own choice, recorded); tokens per step = micro_batch x sequence x accumulation;
- memory: ``torch.cuda.reset_peak_memory_stats()`` before the case's model is built, then
  ``max_memory_allocated`` and ``max_memory_reserved`` after its last step (GB = 10^9 bytes).

Every case runs in its own try/except: an out-of-memory or an error is recorded and the next case runs. A global
budget (``--budget``, env ``DEVICE_KIT_BUDGET_S``, default the protocol's 420 s) stops a case that runs past it
and skips the rest, saying so. The results file is rewritten after every case, so a run cut short still returns
what it measured. ``--tiny`` shrinks every case (hidden 64, 2 layers, sequence 64) for a smoke test.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import hashlib
import importlib.util
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

GB = 1e9
FORMAT = 1
HERE = Path(__file__).resolve().parent
# the burn-in kit's measurement script, whose step functions run the training cases (one implementation of the step)
KIT_MEASURE = HERE.parents[1] / "configurator" / "acceptance_tool" / "measure.py"
SMI_FIELDS = ("name", "driver_version", "pstate", "clocks.sm", "clocks.max.sm", "clocks.mem", "clocks.max.mem",
              "power.draw", "power.limit", "power.default_limit", "power.max_limit", "temperature.gpu",
              "memory.total", "memory.used", "clocks_event_reasons.active")  # fmt: skip
SMI_UNDER_LOAD = ("clocks.sm", "clocks.mem", "power.draw", "temperature.gpu")
# --tiny: every case shrunk so that a CPU runs the whole list in seconds
TINY_CONFIG = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
               "head_dim": 16, "vocab_size": 512}  # fmt: skip
TINY_SEQ = 64
TINY_PROTOCOL = {"kernel_warmup": 1, "kernel_iters": 3, "train_warmup_steps": 1, "train_timed_steps": 2}
MIN_LEFT_S = {"gemm": 3.0, "attention": 5.0, "stream": 3.0, "train": 30.0}  # not started with less budget left


class BudgetSpent(Exception):
    """The global time budget ran out during a case."""


def _alarm(signum: int, frame: Any) -> None:
    raise BudgetSpent


def smi(fields: tuple[str, ...]) -> dict[str, str | None]:
    """nvidia-smi --query-gpu, one field per call (a field this driver does not know reads None, not a failure)."""
    out: dict[str, str | None] = {}
    for f in fields:
        try:
            r = subprocess.run(["nvidia-smi", f"--query-gpu={f}", "--format=csv,noheader", "-i", "0"],
                               capture_output=True, text=True, timeout=10)  # fmt: skip
            out[f] = r.stdout.strip() if r.returncode == 0 else None
        except (OSError, subprocess.SubprocessError):
            out[f] = None
    return out


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("torch", "transformers", "peft", "accelerate"):
        try:
            out[name] = __import__(name).__version__
        except Exception:  # absent or broken: recorded, never fatal
            out[name] = None
    try:
        import torch

        out["cuda"] = torch.version.cuda
        out["cudnn"] = str(torch.backends.cudnn.version())
    except Exception:
        pass
    return out


def device_info(torch: Any, device: str) -> dict[str, Any]:
    if device != "cuda" or not torch.cuda.is_available():
        return {"device": device, "name": platform.processor() or platform.machine()}
    p = torch.cuda.get_device_properties(0)
    return {"device": "cuda", "name": p.name, "total_gb": p.total_memory / GB, "capability": f"{p.major}.{p.minor}",
            "sms": p.multi_processor_count, "visible": os.environ.get("CUDA_VISIBLE_DEVICES")}  # fmt: skip


class Clock:
    """Times one iteration: CUDA events on a GPU (read after synchronize), perf_counter on a CPU."""

    def __init__(self, torch: Any, device: str) -> None:
        self.torch, self.cuda = torch, device == "cuda"
        self.pairs: list[Any] = []

    @contextlib.contextmanager
    def time(self) -> Any:
        if self.cuda:
            start, end = self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True)
            start.record()
            yield
            end.record()
            self.pairs.append((start, end))
        else:
            t0 = time.perf_counter()
            yield
            self.pairs.append(time.perf_counter() - t0)

    def seconds(self) -> dict[str, float]:
        if self.cuda:
            self.torch.cuda.synchronize()
            times = [s.elapsed_time(e) / 1e3 for s, e in self.pairs]
        else:
            times = list(self.pairs)
        return {"seconds": statistics.median(times), "seconds_mean": statistics.fmean(times),
                "seconds_min": min(times), "seconds_max": max(times), "iterations": len(times)}  # fmt: skip


def _sync(torch: Any, device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def run_gemm(torch: Any, case: dict[str, Any], device: str, tiny: bool, proto: dict[str, Any]) -> dict[str, Any]:
    m, n, k = (min(case[d], 64) for d in "mnk") if tiny else (case["m"], case["n"], case["k"])
    x = torch.randn(m, k, device=device, dtype=torch.bfloat16)
    w = torch.randn(n, k, device=device, dtype=torch.bfloat16)
    with torch.no_grad():
        for _ in range(proto["kernel_warmup"]):
            torch.nn.functional.linear(x, w)
        _sync(torch, device)
        clock = Clock(torch, device)
        for _ in range(proto["kernel_iters"]):
            with clock.time():
                torch.nn.functional.linear(x, w)
    return {"ran": {"m": m, "n": n, "k": k}, **clock.seconds()}


def _attention_once(torch: Any, q: Any, k: Any, v: Any, grad: Any) -> None:
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    out.backward(grad)
    q.grad = k.grad = v.grad = None


def _backend(kernel: str) -> Any:
    """The SDPA backend of an engine kernel name (efficiency.py attention_kernel): flash, cudnn, efficient."""
    from torch.nn.attention import SDPBackend

    names = {"flash": "FLASH_ATTENTION", "cudnn": "CUDNN_ATTENTION", "efficient": "EFFICIENT_ATTENTION"}
    return getattr(SDPBackend, names[kernel])


def _only(kernel: str) -> Any:
    """A context in which SDPA runs ``kernel`` or raises (no silent fallback to another backend)."""
    from torch.nn.attention import sdpa_kernel

    return sdpa_kernel([_backend(kernel)])


def run_attention(torch: Any, case: dict[str, Any], device: str, tiny: bool, proto: dict[str, Any]) -> dict[str, Any]:
    """Forward + backward of causal SDPA with the case's kernel forced (what the engine's fraction for that kernel
    is measured on), then with the backend PyTorch picks by itself (printed, not scored)."""
    b, s, h, d = (2, TINY_SEQ, 4, 16) if tiny else (case["batch"], case["seq"], case["heads"], case["head_dim"])
    q, k, v = (torch.randn(b, h, s, d, device=device, dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    grad = torch.randn(b, h, s, d, device=device, dtype=torch.bfloat16)
    variants: dict[str, Any] = {}
    choice = None
    try:  # private API: which backend SDPA's own dispatcher picks for these inputs
        from torch.nn.attention import SDPBackend

        choice = SDPBackend(torch._fused_sdp_choice(q, k, v, is_causal=True)).name
    except Exception:
        pass

    for name, ctx in (("forced", lambda: _only(case["kernel"])), ("default", contextlib.nullcontext)):
        try:
            with ctx():
                for _ in range(proto["kernel_warmup"]):
                    _attention_once(torch, q, k, v, grad)
                _sync(torch, device)
                clock = Clock(torch, device)
                for _ in range(proto["kernel_iters"]):
                    with clock.time():
                        _attention_once(torch, q, k, v, grad)
                variants[name] = {"status": "ok", **clock.seconds()}
        except BudgetSpent:
            raise
        except Exception as exc:  # e.g. no such kernel for this device or build: recorded, the other variant stands
            variants[name] = {"status": "error", "reason": f"{type(exc).__name__}: {str(exc)[:300]}"}
    scored = {k: v for k, v in variants.get("forced", {}).items() if k.startswith("seconds")}
    if not scored:  # compare.py scores the forced kernel only: say why there is none
        scored = {"reason": f"the {case['kernel']} kernel did not run: {variants.get('forced', {}).get('reason')}"}
    return {"ran": {"batch": b, "seq": s, "heads": h, "head_dim": d, "kernel": case["kernel"]},
            "sdpa_default_choice": choice, "variants": variants, **scored}


def run_stream(torch: Any, case: dict[str, Any], device: str, tiny: bool, proto: dict[str, Any]) -> dict[str, Any]:
    n = 1 << 16 if tiny else case["elements"]
    a = torch.randn(n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, device=device, dtype=torch.bfloat16)
    c = torch.empty_like(a)

    def once() -> None:
        if case["op"] == "copy":
            c.copy_(a)
        else:
            torch.add(a, b, out=c)

    for _ in range(proto["kernel_warmup"]):
        once()
    _sync(torch, device)
    clock = Clock(torch, device)
    for _ in range(proto["kernel_iters"]):
        with clock.time():
            once()
    return {"ran": {"elements": n}, **clock.seconds()}


def kit_step() -> Any:
    """The burn-in kit's measure.py as a module, loaded from its file (it imports only the standard library at its
    top: the package, and so pydantic, stays unimported on the device)."""
    spec = importlib.util.spec_from_file_location("configurator_kit_measure", KIT_MEASURE)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {KIT_MEASURE}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _config(case: dict[str, Any], tiny: bool) -> Any:
    from transformers import AutoConfig

    cfg = dict(case["hf_config"])
    if tiny:
        grouped = cfg.get("num_key_value_heads") not in (None, cfg.get("num_attention_heads"))
        cfg.update(TINY_CONFIG, num_key_value_heads=2 if grouped else TINY_CONFIG["num_attention_heads"])
    return AutoConfig.for_model(cfg.pop("model_type"), **cfg)


def run_train(torch: Any, case: dict[str, Any], device: str, tiny: bool, proto: dict[str, Any]) -> dict[str, Any]:
    from transformers import AutoModelForCausalLM

    config = _config(case, tiny)
    seq = TINY_SEQ if tiny else case["seq"]
    mb, gas = case["micro_batch"], case["gradient_accumulation"]
    kit, protocol = kit_step(), case["step"]
    torch.manual_seed(0)
    built = time.perf_counter()
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=kit.weights_dtype(torch, protocol),
                                                 attn_implementation="sdpa")  # fmt: skip
    kit.enable_checkpointing(model, protocol)  # on the base model, before PEFT wraps it
    if case["method"] == "lora":
        from peft import LoraConfig, get_peft_model

        lora = case["lora"]
        config_lora = LoraConfig(r=lora["rank"], lora_alpha=2 * lora["rank"], lora_dropout=lora["dropout"],
                                 target_modules=lora["targets"])  # fmt: skip
        model = get_peft_model(model, config_lora)
    model.config.use_cache = False
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = kit.make_optimizer(torch, params, protocol, device)
    ids = torch.randint(0, config.vocab_size, (mb, seq), device=device)

    missing: list[int] = []  # trainable tensors without a gradient after the first backward (a broken graph)
    kernel = case.get("attention_kernel")
    attention: dict[str, Any] = {"kernel": kernel, "forced": bool(kernel), "refused": None}

    def step() -> Any:
        for _ in range(gas):
            # the SDPA kernel the engine timed, forced for forward, backward and the checkpoints' recompute
            with _only(str(kernel)) if attention["forced"] else contextlib.nullcontext():
                loss = kit.micro_step(torch, model, ids, protocol, device)
        if not missing:
            missing.append(sum(p.grad is None for p in params))
        kit.optimizer_step(torch, params, optimizer, protocol)
        return loss.detach()

    for i in range(proto["train_warmup_steps"]):
        try:
            step()
        except RuntimeError as exc:
            if i or not attention["forced"] or isinstance(exc, torch.cuda.OutOfMemoryError):
                raise
            # the kernel refused these inputs on this build: the step runs with SDPA's own choice, and says so
            attention.update(forced=False, refused=f"{type(exc).__name__}: {str(exc)[:300]}")
            optimizer.zero_grad(set_to_none=True)
            missing.clear()
            step()
    _sync(torch, device)
    warm = time.perf_counter() - built
    clock = Clock(torch, device)
    for _ in range(proto["train_timed_steps"]):
        with clock.time():
            loss = step()
    timing = clock.seconds()
    checkpoint = next((getattr(m, "_gradient_checkpointing_func", None) for m in model.modules()
                       if getattr(m, "_gradient_checkpointing_func", None) is not None), None)  # fmt: skip
    out: dict[str, Any] = {
        "ran": {"seq": seq, "micro_batch": mb, "gradient_accumulation": gas, "layers": config.num_hidden_layers,
                "hidden": config.hidden_size,
                "checkpoint_kwargs": repr(getattr(checkpoint, "keywords", None)) if checkpoint else None,
                "step": protocol, "optimizer": type(optimizer).__name__,
                "optimizer_defaults": {k: v for k, v in optimizer.defaults.items() if k in ("fused", "foreach")},
                "attention": attention},
        **timing,
        "tokens_per_step": mb * seq * gas,
        "tokens_per_second": mb * seq * gas / timing["seconds"],
        "loss": float(loss),
        "build_and_warmup_s": warm,
        "trainable_parameters": sum(p.numel() for p in params),
        "trainable_dtypes": sorted({str(p.dtype) for p in params}),
        "trainable_tensors_without_gradient": missing[0],
        "total_parameters": sum(p.numel() for p in model.parameters()),
    }  # fmt: skip
    if device == "cuda":
        out["max_memory_allocated_gb"] = torch.cuda.max_memory_allocated() / GB
        out["max_memory_reserved_gb"] = torch.cuda.max_memory_reserved() / GB
        free, total = torch.cuda.mem_get_info()
        out["device_used_gb_after"] = (total - free) / GB
        out["nvidia_smi_after_steps"] = smi(SMI_UNDER_LOAD)
    return out


RUNNERS = {"gemm": run_gemm, "attention": run_attention, "stream": run_stream, "train": run_train}


def _write(doc: dict[str, Any], path: Path) -> None:
    """The results so far, replacing the file whole (a run killed mid-write leaves the previous version)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _cleanup(torch: Any, device: str) -> None:
    gc.collect()
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def _summary(case: dict[str, Any], res: dict[str, Any], tiny: bool) -> str:
    if res["status"] != "ok" or res.get("seconds") is None:
        return f"{res['status']}: {res.get('reason', 'no time recorded')}"
    line = f"{res['seconds'] * 1e3:.3f} ms"
    if case["kind"] == "train":
        line += f", {res['tokens_per_second']:,.0f} tokens/s"
        if "max_memory_allocated_gb" in res:
            line += f", allocated {res['max_memory_allocated_gb']:.2f} GB"
            line += f", reserved {res['max_memory_reserved_gb']:.2f} GB"
    elif not tiny and "flops" in case:
        line += f", {case['flops'] / res['seconds'] / 1e12:.1f} TFLOP/s"
    elif not tiny:
        line += f", {case['bytes'] / res['seconds'] / 1e9:.0f} GB/s"
    return line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--predictions", type=Path, default=HERE / "predictions.json")
    default_out = Path(os.environ["OUT"]) / "measured.json" if os.environ.get("OUT") else Path("measured.json")
    ap.add_argument("--out", type=Path, default=default_out, help="results JSON (default $OUT/measured.json)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds for the whole run (default $DEVICE_KIT_BUDGET_S, else the protocol's)")  # fmt: skip
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--tiny", action="store_true", help="shrink every case (hidden 64, 2 layers, sequence 64)")
    ap.add_argument("--only", default="", help="comma-separated case ids or id prefixes to run (default: all)")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    raw = args.predictions.read_bytes()
    pred = json.loads(raw)
    proto = {**pred["protocol"], **(TINY_PROTOCOL if args.tiny else {})}
    budget = args.budget or float(os.environ.get("DEVICE_KIT_BUDGET_S") or proto["budget_s"])
    only = [s for s in args.only.split(",") if s]
    cases = [c for c in pred["kernels"] + pred["train"] if not only or any(c["id"].startswith(o) for o in only)]
    doc: dict[str, Any] = {
        "tool": "configurator-device-kit-measured", "format": FORMAT,
        "predictions_sha256": hashlib.sha256(raw).hexdigest(),
        "started_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": " ".join([sys.executable, *sys.argv]), "tiny": args.tiny, "budget_s": budget, "protocol": proto,
        "versions": versions(), "device": {"device": args.device}, "nvidia_smi_before": None, "cases": [],
        "finished": False,
    }  # fmt: skip
    _write(doc, args.out)
    try:
        import torch
    except ImportError as exc:
        doc["error"] = f"torch is not importable: {exc}"
        _write(doc, args.out)
        print(f"measure: {doc['error']}", flush=True)
        return 2
    if args.device == "cuda" and not torch.cuda.is_available():
        doc["error"] = "no CUDA device visible to torch (use --device cpu --tiny for a smoke test)"
        _write(doc, args.out)
        print(f"measure: {doc['error']}", flush=True)
        return 2
    doc["device"] = device_info(torch, args.device)
    if args.device == "cuda":
        doc["nvidia_smi_before"] = smi(SMI_FIELDS)
    print(f"measure: {doc['device'].get('name')} {doc['versions']} budget {budget:.0f} s, {len(cases)} cases",
          flush=True)  # fmt: skip
    _write(doc, args.out)
    OOM = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError  # torch.OutOfMemoryError: 2.5+
    use_alarm = hasattr(signal, "setitimer")
    if use_alarm:
        signal.signal(signal.SIGALRM, _alarm)
    for case in cases:
        left = budget - (time.monotonic() - t0)
        base = {"id": case["id"], "kind": case["kind"]}
        if left < MIN_LEFT_S[case["kind"]]:
            res = {**base, "status": "skipped", "reason": f"budget: {left:.0f} s of {budget:.0f} s left, "
                   f"the case needs at least {MIN_LEFT_S[case['kind']]:.0f} s"}  # fmt: skip
        else:
            if args.device == "cuda":
                torch.cuda.reset_peak_memory_stats()
            if use_alarm:
                signal.setitimer(signal.ITIMER_REAL, left)
            started = time.monotonic()
            try:
                res = {**base, "status": "ok", **RUNNERS[case["kind"]](torch, case, args.device, args.tiny, proto)}
            except BudgetSpent:
                res = {**base, "status": "skipped", "reason": f"budget of {budget:.0f} s ran out during the case"}
            except OOM as exc:
                res = {**base, "status": "oom", "reason": str(exc)[:500]}
                if args.device == "cuda":
                    res["max_memory_allocated_gb"] = torch.cuda.max_memory_allocated() / GB
                    res["max_memory_reserved_gb"] = torch.cuda.max_memory_reserved() / GB
            except Exception as exc:  # one broken case must not stop the others: recorded with its trace
                res = {**base, "status": "error", "reason": f"{type(exc).__name__}: {str(exc)[:500]}",
                       "traceback": traceback.format_exc()[-3000:]}  # fmt: skip
            finally:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            res["wall_s"] = time.monotonic() - started
            _cleanup(torch, args.device)
        doc["cases"].append(res)
        _write(doc, args.out)
        print(f"measure: {case['id']}: {_summary(case, res, args.tiny)}", flush=True)
    if args.device == "cuda":
        doc["nvidia_smi_after"] = smi(SMI_FIELDS)
    doc["finished"] = True
    doc["elapsed_s"] = time.monotonic() - t0
    _write(doc, args.out)
    print(f"measure: done in {doc['elapsed_s']:.0f} s, results in {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
