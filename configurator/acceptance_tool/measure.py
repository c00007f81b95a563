"""Measure each single-card job of a build on this machine: peak memory and step time of real training steps.

Run by the burn-in kit (``configurator burnin``) as a script; imports only the standard library until a
job runs, then torch, transformers and, for LoRA / QLoRA, peft and bitsandbytes. Nothing is downloaded: the
model is built with random weights from the config the kit wrote (``AutoModelForCausalLM.from_config``).

For each job it runs one warm-up step, then timed optimizer steps (micro-batches x gradient accumulation as
the build says) until ``--steps`` or the time limit, each step the one the engine's prediction assumes (the job's
``step`` in jobs.json, written by engine/time/steptime/step_protocol.py: the optimizer and its implementation,
gradient clipping, bf16 autocast over the weights' dtype or pure bf16, gradient checkpointing reentrant or not on
the base model before PEFT wraps it), and records ``torch.cuda.max_memory_allocated``,
``max_memory_reserved``, the device's used memory at the peak (``torch.cuda.mem_get_info``: what nvidia-smi
shows, other processes included), the mean step time and tokens per second. Jobs on several cards need
torchrun and are reported as skipped, as are models given by parameter count only. Output: one JSON file
(``"tool": "configurator-measure"``) that ``configurator verify`` reads. GB = 10^9 bytes.

    python3 measure.py --jobs jobs.json --job 0 --out results/measure/job-0.json --time-limit 600
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import signal
import sys
import time
from pathlib import Path
from typing import Any

GB = 1e9
FORMAT = 1
LR = 1e-5  # any small rate: the step's time and memory do not depend on it
# bitsandbytes' optimizers by the engine's optimizer names (engine/model/build.py Optimizer)
BNB_OPTIMIZERS = {"adamw-8bit": "AdamW8bit", "paged-adamw": "PagedAdamW", "paged-adamw-8bit": "PagedAdamW8bit"}


class TimeLimit(Exception):
    """The job ran past its time limit."""


def _alarm(signum: int, frame: Any) -> None:
    raise TimeLimit


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("torch", "transformers", "peft", "bitsandbytes"):
        try:
            out[name] = __import__(name).__version__
        except Exception:  # absent or broken: recorded as missing, never fatal
            out[name] = None
    return out


# ---- the step the engine predicts (jobs.json's "step": engine/time/steptime/step_protocol.py StepProtocol.wire);
# the device kit's benchmarks/device/measure.py runs its training cases through these same functions


def weights_dtype(torch: Any, step: dict[str, Any]) -> Any:
    """The dtype the model is built in: fp32 under the Trainer's AMP full fine-tune, else bf16."""
    return torch.float32 if step["weights"] == "fp32" else torch.bfloat16


def enable_checkpointing(model: Any, step: dict[str, Any]) -> None:
    """Gradient checkpointing on the base model (before PEFT wraps it, as TRL's SFTTrainer and the engine's tracer
    do), reentrant or not as the step says (the library's own default has changed between releases); nothing when
    the step checkpoints nothing."""
    kind = step["checkpointing"]
    if kind is None:
        return
    reentrant = kind == "reentrant"
    enable = getattr(model, "activation_checkpointing_enable", None)
    if enable is not None:
        enable(activation_checkpointing_kwargs={"use_reentrant": reentrant})
    else:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": reentrant})
    if reentrant:
        model.enable_input_require_grads()  # reentrant checkpoints need an input that requires grad


def optimizer_kwargs(step: dict[str, Any], device: str) -> dict[str, Any]:
    """torch's implementation switch for the step's optimizer: fused=True, foreach=True or foreach=False (the
    for-loop); a CPU smoke run takes torch's own default."""
    if device != "cuda":
        return {}
    impl = step["optimizer_impl"]
    return {"fused": True} if impl == "fused" else {"foreach": impl == "foreach"}


