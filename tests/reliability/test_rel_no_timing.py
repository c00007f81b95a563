"""No test asserts wall-clock time: a timing in the suite fails on a busy machine (test_mig's place_layout,
115 µs against a 100 µs limit at a load average of ~5, failed a fresh clone's `make test`). Timings live in
benchmarks/ (pytest-benchmark, `make bench`); tests keep hang guards (timeouts), which bound a hang, not a speed."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.reliability.hostile import ROOT

CLOCKS = {"perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time", "thread_time"}
# (file, clock call) that may stay, with the reason
ALLOWED = {
    ("tests/packaging/test_bundle.py", "perf_counter"): "prints the bundle's build and start-up times; asserts neither",
}


def _clock_calls(path: Path) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    text = path.read_text(encoding="utf-8")
    if not any(clock in text for clock in CLOCKS):
        return out
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CLOCKS:
            out.append((node.func.attr, node.lineno))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CLOCKS:
            out.append((node.func.id, node.lineno))
    return out


def test_no_test_reads_a_clock() -> None:
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        found += [f"{rel}:{line}: {call}()" for call, line in _clock_calls(path) if (rel, call) not in ALLOWED]
    assert not found, "move the timing to benchmarks/ (pytest-benchmark):\n" + "\n".join(found)


TIMED = ("_ms", "took", "elapsed", "(times)", "startup_s", "plan_seconds", "search.seconds")


def test_no_test_asserts_a_time_the_app_measured() -> None:
    """A duration measured by the app itself (tabs.last_update_ms, result.search.seconds) compared with a
    limit is a wall-clock assertion too (test_analysis: 120 ms against 30 ms under load)."""
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if not any(word in text for word in TIMED):
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Assert):
                for cmp in [n for n in ast.walk(node.test) if isinstance(n, ast.Compare)]:
                    if any(isinstance(op, ast.Lt | ast.LtE | ast.Gt | ast.GtE) for op in cmp.ops):
                        words = ast.unparse(cmp)
                        if any(w in words for w in TIMED) and "> 0" not in words:
                            found.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}: {words}")
    assert not found, "move the timing to benchmarks/:\n" + "\n".join(found)


def test_no_test_uses_the_benchmark_fixture() -> None:
    """benchmarks/ is where pytest-benchmark runs (make bench); a test that takes the fixture would time."""
    users = []
    for path in (ROOT / "tests").rglob("test_*.py"):
        text = path.read_text(encoding="utf-8")
        if "benchmark" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and any(a.arg == "benchmark" for a in node.args.args):
                users.append(f"{path.relative_to(ROOT).as_posix()}::{node.name}")
    assert not users, users


def test_the_moved_timings_are_benchmarks() -> None:
    text = (ROOT / "benchmarks" / "test_bench_limits.py").read_text(encoding="utf-8")
    assert "def test_place_layout_per_call(benchmark)" in text
    assert "bench:" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_hypothesis_examples_have_no_deadline() -> None:
    """Hypothesis' default deadline (200 ms an example) is a wall-clock assertion too."""
    from hypothesis import settings

    assert settings.default.deadline is None
