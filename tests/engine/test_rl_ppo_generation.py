"""PPO's models (critic trained in full, frozen reward model, reference unless LoRA), the generation engine on
separate cards, GRPO's whole prompt groups, and the RL step time: training plus a memory-bound generation round."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.catalog.models import ModelSpec
from configurator.engine.evaluate import evaluate
from configurator.engine.memory import rl
from configurator.engine.memory.estimate import memory_for_card
from configurator.engine.model.build import Build
from configurator.engine.time.steptime.generation import forward_passes, generation_time
from configurator.engine.time.steptime.ops import Device
from tests.helpers import lora_8b_job, single_job

ROOT = Path(__file__).resolve().parents[2]



def test_ppo_adds_a_critic_trained_in_full_and_a_frozen_reward_model(llama8b: ModelSpec) -> None:
    sft = memory_for_card(llama8b, lora_8b_job(method="full", parallelism="zero3", sequence_length=1024, loss="bf16"),
                          shards=8)  # fmt: skip
    ppo = memory_for_card(llama8b, lora_8b_job(method="full", parallelism="zero3", objective="ppo"), shards=8)
    critic = rl.critic_parameters(llama8b)
    assert critic == llama8b.total_params - 128_256 * 4096 + 4096  # the LM head becomes a hidden x 1 score
    # over 8 ZeRO-3 shards: the critic's bf16 weights (7,504,928,768 parameters), the reward model's and the
    # reference's (8,030,261,248 each), and the critic's 12 bytes of fp32 master, momentum and variance
    assert ppo.weights - sft.weights == pytest.approx((7_504_928_768 * 2 + 2 * 8_030_261_248 * 2) / 8)
    assert ppo.optimizer - sft.optimizer == pytest.approx(7_504_928_768 * 12 / 8)
    assert ppo.activations > sft.activations  # the value model's forward is saved beside the policy's


def test_lora_ppo_keeps_no_reference_copy_but_still_a_critic(llama8b: ModelSpec) -> None:
    job = lora_8b_job(objective="ppo")
    assert not rl.keeps_reference(job) and rl.uses_reference(job)  # the base with its adapters disabled
    rows = {m.role: m for m in rl.kept_models(llama8b, job, 40e9, shards=1, stage=0, tp=1)}
    assert rows["reference"].gb_per_card == 0 and "adapters disabled" in rows["reference"].held
    assert rows["critic"].gb_per_card > 16 and "ppo_trainer.py" in rows["critic"].source
    no_rm = rl.kept_models(llama8b, lora_8b_job(objective="ppo", rl={"reward_model": False}), 40e9, shards=1, stage=0,
                           tp=1)  # fmt: skip
    assert next(m for m in no_rm if m.role == "reward").gb_per_card == 0


def test_the_extra_forwards_each_method_adds() -> None:
    assert forward_passes(lora_8b_job(objective="dpo")) == {"reference": 1}
    assert forward_passes(lora_8b_job(objective="grpo")) == {}  # beta 0: no KL term, no reference forward
    assert forward_passes(lora_8b_job(objective="grpo", rl={"beta": 0.04})) == {"reference": 1}
    ppo = lora_8b_job(objective="ppo")
    assert set(forward_passes(ppo)) == {"reference", "policy log-probs", "critic values", "reward"}


def test_decode_is_memory_bound(llama8b: ModelSpec) -> None:
    """Twice the bandwidth nearly halves decode; twice the compute changes it little (batch 8)."""
    job = lora_8b_job(objective="grpo", micro_batch_size=8, rl={"prompt_length": 512, "completion_length": 1024})
    base = generation_time(llama8b, job, Device("Hopper", 989.5, 3350, 132))
    fast_memory = generation_time(llama8b, job, Device("Hopper", 989.5, 6700, 132))
    fast_compute = generation_time(llama8b, job, Device("Hopper", 1979.0, 3350, 132))
    assert fast_memory.decode_seconds == pytest.approx(base.decode_seconds / 2, rel=0.02)
    assert fast_compute.decode_seconds == pytest.approx(base.decode_seconds, rel=0.02)
    # each of 1,024 steps reads the 15 GB of non-embedding weights at ~3 TB/s: about 5 ms a token
    assert 4.0 < base.decode_seconds < 8.0
    longer = generation_time(llama8b, job.model_copy(update={"rl": job.rl.model_copy(
        update={"completion_length": 2048})}), Device("Hopper", 989.5, 3350, 132))  # fmt: skip
    assert longer.decode_seconds > 2 * base.decode_seconds * 0.99


def test_step_time_is_training_plus_generation() -> None:
    rl_job = {"objective": "grpo", "micro_batch_size": 8, "rl": {"prompt_length": 512, "completion_length": 1024}}
    _, grpo = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8", **rl_job)
    _, sft = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8", micro_batch_size=8,
                        sequence_length=1536, loss="bf16")  # fmt: skip
    assert grpo.rl is not None and grpo.compute is not None and sft.compute is not None
    assert grpo.compute.tokens_per_step == 8 * 1536  # prompt + completion, not sequence_length
    # the same training batch, GRPO's logits for 1,025 of the 1,536 positions (logits_to_keep)
    sft_loss = next(o.seconds for o in sft.compute.ops if o.name == "loss")
    expected = sft.compute.seconds_per_step - sft_loss * (1 - 1025 / 1536)
    assert grpo.rl.training_seconds == pytest.approx(expected, rel=1e-6)
    assert grpo.rl.generation_seconds and grpo.rl.generation_seconds > grpo.rl.training_seconds
    assert grpo.step_seconds == pytest.approx(grpo.rl.training_seconds + grpo.rl.generation_seconds, rel=1e-6)
    c = grpo.compute
    assert c.bf16_tflops and c.seconds_per_step  # the utilisation is the training's FLOPs over the whole RL step
    assert c.utilization == pytest.approx(c.flops_per_step / (c.bf16_tflops * 1e12 * c.seconds_per_step))


def test_grpo_needs_whole_prompt_groups() -> None:
    result, _ = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8", objective="grpo",
                           micro_batch_size=4)  # fmt: skip
    check = next(c for c in result.checks if c.code == "RL_GENERATION" and "prompt" in c.message)
    assert check.severity == "error" and "8 generations" in check.message
    ok, _ = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8", n=2, objective="grpo",
                       micro_batch_size=4)  # fmt: skip
    assert not [c for c in ok.checks if c.code == "RL_GENERATION" and c.severity == "error"]


def _server_build(gen_cards: list[int], train: list[int]) -> tuple[list[object], object]:
    build = Build.model_validate({
        "name": "t", "chassis": "hgx-8", "cards": [{"slot": s, "card": "h100-sxm"} for s in range(1, 5)],
        "jobs": [{"name": "g", "model": "llama-3.1-8b", "method": "lora", "objective": "grpo", "micro_batch_size": 8,
                  "cards": train, "parallelism": "fsdp" if len(train) > 1 else "single",
                  "rl": {"generation": "vllm-server", "generation_cards": gen_cards, "completion_length": 1024}}],
    })  # fmt: skip
    result = evaluate(build)
    return list(result.checks), result.jobs[0]


def test_generation_on_cards_of_its_own() -> None:
    checks, job = _server_build([4], [1])
    note = next(c for c in checks if c.code == "RL_GENERATION")  # type: ignore[attr-defined]
    assert note.severity == "info" and "90% of slot 4" in note.message  # type: ignore[attr-defined]
    assert job.rl.generation.startswith("vLLM on its own cards (slots 4)")  # type: ignore[attr-defined]
    assert job.rl.generation_weights_gb == pytest.approx(16.06, abs=0.01)  # type: ignore[attr-defined]
    assert job.cards[0].capacity_gb == pytest.approx(85.5, abs=0.1)  # type: ignore[attr-defined]
    shared, _ = _server_build([1], [1])
    assert any(c.severity == "error" and "both train and run" in c.message for c in shared)  # type: ignore[attr-defined]
    missing, _ = _server_build([7], [1])
    assert any(c.severity == "error" and "not slots with a card" in c.message for c in missing)  # type: ignore[attr-defined]


def test_a_card_shared_with_a_colocated_vllm_counts_its_share() -> None:
    grpo = {"name": "g", "model": "llama-3.1-8b", "method": "lora", "objective": "grpo", "micro_batch_size": 8,
            "cards": [1], "rl": {"vllm_gpu_memory_utilization": 0.5}}  # fmt: skip
    sft = {"name": "s", "model": "llama-3.1-8b", "method": "lora", "cards": [1]}
    build = Build.model_validate({"name": "t", "chassis": "hgx-8", "cards": [{"slot": 1, "card": "h100-sxm"}],
                                  "jobs": [grpo, sft]})  # fmt: skip
    shared = next(c for c in evaluate(build).checks if c.code == "CARD_SHARED")
    assert shared.severity == "error"  # vLLM's 42.8 GB + both jobs' peaks > 85.5 GB


def test_a_server_card_shared_with_a_training_job_is_summed() -> None:
    grpo = {"name": "g", "model": "llama-3.1-8b", "method": "lora", "objective": "grpo", "micro_batch_size": 8,
            "cards": [1], "rl": {"generation": "vllm-server", "generation_cards": [2]}}  # fmt: skip
    sft = {"name": "s", "model": "llama-3.1-8b", "method": "lora", "cards": [2]}
    cards = [{"slot": 1, "card": "h100-sxm"}, {"slot": 2, "card": "h100-sxm"}]
    build = Build.model_validate({"name": "t", "chassis": "hgx-8", "cards": cards, "jobs": [grpo, sft]})
    shared = next(c for c in evaluate(build).checks if c.code == "CARD_SHARED")
    assert shared.slot == 2 and shared.severity == "error"  # 90 % of the card for vLLM + an 8B LoRA


def test_changing_a_generation_card_re_evaluates_thelora_8b_job() -> None:
    def weights_share(card: str) -> float:
        job = {"name": "g", "model": "llama-3.1-8b", "method": "lora", "objective": "grpo", "micro_batch_size": 8,
               "cards": [1], "rl": {"generation": "vllm-server", "generation_cards": [2]}}  # fmt: skip
        cards = [{"slot": 1, "card": "h100-sxm"}, {"slot": 2, "card": card}]
        result = evaluate(Build.model_validate({"name": "t", "chassis": "hgx-8", "cards": cards, "jobs": [job]}))
        assert result.jobs[0].rl is not None and result.jobs[0].rl.generation_share_gb is not None
        return result.jobs[0].rl.generation_share_gb

    assert weights_share("h200-sxm") > weights_share("h100-sxm")  # the memo sees the server's card


def test_generating_in_the_training_process_must_fit_beside_the_states() -> None:
    rl_job = {"objective": "ppo", "micro_batch_size": 64,
              "rl": {"generation": "transformers", "prompt_length": 2048, "completion_length": 32768}}  # fmt: skip
    result, _ = single_job("llama-3.2-1b", "lora", card="h100-sxm", chassis="hgx-8", **rl_job)
    error = next(c for c in result.checks if c.code == "RL_GENERATION" and "training process" in c.message)
    assert error.severity == "error" and "64 sequences" in error.message  # TRL's rollout chunk
    small = {"objective": "ppo", "micro_batch_size": 4, "rl": {"generation": "transformers"}}
    ok, _ = single_job("llama-3.2-1b", "lora", card="h100-sxm", chassis="hgx-8", **small)
    assert not [c for c in ok.checks if c.code == "RL_GENERATION"]


def test_a_ppo_step_adds_the_critic_and_its_epochs() -> None:
    rl_job = {"objective": "ppo", "parallelism": "zero3", "rl": {"prompt_length": 256, "completion_length": 256}}
    once = {**rl_job, "rl": {**rl_job["rl"], "ppo_epochs": 1}}  # type: ignore[dict-item]
    _, one = single_job("llama-3.2-1b", "full", card="h100-sxm", chassis="hgx-8", n=2, **once)
    _, four = single_job("llama-3.2-1b", "full", card="h100-sxm", chassis="hgx-8", n=2, **rl_job)  # TRL's 4
    assert one.rl is not None and four.rl is not None and one.rl.training_seconds is not None
    extra = one.rl.extra_seconds
    assert set(extra) == {"reference forward", "policy log-probs forward", "critic values forward", "reward forward",
                          "critic training"}  # fmt: skip
    # TRL's num_ppo_epochs 4: the critic trains 4 times, the policy 3 more times than the first pass
    assert four.rl.extra_seconds["critic training"] == pytest.approx(4 * extra["critic training"])
    assert four.rl.extra_seconds["policy epochs 2+"] == pytest.approx(3 * one.rl.training_seconds)


def test_each_ppo_epoch_synchronises_its_gradients() -> None:
    """PPO runs num_ppo_epochs optimizer steps over each rollout on its policy-and-value wrapper (TRL's PPO
    trainer): the critic's gradients (a full fine-tune) move beside the policy's, and both come once per epoch, not
    once per step; the further passes hide them as the first pass does."""
    rl_job = {"objective": "ppo", "parallelism": "fsdp", "rl": {"prompt_length": 256, "completion_length": 256}}
    once = {**rl_job, "rl": {**rl_job["rl"], "ppo_epochs": 1}}  # type: ignore[dict-item]
    _, one = single_job("llama-3.2-1b", "lora", card="h100-sxm", chassis="hgx-8", n=2, **once)
    _, four = single_job("llama-3.2-1b", "lora", card="h100-sxm", chassis="hgx-8", n=2, **rl_job)  # TRL's 4
    _, sft = single_job("llama-3.2-1b", "lora", card="h100-sxm", chassis="hgx-8", n=2, parallelism="fsdp")
    assert rl.synced_epochs(lora_8b_job(objective="ppo", rl={"ppo_epochs": 1})) == 1
    assert rl.synced_epochs(lora_8b_job(objective="ppo")) == rl.TRL_PPO_EPOCHS == 4
    assert rl.synced_epochs(lora_8b_job(objective="grpo")) == 1
    c1, c4 = one.communication, four.communication
    # one epoch: the LoRA policy's collectives, then the critic's, whose full gradients outweigh the adapters'
    policy = [c for c in c1.collectives if not c.name.startswith("critic: ")]
    critic = [c for c in c1.collectives if c.name.startswith("critic: ")]
    assert policy and critic and len(c1.collectives) == len(policy) + len(critic)
    assert sum(c.bytes_per_card for c in critic) > sum(c.bytes_per_card for c in policy)
    assert sum(c.bytes_per_card for c in policy) == pytest.approx(sft.communication.bytes_per_card_per_step, rel=0.02)
    # four epochs: four times every collective
    assert c4.seconds_per_step == pytest.approx(4 * c1.seconds_per_step)
    assert [c.count_per_step for c in c4.collectives] == [4 * c.count_per_step for c in c1.collectives]
    assert c4.bytes_per_card_per_step == pytest.approx(4 * c1.bytes_per_card_per_step)
    assert any("in each of its 4 epochs" in n for n in c4.notes)
    assert not any("PPO" in n for n in sft.communication.notes)
    # the ratio is to every synchronised pass's compute (first policy pass, further epochs, critic), not the first
    assert four.rl is not None and four.rl.training_seconds is not None and c4.ratio_to_compute is not None
    synced = four.rl.training_seconds + four.rl.extra_seconds["critic training"] + four.rl.extra_seconds[
        "policy epochs 2+"]  # fmt: skip
    assert c4.ratio_to_compute == pytest.approx(c4.seconds_per_step / synced)


def test_ppo_communication_without_the_per_op_model_stays_one_pass() -> None:
    """The utilisation step model has no further PPO epochs nor critic passes in its compute: their collectives
    are not added there either (else one policy pass is set against 4 x policy + critic traffic: a false
    COMM_DOMINATES, found in review)."""
    rl_job = {"objective": "ppo", "parallelism": "fsdp", "rl": {"prompt_length": 256, "completion_length": 256}}
    util = {"step_model": "utilization"}
    _, ppo = single_job("llama-3.2-1b", "lora", card="h100-sxm", chassis="hgx-8", n=2, assumptions=util, **rl_job)
    assert not any(c.name.startswith("critic: ") for c in ppo.communication.collectives)
    assert not any("PPO" in n for n in ppo.communication.notes)
    assert ppo.communication.ratio_to_compute is not None and ppo.communication.ratio_to_compute < 1


def test_the_critics_collectives_count_its_score_head_not_an_lm_head() -> None:
    """The critic is the policy's architecture with a hidden x 1 score head (transformers' *ForSequenceClassification):
    on an untied model its all-gathers and reduce-scatters move the score head's parameters, not the 525 M of
    Llama 3.1 8B's vocabulary head (6.5 % of the model)."""
    rl_job = {"objective": "ppo", "parallelism": "fsdp", "rl": {"prompt_length": 256, "completion_length": 256,
                                                                "ppo_epochs": 1}}  # fmt: skip
    _, ppo = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8", n=2, **rl_job)
    model = default_catalog().model("llama-3.1-8b")
    assert not model.tie_word_embeddings and rl.critic_parameters(model) < 0.95 * model.total_params
    critic = [c for c in ppo.communication.collectives if c.name.startswith("critic: ")]
    assert critic
    for c in critic:  # whole bytes per parameter of the critic's count (of the LM-headed count: 4.28 B, not whole)
        per_parameter = c.payload_bytes / rl.critic_parameters(model)
        assert per_parameter == pytest.approx(round(per_parameter), abs=1e-6) and round(per_parameter) in (2, 4)
