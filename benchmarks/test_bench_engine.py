"""Engine timings (pytest-benchmark; run with `make bench`, not part of the timed suite).

Targets (issues "Sizing engine I-III"): an 8-card, 4-job build with communication, compute and MIG under
1 ms median as the app evaluates it (warm: the jobs a drag leaves alone come from evaluate's memos), and under
2 ms with every memo cleared (a first evaluation, or an edit that touches every job); a 200-point
headroom-vs-sequence sweep under 100 ms.
"""

from __future__ import annotations

from configurator.catalog.loader import default_catalog
from configurator.engine import Build, evaluate
from configurator.engine.cache import CACHE
from configurator.engine.memory.estimate import memory_for_card

BIG = Build.model_validate({
    "name": "8 cards, 4 jobs",
    "chassis": "generic-server-8",
    "cards": [{"slot": s, "card": "h200-nvl"} for s in range(1, 8)]
    + [{"slot": 8, "card": "h200-nvl", "mig": ["1g.18gb", "1g.18gb", "2g.35gb", "3g.71gb"]}],
    "bridges": [{"slots": [1, 2, 3, 4]}, {"slots": [5, 6]}],
    "jobs": [
        {"name": "70B LoRA FSDP", "model": "llama-3.3-70b", "method": "lora", "parallelism": "fsdp",
         "cards": [1, 2, 3, 4]},
        {"name": "8B full DDP", "model": "llama-3.1-8b", "method": "full", "parallelism": "ddp", "cards": [5, 6]},
        {"name": "32B QLoRA", "model": "qwen3-32b", "method": "qlora", "cards": [7]},
        {"name": "8B QLoRA in MIG", "model": "llama-3.1-8b", "method": "qlora", "cards": [{"slot": 8, "instance": 3}]},
    ],
})  # fmt: skip


def test_evaluate_8_cards_4_jobs(benchmark) -> None:  # type: ignore[no-untyped-def]
    evaluate(BIG)  # warm the catalog and caches, as the app is warm while the user drags
    result = benchmark(evaluate, BIG)
    assert len(result.jobs) == 4
    assert benchmark.stats.stats.median < 1e-3


def _clear_memos() -> None:
    # each job, link, layout and memory model computed again (the stacks and per-layer activations, cheap and
    # shared by every build with these jobs, stay: as before the memos were one cache)
    CACHE.clear("job", "topology", "mig-layout", "memory")


def test_evaluate_8_cards_4_jobs_cold(benchmark) -> None:  # type: ignore[no-untyped-def]
    """Every memo cleared before each round: each job, link and layout computed again."""
    evaluate(BIG)  # the catalog loaded
    result = benchmark.pedantic(evaluate, args=(BIG,), setup=_clear_memos, rounds=200, iterations=1)
    assert len(result.jobs) == 4
    assert benchmark.stats.stats.median < 2e-3


FRESH = Build.model_validate({
    "name": "one job", "chassis": "generic-workstation-4", "cards": [{"slot": 1, "card": "h100-nvl"}],
    "jobs": [{"name": "8B QLoRA", "model": "llama-3.1-8b", "method": "qlora", "cards": [1]}],
})  # fmt: skip


def test_evaluate_fresh_job(benchmark) -> None:  # type: ignore[no-untyped-def]
    """A fresh job evaluation: evaluate's memos cleared before each round, so the job's memory, checks and step
    time are computed again; the per-op model's per-model plan and per-shape memo stay (issue 24: "precompute
    per-model tables, memoize by shapes"; <= 0.2 ms median)."""
    evaluate(FRESH)
    result = benchmark.pedantic(evaluate, args=(FRESH,), setup=_clear_memos, rounds=300, iterations=1)
    assert result.jobs[0].step_seconds
    assert benchmark.stats.stats.median < 2e-4


def test_evaluate_fresh_job_new_shape(benchmark) -> None:  # type: ignore[no-untyped-def]
    """The same with a sequence length never seen before each round: the per-op model times every op again from
    its per-model plan (vectorised GEMMs). Reported; the bound is the fresh job's plus 0.1 ms."""
    builds = iter([FRESH.model_copy(update={"jobs": [FRESH.jobs[0].model_copy(update={"sequence_length": 1000 + i})]})
                   for i in range(2000)])  # fmt: skip
    evaluate(FRESH)

    def setup() -> tuple[tuple[Build], dict[str, object]]:
        _clear_memos()
        return (next(builds),), {}

    result = benchmark.pedantic(evaluate, setup=setup, rounds=300, iterations=1)
    assert result.jobs[0].step_seconds
    assert benchmark.stats.stats.median < 3e-4


def test_sweep_200_sequence_lengths(benchmark) -> None:  # type: ignore[no-untyped-def]
    model = default_catalog().model("llama-3.1-8b")
    job = BIG.jobs[2].model_copy(update={"model": "llama-3.1-8b"})
    lengths = [256 * (i + 1) for i in range(200)]

    def sweep() -> list[float]:
        return [memory_for_card(model, job.model_copy(update={"sequence_length": s})).peak_reserved for s in lengths]

    peaks = benchmark(sweep)
    assert peaks == sorted(peaks)
    assert benchmark.stats.stats.median < 0.1


def test_export_build_sheet_8_cards_4_jobs(benchmark, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The PDF build sheet of the 8-card, 4-job build (target: under 2 s)."""
    from configurator.report.pdf import export_pdf

    result = evaluate(BIG)
    pages = benchmark.pedantic(export_pdf, args=(tmp_path / "big.pdf", BIG, result), rounds=5, iterations=1)
    assert pages >= 3
    assert benchmark.stats.stats.median < 2.0


def test_fit_frontier_with_crossings(benchmark) -> None:  # type: ignore[no-untyped-def]
    """The fit-frontier tab's whole sweep (six curves of 48 lengths, and each curve's zero crossing searched
    between two of them) for the gpt-oss build, the memory model's memos cleared each round (target: 100 ms)."""
    from configurator.engine.model.buildfile import load_build
    from configurator.engine.sweep import fit_frontier
    from tests.paths import BUILDS

    build = load_build(BUILDS / "moe-gpt-oss-20b-lora-h100.yaml")
    catalog = default_catalog()

    def sweep() -> object:
        CACHE.clear()
        return fit_frontier(build, 0, catalog)

    assert benchmark(sweep) is not None
    assert benchmark.stats.stats.median < 0.1
