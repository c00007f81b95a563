"""Fixtures of the tracer's tests: the stub worker (tests/trace/stub_worker.py) as the tracer."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

STUB = Path(__file__).resolve().parent / "stub_worker.py"


@pytest.fixture
def stub_worker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The stub stands in for the worker; returns the file it logs each request to (one line per run)."""
    log = tmp_path / "stub-runs.jsonl"
    monkeypatch.setenv("CONFIGURATOR_TRACE_WORKER", shlex.join([sys.executable, str(STUB)]))
    monkeypatch.setenv("STUB_TRACE_LOG", str(log))
    monkeypatch.delenv("STUB_TRACE_MODE", raising=False)
    return log


def runs(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


@pytest.fixture
def stub_runs():  # type: ignore[no-untyped-def]
    """How many times the stub ran (a function of its log file)."""
    return runs
