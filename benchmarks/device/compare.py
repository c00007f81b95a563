"""Compare a device run (measure.py's JSON) with the engine's predictions: a row per figure of each case.

    python benchmarks/device/compare.py benchmarks/device/predictions.json measured.json

Standard library only. It scores; it never changes a prediction or a tolerance.

SCORING (written before any measurement existed; never changed after a score has been seen)

Ratio: always predicted / measured, of the figure named (seconds, or GB). Above 1: the engine predicts slower or
more memory than measured; below 1: faster or less.

Point tags, for every figure with a number on both sides: ``within 10 %`` when 1/1.10 <= ratio <= 1.10,
``within 25 %`` when 1/1.25 <= ratio <= 1.25, else ``off by more than 25 %``.

Kernels (no band in the engine: they are scored by the point tag alone)
- gemm: the median seconds of ``F.linear`` at (m, n, k) against ``predicted.seconds`` (the kernel alone: the
  table's large-GEMM fraction with the tile/wave model, no FITTED sustained fraction). Achieved TFLOP/s (the case's
  FLOPs / measured seconds) and the fraction of the card's dense BF16 peak are printed beside it, and the in-step
  prediction (``predicted_in_step``) is printed but not scored.
- attention: one case per kernel (``attention-flash-*``: FlashAttention-2, ``attention-cudnn-*``: cuDNN): the
  median seconds of causal SDPA forward + backward with that kernel forced against ``predicted.seconds`` (the
  engine's fraction for that kernel on the chip); a kernel that refused to run is not measured. What SDPA picks by
  itself on the device's PyTorch is printed beside it (its time and the backend's name), not scored.
- stream: the median seconds of the copy or add against ``predicted.seconds``; achieved GB/s printed.

Training steps
- step time: the median of the timed optimizer steps against ``predicted.step_seconds``, with the point tag, and
  against the engine's band [step_low_seconds, step_high_seconds]: ``inside band`` when low <= measured <= high,
  else ``faster than band`` (measured < low) or ``slower than band`` (measured > high). Tokens/s is printed; it
  is the same figure (tokens per step / step time) and is not scored again. Attention runs the SDPA kernel the
  engine timed (``attention_kernel``, forced); where that kernel refused, the step ran SDPA's own choice: it is
  scored all the same and its verdict says so.
- memory, against BOTH torch counters (the rule for a source that does not say which counter it printed is to
  report against each candidate; here the counter is known, and both are reported anyway):
  ``max_memory_allocated`` against [allocated_low_gb, allocated_high_gb] and its point ``max_memory_allocated_gb``,
  ``max_memory_reserved`` against [reserved_low_gb, reserved_high_gb] and ``max_memory_reserved_gb``; the same
  band verdicts (``inside band``, ``below band``: measured < low, ``above band``: measured > high) and point tags.
- the exact tracer (``traced.json`` beside the predictions, when present; ``--traced`` names another): its peak
  allocated against the measured ``max_memory_allocated`` (figure ``traced_allocated_gb``), by the point tag
  alone (no band: a trace is exact for the library versions it ran, printed beside it; it does not count cuBLAS
  workspaces, up to 64 MiB on sm90, nor kernel-internal allocations). A traced request that is no longer the
  case's (the case changed since it was traced) is not scored and says so.
- a case measured out of memory: ``FAIL: out of memory`` when the engine predicted that it fits (every case in
  predictions.json does), ``agrees: out of memory`` otherwise.

Not scored: a case skipped (budget), timed out or in error (reported as ``not measured`` with the reason); a
``--tiny`` run (shrunken shapes: a smoke test of the script, not of the engine). Measurements taken against
another predictions.json (its sha256 differs from the one measure.py recorded) are compared against the current
predictions with a warning saying so: the figures were fixed after that run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WITHIN = ((1.10, "within 10 %"), (1.25, "within 25 %"))
OFF = "off by more than 25 %"


@dataclass(frozen=True)
class Row:
    case: str
    figure: str  # gemm_seconds, attention_seconds, stream_seconds, step_seconds, max_memory_allocated_gb ...
    unit: str
    predicted: float | None
    measured: float | None
    ratio: float | None  # predicted / measured
    tag: str  # the point tag, or why there is none
    band: tuple[float, float] | None = None
    verdict: str = ""  # the band verdict (training figures), FAIL / not measured
    note: str = ""  # what is printed beside it, not scored


def point_tag(ratio: float) -> str:
    for limit, tag in WITHIN:
        if abs(math.log(ratio)) <= math.log(limit):
            return tag
    return OFF


def band_verdict(measured: float, low: float, high: float, below: str, above: str) -> str:
    if measured < low:
        return below
    if measured > high:
        return above
    return "inside band"


def _row(case: str, figure: str, unit: str, predicted: float, measured: float, **kw: Any) -> Row:
    ratio = predicted / measured if measured > 0 else None
    return Row(case, figure, unit, predicted, measured, ratio, point_tag(ratio) if ratio else "no ratio", **kw)


def _kernel(pred: dict[str, Any], meas: dict[str, Any], peak_tflops: float) -> list[Row]:
    p, m = pred["predicted"], meas["seconds"]
    if pred["kind"] == "stream":
        note = f"measured {pred['bytes'] / m / 1e9:,.0f} GB/s, predicted {p['gb_s']:,.0f} GB/s"
    else:
        achieved = pred["flops"] / m / 1e12
        note = (f"measured {achieved:,.1f} TFLOP/s ({achieved / peak_tflops:.3f} of peak), predicted "
                f"{p['tflops']:,.1f} ({p['fraction_of_peak']:.3f}); in a step the engine times it at "
                f"{pred['predicted_in_step']['tflops']:,.1f}")  # fmt: skip
        if pred["kind"] == "attention":
            default = meas.get("variants", {}).get("default", {})
            if default.get("status") == "ok":
                note += (f"; SDPA's own choice ({meas.get('sdpa_default_choice') or 'backend not read'}; the engine "
                         f"assumes {pred.get('sdpa_default')}): {pred['flops'] / default['seconds'] / 1e12:,.1f} "
                         "TFLOP/s")  # fmt: skip
    return [_row(pred["id"], f"{pred['kind']}_seconds", "s", p["seconds"], m, note=note)]


def _traced(pred: dict[str, Any], meas: dict[str, Any], traced: dict[str, Any] | None) -> list[Row]:
    case = next((c for c in (traced or {}).get("cases", []) if c["id"] == pred["id"]), None)
    if case is None or meas.get("max_memory_allocated_gb") is None:
        return []
    if not case.get("ok"):
        return [Row(pred["id"], "traced_allocated_gb", "GB", None, meas["max_memory_allocated_gb"], None,
                    "not traced", verdict=f"not scored: {case.get('error')}")]  # fmt: skip
    request = case["request"]
    stale = [k for k, v in (("sequence_length", pred["seq"]), ("micro_batch_size", pred["micro_batch"]),
                            ("gradient_checkpointing", pred["gradient_checkpointing"]), ("config", pred["hf_config"]))
             if request.get(k) != v]  # fmt: skip
    if stale:
        return [Row(pred["id"], "traced_allocated_gb", "GB", case["peak_allocated_gb"], meas["max_memory_allocated_gb"],
                    None, "not scored", verdict=f"not scored: traced with another {', '.join(stale)}")]  # fmt: skip
    versions = (traced or {}).get("versions", {})
    note = (f"traced with torch {versions.get('torch')}, transformers {versions.get('transformers')}, peft "
            f"{versions.get('peft')}; attention {case.get('attention_kernel')}; phase {case.get('phase')}")  # fmt: skip
    return [_row(pred["id"], "traced_allocated_gb", "GB", case["peak_allocated_gb"], meas["max_memory_allocated_gb"],
                 note=note)]  # fmt: skip


def _train(pred: dict[str, Any], meas: dict[str, Any]) -> list[Row]:
    p, cid = pred["predicted"], pred["id"]
    step = meas["seconds"]
    tokens = f"measured {meas['tokens_per_second']:,.0f} tokens/s, predicted {p['tokens_per_second']:,.0f}"
    low, high = p["step_low_seconds"], p["step_high_seconds"]
    verdict = band_verdict(step, low, high, "faster than band", "slower than band")
    attention = meas.get("ran", {}).get("attention") or {}
    if attention.get("refused"):
        verdict += f" (attention ran SDPA's own choice: {attention.get('kernel')} refused)"
    rows = [_row(cid, "step_seconds", "s", p["step_seconds"], step, band=(low, high), verdict=verdict, note=tokens)]
    for counter, lo, hi in (("max_memory_allocated_gb", "allocated_low_gb", "allocated_high_gb"),
                            ("max_memory_reserved_gb", "reserved_low_gb", "reserved_high_gb")):  # fmt: skip
        if meas.get(counter) is None:
            rows.append(Row(cid, counter, "GB", p[counter], None, None, "not measured",
                            verdict="not measured: no CUDA counter in this run"))  # fmt: skip
            continue
        got = meas[counter]
        rows.append(_row(cid, counter, "GB", p[counter], got, band=(p[lo], p[hi]),
                         verdict=band_verdict(got, p[lo], p[hi], "below band", "above band")))  # fmt: skip
    return rows


def score(predictions: dict[str, Any], measured: dict[str, Any], traced: dict[str, Any] | None = None) -> list[Row]:
    """Every scored figure of every predicted case, in the predictions' order (``traced``: traced.json, if any)."""
    by_id = {c["id"]: c for c in measured.get("cases", [])}
    peak = float(predictions["peak_bf16_tflops"])
    rows: list[Row] = []
    for pred in predictions["kernels"] + predictions["train"]:
        cid = pred["id"]
        meas = by_id.get(cid)
        if meas is None:
            rows.append(Row(cid, "-", "", None, None, None, "", verdict="not measured: absent from the run"))
            continue
        status = meas.get("status")
        if status == "oom":
            fits = pred.get("predicted", {}).get("fits", True)
            verdict = ("FAIL: out of memory where the engine predicts it fits" if fits
                       else "agrees: out of memory, as predicted")  # fmt: skip
            got = meas.get("max_memory_allocated_gb")
            rows.append(Row(cid, "max_memory_allocated_gb", "GB", pred.get("predicted", {}).get(
                "max_memory_allocated_gb"), got, None, "", verdict=verdict))  # fmt: skip
            continue
        if status != "ok" or meas.get("seconds") is None:
            reason = meas.get("reason") or "no median time recorded"
            said = f"not measured ({status}): {reason}" if status != "ok" else f"not measured: {reason}"
            rows.append(Row(cid, "-", "", None, None, None, "", verdict=said))
            continue
        if pred["kind"] == "train":
            rows += _train(pred, meas) + _traced(pred, meas, traced)
        else:
            rows += _kernel(pred, meas, peak)
    return rows


