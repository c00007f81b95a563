"""DPO and GRPO memory as TRL runs them: the reference model (none for LoRA: adapters disabled), DPO's chosen +
rejected batch, GRPO's prompt + completion tokens, and a colocated vLLM's share with its KV cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.catalog.models import ModelSpec
from configurator.cli import main
from configurator.engine.memory import rl
from configurator.engine.memory.estimate import memory_for_card
from configurator.engine.model.build import Build
from configurator.trace.request import TraceRefused, prepare_trace
from tests.helpers import lora_8b_job, single_job

ROOT = Path(__file__).resolve().parents[2]
BUILDS = ROOT / "resources" / "builds"



# ---- the reference model --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "keeps"),
    [
        ({"objective": "dpo"}, False),  # PEFT: the reference is the base with adapters disabled
        ({"objective": "dpo", "method": "full"}, True),
        ({"objective": "dpo", "method": "full", "rl": {"precompute_ref_log_probs": True}}, False),
        ({"objective": "grpo", "method": "full"}, False),  # GRPOConfig beta 0.0: no reference loaded
        ({"objective": "grpo", "method": "full", "rl": {"beta": 0.04}}, True),
        ({"objective": "grpo", "rl": {"beta": 0.04}}, False),
        ({"objective": "sft", "method": "full"}, False),
    ],
)
def test_which_jobs_keep_a_reference(fields: dict[str, object], keeps: bool) -> None:
    assert rl.keeps_reference(lora_8b_job(**fields)) is keeps


def test_lora_dpo_keeps_no_second_copy(llama8b: ModelSpec) -> None:
    sft = memory_for_card(llama8b, lora_8b_job())
    dpo = memory_for_card(llama8b, lora_8b_job(objective="dpo"))
    assert dpo.weights == sft.weights == llama8b.total_params * 2


def test_full_dpo_reference_is_sharded_like_the_policy(llama8b: ModelSpec) -> None:
    job = lora_8b_job(objective="dpo", method="full", parallelism="zero3")
    sft = memory_for_card(llama8b, job.model_copy(update={"objective": "sft"}), shards=4)
    dpo = memory_for_card(llama8b, job, shards=4)
    assert dpo.weights - sft.weights == pytest.approx(llama8b.total_params * 2 / 4)


# ---- the batch --------------------------------------------------------------------------------------------------


def test_dpo_runs_chosen_and_rejected_together(llama8b: ModelSpec) -> None:
    sft = memory_for_card(llama8b, lora_8b_job(micro_batch_size=2, loss="bf16"))  # TRL's log-probs on bf16 logits
    dpo = memory_for_card(llama8b, lora_8b_job(objective="dpo", micro_batch_size=1))
    assert dpo.activations == pytest.approx(sft.activations)


def test_grpo_trains_on_prompt_plus_completion(llama8b: ModelSpec) -> None:
    grpo = lora_8b_job(objective="grpo", sequence_length=128, rl={"prompt_length": 512, "completion_length": 1024})
    assert rl.training_view(grpo).sequence_length == 1536
    same = memory_for_card(llama8b, lora_8b_job(sequence_length=1536, loss="bf16"))
    # logits_to_keep: the head makes logits for the 1,024 completion tokens (+1) of the 1,536 only; the 511 others
    # would each hold 128,256 bf16 log-probabilities and the bf16 gradients of them and of the logits: 6 bytes
    assert rl.logit_fraction(grpo) == pytest.approx(1025 / 1536)
    saved = same.activations - memory_for_card(llama8b, grpo).activations
    assert saved == pytest.approx(511 * 128_256 * (2 + 2 + 2))


# ---- colocated vLLM ---------------------------------------------------------------------------------------


def test_kv_cache_for_one_generation_round(llama8b: ModelSpec) -> None:
    assert rl.kv_bytes_per_token(llama8b) == 2 * 32 * 8 * 128 * 2
    job = lora_8b_job(objective="grpo", micro_batch_size=8, rl={"prompt_length": 512, "completion_length": 1024})
    assert rl.generation_kv_needed(llama8b, job) == 8 * 1536 * 131_072


def test_colocated_vllm_takes_its_share_of_the_card() -> None:
    rl_job = {"objective": "grpo", "micro_batch_size": 8,
              "rl": {"completion_length": 1024, "vllm_gpu_memory_utilization": 0.3}}  # fmt: skip
    result, job = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8", **rl_job)
    _, plain = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8")
    assert job.cards[0].capacity_gb == pytest.approx(plain.cards[0].capacity_gb * 0.7)
    note = next(c for c in result.checks if c.code == "RL_GENERATION")
    assert note.severity == "info"
    assert "30% of each card" in note.message and "KV cache" in note.message


def test_a_share_too_small_for_the_weights_is_an_error() -> None:
    rl_job = {"objective": "grpo", "rl": {"vllm_gpu_memory_utilization": 0.1}}
    result, _ = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8", **rl_job)
    error = next(c for c in result.checks if c.code == "RL_GENERATION")
    assert error.severity == "error" and "Raise vllm_gpu_memory_utilization" in error.message


def test_vllm_server_leaves_the_training_cards_whole() -> None:
    rl_job = {"objective": "grpo", "micro_batch_size": 8, "rl": {"generation": "vllm-server"}}
    result, job = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8", **rl_job)
    _, plain = single_job("llama-3.1-8b", "lora", card="h100-sxm", chassis="hgx-8")
    assert job.cards[0].capacity_gb == plain.cards[0].capacity_gb
    assert not [c for c in result.checks if c.code == "RL_GENERATION"]


# ---- configurator size ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "weights", "capacity"),
    [
        ("rl-grpo-8b-lora-vllm-h100.yaml", "16.1", "59.9"),  # one base (no reference); 70 % of 85.5 GB
        ("rl-dpo-8b-full-4x-h100.yaml", "8.0", "85.5"),  # policy + reference, each 16.1 GB / 4
    ],
)
def test_size_on_rl_builds(build: str, weights: str, capacity: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["size", str(BUILDS / build)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "[fits]" in next(line for line in out.splitlines() if line.startswith("Job: "))
    card = next(line for line in out.splitlines() if line.strip().startswith("slot 1 h100-sxm")).split()
    assert (card[3], card[-3]) == (weights, capacity)


@pytest.mark.parametrize(
    ("fields", "says"),
    [({"objective": "dpo"}, "DPO is not traced"), ({"parallelism": "ep"}, "expert parallelism"),
     ({"base_weights": "mxfp4"}, "MXFP4 base")],
)  # fmt: skip
def test_the_tracer_refuses_what_it_would_trace_as_sft(fields: dict[str, object], says: str) -> None:
    """A DPO / GRPO job, expert parallelism or an MXFP4 base would be traced as the plain step: refused by name."""
    job = {"name": "j", "model": "llama-3.1-8b", "cards": [1], **fields}
    build = Build.model_validate({"name": "t", "chassis": "hgx-8", "cards": [{"slot": 1, "card": "h100-sxm"}],
                                  "jobs": [job]})  # fmt: skip
    with pytest.raises(TraceRefused, match=says):
        prepare_trace(build, "j", default_catalog())
