"""The RL sentences the text report and the sheet share (present/rl_words.py): one builder each, the decode's bound
from the engine (the method label the planner's views share is the engine's: tests/engine/test_labels.py)."""

from __future__ import annotations

from configurator.engine.model.result import RLResult
from configurator.present.rl_words import generation_sentence, step_split


def test_the_bound_comes_from_the_engine() -> None:
    r = RLResult(objective="ppo", training_seconds=1.0, generation_seconds=5.12, generation_bound="launch",
                 extra_seconds={"critic training": 0.5})  # fmt: skip
    assert step_split(r) == ("training 1.000 s, generation 5.120 s (decode, bound by kernel launches from the host), "
                             "critic training 0.500 s")  # fmt: skip
    assert step_split(RLResult(objective="dpo")) is None


def test_the_generation_sentence() -> None:
    r = RLResult(objective="grpo", generation="vLLM on its own cards (slots 4)", generation_share_gb=72.0,
                 generation_weights_gb=16.1, kv_cache_gb=54.9, kv_needed_gb=1.6, sequences=8)  # fmt: skip
    assert generation_sentence(r) == ("vLLM on its own cards (slots 4): 72.0 GB with 16.1 GB of weights and a 54.9 GB "
                                      "KV cache; one round of 8 sequences per engine needs 1.6 GB of KV cache per "
                                      "card")  # fmt: skip
    assert generation_sentence(RLResult(objective="dpo")) is None
