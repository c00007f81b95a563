"""The device kit (benchmarks/device/): the committed predictions are what the engine predicts now, compare.py
scores a hand-written run as its docstring says, and measure.py stays a standalone script (no configurator, torch
only inside its functions). No torch here: `make test` never imports it."""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib
import json
import sys
from typing import Any

import pytest

from benchmarks.device import compare, predict
from configurator.engine.time.steptime.efficiency import efficiency, set_override
from configurator.engine.time.steptime.ops import fused_attention, gemm_work, op_seconds
from tests.paths import ROOT

DEVICE = ROOT / "benchmarks" / "device"
STALE = (
    "benchmarks/device/predictions.json is not what the engine predicts now ({ids}). Regenerate it with "
    "`python benchmarks/device/predict.py` and commit it before the next device run. Measurements taken before "
    "then compare against the NEW predictions (compare.py warns: their predictions_sha256 differs)."
)


def _stale_ids(now: dict[str, Any], stored: dict[str, Any]) -> list[str]:
    cases_now = {c["id"]: c for c in now["kernels"] + now["train"]}
    cases_stored = {c["id"]: c for c in stored["kernels"] + stored["train"]}
    ids = sorted(i for i in cases_now.keys() | cases_stored.keys() if cases_now.get(i) != cases_stored.get(i))
    rest = [k for k in now.keys() | stored.keys() if k not in ("kernels", "train") and now.get(k) != stored.get(k)]
    return ids + sorted(rest)


def test_predictions_file_is_what_the_engine_predicts_now() -> None:
    stored = json.loads((DEVICE / "predictions.json").read_text(encoding="utf-8"))
    now = json.loads(predict.render(predict.build_predictions()))  # through JSON, as the file holds it
    assert now == stored, STALE.format(ids=", ".join(_stale_ids(now, stored)))


def test_a_change_to_the_engine_makes_the_predictions_stale() -> None:
    """The currentness test above sees a moved figure: another bandwidth fraction moves the streams' times."""
    stored = json.loads((DEVICE / "predictions.json").read_text(encoding="utf-8"))
    set_override(dataclasses.replace(efficiency(), bandwidth=efficiency().bandwidth * 0.5))
    try:
        now = json.loads(predict.render(predict.build_predictions()))
    finally:
        set_override(None)
    assert {"stream-copy", "stream-add"} <= set(_stale_ids(now, stored))


def test_the_cases_fit_easily_and_run_quickly() -> None:
    """Each training case fits the card with room to spare and runs its steps well inside a device call."""
    pred = json.loads((DEVICE / "predictions.json").read_text(encoding="utf-8"))
    steps = pred["protocol"]["train_warmup_steps"] + pred["protocol"]["train_timed_steps"]
    assert 4 <= len(pred["train"]) <= 6
    for case in pred["train"]:
        p = case["predicted"]
        assert p["fits"] and p["reserved_high_gb"] < 100, case["id"]
        assert p["step_high_seconds"] * steps < 20, case["id"]
        assert case["hf_config"]["model_type"] in ("llama", "qwen3"), case["id"]


def test_the_kernel_cases_are_timed_by_the_engines_op_formulas() -> None:
    """predict.py writes no FLOPs, bytes or max(compute, memory) of its own: each kernel case is ops.py's gemm_work,
    fused_attention and op_seconds at the case's rate."""
    eff = efficiency()
    dev = predict._device()
    peak, bw = dev.peak_tflops * 1e12, dev.bandwidth_gb_s * 1e9 * eff.bandwidth
    for case in predict.gemm_cases() + predict.attention_cases():
        if case["kind"] == "gemm":
            flops, moved = gemm_work(case["m"], case["n"], case["k"])
        else:
            work = fused_attention(case["seq"], case["batch"], case["heads"], case["heads"], case["head_dim"])
            flops, moved = work.with_backward(eff.attention_backward)
        assert (case["flops"], case["bytes"]) == (flops, moved), case["id"]
        seconds, bound = op_seconds(flops, moved, peak * case["predicted"]["fraction_of_peak"], bw)
        assert case["predicted"]["bound"] == bound and case["predicted"]["seconds"] == predict._r(seconds), case["id"]


def test_every_case_holds_what_measure_reads() -> None:
    pred = json.loads((DEVICE / "predictions.json").read_text(encoding="utf-8"))
    needs = {"gemm": {"m", "n", "k", "flops"},
             "attention": {"kernel", "batch", "seq", "heads", "head_dim", "flops"},
             "stream": {"op", "elements", "bytes"},
             "train": {"hf_config", "method", "lora", "seq", "micro_batch", "gradient_accumulation", "step",
                       "gradient_checkpointing", "attention_kernel"}}  # fmt: skip
    step = {"optimizer", "optimizer_impl", "max_grad_norm", "weights", "autocast_bf16", "checkpointing"}
    for case in pred["kernels"] + pred["train"]:
        assert needs[case["kind"]] <= set(case), case["id"]
        assert case["kind"] != "train" or set(case["step"]) == step, case["id"]
    assert {"kernel_warmup", "kernel_iters", "train_warmup_steps", "train_timed_steps", "budget_s"} <= set(
        pred["protocol"]
    )


