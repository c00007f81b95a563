"""Activation memory: what autograd keeps between the forward and the backward pass.

The model counts, per decoder layer and per token, the tensors a Hugging Face Llama-style block saves
(the structure of Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
Models", §4.1, re-derived for RMSNorm, rotary attention with SDPA/flash kernels, grouped-query attention
and SwiGLU MLPs), plus the logits and loss buffers, which dominate at 128k+ vocabularies.
All sizes in bytes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from configurator.catalog.models import ModelSpec
from configurator.engine import moe
from configurator.engine.build import Job
from configurator.engine.cache import CACHE
from configurator.engine.stack import PROFILES, stack_of

BF16, FP32 = 2, 4

# Module groups a LoRA target (or a full fine-tune) can make trainable.
Q, K, V, O, GATE, UP, DOWN, ROUTER = "q", "k", "v", "o", "gate", "up", "down", "router"
_SHORT = {
    "q_proj": {Q}, "k_proj": {K}, "v_proj": {V}, "o_proj": {O}, "qkv_proj": {Q, K, V},
    "gate_proj": {GATE}, "up_proj": {UP}, "down_proj": {DOWN}, "gate_up_proj": {GATE, UP},
    "w1": {GATE}, "w3": {UP}, "w2": {DOWN}, "gate": {ROUTER}, "shared_expert_gate": {ROUTER},
}  # fmt: skip


@dataclass(frozen=True)
class ActivationBreakdown:
    per_layer_bytes_per_token: float  # kept without checkpointing
    layers_bytes: float  # all layers, as stored (checkpointing: only layer inputs)
    recompute_bytes: float  # checkpointing: one layer's activations rebuilt during backward (transient)
    head_bytes: float  # final norm and lm_head input
    loss_bytes: float  # logits, log-probabilities and their gradients at the start of backward
    backward_workspace_bytes: float  # gradient buffers of one layer during backward (transient)
    loss_backward_bytes: float = 0.0  # the part of loss_bytes made only when backward starts (gradients)
    held_logits_bytes: float = 0.0  # the part of loss_bytes the loop itself holds: alive through all of backward

    @property
    def saved_bytes(self) -> float:
        return self.layers_bytes + self.head_bytes + self.loss_bytes

    @property
    def transient_bytes(self) -> float:
        return self.recompute_bytes + self.backward_workspace_bytes


def trained_groups(model: ModelSpec, job: Job) -> frozenset[str]:
    """Which linear groups have trainable weights (and so keep their inputs for weight gradients)."""
    targets = job.lora.targets
    return _trained_groups(model, job.method, targets if isinstance(targets, str) else tuple(targets))


@functools.lru_cache(maxsize=1024)
def _trained_groups(model: ModelSpec, method: str, targets: str | tuple[str, ...]) -> frozenset[str]:
    if method == "full":
        return frozenset({Q, K, V, O, GATE, UP, DOWN, ROUTER})
    if model.is_params_only:
        return frozenset()
    groups: set[str] = set()
    names = [t for t in targets if t not in ("lm_head", "output")] if isinstance(targets, tuple) else targets
    if not names:
        return frozenset()
    for module in model.lora_modules(names if isinstance(names, str) else list(names)):
        groups |= _SHORT.get(module.short_name, _SHORT.get(module.name, set()))
    return frozenset(groups)


def lm_head_trained(job: Job) -> bool:
    targets = job.lora.targets
    return job.method == "full" or (isinstance(targets, list) and bool({"lm_head", "output"} & set(targets)))


def per_layer_bytes_per_token(model: ModelSpec, job: Job, sequence: int, tp: int = 1) -> float:
    """Cached on what it depends on; only eager attention depends on the sequence length (s x s scores)."""
    lora = job.lora
    targets = lora.targets if isinstance(lora.targets, str) else tuple(lora.targets)
    key = (job.method, targets, lora.rank, lora.dropout, job.precision, job.attention, job.moe_capacity_factor,
           sequence if job.attention == "eager" else 0, tp)  # fmt: skip
    return CACHE.memo("per-layer", (model,), key, lambda: _per_layer(model, job, sequence, tp))


def _per_layer(model: ModelSpec, job: Job, sequence: int, tp: int) -> float:
    """Bytes one decoder layer keeps per token for the backward pass (no checkpointing).

    tp: tensor-parallel degree; attention and MLP tensors are split across the group, norms and
    block inputs are replicated (Korthikanti et al. 2022, eq. 2: sbh(10 + 24/t + 5as/ht)).
    """
    assert model.hidden_size and model.num_attention_heads and model.head_dim and model.num_key_value_heads
    h, nh = model.hidden_size, model.num_attention_heads
    a = nh * model.head_dim  # query width
    kv = model.num_key_value_heads * model.head_dim
    f = model.tokens_ffn_width
    groups = trained_groups(model, job)
    full = job.method == "full"
    if job.method == "qlora":
        # bitsandbytes' MatMul4Bit kept the input of every 4-bit linear for backward
        # (ctx.tensors = (A, B) up to 0.42; later releases keep only B): the LitGPT QLoRA runs in
        # measured-runs.md show it. Planning with it errs on the safe side for newer releases.
        keeps_input = frozenset({Q, K, V, O, GATE, UP, DOWN})
    else:
        keeps_input = groups

    # RMSNorm: HF's LlamaRMSNorm upcasts its input to fp32 and autograd keeps that copy (pow, mul);
    # a trained norm weight also keeps the normalised bf16 tensor for its gradient.
    norm = FP32 * h + (BF16 * h if full else 0)
    replicated = 2 * norm
    if keeps_input & {Q, K, V}:
        replicated += BF16 * h  # q/k/v input (norm output), for their weight gradients (or LoRA A)
    if keeps_input & {GATE, UP, ROUTER}:
        replicated += BF16 * h  # MLP input

    # Attention kernels keep q, k, v, the output and the fp32 log-sum-exp per head.
    if job.attention == "flash":
        attn = BF16 * (2 * a + 2 * kv) + FP32 * nh  # flash-attn 2 handles GQA natively
    elif job.attention == "sdpa":
        # HF's SDPA path expands k and v to all heads (repeat_kv) when an attention mask is present
        attn = BF16 * 4 * a + FP32 * nh
    else:  # eager: q, k, v and the s x s probabilities (fp32 softmax output and its bf16 copy)
        attn = BF16 * 4 * a + (FP32 + BF16) * nh * sequence
    if O in keeps_input:
        attn += BF16 * a  # o_proj input: the transposed, contiguous copy of the attention output

    # SwiGLU: SiLU keeps its input (gate output); the product keeps SiLU(gate) and up; down's input
    # (the product) is kept only when down_proj is trained.
    mlp: float = 3 * BF16 * f + (BF16 * f if DOWN in keeps_input else 0)
    if model.is_moe:  # router probabilities, combine and dispatch copies (engine/moe.py)
        mlp += moe.saved_bytes_per_token(model, bool(groups & {GATE, UP, DOWN}), job.moe_capacity_factor)

    lora = 0.0
    if job.method in ("lora", "qlora"):
        r = job.lora.rank
        adapter_bytes = FP32 if job.precision != "pure-bf16" else BF16  # recipes keep fp32 adapters
        n_modules = len(groups - {ROUTER})
        lora += n_modules * adapter_bytes * r  # A's output, kept for B's gradient
        if job.lora.dropout > 0:
            # nn.Dropout makes a new input copy per adapted module, plus a 1-byte mask
            lora += n_modules * (BF16 + 1) * h
    return replicated + (attn + mlp + lora) / tp


def _loss_bytes(job: Job, logits: float, held: float, tokens: int, h: int) -> tuple[float, float]:
    """(forward-held, backward) bytes of the loss over ``logits`` values, by the stack's loss; ``held``: bytes per
    logit the model keeps."""
    stack = stack_of(job)
    if stack.loss == "standard":
        # fp32 copy for cross-entropy (ForCausalLMLoss `logits.float()`): log_softmax keeps its fp32 output;
        # at the start of backward the fp32 gradients of the log-probabilities and of the logits: 2 + 4 + 4 + 4.
        loss = logits * (held + FP32)
        loss_backward = logits * (FP32 + FP32)
    elif stack.loss == "bf16":
        # cross-entropy on the bf16 logits: bf16 log-probabilities, and bf16 gradients of both in backward
        loss = logits * (held + BF16)
        loss_backward = logits * (BF16 + BF16)
    elif stack.loss == "chunked":
        # chunked cross-entropy: the log-probabilities of every chunk stay in the graph (bf16, or fp32 where the
        # loss upcasts each chunk); backward runs chunk by chunk, so its gradients are one chunk's, negligible
        loss = logits * (held + (FP32 if stack.loss_upcast else BF16))
        loss_backward = 0.0
    else:
        # fused linear cross-entropy never makes the logits: Liger (src/liger_kernel/ops/
        # fused_linear_cross_entropy.py, fused_linear_cross_entropy_forward) computes the hidden states'
        # gradient during forward (kept, in the hidden dtype) and one chunk of about tokens x hidden fp32
        # logits and their gradient at a time (chunk_size = next power of 2 of tokens / ceil(vocab / hidden)).
        # (a trained head's weight gradient, which it also makes in forward, is memory.py's head_gradient)
        loss = tokens * h * (BF16 + FP32 + FP32)
        loss_backward = 0.0
    return loss, loss_backward


def activation_breakdown(
    model: ModelSpec, job: Job, tp: int = 1, sequence_length: int | None = None
) -> ActivationBreakdown:
    """Activation bytes on one card for one micro-batch (``sequence_length`` overrides the job's, for sweeps)."""
    assert model.hidden_size and model.num_layers and model.vocab_size
    seq = sequence_length or job.sequence_length
    tokens = seq * job.micro_batch_size
    h, layers, vocab = model.hidden_size, model.num_layers, model.vocab_size
    per_layer = per_layer_bytes_per_token(model, job, seq, tp)
    f = model.tokens_ffn_width

    stack = stack_of(job)
    # PEFT's prepare_model_for_kbit_training casts embeddings, norms and lm_head to fp32
    # (peft/src/peft/utils/other.py); under autocast the embedding output is then fp32 and every residual
    # add (fp32 + bf16) stays fp32, so the residual stream, and the layer inputs checkpointing keeps, are fp32.
    residual = FP32 if (job.method == "qlora" and stack.kbit_fp32_prep) else BF16
    layers_bytes: float
    if job.gradient_checkpointing:
        # HF gradient checkpointing keeps each decoder layer's input and rebuilds one layer at a time.
        layers_bytes = layers * residual * h * tokens
        if stack.checkpointing == "offload":
            # torchtune OffloadActivations (torchtune/training/_activation_offloading.py) copies each saved
            # tensor to pinned host memory on the offload stream and brings it back one layer ahead in
            # backward: about two layers' inputs are on the GPU at once.
            layers_bytes = min(layers, 2) * residual * h * tokens
        recompute = per_layer * tokens
    else:
        layers_bytes = layers * per_layer * tokens
        recompute = 0.0

    head = FP32 * h * tokens  # final RMSNorm keeps its fp32 input
    if lm_head_trained(job):
        head += residual * h * tokens  # lm_head input for its weight gradient

    logits = tokens * vocab / tp  # vocab-parallel output layer under tensor parallelism
    # the model's logits, unless the loop drops them; fp32 where the model itself upcast them (stack.py)
    held = 0 if stack.frees_logits else (FP32 if PROFILES[job.framework].held_logits_fp32 else BF16)
    loss, loss_backward = _loss_bytes(job, logits, held, tokens, h)
    loss += loss_backward

    # Gradient buffers of one layer in backward: the MLP intermediates' gradients and the residual stream.
    workspace = tokens * (BF16 * 2 * f / tp + FP32 * h)
    return ActivationBreakdown(per_layer, layers_bytes, recompute, head, loss, workspace, loss_backward, logits * held)
