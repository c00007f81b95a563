"""The RL sizing against published GRPO / DPO memory figures (specs/rl-runs.yaml): every run held apart, scored as
the file's header fixes; the table is printed for the closing note (run with -s to see it)."""

from __future__ import annotations

import math

import pytest

from configurator.engine import rl_validation


@pytest.fixture(scope="module")
def scored() -> list[rl_validation.Scored]:
    return rl_validation.score()


def test_the_runs_file_holds_five_runs_from_two_sources() -> None:
    data = rl_validation.load_runs()
    assert len(data.runs) >= 5
    assert len({r.cites for r in data.runs}) >= 2
    assert all(r.role == "held-apart" for r in data.runs)  # no constant is fitted to them
    assert len({r.label for r in data.runs}) == len(data.runs)


def test_every_run_is_sized_and_the_table_prints(scored: list[rl_validation.Scored]) -> None:
    assert all(math.isfinite(s.engine_gb) and s.engine_gb > 0 for s in scored)
    text = rl_validation.table(scored)
    print("\n" + text)
    assert text.count("\n") == len(scored) + 1 and "held apart n=" in text


def test_the_generation_engine_components_match_the_published_breakdown(scored: list[rl_validation.Scored]) -> None:
    """vLLM's weights and the KV cache are arithmetic on the model's shapes: the published figures are rounded to
    two significant digits (2.5 GB: +-2 %), so the engine must land within 10 % of them."""
    parts = [s for s in scored if s.run.kind in ("vllm-weights", "kv-cache")]
    assert len(parts) == 2
    for s in parts:
        assert abs(s.error) < 0.10, (s.run.label, s.error)
