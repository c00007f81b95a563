"""vLLM tensor parallelism and vLLM servers as TRL runs them, the RL step's communication, and the in-process
generation's gathered weights. Expected numbers are worked by hand from Llama 3.1 8B's config.json (32 layers,
8 KV heads of 128, hidden 4096, vocabulary 128,256, 8,030,261,248 parameters, untied head): KV bytes per token
2 x 32 x 8 x 128 x 2 = 131,072; weights less the input embedding 8,030,261,248 - 128,256 x 4,096 =
7,504,924,672."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from configurator.catalog.loader import default_catalog
from configurator.catalog.models import ModelSpec, load_models_yaml
from configurator.engine.checks import rl as rl_checks
from configurator.engine.evaluate import evaluate
from configurator.engine.memory import rl
from configurator.engine.model.build import Build, Job
from configurator.engine.model.stack import stack_of
from configurator.engine.time.steptime import JobStep, OpClass, scaled_class
from configurator.engine.time.steptime.efficiency import efficiency
from configurator.engine.time.steptime.generation import decode_weight_bytes, generation_time
from configurator.engine.time.steptime.ops import Device

ROOT = Path(__file__).resolve().parents[2]
KV_PER_TOKEN = 131_072
MATMUL_PARAMS = 7_504_924_672
H100 = Device("Hopper", 989.5, 3350, 132)


@pytest.fixture(scope="module")
def models() -> dict[str, ModelSpec]:
    data = yaml.safe_load((ROOT / "specs" / "models.yaml").read_text(encoding="utf-8"))
    return {m.id: m for m in load_models_yaml(data)}


def _job(**fields: Any) -> Job:
    return Job.model_validate({"name": "j", "model": "llama-3.1-8b", "method": "lora", "objective": "grpo", **fields})


def _build(jobs: list[dict[str, Any]], cards: dict[int, str], chassis: str = "hgx-8") -> Build:
    return Build.model_validate({"name": "t", "chassis": chassis, "jobs": jobs,
                                 "cards": [{"slot": s, "card": c} for s, c in cards.items()]})  # fmt: skip


def test_colocated_tensor_parallel_gathers_the_groups_prompts(models: dict[str, ModelSpec]) -> None:
    # TRL colocate: a group of t ranks all-gathers its prompts, so each card holds t ranks' sequences split t ways
    m = models["llama-3.1-8b"]
    one = _job(micro_batch_size=4, rl={"prompt_length": 512, "completion_length": 512})
    two = _job(micro_batch_size=4, rl={"prompt_length": 512, "completion_length": 512, "vllm_tensor_parallel": 2})
    assert rl.group_sequences(one) == 4 and rl.group_sequences(two) == 8
    assert rl.generation_kv_needed(m, one) == rl.generation_kv_needed(m, two) == 4 * 1024 * KV_PER_TOKEN
    g1 = generation_time(m, one, H100, rl.group_sequences(one))
    g2 = generation_time(m, two, H100, rl.group_sequences(two))
    # per card: one rank's FLOPs whatever t, 2 x 7,504,924,672 per token over 4 x 1,024 tokens
    assert g1.flops == pytest.approx(2 * MATMUL_PARAMS * 4 * 1024)
    assert g2.flops == pytest.approx(2 * MATMUL_PARAMS * 4 * 1024)
    # bytes: 512 steps of the weights (halved by t = 2) + the KV reads of 4 sequences' caches so far
    kv_reads = 4 * KV_PER_TOKEN * (512 * 512 + 512 * 513 / 2)
    assert g1.bytes == pytest.approx(512 * MATMUL_PARAMS * 2 + kv_reads)
    assert g2.bytes == pytest.approx(512 * MATMUL_PARAMS + kv_reads)


def test_vllm_tensor_parallel_must_tile_the_cards() -> None:
    bad = rl_checks.tensor_parallel_checks(_job(rl={"vllm_tensor_parallel": 3}), 8)
    assert bad and bad[0].severity == "error" and "does not divide its 8" in bad[0].message
    assert not rl_checks.tensor_parallel_checks(_job(rl={"vllm_tensor_parallel": 4}), 8)
    server = _job(rl={"generation": "vllm-server", "generation_cards": [7, 8], "vllm_tensor_parallel": 4})
    assert "needs 4 cards, but the vLLM server has 2" in rl_checks.tensor_parallel_checks(server, 6)[0].message


def test_a_server_holds_every_training_ranks_sequences(models: dict[str, ModelSpec]) -> None:
    # 6 training ranks x 4 sequences sent to 2 server cards: 2 replicas (t = 1) of 12 sequences each
    m = models["llama-3.1-8b"]
    server = _job(micro_batch_size=4, rl={"generation": "vllm-server", "generation_cards": [7, 8],
                                          "completion_length": 512})  # fmt: skip
    assert rl.group_sequences(server, 6) == 12
    assert rl.generation_kv_needed(m, server, 6) == 12 * 1024 * KV_PER_TOKEN
    tp2 = server.model_copy(update={"rl": server.rl.model_copy(update={"vllm_tensor_parallel": 2})})
    assert rl.group_sequences(tp2, 6) == 24  # one replica of two cards: 24 sequences split two ways
    assert rl.generation_kv_needed(m, tp2, 6) == 24 * 1024 * KV_PER_TOKEN / 2


def test_a_server_is_timed_on_its_own_cards() -> None:
    job = {"name": "g", "model": "llama-3.1-8b", "method": "lora", "objective": "grpo", "micro_batch_size": 4,
           "cards": [1, 2], "parallelism": "fsdp", "rl": {"generation": "vllm-server", "generation_cards": [3]}}
    on_h100 = evaluate(_build([job], {1: "l40s", 2: "l40s", 3: "h100-sxm"}, "generic-server-8")).jobs[0]
    on_l40s = evaluate(_build([job], {1: "l40s", 2: "l40s", 3: "l40s"}, "generic-server-8")).jobs[0]
    assert on_h100.rl is not None and on_l40s.rl is not None
    assert on_h100.rl.sequences == 8  # 2 ranks x 4 sequences on one server card
    assert on_h100.rl.generation_seconds is not None and on_l40s.rl.generation_seconds is not None
    # decode reads the same bytes on either card: the H100's 3,350 GB/s against the L40S's 864 GB/s
    assert on_l40s.rl.generation_seconds / on_h100.rl.generation_seconds == pytest.approx(3350 / 864, rel=0.1)


def test_rl_communication_overlaps_the_training_passes_only() -> None:
    # FSDP LoRA of an 8B over 8 L40S (PCIe): the collectives hide behind the training step, not the generation
    job = {"name": "g", "model": "llama-3.1-8b", "method": "lora", "objective": "grpo", "micro_batch_size": 1,
           "cards": list(range(1, 9)), "parallelism": "fsdp", "rl": {"completion_length": 1024}}
    result = evaluate(_build([job], dict.fromkeys(range(1, 9), "l40s"), "generic-server-8")).jobs[0]
    comp, comm = result.compute, result.communication
    assert comp is not None and comp.training_seconds is not None and comp.seconds_per_step is not None
    assert comm.seconds_per_step > comp.training_seconds  # the link is slower than the training passes
    exposed = comm.seconds_per_step - comp.training_seconds
    assert result.step_seconds == pytest.approx(comp.seconds_per_step + exposed)
    assert comm.hidden_behind_compute is False


def test_rl_communication_carries_the_batch_the_trainer_runs() -> None:
    def payload(**fields: Any) -> float:
        job = {"name": "g", "model": "llama-3.1-8b", "method": "lora", "cards": [1, 2], "parallelism": "tp",
               "tensor_parallel": 2, **fields}
        result = evaluate(_build([job], {1: "h100-sxm", 2: "h100-sxm"})).jobs[0]
        return result.communication.collectives[0].payload_bytes

    # tensor-parallel all-reduce of micro-batch x tokens x hidden x 2 bytes
    grpo = payload(objective="grpo", micro_batch_size=8, rl={"prompt_length": 512, "completion_length": 512})
    assert grpo == 8 * 1024 * 4096 * 2
    dpo = payload(objective="dpo", micro_batch_size=4, sequence_length=1024)  # chosen + rejected: 2 x 4 sequences
    assert dpo == 2 * 4 * 1024 * 4096 * 2


def test_tied_embeddings_keep_the_head_in_decode(models: dict[str, ModelSpec]) -> None:
    # Llama 3.2 1B ties its head to the embedding: 1,235,814,400 parameters, all read each decode step
    tied = models["llama-3.2-1b"]
    assert decode_weight_bytes(tied, 1) == 1_235_814_400 * 2
    assert decode_weight_bytes(models["llama-3.1-8b"], 1) == MATMUL_PARAMS * 2


def test_zero3_generation_in_process_gathers_policy_and_critic(models: dict[str, ModelSpec]) -> None:
    # PPO full under ZeRO-3 on 8 cards: policy 8,030,261,248 + critic (head -> score) 7,504,928,768 parameters,
    # gathered in bf16, less the 1/8 each card holds
    m = models["llama-3.1-8b"]
    job = _job(objective="ppo", method="full", parallelism="zero3")
    assert rl_checks.gathered_bytes(m, job, 8) == pytest.approx((8_030_261_248 + 7_504_928_768) * 2 * 7 / 8)
    assert rl_checks.gathered_bytes(m, job.model_copy(update={"parallelism": "fsdp"}), 8) == 0


def test_ppo_defaults_are_trls() -> None:
    ppo = _job(objective="ppo")
    assert rl.generation_engine(ppo) == "transformers"  # TRL's PPOTrainer has no vLLM path
    assert rl.ppo_epochs(ppo) == 4  # ppo_config.py num_ppo_epochs
    assert rl.generation_engine(_job()) == "vllm-colocate"
    assert rl.generation_engine(_job(objective="ppo", rl={"generation": "vllm-server"})) == "vllm-server"


def test_generate_in_the_training_process_is_launch_bound(models: dict[str, ModelSpec]) -> None:
    # Llama 3.2 1B, 16 layers: 40 kernels a layer at eager's 15.9 us (efficiency.yaml launch) = 10.176 ms a step,
    # against ~2.5 GB of weights at 3,350 GB/s (< 1 ms): 512 steps take 5.21 s of host launches
    m = models["llama-3.2-1b"]
    job = _job(model="llama-3.2-1b", objective="ppo", micro_batch_size=4, rl={"completion_length": 512})
    assert rl.generation_engine(job) == "transformers"
    assert generation_time(m, job, H100).decode_seconds == pytest.approx(512 * 40 * 16 * 15.9e-6)
    vllm = job.model_copy(update={"rl": job.rl.model_copy(update={"generation": "vllm-colocate"})})
    assert generation_time(m, vllm, H100).decode_seconds < 1.0  # CUDA graphs: memory-bound


def test_a_recipes_speed_up_applies_to_the_training_not_the_generation() -> None:
    job = {"name": "g", "model": "llama-3.1-8b", "method": "full", "objective": "grpo", "precision": "fp8",
           "micro_batch_size": 4, "cards": [1, 2], "parallelism": "fsdp"}
    result = evaluate(_build([job], {1: "h100-sxm", 2: "h100-sxm"})).jobs[0]
    comp = result.compute
    assert comp is not None and comp.speedup and comp.training_seconds and comp.seconds_per_step
    rl_rows = {"generation"}
    training_rows = sum(o.seconds for o in comp.ops if o.name not in rl_rows)
    generation = sum(o.seconds for o in comp.ops if o.name in rl_rows)
    assert comp.training_seconds == pytest.approx(training_rows / (1 + comp.speedup))  # BF16 step over 1 + s
    assert comp.seconds_per_step == pytest.approx(comp.training_seconds + generation)  # generation unchanged


def test_the_models_table_follows_offload() -> None:
    # PPO full under ZeRO-3 with offload cpu: every model's weights, gradients and optimizer states go to the host
    # (the memory table shows 0 GB of them on the card), so the table of kept models shows 0 GB each
    job = {"name": "p", "model": "llama-3.1-8b", "method": "full", "objective": "ppo", "parallelism": "zero3",
           "offload": "cpu", "micro_batch_size": 4, "cards": [1, 2, 3, 4]}
    result = evaluate(_build([job], dict.fromkeys(range(1, 5), "h100-sxm"))).jobs[0]
    assert result.rl is not None and result.cards[0].weights_gb == 0
    assert {m.role: m.gb_per_card for m in result.rl.models} == {"policy": 0, "reference": 0, "critic": 0,
                                                                 "reward": 0}  # fmt: skip
    assert all("offloaded to the host" in m.held for m in result.rl.models)
    on = evaluate(_build([{**job, "offload": "none"}], dict.fromkeys(range(1, 5), "h100-sxm"))).jobs[0]
    assert on.rl is not None
    rows = {m.role: m.gb_per_card for m in on.rl.models}
    # reference: 8,030,261,248 x 2 bytes / 4 cards = 4.015 GB; critic: 7,504,928,768 x (2 + 2 + 12) / 4 = 30.02 GB
    assert rows["reference"] == pytest.approx(4.015, abs=0.001)
    assert rows["reward"] == pytest.approx(4.015, abs=0.001)
    assert rows["critic"] == pytest.approx(30.02, abs=0.01)


def test_scaled_class_scales_one_op_class() -> None:
    step = JobStep((OpClass("mlp", 10.0, 1.0, 3.0, 3.0, 0.0), OpClass("loss", 8.0, 4.0, 2.0, 1.5, 0.5)), 5.0, False,
                   "eager", 1.0)  # fmt: skip
    quarter = scaled_class(step, "loss", 0.25)
    assert quarter.seconds == 3.0 + 0.5 and quarter.classes[1].flops == 2.0 and quarter.classes[0] == step.classes[0]
    assert scaled_class(step, "loss", 0.0).seconds == 3.0


def _ops(**fields: Any) -> dict[str, float]:
    job = {"name": "g", "model": "llama-3.1-8b", "method": "full", "micro_batch_size": 2, "cards": [1, 2],
           "parallelism": "fsdp", **fields}
    result = evaluate(_build([job], {1: "h100-sxm", 2: "h100-sxm"})).jobs[0]
    assert result.compute is not None
    return {o.name: o.seconds for o in result.compute.ops}


def test_grpo_times_logits_for_the_completion_only() -> None:
    # logits_to_keep = completion + 1 of prompt + completion: 1,025 of 1,536 positions
    grpo = _ops(objective="grpo", rl={"prompt_length": 512, "completion_length": 1024})
    sft = _ops(sequence_length=1536, loss="bf16")  # the same training batch, every position's logits
    assert grpo["loss"] == pytest.approx(sft["loss"] * 1025 / 1536)
    assert grpo["mlp"] == pytest.approx(sft["mlp"])


def test_the_critic_is_timed_without_the_vocabulary_head() -> None:
    ppo = _ops(objective="ppo", rl={"prompt_length": 512, "completion_length": 512, "ppo_epochs": 1})
    sft = _ops(sequence_length=1024, loss="bf16")  # the critic: the policy's architecture trained in full
    # ... whose optimizer steps the score head's parameters (rl.critic_parameters), not Llama 3.1 8B's LM head
    model = default_catalog().model("llama-3.1-8b")
    head = 1 - rl.critic_parameters(model) / model.total_params
    assert head > 0.06
    assert ppo["critic training"] == pytest.approx(sum(sft.values()) - sft["loss"] - head * sft["optimizer"])


@pytest.mark.parametrize(("framework", "loss", "refused"), [
    ("hf-trainer", "bf16", False), ("axolotl", "bf16", False),  # TRL's trainers: log-probs of the bf16 logits
    ("torchtune", "chunked", False),  # its own DPO / PPO / GRPO recipes, its own loss
    ("torchtitan", None, True), ("litgpt", None, True), ("fsdp-qlora", None, True),
])  # fmt: skip
def test_the_rl_trainer_is_a_framework_behaviour(framework: str, loss: str | None, refused: bool) -> None:
    job = _job(objective="dpo", framework=framework)
    if loss is not None:
        assert stack_of(rl.training_view(job)).loss == loss
    errors = [c for c in rl_checks.trainer_checks(job) if c.code == "JOB_SETTING"]
    assert bool(errors) == refused
    assert not rl_checks.trainer_checks(job.model_copy(update={"objective": "sft"}))


def test_reference_and_critic_split_their_experts_like_the_policy(models: dict[str, ModelSpec]) -> None:
    # Qwen3-30B-A3B full DPO over 4 cards of expert parallelism: the reference keeps 1/4 of the routed experts
    m = models["qwen3-30b-a3b"]
    job = _job(model="qwen3-30b-a3b", objective="dpo", method="full", parallelism="ep")
    experts, total = m.expert_params(), m.total_params
    whole = rl.reference_bytes(m, job, shards=1, stage=0, tp=1)
    assert whole == total * 2
    assert rl.reference_bytes(m, job, shards=1, stage=0, tp=1, ep=4) == pytest.approx((total - experts * 3 / 4) * 2)


def test_vllm_holds_gpt_oss_experts_as_shipped(models: dict[str, ModelSpec]) -> None:
    # gpt-oss-20b: 24 layers x 32 experts x (2,880 x 5,760 + 2,880 x 2,880) = 19,110,297,600 expert weights in
    # MXFP4 (4.25 bits); the other 20,914,757,184 - 19,110,297,600 parameters (expert biases included) in bf16
    m = models["gpt-oss-20b"]
    weights = rl.generation_budget(m, _job(model="gpt-oss-20b"), 80e9)[1]
    assert weights == pytest.approx(19_110_297_600 * 4.25 / 8 + (20_914_757_184 - 19_110_297_600) * 2)


def test_vllm_decode_reads_weights_and_caches_at_the_streaming_rate(models: dict[str, ModelSpec]) -> None:
    # 8 sequences, 512 + 1,024 tokens on an H100 (3,350 GB/s): 1,024 steps each read the 15,009,849,344 bytes of
    # weights (all but the input embedding, bf16), plus every sequence's keys and values so far:
    # 8 x 131,072 x (1,024 x 512 + 1,024 x 1,025 / 2) = 1,100,048,498,688 bytes
    job = _job(micro_batch_size=8, rl={"prompt_length": 512, "completion_length": 1024})
    gen = generation_time(models["llama-3.1-8b"], job, H100)
    read = 1024 * 15_009_849_344 + 1_100_048_498_688
    assert gen.bytes == pytest.approx(read) and gen.bound == "memory"
    assert gen.decode_seconds == pytest.approx(read / (3350e9 * efficiency().bandwidth))


def test_a_capped_server_card_is_named_by_the_power_limit_check() -> None:
    """The generation round runs on the vLLM server's own card: a cap there slows the step too, and the check names
    it (found in review: only the training cards were looked at)."""
    job = {"name": "g", "model": "llama-3.1-8b", "method": "lora", "objective": "grpo", "micro_batch_size": 4,
           "cards": [1, 2], "parallelism": "fsdp", "rl": {"generation": "vllm-server", "generation_cards": [3]}}
    build = _build([job], {1: "h100-nvl", 2: "h100-nvl", 3: "h100-nvl"}, "generic-server-8")
    capped = build.model_copy(update={"cards": [*build.cards[:2],
                                                build.cards[2].model_copy(update={"power_limit_w": 250.0})]})
    checks = [c for c in evaluate(capped).checks if c.code == "POWER_LIMIT_NOT_TIMED"]
    assert [c.slot for c in checks] == [3] and checks[0].job == "g"
