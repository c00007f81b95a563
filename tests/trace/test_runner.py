"""The worker run in a subprocess with the stub tracer: the result read, progress followed, the cache used, and
every way a trace can fail said in a sentence (missing extra, crash, bad answer, timeout, cancel, memory)."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest

from configurator.trace import runner
from configurator.trace.cache import TraceCache, default_cache_folder
from configurator.trace.protocol import LoraRequest, TraceRequest, TraceResult, parse_progress
from configurator.trace.runner import (
    INSTALL_HINT,
    MissingExtra,
    TraceCancelled,
    TraceTimeout,
    WorkerFailed,
    run_trace,
)

REQUEST = TraceRequest(
    config={"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "intermediate_size": 14336,
            "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256},
    method="lora", lora=LoraRequest(rank=16, alpha=32, targets="all-linear"), precision="mixed-bf16",
    optimizer="adamw", optimizer_impl="fused", sequence_length=8192, micro_batch_size=1,
    gradient_checkpointing=True, checkpointing_kind="reentrant", attention="auto", arch="sm90",
)  # fmt: skip

pytestmark = pytest.mark.usefixtures("stub_worker")


def test_result_read_progress_followed_and_cached(tmp_path: Path, stub_worker: Path, stub_runs) -> None:  # type: ignore[no-untyped-def]
    cache = TraceCache(tmp_path / "cache")
    seen: list[tuple[float, str]] = []
    outcome = run_trace(REQUEST, cache=cache, on_progress=lambda f, w: seen.append((f, w)))
    assert not outcome.cached and outcome.result.ok
    assert outcome.result.phase == "backward" and outcome.result.op == "aten.mm.default"
    assert outcome.result.module == "model.layers.31.mlp.down_proj"
    assert outcome.result.breakdown.total() == outcome.result.peak_allocated_bytes
    assert seen == [(1.0, "done")]
    assert "some library warning on stderr" in outcome.stderr_tail  # other stderr lines are kept for a crash report
    sent = json.loads(stub_worker.read_text().splitlines()[0])
    assert sent == REQUEST.wire()  # exactly the request, on stdin
    again = run_trace(REQUEST, cache=cache)
    assert again.cached and again.result == outcome.result and again.saved_at
    assert stub_runs(stub_worker) == 1  # the cache hit ran nothing
    assert not run_trace(REQUEST, cache=cache, use_cache=False).cached
    assert stub_runs(stub_worker) == 2


def test_progress_lines_arrive_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_TRACE_MODE", "slow")
    monkeypatch.setenv("STUB_TRACE_SECONDS", "0.2")
    seen: list[float] = []
    run_trace(REQUEST, on_progress=lambda f, w: seen.append(f))
    assert len(seen) == 8 and seen == sorted(seen) and seen[0] == pytest.approx(0.125) and seen[-1] == 1.0


@pytest.mark.parametrize(
    ("mode", "error", "words"),
    [
        ("crash", WorkerFailed, r"crashed \(exit 1\): RuntimeError: meta kernel missing"),
        ("badjson", WorkerFailed, "not its result JSON"),
        ("schema", WorkerFailed, "answered schema 2"),
        ("notorch", MissingExtra, "needs torch.*pip install 'gpu-build-configurator\\[trace\\]'"),
        ("notorch-result", MissingExtra, "torch is not installed: install the trace extra"),
    ],
)
def test_failures_are_sentences(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mode: str, error: type,
                                words: str) -> None:  # fmt: skip
    monkeypatch.setenv("STUB_TRACE_MODE", mode)
    cache = TraceCache(tmp_path)
    with pytest.raises(error, match=words):
        run_trace(REQUEST, cache=cache)
    assert cache.latest(REQUEST) is None


def test_a_clean_refusal_is_a_result_and_not_cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("STUB_TRACE_MODE", "refuse")
    cache = TraceCache(tmp_path)
    outcome = run_trace(REQUEST, cache=cache)
    assert not outcome.result.ok and "cannot build model type" in (outcome.result.error or "")
    assert cache.latest(REQUEST) is None


def test_time_limit_kills_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_TRACE_MODE", "hang")
    with pytest.raises(TraceTimeout, match="longer than 1 s"):
        run_trace(REQUEST, timeout_s=1)


def test_cancel_kills_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_TRACE_MODE", "hang")
    cancel = threading.Event()
    pids: list[int] = []

    def progress(fraction: float, words: str) -> None:
        cancel.set()  # the first progress line: the worker is running

    real_popen = runner.subprocess.Popen

    def popen(*args, **kwargs):  # type: ignore[no-untyped-def]
        proc = real_popen(*args, **kwargs)
        pids.append(proc.pid)
        return proc

    monkeypatch.setattr(runner.subprocess, "Popen", popen)
    with pytest.raises(TraceCancelled):
        run_trace(REQUEST, on_progress=progress, cancel=cancel, timeout_s=60)
    import os

    with pytest.raises(ProcessLookupError):  # the worker's process group is gone (reaped: no such process)
        os.killpg(pids[0], 0)


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is how Linux limits a process's memory")
def test_memory_limit_stops_a_runaway_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_TRACE_MODE", "alloc")  # asks for 4 GB
    with pytest.raises(WorkerFailed, match="ran out of its 1 GB memory limit"):
        run_trace(REQUEST, memory_gb=1)


def test_missing_extra_is_said_before_any_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real worker command in this test environment, which has no torch: the install line, nothing run."""
    monkeypatch.delenv("CONFIGURATOR_TRACE_WORKER")
    monkeypatch.delenv("CONFIGURATOR_TRACE_PYTHON", raising=False)
    monkeypatch.setattr(runner, "_probed", {})
    versions = runner.environment_versions()
    if versions.get("torch"):
        pytest.skip("torch is installed here")

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError("a process was started")

    monkeypatch.setattr(runner.subprocess, "Popen", no_process)
    with pytest.raises(MissingExtra) as info:
        run_trace(REQUEST)
    assert "torch" in str(info.value) and INSTALL_HINT in str(info.value)