def make_optimizer(torch: Any, params: list[Any], step: dict[str, Any], device: str) -> Any:
    """The step's optimizer over ``params``: torch's AdamW or SGD in the implementation it names, or bitsandbytes'
    8-bit or paged AdamW (one fused kernel of their own)."""
    name = step["optimizer"]
    if name in BNB_OPTIMIZERS:
        # optional extra: bitsandbytes only for a job whose optimizer is one of its own
        import bitsandbytes as bnb

        return getattr(bnb.optim, BNB_OPTIMIZERS[name])(params, lr=LR)
    kind = torch.optim.SGD if name == "sgd" else torch.optim.AdamW
    return kind(params, lr=LR, **optimizer_kwargs(step, device))


def autocast(torch: Any, step: dict[str, Any], device: str) -> Any:
    """The forward's context: torch.autocast(bfloat16) where the step runs mixed precision, else none."""
    if step["autocast_bf16"]:
        return torch.autocast(device_type=device, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def micro_step(torch: Any, model: Any, ids: Any, step: dict[str, Any], device: str) -> Any:
    """One micro-batch: the model's own loss under the step's autocast, backward outside it (as the Trainer runs
    it); returns the loss."""
    with autocast(torch, step, device):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    return loss


def optimizer_step(torch: Any, params: list[Any], optimizer: Any, step: dict[str, Any]) -> None:
    """The end of a step as the Trainer runs it: clip_grad_norm_ to the step's max_grad_norm, the optimizer's
    step, zero_grad(set_to_none=True)."""
    if step["max_grad_norm"]:
        torch.nn.utils.clip_grad_norm_(params, step["max_grad_norm"])
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def _model(torch: Any, job: dict[str, Any]) -> Any:
    # optional extra (the module docstring): transformers only once a job runs, so a machine without it reports a skip
    from transformers import AutoConfig, AutoModelForCausalLM

    step = job["step"]
    cfg = dict(job["hf_config"])
    config = AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    method = job["method"]
    if method == "qlora":
        # random weights quantised to NF4 one linear at a time, as transformers' bitsandbytes loader does
        import bitsandbytes as bnb

        model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.bfloat16)
        for name, module in list(model.named_modules()):
            for child_name, child in list(module.named_children()):
                if isinstance(child, torch.nn.Linear) and "lm_head" not in f"{name}.{child_name}":
                    q = bnb.nn.Linear4bit(
                        child.in_features,
                        child.out_features,
                        bias=child.bias is not None,
                        compute_dtype=torch.bfloat16,
                        quant_type="nf4",
                    )
                    q.weight = bnb.nn.Params4bit(child.weight.data, requires_grad=False, quant_type="nf4")
                    setattr(module, child_name, q)
        model = model.cuda()
    else:
        with torch.device("cuda"):
            model = AutoModelForCausalLM.from_config(config, torch_dtype=weights_dtype(torch, step))
    enable_checkpointing(model, step)
    if method in ("lora", "qlora"):
        # optional extra: peft for LoRA / QLoRA jobs only
        from peft import LoraConfig, get_peft_model

        rank = int(job.get("lora_rank", 16))
        model = get_peft_model(model, LoraConfig(r=rank, lora_alpha=2 * rank, target_modules="all-linear"))
    model.config.use_cache = False
    model.train()
    return model, config