def warnings(predictions_bytes: bytes, measured: dict[str, Any]) -> list[str]:
    out = []
    if measured.get("tiny"):
        out.append("this is a --tiny smoke run (shrunken shapes): nothing in it is scored")
    digest = hashlib.sha256(predictions_bytes).hexdigest()
    if measured.get("predictions_sha256") not in (None, digest):
        out.append(f"measured against predictions {measured['predictions_sha256'][:12]}, the file now is "
                   f"{digest[:12]}: old measurements compared against NEW predictions "
                   "(the engine changed since)")  # fmt: skip
    if not measured.get("finished", False):
        out.append("the run did not finish (cut short): the cases after the last one recorded are absent")
    return out


def _num(x: float | None, unit: str) -> str:
    if x is None:
        return "-"
    if unit == "s":
        return f"{x * 1e3:,.3f} ms" if x < 1 else f"{x:,.3f} s"
    return f"{x:,.2f} {unit}"


def render(rows: list[Row], head: list[str]) -> str:
    lines = [f"WARNING: {w}" for w in head]
    lines.append(f"{'case':34} {'figure':24} {'predicted':>13} {'measured':>13} {'ratio':>6}  verdict")
    for r in rows:
        ratio = f"{r.ratio:.2f}" if r.ratio else "-"
        verdict = "; ".join(v for v in (r.tag, r.verdict) if v)
        if r.band:
            verdict += f" [{_num(r.band[0], r.unit)} .. {_num(r.band[1], r.unit)}]"
        lines.append(f"{r.case:34} {r.figure:24} {_num(r.predicted, r.unit):>13} {_num(r.measured, r.unit):>13} "
                     f"{ratio:>6}  {verdict}")  # fmt: skip
        if r.note:
            lines.append(f"{'':34} {r.note}")
    lines.append("")
    for figure in sorted({r.figure for r in rows if r.ratio}):
        ratios = [r.ratio for r in rows if r.figure == figure and r.ratio]
        banded = [r for r in rows if r.figure == figure and r.band and r.ratio]
        inside = sum(r.verdict == "inside band" for r in banded)
        line = f"{figure}: {len(ratios)} measured, median ratio {statistics.median(ratios):.2f}"
        if banded:
            line += f", {inside} of {len(banded)} inside the band"
        lines.append(line)
    fails = [r for r in rows if r.verdict.startswith("FAIL")]
    missing = [r for r in rows if r.verdict.startswith("not measured") and r.figure == "-"]
    lines.append(f"{len(fails)} failed, {len(missing)} not measured")
    return "\n".join(lines)


def _json_object(raw: bytes, path: Path) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} holds no JSON object")
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("predictions", type=Path)
    ap.add_argument("measured", type=Path)
    ap.add_argument("--traced", type=Path, default=None, help="the tracer's peaks (default: traced.json beside the "
                    "predictions, when there is one)")  # fmt: skip
    args = ap.parse_args(argv)
    traced_path = args.traced or args.predictions.with_name("traced.json")
    # a run cut off before its first case, or the wrong file: say which file and why, never a traceback
    try:
        raw = args.predictions.read_bytes()
        predictions = _json_object(raw, args.predictions)
        measured = _json_object(args.measured.read_bytes(), args.measured)
        traced = _json_object(traced_path.read_bytes(), traced_path) if traced_path.is_file() else None
    except (OSError, ValueError) as exc:
        print(f"cannot compare: {exc}", file=sys.stderr)
        return 2
    head = warnings(raw, measured)
    device = measured.get("device", {})
    print(f"{device.get('name')} ({measured.get('versions', {})}) against predictions for {predictions['card_name']}")
    if measured.get("tiny"):
        print(render([], head))
        return 0
    print(render(score(predictions, measured, traced), head))
    return 0


if __name__ == "__main__":
    sys.exit(main())
