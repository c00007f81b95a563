"""Helpers of the hostile-input suite (issue "Reliability III"): paths, a fresh-process runner with a
time limit for the cases where a crash or a hang is the risk, and a window on private settings.

Each case that could hang (a FIFO opened blocking) or abort the interpreter (Qt reading /dev/zero) runs in
its own process under a timeout; the rest run in-process under ``pytest.mark.timeout`` hang guards. No case
asserts how long anything took (timings live in benchmarks/test_bench_limits.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BUILD = ROOT / "resources" / "builds" / "default.yaml"
SEED_B = ROOT / "resources" / "plans" / "seed-b-service.yaml"
LLAMA_CONFIG = ROOT / "tests" / "fixtures" / "hf_configs" / "llama-3.1-8b.json"
HANG_S = 30  # a fresh process that has not finished by then hung (each takes about a second)


def child_env(home: Path) -> dict[str, str]:
    """The environment of a fresh process: this tree's code, offscreen Qt, settings and data under ``home``."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data")}  # fmt: skip


def run_fresh(args: list[str], home: Path, timeout: float = HANG_S) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in a fresh process; a hang fails the test with what it printed, never waits for ever."""
    try:
        return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout,
                              env=child_env(home), cwd=home)  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{args} hung for {timeout} s; it printed {exc.stdout!r} {exc.stderr!r}")


def run_cli(args: list[str], home: Path, timeout: float = HANG_S) -> subprocess.CompletedProcess[str]:
    return run_fresh(["-m", "configurator.cli", *args], home, timeout)


