"""Mixture-of-experts memory: what an MoE layer adds to a dense one, the experts' weights as stored, and expert
parallelism's split of the experts and its all-to-all traffic.

Every expert is resident on the cards that hold it: the weights are the model's total, never its active count
(``ModelSpec.param_counts``); only compute runs on the active parameters (``ModelSpec.active_params``).

What an MoE block keeps for backward, read from the transformers code (``modeling_qwen3_moe.py``
Qwen3MoeSparseMoeBlock.forward, ``modeling_mixtral.py`` MixtralSparseMoeBlock.forward, ``modeling_gpt_oss.py``
GptOssTopKRouter / GptOssExperts.forward in training):
- the router's probabilities: ``F.softmax(router_logits, dim=1, dtype=torch.float)`` keeps its fp32 output,
  num_experts values per token (gpt-oss applies the softmax to the top-k logits only: k values);
- the dispatched copies: ``hidden_states[None, top_x]`` gathers each expert's tokens, k copies of the hidden state
  per token, kept as the input of the expert's linears when they are trained;
- the combine: ``expert_layer(current_state) * routing_weights[top_x, idx, None]`` keeps the expert's output (k x
  hidden per token) for the routing weight's gradient, whether or not the experts train (the routing weights
  depend on the hidden state, which needs a gradient);
- a transient ``one_hot(selected_experts, num_classes=E)`` int64 mask of E x k values per token, one layer at a
  time (torch.nn.functional.one_hot returns int64).

Capacity factor: transformers' MoE blocks are dropless (every routed token is computed: capacity factor 1 in the
buffers); capacity-based dispatchers (Megatron-Core ``--moe-expert-capacity-factor``, DeepSpeed-MoE
``capacity_factor``) pad each expert's buffer to capacity = factor x tokens x k / E, so the dispatch and combine
buffers and the all-to-all grow by the factor.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.catalog.model_spec import EXPERT_FORMAT_BITS
from configurator.catalog.models import ModelSpec
from configurator.engine.memory.precision import BF16, FP32
from configurator.engine.model.build import Job

INT64 = 8  # torch.nn.functional.one_hot returns int64
DROPLESS = 1.0  # transformers' MoE blocks compute every routed token (no capacity padding)


def expert_weights(model: ModelSpec) -> int:
    """Weights (not biases) of every routed expert."""
    return sum(m.weights for m in model.linear_modules() if m.group == "expert")


def stores_mxfp4(model: ModelSpec, job: Job) -> bool:
    """Whether the job keeps the experts as shipped in MXFP4: a LoRA job with ``base_weights: mxfp4`` on a model
    whose checkpoint has them so (gpt-oss). A full fine-tune trains them in its own precision."""
    return job.method == "lora" and job.base_weights == "mxfp4" and model.expert_format == "mxfp4"


def base_weight_bytes(model: ModelSpec) -> float:
    """The frozen base with its experts kept in MXFP4 as shipped, the rest in bf16.

    transformers' Mxfp4GptOssExperts (integrations/mxfp4.py) holds each expert weight as ``*_blocks`` (uint8, two
    4-bit E2M1 values a byte) and ``*_scales`` (one uint8 E8M0 exponent per 32 values): 4 + 8/32 = 4.25 bits a
    weight (the OCP MX format; gpt-oss model card, "MXFP4 ... 4.25 bits per parameter"); the expert biases are
    float32 parameters there; attention, router, embeddings and norms stay bf16 (modules_to_not_convert).
    """
    weights = expert_weights(model)
    biases = model.expert_params() - weights
    rest = model.total_params - weights - biases
    return weights * EXPERT_FORMAT_BITS["mxfp4"] / 8 + biases * FP32 + rest * BF16


def saved_intermediates(model: ModelSpec) -> int:
    """Tensors of the MLP's intermediate width (per routed copy) a Transformers block keeps for backward.

    SwiGLU (modeling_llama.py LlamaMLP, the experts of Mixtral and Qwen3-MoE): the gate output (SiLU's input),
    SiLU's output and the up output: 3. gpt-oss's clamped SwiGLU (modeling_gpt_oss.py GptOssExperts._apply_gate:
    ``gate.clamp(max=limit)``, ``gate * sigmoid(gate * alpha)``, ``(up + 1) * glu``) keeps the fused gate_up output
    (two widths: clamp's input, of which gate and up are strided views), the clamped gate, the sigmoid's output,
    glu and up + 1: 6 (the meta trace of transformers 5's grouped-mm experts shows each)."""
    return 6 if model.architecture == "gpt_oss" else 3


def _router_probabilities(model: ModelSpec) -> int:
    """Router probabilities kept per token: all E (softmax over every logit), or k (gpt-oss: top-k, then softmax
    over those: GptOssTopKRouter)."""
    return model.num_experts_per_tok if model.router_bias else model.num_experts


def saved_bytes_per_token(model: ModelSpec, experts_trained: bool, capacity_factor: float = DROPLESS) -> float:
    """Bytes one MoE layer keeps per token for backward beyond the dense block's count (activations.py counts the
    expert intermediates through ``tokens_ffn_width``): router probabilities, the combine's expert outputs and,
    when the expert linears train, their dispatched inputs. Averaged over all layers (dense layers add none)."""
    if not model.is_moe:
        return 0.0
    assert model.hidden_size is not None and model.num_layers
    routed = capacity_factor * model.num_experts_per_tok * model.hidden_size
    per_moe_layer = FP32 * _router_probabilities(model) + BF16 * routed * (2 if experts_trained else 1)
    return per_moe_layer * model.moe_layers / model.num_layers


def routing_transient_bytes(model: ModelSpec, tokens: int) -> float:
    """The int64 one-hot expert mask one MoE layer makes per forward (freed with the layer)."""
    if not model.is_moe:
        return 0.0
    return INT64 * model.num_experts * model.num_experts_per_tok * tokens


# ---- expert parallelism --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpertSplit:
    """What a card keeps under expert parallelism of degree ``ep``: its 1/ep of the experts, all the rest."""

    ep: int
    weight_fraction: float  # of the base's weight bytes on one card
    trained_fraction: float  # of the trained parameters (adapters, or the whole model in a full fine-tune)


def expert_split(model: ModelSpec, job: Job, trainable: int, ep: int) -> ExpertSplit:
    """Each card holds num_experts / ep experts of every MoE layer and a replica of everything else (torchtitan
    ``expert_parallel``; Megatron-Core ``--expert-model-parallel-size``; DeepSpeed-MoE ``ep_size``)."""
    if ep <= 1 or not model.is_moe:
        return ExpertSplit(1, 1.0, 1.0)
    total = model.total_params
    experts = model.expert_params()
    if stores_mxfp4(model, job):
        all_bytes = base_weight_bytes(model)
        expert_bytes = (
            expert_weights(model) * EXPERT_FORMAT_BITS["mxfp4"] / 8 + (experts - expert_weights(model)) * FP32
        )
    else:
        all_bytes, expert_bytes = float(total), float(experts)
    weight_fraction = 1 - expert_bytes * (1 - 1 / ep) / all_bytes
    if job.method == "full":
        trained_experts = experts
    else:
        targets = job.lora.targets if isinstance(job.lora.targets, str) else list(job.lora.targets)
        trained_experts = sum(job.lora.rank * (m.in_features + m.out_features) * m.count
                              for m in model.lora_modules(targets) if m.group == "expert")  # fmt: skip
    trained_fraction = 1 - trained_experts * (1 - 1 / ep) / trainable if trainable else 1.0
    return ExpertSplit(ep, weight_fraction, trained_fraction)


def all_to_all_bytes_per_step(model: ModelSpec, job: Job, ep: int, capacity_factor: float = DROPLESS) -> float:
    """Bytes one card sends through all-to-all per optimizer step under expert parallelism of degree ``ep``.

    Per MoE layer and micro-batch: the dispatch before the experts and the combine after them, in forward, and
    their gradients in backward (4 all-to-alls); a checkpointed layer's forward runs again in backward (2 more).
    Each moves the card's tokens x k routed hidden states (x capacity factor), of which (ep - 1)/ep leave the card
    under balanced routing (Lepikhin et al. 2020, GShard §2.2; Megatron-Core MoEAlltoAllTokenDispatcher).
    The time side divides these bytes by the link's all-to-all bandwidth.
    """
    if ep <= 1 or not model.is_moe:
        return 0.0
    assert model.hidden_size is not None
    tokens = job.sequence_length * job.micro_batch_size
    per_call = tokens * model.num_experts_per_tok * capacity_factor * model.hidden_size * BF16 * (ep - 1) / ep
    calls = 6 if job.gradient_checkpointing else 4
    return per_call * calls * model.moe_layers * job.gradient_accumulation_steps


def all_to_all_buffer_bytes(model: ModelSpec, job: Job, ep: int, capacity_factor: float = DROPLESS) -> float:
    """The send and receive buffers of one all-to-all (one layer at a time): transient on every card."""
    if ep <= 1 or not model.is_moe:
        return 0.0
    assert model.hidden_size is not None
    tokens = job.sequence_length * job.micro_batch_size
    return 2 * tokens * model.num_experts_per_tok * capacity_factor * model.hidden_size * BF16
