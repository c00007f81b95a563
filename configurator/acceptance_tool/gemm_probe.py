"""Time a large square BF16 GEMM on one GPU: the card's sustained matrix rate, for ``configurator verify``.

Run by the burn-in kit once per GPU, one at a time (``CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=<i>``, so
torch's device 0 is nvidia-smi's GPU i); imports only the standard library until it runs, then torch. Prints one
JSON document (``"tool": "configurator-gemm"``) on stdout; messages go to stderr.

What it does: ``torch.matmul`` of two N x N BF16 matrices into a preallocated N x N output (N = 8192 by default:
2 N^3 = 1.1 PFLOP per call, far past wave and tile quantisation on every catalog card), a warm-up, then calls in
chunks of about half a second, each chunk timed with CUDA events, until ``--seconds`` of GPU time. The rate is
2 M N K x calls / time. The first and last chunks' rates are reported as well: a rate that falls during the run is
a card heating up. While one chunk runs past the middle of the run, ``nvidia-smi`` is read once for the SM clock,
its maximum, the power draw and limit, the temperature and the active clock-event (throttle) reasons.

How long, and why (ASSUMPTION, stated in the kit's README): GPU Boost moves the clock against the power limit in a
fast control loop, so a 2 s warm-up at full load brings the card to the clock its power limit allows and the 10 s
timed after it read that settled clock (the power sweep of specs/power-limits.yaml timed the same 8192^3 GEMM at
each limit). A card whose cooling fails takes longer than that to heat up: the first-to-last fall shows the start
of it, and ``--seconds 120`` (``GEMM_SECONDS=120 sh run.sh``) soaks it. Eight GPUs take about two minutes.

A GPU with MIG mode on is skipped (a MIG instance holds only part of the SMs: its rate is not the card's); run by
hand with ``CUDA_VISIBLE_DEVICES=MIG-<uuid>`` to time an instance.

    python3 gemm_probe.py --gpu 0 [--size 8192] [--seconds 10] [--warmup 2]
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from typing import Any

FORMAT = 1
DEFAULT_SECONDS = 10.0  # GPU seconds timed after the warm-up (the docstring says why)
DEFAULT_WARMUP = 2.0  # GPU seconds of load before timing
CHUNK_SECONDS = 0.5  # GPU time per timed chunk: CUDA event resolution (~0.5 us) is far below it
MAX_CHUNKS = 100_000  # a timer that returns ~0 cannot loop for ever
# nvidia-smi --help-query-gpu names; drivers before R535 know the reasons as clocks_throttle_reasons.active
SMI_FIELDS = ("clocks.sm", "clocks.max.sm", "power.draw", "power.limit", "temperature.gpu")
REASON_FIELDS = ("clocks_event_reasons.active", "clocks_throttle_reasons.active")

# launch(calls, during): enqueue ``calls`` GEMMs, run ``during`` (if any) while they execute, wait, and return the
# GPU time they took in seconds
Launch = Callable[[int, Callable[[], None] | None], float]


def tflops(m: int, n: int, k: int, calls: int, seconds: float) -> float:
    """TFLOP/s of ``calls`` M x N x K matrix products in ``seconds``: 2 M N K FLOPs each (a multiply and an add per
    term; NVIDIA's 'Matrix Multiplication Background' guide)."""
    if seconds <= 0:
        raise ValueError("no time measured")
    return 2.0 * m * n * k * calls / seconds / 1e12


def chunk_calls(seconds_per_call: float, chunk_seconds: float = CHUNK_SECONDS) -> int:
    """Calls per chunk so one chunk takes about ``chunk_seconds`` of GPU time (at least one)."""
    if seconds_per_call <= 0:
        return 1
    return max(1, min(1_000_000, round(chunk_seconds / seconds_per_call)))


def sustain(
    launch: Launch, seconds: float, calls: int, during: Callable[[], None] | None = None
) -> list[tuple[int, float]]:
    """Chunks of ``calls`` GEMMs until their GPU time adds up to ``seconds``: [(calls, seconds)] per chunk.
    ``during`` runs once, while the first chunk that starts past half of ``seconds`` executes."""
    chunks: list[tuple[int, float]] = []
    total = 0.0
    pending = during
    while total < seconds and len(chunks) < MAX_CHUNKS:
        hook = pending if pending is not None and total >= seconds / 2 else None
        if hook is not None:
            pending = None
        t = launch(calls, hook)
        if t <= 0:
            raise ValueError("the GPU timer returned no time for a chunk")
        chunks.append((calls, t))
        total += t
    return chunks


def summary(chunks: list[tuple[int, float]], m: int, n: int, k: int) -> dict[str, Any]:
    """The sustained rate over all chunks, and the first, last, lowest and highest chunk's."""
    if not chunks:
        raise ValueError("no chunk timed")
    calls = sum(c for c, _ in chunks)
    seconds = sum(t for _, t in chunks)
    rates = [tflops(m, n, k, c, t) for c, t in chunks]
    return {
        "calls": calls,
        "seconds": seconds,
        "chunks": len(chunks),
        "tflops": tflops(m, n, k, calls, seconds),
        "tflops_first": rates[0],
        "tflops_last": rates[-1],
        "tflops_min": min(rates),
        "tflops_max": max(rates),
    }


def parse_smi_line(line: str, fields: tuple[str, ...]) -> dict[str, str]:
    """One ``--format=csv,noheader,nounits`` row as {field: value}; values the driver cannot read are dropped."""
    values = [v.strip() for v in line.strip().split(",")]
    if len(values) != len(fields):
        return {}
    return {f: v for f, v in zip(fields, values, strict=True) if v and not v.startswith("[")}


Run = Callable[..., Any]


def smi_query(index: int, fields: tuple[str, ...], run: Run = subprocess.run) -> dict[str, str] | None:
    """nvidia-smi's values of ``fields`` for GPU ``index``; None when nvidia-smi is absent or refuses a field."""
    if shutil.which("nvidia-smi") is None and run is subprocess.run:
        return None
    try:
        done = run(
            ["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits", "-i", str(index)],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
    return parse_smi_line(lines[0], fields) if lines else None


def smi_sample(index: int, run: Run = subprocess.run) -> dict[str, str] | None:
    """Clocks, power, temperature and the clock-event reasons (under either of their names) of GPU ``index``."""
    for reasons in REASON_FIELDS:
        got = smi_query(index, (*SMI_FIELDS, reasons), run)
        if got is not None:
            if reasons in got:
                got["clocks_event_reasons.active"] = got.pop(reasons)
            return got
    return smi_query(index, SMI_FIELDS, run)


def mig_on(index: int, run: Run = subprocess.run) -> bool:
    got = smi_query(index, ("mig.mode.current",), run) or {}
    return got.get("mig.mode.current", "").lower().startswith("enabled")


def probe(gpu: int, size: int, seconds: float, warmup: float) -> dict[str, Any]:
    """One GPU's result: status ok with the rates, or skipped / error with the reason."""
    base: dict[str, Any] = {"gpu": gpu, "shape": [size, size, size], "dtype": "bfloat16"}
    if mig_on(gpu):
        return {
            **base,
            "status": "skipped",
            "reason": "MIG mode is on: a MIG instance holds part of the SMs, so its rate is not the card's "
            "(time an instance by hand with CUDA_VISIBLE_DEVICES=MIG-<uuid>)",
        }
    try:
        # optional extra: torch only once the probe runs, so a machine without it reports a skip
        import torch
    except ImportError:
        return {**base, "status": "skipped", "reason": "torch is not installed (pip install torch, CUDA build)"}
    if not torch.cuda.is_available():
        return {**base, "status": "skipped", "reason": "no CUDA device visible to torch"}
    try:
        dev = torch.device("cuda", 0)
        props = torch.cuda.get_device_properties(dev)
        base["name"] = props.name
        a = torch.randn(size, size, device=dev, dtype=torch.bfloat16)
        b = torch.randn(size, size, device=dev, dtype=torch.bfloat16)
        c = torch.empty(size, size, device=dev, dtype=torch.bfloat16)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        sample: dict[str, Any] = {}

        def launch(calls: int, during: Callable[[], None] | None) -> float:
            start.record()
            for _ in range(calls):
                torch.matmul(a, b, out=c)
            end.record()
            if during is not None:
                during()  # the GEMMs are queued: nvidia-smi reads the card while they run
            end.synchronize()
            return float(start.elapsed_time(end)) / 1000.0  # milliseconds

        def read_smi() -> None:
            sample.update(smi_sample(gpu) or {})

        launch(3, None)  # cuBLAS picks its kernel and loads it: not timed
        per_call = launch(10, None) / 10
        calls = chunk_calls(per_call)
        sustain(launch, warmup, calls)  # clocks settle against the power limit: not timed
        chunks = sustain(launch, seconds, calls, read_smi)
        return {**base, "status": "ok", **summary(chunks, size, size, size), "chunk_calls": calls, "smi": sample}
    except Exception as exc:  # a broken driver or stack is recorded with its message, never a traceback
        return {**base, "status": "error", "reason": f"{type(exc).__name__}: {str(exc)[:500]}"}


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    try:
        # optional extra: torch's version for the record, absent on a machine without it
        import torch

        out["torch"] = torch.__version__
        out["cuda"] = torch.version.cuda
    except Exception:  # absent or broken: recorded as missing
        out["torch"] = None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", type=int, required=True, help="nvidia-smi index of the GPU (CUDA_VISIBLE_DEVICES)")
    ap.add_argument("--size", type=int, default=8192, help="M = N = K of the square GEMM")
    ap.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="GPU seconds timed after the warm-up")
    ap.add_argument("--warmup", type=float, default=DEFAULT_WARMUP, help="GPU seconds of load before timing")
    args = ap.parse_args(argv)
    if args.gpu < 0 or not 256 <= args.size <= 65536 or not 0 < args.seconds <= 3600 or not 0 <= args.warmup <= 600:
        print("gemm_probe: --gpu >= 0, --size 256-65536, --seconds 0-3600, --warmup 0-600", file=sys.stderr)
        return 2
    result = probe(args.gpu, args.size, args.seconds, args.warmup)
    doc = {"tool": "configurator-gemm", "format": FORMAT, "versions": _versions(), "gpus": [result]}
    print(json.dumps(doc, indent=2))
    rate = f" {result['tflops']:.1f} TFLOP/s" if result["status"] == "ok" else f" ({result.get('reason')})"
    print(f"gemm_probe: GPU{args.gpu}: {result['status']}{rate}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
