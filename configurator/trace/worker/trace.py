"""Two real training steps of one job on meta tensors, the bytes the CUDA caching allocator would hold counted.

The method and its traps: ../shared/reference/tracing.md. The job is built as a Hugging Face run builds it
(transformers from_config in the training dtype, PEFT LoRA with fp32 adapters, bitsandbytes NF4 linears with
PEFT's k-bit preparation, gradient checkpointing), then stepped as transformers' Trainer steps it: forward with the
model's own loss, backward, gradient clipping, the optimizer step, zero_grad(set_to_none).
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from typing import Any

from configurator.trace.worker.request import Job, RequestError, parse
from configurator.trace.worker.result import INSTALL_HINT, KINDS, SCHEMA, failure, versions

Progress = Callable[[float, str], None]

NOTES_ALWAYS = [
    "cuBLAS/cuBLASLt workspaces not counted (about 16 MiB on sm80, up to 64 MiB on sm90)",
    "CUDA context and the caching allocator's reserve (reserved minus allocated) not counted",
    "kernel-internal allocations not counted (flash backward's fp32 dq accumulator, cuDNN workspaces)",
    "the peak is taken over the training steps (reset after loading, as after reset_peak_memory_stats)",
]


def run_request(request: Any, progress: Progress | None = None) -> dict[str, Any]:
    """The result object for ``request`` (a decoded request JSON object); never raises for a job it cannot trace."""
    start = time.perf_counter()
    say = progress or (lambda _f, _w: None)
    try:
        job = parse(request)
    except RequestError as exc:
        return failure(f"bad request: {exc}")
    try:
        # the trace extra may be missing: the answer is then a result with the install hint, not a crash
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        return failure(f"the tracer needs torch and transformers ({exc.name} is missing): {INSTALL_HINT}")
    try:
        return _trace(job, say, start)
    except RequestError as exc:
        fsdp = job.parallel_kind == "fsdp2"
        return failure(str(exc), seconds=time.perf_counter() - start, notes=[str(exc)] if fsdp else None)
    except Exception as exc:  # a library path that does not run on meta: a clean "cannot trace this"
        if os.environ.get("CONFIGURATOR_TRACE_RAISE"):
            raise
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        if job.parallel_kind == "fsdp2":
            # fully_shard itself ran; its step did not, on meta tensors over the fake process group
            said = (f"FSDP2 did not trace on meta: the sharded step failed in the library code "
                    f"({type(exc).__name__}: {message[:300]}); the analytic estimate stands")  # fmt: skip
            return failure(said, seconds=time.perf_counter() - start, notes=[said])
        return failure(f"the trace failed in the library code: {type(exc).__name__}: {message[:400]}",
                       seconds=time.perf_counter() - start)  # fmt: skip
    finally:
        gc.collect()


def _trace(job: Job, say: Progress, start: float) -> dict[str, Any]:
    # the trace extra: torch and the modules built on it load once run_request has found it installed (this
    # module stays importable without it, to answer with the install hint)
    import torch

    from configurator.trace.worker import build, fsdp
    from configurator.trace.worker.counter import Context, MemoryCounter, Peak
    from configurator.trace.worker.emulation import RunMode
    from configurator.trace.worker.vision import vision_inputs

    notes = list(NOTES_ALWAYS)
    build.patch_libraries()
    say(0.05, "building the model on meta")
    ctx = Context()
    autocast = torch.bfloat16 if job.precision == "mixed-bf16" else None
    mode = RunMode(ctx, autocast_dtype=autocast)
    built = build.build_model(job, notes)
    model = built.model
    build.wrap_checkpointing(model, mode, ctx)
    if job.parallel_kind == "fsdp2":
        say(0.1, f"fully_shard over {job.world_size} fake ranks")
        fsdp.shard(model, job, notes)
    trainable = [p for p in model.parameters() if p.requires_grad]
    if not trainable:
        raise RequestError("nothing to train: no parameter requires grad")
    names = build.module_names(model)
    hooks = build.module_hooks(ctx, names)
    counter = MemoryCounter(ctx)
    if job.parallel_kind == "fsdp2":
        fsdp.COUNTER = counter
    b, s = job.micro_batch_size, job.sequence_length
    extra: dict[str, Any] = {}
    vision = None
    if job.images_per_sample:
        # the placeholder check counts image tokens by value (input_ids == image_token_id): no values on meta
        os.environ["TRANSFORMERS_DISABLE_TORCH_CHECK"] = "1"
        vision = vision_inputs(job, model.config, b)
        s += vision.image_tokens  # the language model's sequence: text + image tokens
        extra = dict(vision.kwargs)
        notes.append(vision.note + f"; language model sequence {job.sequence_length} text + "
                                   f"{vision.image_tokens} image tokens = {s}")
    fwd_end: dict[int, int] = {}
    grad_records: set[int] = set()
    state_records: set[int] = set()
    optimizer = None
    try:
        with counter, mode:
            for t in build.resident_tensors(model):
                counter.track(t)
            say(0.15, "loaded")
            input_ids = torch.empty((b, s), dtype=torch.long, device="meta")
            labels = torch.empty((b, s), dtype=torch.long, device="meta")
            if vision is not None:
                if model.config.model_type == "gemma3":
                    extra["token_type_ids"] = torch.empty((b, s), dtype=torch.long, device="meta")
                    vision.tracked.append(extra["token_type_ids"])
                for t in vision.tracked:
                    counter.track(t)
            for t in (input_ids, labels):
                counter.track(t)
            counter.peak = Peak(counter.total, counter.event, "load", 0, "", "")
            optimizer = build.make_optimizer(job, model, notes)
            if job.warm_optimizer:
                # the states a first step leaves, made by the optimizer's own step on zero gradients: one traced
                # step is then the steady state two real steps reach (checked row by row in the table's header)
                ctx.phase = "optimizer"
                for p in trainable:
                    p.grad = torch.zeros_like(p)
                build.optimizer_step(optimizer, job, notes)
                _mark_states(optimizer, counter, state_records)
                optimizer.zero_grad(set_to_none=True)
                notes.append("optimizer states made by a warm-up step on zero gradients, then one traced step")
            for step in range(1, job.steps + 1):
                ctx.step = step
                ctx.phase = "forward"
                say(0.15 + 0.8 * (step - 1) / job.steps, f"step {step}: forward")
                with mode.region(autocast is not None):
                    loss = build.forward_loss(model, input_ids, labels, **extra)
                fwd_end[step] = counter.event
                ctx.phase = "backward"
                say(0.15 + 0.8 * (step - 0.6) / job.steps, f"step {step}: backward")
                loss.backward()
                del loss
                for p in trainable:
                    if p.grad is not None:
                        index = counter.index_of(p.grad)
                        if index is not None:
                            grad_records.add(index)
                ctx.phase = "optimizer"
                say(0.15 + 0.8 * (step - 0.2) / job.steps, f"step {step}: optimizer")
                # transformers Trainer: accelerator.clip_grad_norm_(max_grad_norm=1.0), foreach on a GPU
                torch.nn.utils.clip_grad_norm_(trainable, 1.0, foreach=True)
                build.optimizer_step(optimizer, job, notes)
                _mark_states(optimizer, counter, state_records)
                optimizer.zero_grad(set_to_none=True)
    finally:
        fsdp.COUNTER = None
        for h in hooks:
            h.remove()
    peak = counter.peak
    breakdown = dict.fromkeys(KINDS, 0)
    for index, rec in enumerate(counter.records):
        if rec.born > peak.event or (rec.died is not None and rec.died <= peak.event):
            continue
        if rec.phase == "load":
            kind = "parameters"
        elif index in grad_records:
            kind = "gradients"
        elif index in state_records:
            kind = "optimizer_states"
        elif rec.recompute or (rec.phase == "forward" and (rec.died or 1 << 62) > fwd_end.get(rec.step, 1 << 62)):
            kind = "activations"
        else:
            kind = "temporaries"
        breakdown[kind] += rec.nbytes
    assert sum(breakdown.values()) == peak.bytes, (breakdown, peak.bytes)
    notes.extend(built.notes_after)
    if built.route is not None and built.route.fp32_inputs:
        notes.append("attention inputs were fp32 (fp32 norms without autocast): flash and cuDNN take only fp16/bf16, "
                     "so a GPU runs SDPA's memory-efficient kernel (same saved tensors) or, with GQA, possibly the "
                     "math kernel (s x s scores): traced with the fused kernel's saved tensors")  # fmt: skip
    say(1.0, "done")
    result = {
        "schema": SCHEMA,
        "ok": True,
        "peak_allocated_bytes": int(peak.bytes),
        "phase": peak.phase,
        "step": int(peak.step),
        "op": peak.op,
        "module": peak.module,
        "breakdown": {k: int(v) for k, v in breakdown.items()},
        "versions": versions(),
        "attention_kernel": built.attention_kernel(),
        "seconds": round(time.perf_counter() - start, 3),
        "notes": notes,
        "error": None,
    }
    del model, optimizer, built
    return result


def _mark_states(optimizer: Any, counter: Any, state_records: set[int]) -> None:
    import torch  # the trace extra, as in _trace

    for state in optimizer.state.values():
        for v in state.values():
            if isinstance(v, torch.Tensor) and v.device.type == "meta":
                index = counter.index_of(v)
                if index is not None:
                    state_records.add(index)