def test_a_python_that_does_not_run_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CONFIGURATOR_TRACE_WORKER")
    monkeypatch.setenv("CONFIGURATOR_TRACE_PYTHON", str(tmp_path / "no-python"))
    monkeypatch.setattr(runner, "_probed", {})
    with pytest.raises(MissingExtra, match="cannot run the tracer's Python"):
        run_trace(REQUEST)


def test_worker_command_default_and_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONFIGURATOR_TRACE_WORKER")
    monkeypatch.delenv("CONFIGURATOR_TRACE_PYTHON", raising=False)
    assert runner.worker_command().argv == [sys.executable, "-m", "configurator.trace.worker"]
    monkeypatch.setenv("CONFIGURATOR_TRACE_PYTHON", "/opt/trace-venv/bin/python")
    cmd = runner.worker_command()
    assert cmd.argv[0] == cmd.python == "/opt/trace-venv/bin/python" and not cmd.custom
    monkeypatch.setenv("CONFIGURATOR_TRACE_WORKER", "my-tracer --flag 'a b'")
    assert runner.worker_command().argv == ["my-tracer", "--flag", "a b"]


def test_parse_progress() -> None:
    assert parse_progress("progress 0.25 forward step 1") == (0.25, "forward step 1")
    assert parse_progress("progress 1") == (1.0, "")
    assert parse_progress("progress 1.7 over") == (1.0, "over")  # clamped
    assert parse_progress("progress bar") is None
    assert parse_progress("UserWarning: progress 0.5") is None


def test_cache_misses_on_damage_and_keeps_versions_apart(tmp_path: Path) -> None:
    cache = TraceCache(tmp_path)
    result = TraceResult(ok=True, peak_allocated_bytes=123, phase="forward", versions={"torch": "2.9.1"})
    old = {"torch": "2.8.0", "configurator": "0.1.0"}
    new = {"torch": "2.9.1", "configurator": "0.1.0"}
    path = cache.put(REQUEST, old, result)
    assert path is not None and cache.get(REQUEST, old) is not None
    assert cache.get(REQUEST, new) is None  # other versions: not the same trace
    assert cache.latest(REQUEST) is not None  # ... though the newest for the request is shown, versions named
    time.sleep(0.01)
    newer = result.model_copy(update={"peak_allocated_bytes": 456})
    cache.put(REQUEST, new, newer)
    latest = cache.latest(REQUEST)
    assert latest is not None and latest.result.peak_allocated_bytes == 456
    path.write_text("{ damaged")
    assert cache.get(REQUEST, old) is None  # a miss, never an error
    assert cache.put(REQUEST, old, TraceResult(ok=False, error="no")) is None  # failures are not kept
    other = REQUEST.model_copy(update={"micro_batch_size": 2})
    assert cache.latest(other) is None  # any setting changes the key


def test_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CONFIGURATOR_TRACE_CACHE", str(tmp_path / "here"))
    assert default_cache_folder() == tmp_path / "here"
    monkeypatch.delenv("CONFIGURATOR_TRACE_CACHE")
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
        assert default_cache_folder() == tmp_path / "data" / "GPU Build Configurator" / "configurator" / "traces"


def test_the_desktop_bundle_asks_for_a_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """A PyInstaller bundle's executable is the app: it never runs itself as the worker."""
    monkeypatch.delenv("CONFIGURATOR_TRACE_WORKER")
    monkeypatch.delenv("CONFIGURATOR_TRACE_PYTHON", raising=False)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    with pytest.raises(MissingExtra, match="CONFIGURATOR_TRACE_PYTHON"):
        run_trace(REQUEST)