# --- compare.py on a hand-written run -------------------------------------------------------------------------

PREDICTIONS: dict[str, Any] = {
    "card_name": "test card", "peak_bf16_tflops": 1000.0,
    "kernels": [
        {"id": "gemm-a", "kind": "gemm", "flops": 2e12, "predicted": {"seconds": 4.0, "tflops": 0.5,
         "fraction_of_peak": 0.5}, "predicted_in_step": {"tflops": 0.4}},
        {"id": "attention-a", "kind": "attention", "flops": 1e12, "predicted": {"seconds": 2.0, "tflops": 0.5,
         "fraction_of_peak": 0.35}, "predicted_in_step": {"tflops": 0.3}},
        {"id": "stream-a", "kind": "stream", "bytes": 1e9, "predicted": {"seconds": 1.0, "gb_s": 1.0}},
    ],
    "train": [
        {"id": f"train-{k}", "kind": "train", "seq": 2048, "micro_batch": 2, "gradient_checkpointing": True,
         "hf_config": {"model_type": "llama"}, "predicted": {
            "step_seconds": 1.0, "step_low_seconds": 0.8, "step_high_seconds": 2.5, "tokens_per_second": 4096.0,
            "max_memory_allocated_gb": 20.0, "allocated_low_gb": 18.0, "allocated_high_gb": 22.0,
            "max_memory_reserved_gb": 22.0, "reserved_low_gb": 20.0, "reserved_high_gb": 24.0, "fits": True}}
        for k in ("ok", "oom", "skipped", "error")
    ],
}  # fmt: skip
MEASURED: dict[str, Any] = {
    "finished": True,
    "cases": [
        {"id": "gemm-a", "kind": "gemm", "status": "ok", "seconds": 4.2},  # 4 / 4.2 = 0.952
        {"id": "attention-a", "kind": "attention", "status": "ok", "seconds": 2.4,  # 0.833
         "variants": {"default": {"status": "ok", "seconds": 1.0}}},
        {"id": "stream-a", "kind": "stream", "status": "ok", "seconds": 2.0},  # 0.5
        {"id": "train-ok", "kind": "train", "status": "ok", "seconds": 3.0, "tokens_per_second": 1365.0,
         "max_memory_allocated_gb": 19.0, "max_memory_reserved_gb": 30.0},
        {"id": "train-oom", "kind": "train", "status": "oom", "reason": "CUDA out of memory",
         "max_memory_allocated_gb": 140.0},
        {"id": "train-skipped", "kind": "train", "status": "skipped", "reason": "budget: 3 s of 420 s left"},
    ],
}  # fmt: skip


TRACED: dict[str, Any] = {
    "versions": {"torch": "2.13.0"},
    "cases": [
        {"id": "train-ok", "ok": True, "peak_allocated_gb": 19.5, "request": {"sequence_length": 2048,
         "micro_batch_size": 2, "gradient_checkpointing": True, "config": {"model_type": "llama"}}},
        {"id": "train-oom", "ok": True, "peak_allocated_gb": 19.5, "request": {"sequence_length": 4096}},
    ],
}  # fmt: skip


def _verdicts() -> dict[tuple[str, str], tuple[float | None, str, str]]:
    return {(r.case, r.figure): (r.ratio and round(r.ratio, 3), r.tag, r.verdict)
            for r in compare.score(PREDICTIONS, MEASURED, TRACED)}  # fmt: skip


def test_compare_scores_kernels_by_their_point_tag() -> None:
    v = _verdicts()
    assert v["gemm-a", "gemm_seconds"] == (0.952, "within 10 %", "")
    assert v["attention-a", "attention_seconds"] == (0.833, "within 25 %", "")
    assert v["stream-a", "stream_seconds"] == (0.5, "off by more than 25 %", "")


def test_compare_scores_a_step_against_the_band_and_both_counters() -> None:
    v = _verdicts()
    # 3 s measured: a third of the point prediction, and above the band's slow end (2.5 s)
    assert v["train-ok", "step_seconds"] == (0.333, "off by more than 25 %", "slower than band")
    assert v["train-ok", "max_memory_allocated_gb"] == (1.053, "within 10 %", "inside band")
    assert v["train-ok", "max_memory_reserved_gb"] == (0.733, "off by more than 25 %", "above band")
    # a step whose engine kernel refused to run is scored, and says what ran instead
    refused = {**MEASURED["cases"][3], "ran": {"attention": {"kernel": "cudnn", "refused": "RuntimeError"}}}
    (step,) = [r for r in compare.score(PREDICTIONS, {"cases": [refused]}) if r.figure == "step_seconds"]
    assert step.verdict == "slower than band (attention ran SDPA's own choice: cudnn refused)"


