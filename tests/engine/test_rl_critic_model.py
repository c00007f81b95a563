"""PPO's critic and reward checkpoint of its own size (Job.rl.critic_model): TRL's ppo.py loads the value model and
the reward model from one --reward_model_path, which need not be the policy's size (InstructGPT: a 175B policy with
6B reward and value models). Every figure the critic sets follows it: their weights and the critic's states, the
value model's activations, its training passes and the two rollout forwards, its gradients' collectives."""

from __future__ import annotations

import pytest

from configurator.catalog.loader import Catalog, default_catalog
from configurator.engine.evaluate import evaluate
from configurator.engine.memory import rl
from configurator.engine.memory.estimate import memory_for_card
from configurator.engine.model.build import Build
from configurator.engine.model.resolver import ModelResolver
from configurator.engine.model.result import BuildResult, JobResult
from configurator.engine.sweep import fit_frontier
from tests.helpers import lora_8b_job


@pytest.fixture
def catalog() -> Catalog:
    return default_catalog()


PPO = {"model": "llama-3.3-70b", "method": "lora", "objective": "ppo", "parallelism": "fsdp",
       "sequence_length": 1024, "cards": [1, 2, 3, 4]}  # fmt: skip


def _run(catalog: Catalog, **rl_fields: object) -> tuple[BuildResult, JobResult]:
    build = Build.model_validate({
        "name": "ppo", "chassis": "generic-server-8", "cards": [{"slot": s, "card": "h200-nvl"} for s in (1, 2, 3, 4)],
        "jobs": [{"name": "j", **PPO, "rl": rl_fields}]})  # fmt: skip
    result = evaluate(build, catalog)
    return result, result.jobs[0]


def test_a_smaller_critic_shrinks_its_states_and_the_reward_model_by_its_own_size(catalog: Catalog) -> None:
    policy, small = catalog.model("llama-3.3-70b"), catalog.model("llama-3.1-8b")
    job = lora_8b_job(model="llama-3.3-70b", objective="ppo")
    same = rl.extra_states(policy, job, shards=4, stage=3, tp=1)
    own = rl.extra_states(policy, job, shards=4, stage=3, tp=1, critic=small)
    # the critic is the 8B with a hidden x 1 score head, trained in full at the 70B critic's bytes per parameter
    # (the same layout: the job's precision and optimizer); the frozen reward model is the whole 8B in bf16
    assert own.critic_trained == rl.critic_parameters(small) == small.total_params - 128_256 * 4096 + 4096
    ratio = rl.critic_parameters(small) / rl.critic_parameters(policy)
    for kind in ("critic_weights", "critic_gradients", "critic_optimizer"):
        assert getattr(own, kind) == pytest.approx(getattr(same, kind) * ratio)
    assert own.reward_weights == pytest.approx(small.total_params * 2 / 4)
    assert same.reward_weights == pytest.approx(policy.total_params * 2 / 4)


def test_every_figure_the_critic_sets_follows_its_checkpoint(catalog: Catalog) -> None:
    _, same = _run(catalog)
    result, own = _run(catalog, critic_model="llama-3.1-8b")
    assert not [c for c in result.checks if c.code.startswith("RL_CRITIC")]
    assert own.cards[0].peak_reserved_gb < same.cards[0].peak_reserved_gb - 50  # ~2 x 62 GB of 70B copies, / 4
    assert same.rl is not None and own.rl is not None
    roles = {m.role: m for m in own.rl.models}
    assert "Llama 3.1 8B" in roles["critic"].held and "Llama 3.1 8B" in roles["reward"].held
    assert {m.role: m for m in same.rl.models}["critic"].held == "value model trained in full (score head)"
    # its training passes, the value and reward forwards of the rollout, and its gradients' collectives
    assert own.rl.extra_seconds["critic training"] < same.rl.extra_seconds["critic training"] / 4
    assert own.rl.extra_seconds["reward forward"] < same.rl.extra_seconds["reward forward"] / 4
    assert own.rl.extra_seconds["policy log-probs forward"] == pytest.approx(
        same.rl.extra_seconds["policy log-probs forward"])
    critic_bytes = [c.bytes_per_card for c in own.communication.collectives if "critic" in c.name]
    same_bytes = [c.bytes_per_card for c in same.communication.collectives if "critic" in c.name]
    assert critic_bytes and sum(critic_bytes) < sum(same_bytes) / 4
    assert own.step_seconds is not None and same.step_seconds is not None and own.step_seconds < same.step_seconds


