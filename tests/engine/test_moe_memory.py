"""Mixture-of-experts memory: every expert resident, router and dispatch/combine buffers, capacity factor, MXFP4
experts as shipped (gpt-oss) with LoRA on top, expert parallelism; `configurator size` on MoE LoRA builds."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from configurator.catalog.models import ModelSpec, load_models_yaml
from configurator.cli import main
from configurator.engine.memory import moe
from configurator.engine.memory.estimate import memory_for_card
from configurator.engine.memory.states import sharding
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM
from tests.helpers import single_job

ROOT = Path(__file__).resolve().parents[2]
BUILDS = ROOT / "resources" / "builds"


@pytest.fixture(scope="module")
def models() -> dict[str, ModelSpec]:
    data = yaml.safe_load((ROOT / "specs" / "models.yaml").read_text(encoding="utf-8"))
    return {m.id: m for m in load_models_yaml(data)}


def _job(model: str, **fields: object) -> Job:
    return Job.model_validate({"name": "j", "model": model, "method": "lora", **fields})


# ---- all experts resident ------------------------------------------------------------------------------


def test_every_expert_is_resident(models: dict[str, ModelSpec]) -> None:
    """A LoRA base is the whole model in bf16 (61.1 GB for Qwen3-30B-A3B), not its 3.3B active parameters."""
    m = models["qwen3-30b-a3b"]
    mem = memory_for_card(m, _job("qwen3-30b-a3b"))
    assert mem.weights == m.total_params * 2
    assert mem.weights > 9 * m.active_params() * 2


# ---- MXFP4 experts as shipped ----------------------------------------------------------------------------


def test_mxfp4_base_is_experts_at_4_25_bits(models: dict[str, ModelSpec]) -> None:
    m = models["gpt-oss-20b"]
    mem = memory_for_card(m, _job("gpt-oss-20b", base_weights="mxfp4"))
    weights = 24 * 32 * (2880 * 5760 + 2880 * 2880)  # gate_up_proj and down_proj of 32 experts x 24 layers
    biases = 24 * 32 * (5760 + 2880)  # fp32 in Mxfp4GptOssExperts
    assert mem.weights == pytest.approx(weights * 4.25 / 8 + biases * 4 + (m.total_params - weights - biases) * 2)
    assert round(mem.weights / 1e9, 1) == 13.8
    bf16 = memory_for_card(m, _job("gpt-oss-20b"))  # Mxfp4Config(dequantize=True): the cookbook's recipe
    assert bf16.weights == m.total_params * 2
    assert bf16.weights / mem.weights > 3


def test_mxfp4_applies_only_where_the_experts_ship_so(models: dict[str, ModelSpec]) -> None:
    q = models["qwen3-30b-a3b"]
    assert memory_for_card(q, _job("qwen3-30b-a3b", base_weights="mxfp4")).weights == q.total_params * 2
    g = models["gpt-oss-20b"]
    full = Job(name="f", model="gpt-oss-20b", method="full", base_weights="mxfp4")
    assert not moe.stores_mxfp4(g, full)  # a full fine-tune trains the experts in its own precision


def test_lora_adapters_ride_on_the_mxfp4_base(models: dict[str, ModelSpec]) -> None:
    m = models["gpt-oss-20b"]
    mem = memory_for_card(m, _job("gpt-oss-20b", base_weights="mxfp4", lora={"rank": 8, "targets": "attention"}))
    trainable = 24 * 8 * (2 * (2880 + 4096) + 2 * (2880 + 512))
    assert mem.adapters == trainable * 4  # fp32 adapters (mixed bf16)
    assert mem.optimizer == trainable * 8


# ---- router, dispatch and combine ----------------------------------------------------------------------


def test_router_and_combine_are_kept_even_with_frozen_experts(models: dict[str, ModelSpec]) -> None:
    m = models["qwen3-30b-a3b"]
    frozen = moe.saved_bytes_per_token(m, experts_trained=False)
    trained = moe.saved_bytes_per_token(m, experts_trained=True)
    assert frozen == 4 * 128 + 2 * 8 * 2048  # fp32 softmax over 128 experts + the k expert outputs
    assert trained == frozen + 2 * 8 * 2048  # + the k dispatched copies, inputs of the trained expert linears
    assert moe.saved_bytes_per_token(models["llama-3.1-8b"], True) == 0


def test_gpt_oss_router_keeps_top_k_probabilities(models: dict[str, ModelSpec]) -> None:
    m = models["gpt-oss-20b"]
    assert moe.saved_bytes_per_token(m, experts_trained=False) == 4 * 4 + 2 * 4 * 2880


def test_capacity_factor_grows_the_buffers(models: dict[str, ModelSpec]) -> None:
    m = models["qwen3-30b-a3b"]
    base = memory_for_card(m, _job("qwen3-30b-a3b", gradient_checkpointing=False))
    padded = memory_for_card(m, _job("qwen3-30b-a3b", gradient_checkpointing=False, moe_capacity_factor=1.25))
    extra = 0.25 * 8 * 2048 * 2 * 2 * 48 * 2048  # dispatch + combine, 48 layers, 2,048 tokens
    assert padded.activations - base.activations == pytest.approx(extra)


def test_routing_mask_is_transient(models: dict[str, ModelSpec]) -> None:
    m = models["qwen3-30b-a3b"]
    assert moe.routing_transient_bytes(m, 2048) == 8 * 128 * 8 * 2048  # int64 one-hot, E x k per token


# ---- expert parallelism ----------------------------------------------------------------------------------


def test_expert_parallel_is_a_record() -> None:
    ep = PARALLELISM["ep"]
    assert ep.shards_experts and not ep.shards_states and not ep.splits_layers
    assert any("all-to-all" in c for c in ep.collectives)
    assert not any(PARALLELISM[n].shards_experts for n in PARALLELISM if n != "ep")
    assert sharding(_job("qwen3-30b-a3b", parallelism="ep"), 4).ep == 4
    assert sharding(_job("qwen3-30b-a3b", parallelism="fsdp"), 4).ep == 1


def test_expert_parallel_splits_only_the_experts(models: dict[str, ModelSpec]) -> None:
    m = models["qwen3-30b-a3b"]
    job = _job("qwen3-30b-a3b", parallelism="ep")
    mem = memory_for_card(m, job, ddp=True, ep=4)
    experts = m.expert_params()
    assert mem.weights == pytest.approx((m.total_params - experts + experts / 4) * 2)
    one = memory_for_card(m, job)
    expert_adapters = sum(16 * (x.in_features + x.out_features) * x.count
                          for x in m.lora_modules("all-linear") if x.group == "expert")  # fmt: skip
    trainable = m.lora_trainable(16, "all-linear")
    assert mem.optimizer == pytest.approx(one.optimizer * (1 - expert_adapters * 0.75 / trainable))


def test_expert_parallel_on_a_dense_model_splits_nothing(models: dict[str, ModelSpec]) -> None:
    m = models["llama-3.1-8b"]
    job = _job("llama-3.1-8b", parallelism="ep")
    assert memory_for_card(m, job, ep=4).weights == memory_for_card(m, job).weights
    assert moe.all_to_all_bytes_per_step(m, job, 4) == 0


def test_all_to_all_bytes_per_step(models: dict[str, ModelSpec]) -> None:
    """4 all-to-alls per MoE layer (dispatch, combine, both gradients), 6 with the checkpointed forward rerun;
    each moves tokens x k x hidden bf16, of which (ep - 1)/ep leave the card."""
    m = models["qwen3-30b-a3b"]
    job = _job("qwen3-30b-a3b", parallelism="ep", sequence_length=4096, gradient_accumulation_steps=2)
    per_call = 4096 * 8 * 2048 * 2 * 3 / 4
    assert moe.all_to_all_bytes_per_step(m, job, 4) == pytest.approx(per_call * 6 * 48 * 2)
    no_ckpt = job.model_copy(update={"gradient_checkpointing": False})
    assert moe.all_to_all_bytes_per_step(m, no_ckpt, 4) == pytest.approx(per_call * 4 * 48 * 2)


def test_expert_parallel_job_in_a_build() -> None:
    _, job = single_job("qwen3-30b-a3b", "lora", card="h100-sxm", chassis="hgx-8", n=4, parallelism="ep")
    _, one = single_job("qwen3-30b-a3b", "lora", card="h100-sxm", chassis="hgx-8")
    assert job.cards[0].weights_gb < one.cards[0].weights_gb / 3
    assert job.cards[0].peak_reserved_gb < one.cards[0].peak_reserved_gb


# ---- configurator size on MoE LoRA builds ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "weights", "status"),
    [
        ("moe-qwen3-30b-a3b-lora-h100.yaml", "61.1", "TIGHT"),  # 30.5B x 2 B: every expert resident
        # the experts dequantised to BF16 at load: the Trainer will not train them kept in MXFP4 (13.8 GB)
        ("moe-gpt-oss-20b-lora-h100.yaml", "41.8", "fits"),
    ],
)
def test_size_on_moe_lora_builds(build: str, weights: str, status: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["size", str(BUILDS / build)])
    out = capsys.readouterr().out
    assert rc == 0, out
    job_line = next(line for line in out.splitlines() if line.startswith("Job: "))
    assert f"[{status}]" in job_line
    card_line = next(line for line in out.splitlines() if line.strip().startswith("slot 1 h100-sxm"))
    assert card_line.split()[3] == weights
    assert "peak allocated" in out and "model band" in out


def test_mxfp4_on_a_model_without_mxfp4_experts_says_so() -> None:
    result, _ = single_job("qwen3-30b-a3b", "lora", card="h200-nvl", base_weights="mxfp4")
    notes = [c for c in result.checks if c.code == "PRECISION_NOTE"]
    assert notes and "sized in BF16" in notes[0].message
    result, _ = single_job("gpt-oss-20b", "lora", card="h200-nvl", base_weights="mxfp4")
    assert not [c for c in result.checks if c.code == "PRECISION_NOTE"]