def run_job(job: dict[str, Any], steps: int) -> dict[str, Any]:
    """One job's measurement; raises TimeLimit past the alarm, torch.cuda.OutOfMemoryError when it does not fit."""
    # optional extra: torch once a job runs (measure() says "skipped" when it is missing)
    import torch

    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    step_protocol = job["step"]
    model, config = _model(torch, job)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = make_optimizer(torch, params, step_protocol, "cuda")
    seq, mb = int(job["sequence_length"]), int(job["micro_batch_size"])
    gas = int(job.get("gradient_accumulation_steps", 1))
    tokens = torch.randint(0, config.vocab_size, (mb, seq), device="cuda")
    used_peak = 0.0
    times: list[float] = []
    for step in range(steps + 1):  # step 0 warms up (allocator pool, kernels) and is not timed
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(gas):
            micro_step(torch, model, tokens, step_protocol, "cuda")
            free, total = torch.cuda.mem_get_info()
            used_peak = max(used_peak, (total - free) / GB)
        optimizer_step(torch, params, optimizer, step_protocol)
        torch.cuda.synchronize()
        if step:
            times.append(time.perf_counter() - t0)
    step_s = sum(times) / len(times)
    return {
        "status": "ok",
        "peak_allocated_gb": torch.cuda.max_memory_allocated() / GB,
        "peak_reserved_gb": torch.cuda.max_memory_reserved() / GB,
        "device_used_gb": used_peak,
        "step_seconds": step_s,
        "tokens_per_second": seq * mb * gas / step_s,
        "layers_run": config.num_hidden_layers,
        "layers_full": config.num_hidden_layers,
        "step": step_protocol,  # what ran, as jobs.json asked it
    }


def measure(job: dict[str, Any], steps: int, time_limit: int) -> dict[str, Any]:
    base = {"name": job["name"], "gpu": job.get("gpu")}
    if job.get("skip"):
        return {**base, "status": "skipped", "reason": job["skip"]}
    if not isinstance(job.get("step"), dict):
        return {**base, "status": "error", "reason": "jobs.json names no step to run (an older kit's file): write the "
                "kit again with configurator burnin"}  # fmt: skip
    try:
        # optional extra: a machine without torch reports the job skipped, not a crash
        import torch
    except ImportError:
        return {
            **base,
            "status": "skipped",
            "reason": "torch is not installed: pip install torch transformers peft "
            "bitsandbytes (CUDA build), or the configurator's [measure] extra",
        }
    if not torch.cuda.is_available():
        return {**base, "status": "skipped", "reason": "no CUDA device visible to torch"}
    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(max(1, time_limit))
    try:
        return {**base, **run_job(job, steps)}
    except TimeLimit:
        return {**base, "status": "timeout", "reason": f"ran past the time limit of {time_limit} s"}
    except torch.cuda.OutOfMemoryError as exc:
        return {**base, "status": "oom", "reason": str(exc)[:500]}
    except ImportError as exc:
        return {**base, "status": "skipped", "reason": f"missing package: {exc.name} (pip install {exc.name})"}
    except Exception as exc:  # a broken stack must not stop the other jobs: recorded with its message
        return {**base, "status": "error", "reason": f"{type(exc).__name__}: {str(exc)[:500]}"}
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.alarm(0)


def device_info() -> dict[str, Any]:
    try:
        # optional extra: no torch, no device information
        import torch

        if torch.cuda.is_available():
            p = torch.cuda.get_device_properties(0)
            return {
                "name": p.name,
                "total_gb": p.total_memory / GB,
                "capability": f"{p.major}.{p.minor}",
                "cuda": torch.version.cuda,
                "visible": os.environ.get("CUDA_VISIBLE_DEVICES"),
            }
    except Exception:  # no torch / no driver: the file still says what it could not read
        pass
    return {"name": None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=Path, required=True, help="jobs.json written by configurator burnin")
    ap.add_argument("--job", type=int, required=True, help="index of the job in jobs.json")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--steps", type=int, default=3, help="timed optimizer steps after one warm-up step")
    ap.add_argument("--time-limit", type=int, default=600, help="seconds for the whole job")
    args = ap.parse_args(argv)
    try:
        jobs = json.loads(args.jobs.read_text(encoding="utf-8"))["jobs"]
        job = jobs[args.job]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        print(f"measure: cannot read job {args.job} of {args.jobs}: {exc}", file=sys.stderr)
        return 2
    result = measure(job, max(1, args.steps), args.time_limit)
    doc = {
        "tool": "configurator-measure",
        "format": FORMAT,
        "device": device_info(),
        "versions": _versions(),
        "jobs": [result],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    os.replace(tmp, args.out)
    print(f"measure: {job['name']}: {result['status']}" + (f" ({result['reason']})" if result.get("reason") else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