def test_compare_scores_the_traced_peak_against_allocated_and_only_for_the_case_traced() -> None:
    v = _verdicts()
    assert v["train-ok", "traced_allocated_gb"] == (1.026, "within 10 %", "")  # 19.5 / 19.0
    # train-oom measured as train-ok was, but its trace was of another request
    run = {**MEASURED, "cases": [{**MEASURED["cases"][3], "id": "train-oom"}]}
    (stale,) = [r for r in compare.score(PREDICTIONS, run, TRACED) if r.figure == "traced_allocated_gb"]
    assert (stale.case, stale.ratio) == ("train-oom", None)
    assert stale.verdict == ("not scored: traced with another sequence_length, micro_batch_size, "
                             "gradient_checkpointing, config")  # fmt: skip


def test_compare_fails_an_oom_and_reports_skipped_and_absent_cases() -> None:
    v = _verdicts()
    assert v["train-oom", "max_memory_allocated_gb"][2] == "FAIL: out of memory where the engine predicts it fits"
    assert v["train-skipped", "-"][2] == "not measured (skipped): budget: 3 s of 420 s left"
    assert v["train-error", "-"][2] == "not measured: absent from the run"
    text = compare.render(compare.score(PREDICTIONS, MEASURED), [])
    assert "1 failed, 2 not measured" in text
    assert "step_seconds: 1 measured, median ratio 0.33, 0 of 1 inside the band" in text


def test_compare_warns_of_old_measurements_a_tiny_run_and_a_run_cut_short() -> None:
    raw = b'{"kernels": []}'
    same = {"predictions_sha256": hashlib.sha256(raw).hexdigest(), "finished": True}
    assert compare.warnings(raw, same) == []
    old = compare.warnings(raw, {**same, "predictions_sha256": "0" * 64})
    assert len(old) == 1 and "NEW predictions" in old[0]
    assert "nothing in it is scored" in compare.warnings(raw, {**same, "tiny": True})[0]
    assert "did not finish" in compare.warnings(raw, {**same, "finished": False})[0]


def test_the_traced_peaks_are_of_the_cases_as_they_are_now() -> None:
    """traced.json (the exact tracer's peaks: torch, so written by `predict.py --trace PYTHON`, not here) traced
    exactly the requests the training cases make now."""
    traced = json.loads((DEVICE / "traced.json").read_text(encoding="utf-8"))
    stored = {c["id"]: c["request"] for c in traced["cases"]}
    assert stored == predict.trace_requests(), (
        "benchmarks/device/traced.json traced other requests than the training cases make now: rerun "
        "`python benchmarks/device/predict.py --trace PYTHON` with a Python that has the trace extra"
    )
    assert all(c["ok"] and c["peak_allocated_gb"] > 0 for c in traced["cases"])


# --- measure.py and compare.py stay standalone -----------------------------------------------------------------


def _imports(tree: ast.AST) -> list[tuple[str, bool]]:
    """(module, at the top level of the module) of every import."""
    top = {id(n) for n in getattr(tree, "body", [])}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.module, id(node) in top))
    return out


@pytest.mark.parametrize("name", ["measure.py", "compare.py"])
def test_the_device_scripts_import_no_configurator_and_only_the_stdlib_at_the_top(name: str) -> None:
    source = (DEVICE / name).read_text(encoding="utf-8")
    compile(source, name, "exec")
    imports = _imports(ast.parse(source))
    assert imports, "the import walk found nothing: the check checks nothing"
    assert [m for m, _ in imports if m.split(".")[0] == "configurator"] == []
    top = {m.split(".")[0] for m, at_top in imports if at_top}
    assert top <= set(sys.stdlib_module_names) | {"__future__"}, top - set(sys.stdlib_module_names)
    # measure.py reaches torch, transformers and peft only inside the functions that run a case
    inner = {m.split(".")[0] for m, at_top in imports if not at_top}
    allowed = {"torch", "transformers", "peft", *sys.stdlib_module_names}
    assert inner <= allowed, inner - allowed


def test_measure_imports_without_torch() -> None:
    """`make test`'s environment has no torch: the module imports all the same, and it would run every kind of
    case the predictions hold."""
    measure = importlib.import_module("benchmarks.device.measure")
    pred = json.loads((DEVICE / "predictions.json").read_text(encoding="utf-8"))
    assert {c["kind"] for c in pred["kernels"] + pred["train"]} == set(measure.RUNNERS) == set(measure.MIN_LEFT_S)


@pytest.mark.parametrize("content", [b"", b"{\"cases\": [", b"[1, 2]", b"\xff\xfe"])
def test_compare_says_which_file_it_cannot_read(tmp_path, capsys, content: bytes) -> None:  # type: ignore[no-untyped-def]
    """A run cut off before its first case, or the wrong file given: a sentence naming the file, exit status 2,
    no traceback."""
    bad = tmp_path / "measured.json"
    bad.write_bytes(content)
    assert compare.main([str(DEVICE / "predictions.json"), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cannot compare: ") and str(bad) in err and "Traceback" not in err
