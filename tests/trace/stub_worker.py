"""A stand-in for ``python -m configurator.trace.worker`` in tests: the same protocol (one request JSON object on
stdin, ``progress`` lines on stderr, one result JSON object on stdout), canned answers, no torch.

``STUB_TRACE_MODE`` picks the behaviour: ok (default), slow (progress lines over ``STUB_TRACE_SECONDS``), crash,
alloc, notorch-result, badjson, notorch, hang, refuse, schema. ``STUB_TRACE_LOG``, when set, is a file the stub
appends each request to (tests count the runs: a cache hit runs nothing).
"""

from __future__ import annotations

import json
import os
import sys
import time

VERSIONS = {"python": "3.11.9", "torch": "2.9.1", "transformers": "4.57.1", "peft": "0.17.1",
            "accelerate": "1.10.1", "bitsandbytes": "0.48.1", "torchao": "0.14.0"}  # fmt: skip


def peak_of(request: dict) -> int:
    """A canned peak that moves with the request, so two jobs never show the same figure."""
    cfg = request["config"]
    params = 12 * cfg["hidden_size"] ** 2 * cfg["num_hidden_layers"]
    tokens = request["sequence_length"] * request["micro_batch_size"]
    per_param = 2 if request["method"] != "full" else 16
    return params * per_param + tokens * cfg["hidden_size"] * 34 + 123_456


def result_for(request: dict) -> dict:
    peak = peak_of(request)
    return {
        "schema": 1, "ok": True, "peak_allocated_bytes": peak, "phase": "backward", "step": 2,
        "op": "aten.mm.default", "module": "model.layers.31.mlp.down_proj",
        "breakdown": {"parameters": peak // 2, "gradients": peak // 10, "optimizer_states": peak // 5,
                      "activations": peak - peak // 2 - peak // 10 - peak // 5 - 1000, "temporaries": 1000},
        "versions": VERSIONS, "attention_kernel": "aten._scaled_dot_product_cudnn_attention",
        "seconds": 0.01, "notes": ["stub worker"], "error": None,
    }  # fmt: skip


def main() -> int:
    mode = os.environ.get("STUB_TRACE_MODE", "ok")
    request = json.loads(sys.stdin.read())
    log = os.environ.get("STUB_TRACE_LOG")
    if log:
        with open(log, "a") as fh:
            fh.write(json.dumps(request) + "\n")
    if mode == "notorch":
        print("Traceback (most recent call last):\n  File \"worker.py\", line 3, in <module>\n    import torch\n"
              "ModuleNotFoundError: No module named 'torch'", file=sys.stderr)  # fmt: skip
        return 1
    if mode == "notorch-result":  # a worker that answers cleanly that it cannot import torch
        print(json.dumps({"schema": 1, "ok": False, "versions": {**VERSIONS, "torch": ""}, "notes": [],
                          "error": "torch is not installed: install the trace extra"}))  # fmt: skip
        return 0
    if mode == "crash":
        print("progress 0.1 loading", file=sys.stderr, flush=True)
        print("Traceback (most recent call last):\nRuntimeError: meta kernel missing for aten.foo", file=sys.stderr)
        return 1
    if mode == "alloc":  # far more than the memory limit the test gives: MemoryError, as a runaway trace would
        print("progress 0.1 building the model", file=sys.stderr, flush=True)
        hog = bytearray(4_000_000_000)
        print(len(hog))
    if mode == "hang":
        print("progress 0.05 building the model", file=sys.stderr, flush=True)
        time.sleep(3600)
    if mode == "slow":
        seconds = float(os.environ.get("STUB_TRACE_SECONDS", "1.0"))
        for i, words in enumerate(("building the model", "forward step 1", "backward step 1", "optimizer step 1",
                                   "forward step 2", "backward step 2", "optimizer step 2")):  # fmt: skip
            print(f"progress {(i + 1) / 8:.3f} {words}", file=sys.stderr, flush=True)
            time.sleep(seconds / 7)
    if mode == "badjson":
        print("this is not json {")
        return 0
    if mode == "schema":
        print(json.dumps({**result_for(request), "schema": 2}))
        return 0
    if mode == "refuse":
        print(json.dumps({"schema": 1, "ok": False, "versions": VERSIONS, "notes": [],
                          "error": "Transformers cannot build model type 'nosuch' from this config"}))  # fmt: skip
        return 0
    print("some library warning on stderr", file=sys.stderr)
    print("progress 1.0 done", file=sys.stderr, flush=True)
    print(json.dumps(result_for(request)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
