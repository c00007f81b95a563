"""The RL sizing against published GRPO / DPO memory figures (specs/rl-runs.yaml): every run held apart when
collected, those the model was changed for after scoring reported apart as `seen`, scored as the file's header
fixes; the table is printed for the closing note (run with -s to see it)."""

from __future__ import annotations

import pytest

from configurator.engine import rl_validation


@pytest.fixture(scope="module")
def scored() -> list[rl_validation.Scored]:
    return rl_validation.score()


def test_the_runs_file_holds_five_runs_from_two_sources() -> None:
    data = rl_validation.load_runs()
    assert len(data.runs) >= 5
    assert len({r.cites for r in data.runs}) >= 2
    roles = {r.label: r.role for r in data.runs}
    assert set(roles.values()) <= {"held-apart", "seen"}  # no constant is fitted to any of them
    # the model changed after these three were scored (the file's History): not blind
    assert [label for label, role in roles.items() if role == "seen"] == [
        "Unsloth blog, Llama 3.1 8B GRPO, logits of 8 x 20K", "TRL issue 3456, Qwen3 1.7B GRPO full, A100 80GB",
        "TRL issue 5200, Qwen2.5 0.5B DPO QLoRA"]  # fmt: skip
    assert len({r.label for r in data.runs}) == len(data.runs)


def test_the_components_are_scored_as_the_header_defines(scored: list[rl_validation.Scored]) -> None:
    engine = {s.run.kind: s.engine_gb * 1e9 for s in scored if s.run.kind != "device"}
    assert engine["vllm-weights"] == 8_030_261_248 * 2  # Llama 3.1 8B's parameters in bf16
    assert engine["kv-cache"] == 20_000 * 2 * 32 * 8 * 128 * 2  # K and V, 32 layers x 8 heads x 128, bf16
    # 8 sequences, logits for the 19,488 completion tokens + 1 (logits_to_keep) over 128,256 words: bf16
    # log-probabilities and the bf16 gradients of them and of the logits (TRL frees the model's own logits)
    assert engine["logits"] == pytest.approx(8 * 19_489 * 128_256 * (2 + 2 + 2))


def test_the_table_reports_seen_runs_apart(scored: list[rl_validation.Scored]) -> None:
    text = rl_validation.table(scored)
    print("\n" + text)
    assert text.count("\n") == len(scored) + 2
    assert "held apart (blind) n=2" in text and "seen (model changed after scoring) n=3" in text


def test_the_generation_engine_components_match_the_published_breakdown(scored: list[rl_validation.Scored]) -> None:
    """vLLM's weights and the KV cache are arithmetic on the model's shapes: the published figures are rounded to
    two significant digits (2.5 GB: +-2 %), so the engine must land within 10 % of them."""
    parts = [s for s in scored if s.run.kind in ("vllm-weights", "kv-cache")]
    assert len(parts) == 2
    for s in parts:
        assert abs(s.error) < 0.10, (s.run.label, s.error)