def test_the_sweep_sizes_the_critic_as_the_evaluation_does(catalog: Catalog) -> None:
    build = Build.model_validate({
        "name": "ppo", "chassis": "generic-server-8", "cards": [{"slot": s, "card": "h200-nvl"} for s in (1, 2, 3, 4)],
        "jobs": [{"name": "j", **PPO, "rl": {"critic_model": "llama-3.1-8b"}}]})  # fmt: skip
    frontier = fit_frontier(build, 0, catalog, lengths=[1024])
    assert frontier is not None
    curve = next(c for c in frontier.curves if c.is_job)
    job = evaluate(build, catalog).jobs[0]
    assert curve.headroom_gb[0] == pytest.approx(job.cards[0].headroom_gb, abs=0.01)


def test_a_critic_that_names_nothing_is_an_error_and_sized_as_the_policy(catalog: Catalog) -> None:
    _, same = _run(catalog)
    result, job = _run(catalog, critic_model="no-such-reward-model")
    check = next(c for c in result.checks if c.code == "RL_CRITIC_UNKNOWN")
    assert check.severity == "error" and "no-such-reward-model" in check.message
    assert "sized as copies of Llama 3.3 70B" in check.message
    assert job.cards[0].peak_reserved_gb == pytest.approx(same.cards[0].peak_reserved_gb)


def test_a_critic_of_another_vocabulary_cannot_read_the_policys_tokens(catalog: Catalog) -> None:
    result, _ = _run(catalog, critic_model="qwen3-8b")
    check = next(c for c in result.checks if c.code == "RL_CRITIC_TOKENIZER")
    assert check.severity == "warning" and "151,936" in check.message and "128,256" in check.message


def test_a_critic_named_for_a_method_without_one_is_unused(catalog: Catalog) -> None:
    build = Build.model_validate({
        "name": "dpo", "chassis": "generic-server-8", "cards": [{"slot": 1, "card": "h200-nvl"}],
        "jobs": [{"name": "j", "model": "llama-3.1-8b", "method": "lora", "objective": "dpo", "cards": [1],
                  "rl": {"critic_model": "llama-3.2-1b"}}]})  # fmt: skip
    plain = build.model_copy(update={"jobs": [build.jobs[0].model_copy(update={"rl": build.jobs[0].rl.model_copy(
        update={"critic_model": None})})]})  # fmt: skip
    result = evaluate(build, catalog)
    assert [c.severity for c in result.checks if c.code == "RL_CRITIC_UNUSED"] == ["warning"]
    assert result.jobs[0].cards[0].peak_reserved_gb == evaluate(plain, catalog).jobs[0].cards[0].peak_reserved_gb


def test_the_critic_resolves_as_a_jobs_model_does(catalog: Catalog) -> None:
    job = lora_8b_job(objective="ppo", rl={"critic_model": "llama-3.2-1b"})
    assert rl.critic_model(job, ModelResolver(catalog)) is catalog.model("llama-3.2-1b")
    assert rl.critic_model(lora_8b_job(objective="ppo"), ModelResolver(catalog)) is None
    policy = catalog.model("llama-3.1-8b")
    small = memory_for_card(policy, job, critic=catalog.model("llama-3.2-1b"))
    assert small.peak_reserved < memory_for_card(policy, job).peak_reserved
