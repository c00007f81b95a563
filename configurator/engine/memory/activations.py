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
from configurator.engine.cache import CACHE
from configurator.engine.memory import moe
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.stack import (
    PROFILES,
    TRANSFORMERS_STACKS,
    as_run,
    passes_padding_mask,
    runs_model_dtypes,
    stack_of,
)

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
    forward_extra_bytes: float = 0.0  # alive in the forward only: the loss's input copies inside cross-entropy

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


def _lora_names(job: Job) -> str | list[str]:
    targets = job.lora.targets
    return targets if isinstance(targets, str) else [t for t in targets if t not in ("lm_head", "output")]


def lm_head_trained(job: Job) -> bool:
    targets = job.lora.targets
    return job.method == "full" or (isinstance(targets, list) and bool({"lm_head", "output"} & set(targets)))


def per_layer_bytes_per_token(model: ModelSpec, job: Job, sequence: int, tp: int = 1) -> float:
    """Cached on what it depends on; only eager attention and an explicit mask (a sliding window, a padded batch:
    _mask_bytes) depend on the sequence length (s x s scores or bias)."""
    lora = job.lora
    targets = lora.targets if isinstance(lora.targets, str) else tuple(lora.targets)
    stack = stack_of(job)
    by_sequence = job.attention == "eager" or bool(model.sliding_layers) or job.padded_batches
    key = (job.method, targets, lora.rank, lora.dropout, job.precision, job.attention, job.moe_capacity_factor,
           sequence if by_sequence else 0, tp, stack.framework, stack.kbit_fp32_prep, job.parallelism,
           job.padded_batches)  # fmt: skip
    return CACHE.memo("per-layer", (model,), key, lambda: _per_layer(model, job, sequence, tp))


_X1 = frozenset({"q_proj", "k_proj", "v_proj", "qkv_proj"})  # consume the input norm's output
_X2 = frozenset({"gate_proj", "up_proj", "gate_up_proj", "w1", "w3"})  # consume the post-attention norm's output
_P = frozenset({"down_proj", "w2"})  # consume the MLP product


def residual_bytes(job: Job) -> int:
    """Bytes per value of the residual stream (and of the layer inputs checkpointing keeps).

    PEFT's prepare_model_for_kbit_training casts embeddings and norms to fp32 (peft/utils/other.py), so QLoRA's
    embedding output and every residual add stay fp32; transformers' Trainer under bf16=True keeps an fp32 model
    and autocasts (trainer.py autocast_smart_context_manager), so a full fine-tune's embedding output is fp32 too.
    """
    stack = stack_of(job)
    if job.method == "qlora" and stack.kbit_fp32_prep:
        return FP32
    if job.method == "full" and job.precision == "mixed-bf16" and runs_model_dtypes(job):
        return FP32
    return BF16


def _adapter_inputs(n: int, width: int, x_bytes: int, autocast: bool, dropout: bool, shared: bool) -> float:
    """Bytes the LoRA branches of ``n`` adapted linears keep for one input tensor of ``width`` values per token.

    peft/tuners/lora/layer.py Linear.forward: ``x = self._cast_input_dtype(x, lora_A.weight.dtype)`` (fp32 adapters,
    so a bf16 input is copied to fp32 in each adapted module, and an fp32 input passes as is), then dropout, then
    lora_A. Without autocast lora_A keeps what it is given; under autocast it keeps the bf16 cast it makes of it
    (autocast caches casts of leaf weights only, so every module makes its own). On a GPU dropout keeps a 1-byte
    mask (native_dropout) and lora_A keeps dropout's new output.
    ``shared``: the input is already kept by another op (the attention kernel's output for o_proj)."""
    if n == 0:
        return 0.0
    if dropout:
        return n * width * ((BF16 if autocast else FP32) + 1)
    if autocast:
        return n * width * BF16
    if x_bytes == FP32:
        return 0.0 if shared else FP32 * width  # one tensor, kept once for all n branches
    return n * width * FP32


def _base_inputs(n: int, width: int, x_bytes: int, autocast: bool, shared: bool) -> float:
    """Bytes trained (full fine-tune) linears keep of one input tensor: the tensor itself, or under autocast the
    bf16 cast each of them makes of an fp32 input (autocast_mode.cpp cached_cast caches leaf tensors only)."""
    if n == 0:
        return 0.0
    if autocast and x_bytes == FP32:
        return n * width * BF16
    return 0.0 if shared else width * x_bytes


def _eager_scores(model: ModelSpec, sequence: int, att: int) -> float:
    """Bytes per token the eager attention path keeps of its s x s scores (transformers ``eager_attention_forward``;
    q, k and v expanded to all heads by repeat_kv are counted by the caller: three query-width tensors, the
    matmuls keep them; the output's transposed copy is kept only by a trained o_proj, as any linear input).

    - Llama-style (modeling_llama.py): ``softmax(..., dtype=torch.float32).to(query.dtype)``: the fp32 softmax output
      and its copy in the attention dtype, which the second matmul keeps.
    - Soft-capping (attn_logit_softcapping set: Gemma 2's, modeling_gemma2.py eager_attention_forward:
      ``attn_weights / softcap``, ``tanh``, ``* softcap``) also keeps the tanh output, in the attention dtype.
    - gpt-oss's sinks (modeling_gpt_oss.py eager_attention_forward): the scores with one sink column per head
      (s + 1), softmax in their own dtype (``dtype=combined_logits.dtype``), kept once (the matmul takes a slice of
      it), and the int64 indices of the row max (``combined_logits.max(dim=-1, keepdim=True)``) for its backward."""
    assert model.num_attention_heads
    nh = model.num_attention_heads
    if model.attention_sinks:
        return att * nh * (sequence + 1) + moe.INT64 * nh
    # ``.to(query.dtype)`` returns the fp32 output itself when q is fp32 (QLoRA's fp32 norms without autocast)
    scores = (FP32 + (att if att != FP32 else 0)) * nh * sequence
    if model.attn_logit_softcapping is not None:
        scores += att * nh * sequence
    return scores


def _masked_share(model: ModelSpec, job: Job, sequence: int) -> float:
    """The share of the layers whose SDPA call gets an explicit mask: every layer of a padded batch on a Transformers
    stack (Job.padded_batches), the sliding layers past their window, else none.

    Transformers skips the mask (is_causal) only while the sequence is shorter than a sliding window and the padding
    mask is all ones (masking_utils.py _ignore_causal_mask_sdpa: ``kv_length < local_attention_size``, and
    ``padding_mask.all()``). FlashAttention-2 takes the window as an argument and unpads a padded batch: none."""
    if job.attention != "sdpa":
        return 0.0
    if passes_padding_mask(job):
        return 1.0
    if not model.window_masks(sequence):
        return 0.0
    return len(model.sliding_layers) / (model.num_layers or 1)


def _mask_bytes(model: ModelSpec, job: Job, sequence: int, att: int, a: int, kv: int) -> float:
    """Bytes per token (averaged over the layers) a masked SDPA call keeps beyond an unmasked one: SDPA turns the
    boolean mask into an additive bias of the query's dtype (masked_fill, batch x 1 x s x s) that the
    memory-efficient kernel keeps for its backward, one per masked layer; and with a mask Transformers expands k
    and v to every head first (sdpa_attention_forward: use_gqa_in_sdpa needs ``attention_mask is None``, else
    repeat_kv), so the kernel keeps the expanded copies (the tracer's emulation does the same:
    trace/worker/emulation.py)."""
    share = _masked_share(model, job, sequence)
    return share * att * (sequence + 2 * (a - kv)) if share else 0.0


def eager_forward_transient(model: ModelSpec, job: Job, sequence: int, tp: int = 1) -> float:
    """Bytes per token of s x s scores alive only while one layer's eager attention runs its forward, beyond those
    it keeps (_eager_scores): the masked scores are still referenced while softmax makes its output (Llama-style:
    one tensor in the attention dtype); gpt-oss's ``combined_logits`` is reassigned only after
    ``combined_logits - max`` is made, beside the masked scores (two tensors of s + 1 columns). In a checkpointed
    run the layer's recompute in backward makes them again (the trace's peak op there is that ``sub``)."""
    if job.attention != "eager" or not runs_model_dtypes(job) or model.is_params_only:
        return 0.0
    assert model.num_attention_heads
    nh = model.num_attention_heads
    autocast = job.precision == "mixed-bf16"
    att = BF16 if autocast or not (job.method == "qlora" and stack_of(job).kbit_fp32_prep) else FP32
    if model.attention_sinks:
        return 2 * att * nh * (sequence + 1) / tp
    return att * nh * sequence / tp


def _per_layer_transformers(model: ModelSpec, job: Job, sequence: int, tp: int, front: bool = False) -> float:
    """Bytes one decoder layer of a Transformers model keeps per token for backward (no checkpointing), following
    the dtypes through the modeling code, PEFT and bitsandbytes as a meta-tensor trace of them shows
    (specs/trace/table.jsonl; configurator/trace/worker).

    - RMSNorm (modeling_llama.py LlamaRMSNorm) keeps an fp32 copy of its input (pow, mul); a trained weight also
      keeps the normalised tensor, in the residual dtype.
    - A 4-bit linear returns its input's dtype (bitsandbytes nn/modules.py Linear4bit.forward ``out.to(inp_dtype)``)
      and keeps no input (autograd/_functions.py MatMul4Bit saves only the weight), so under QLoRA's fp32 norms the
      projections, the attention inputs without autocast and the MLP intermediates are fp32.
    - The fused attention kernels keep q, k, v (GQA natively when no mask is passed: transformers
      sdpa_attention_forward use_gqa_in_sdpa), the output and an fp32 log-sum-exp per head; the output is laid out
      (batch, seq, heads, dim), so o_proj's input is a view of it.
    - SwiGLU keeps the gate output (SiLU's input), SiLU's output and the up output.
    - LoRA: each adapted linear keeps its own copy of its input (_adapter_inputs) and A's output (r values).

    ``front``: only what the layer keeps up to its attention kernel (the input norm, q, k, v and their inputs, the
    kernel's saved tensors): what a recomputed layer holds while its attention runs."""
    assert model.hidden_size and model.num_attention_heads and model.head_dim and model.num_key_value_heads
    h, nh = model.hidden_size, model.num_attention_heads
    a = nh * model.head_dim
    kv = model.num_key_value_heads * model.head_dim
    f = model.tokens_ffn_width
    full = job.method == "full"
    autocast = job.precision == "mixed-bf16"
    qlora = job.method == "qlora" and stack_of(job).kbit_fp32_prep
    r_bytes = residual_bytes(job)
    dropout = job.lora.dropout > 0
    # dtypes of the attention tensors and of the MLP intermediates
    att = BF16 if autocast or not qlora else FP32
    mlp_dtype = FP32 if qlora else BF16

    # Gemma 2's and 3's norms (modeling_gemma2.py Gemma2RMSNorm, Gemma3RMSNorm) compute
    # `output * (1.0 + self.weight.float())` in fp32, so
    # a trained weight keeps the fp32 normalised tensor; Llama's multiplies in the input's dtype
    normalised = FP32 if model.architecture in ("gemma2", "gemma3_text") else r_bytes
    norm = FP32 * h + (normalised * h if full else 0)
    replicated = (1 if front else model.norms_per_layer) * norm  # (a Gemma 2 block has four)
    if model.qk_norm:
        # Qwen3's q_norm / k_norm (RMSNorm over head_dim) keep fp32 copies of q and k (and, trained, their
        # normalised q and k in the attention dtype)
        replicated += (FP32 + (normalised if full else 0)) * (a + kv)

    eager = job.attention == "eager"
    if eager:
        attn = att * 3 * a + _eager_scores(model, sequence, att)
    else:
        attn = att * (2 * a + 2 * kv) + FP32 * nh
        attn += _mask_bytes(model, job, sequence, att, a, kv)
    if model.fused_qkv and not (qlora and autocast):
        # Phi-3 slices q, k and v out of one qkv_proj output; q and k become new tensors through rotary, but v stays
        # a view, so the kernel's saved v keeps the whole fused output alive (modeling_phi3.py Phi3Attention);
        # under QLoRA's autocast the fp32 v is cast to a new bf16 tensor instead
        attn += att * (a + kv)

    mlp = moe.saved_intermediates(model) * mlp_dtype * f
    if model.is_moe:
        # tokens are copied to each of their k experts before the expert linears; the router's fp32 logits
        mlp += BF16 * h * model.num_experts_per_tok + FP32 * model.num_experts

    saved = 0.0
    if full:
        n_x1 = 1 if model.fused_qkv else 3
        n_x2 = 1 if model.fused_gate_up else 2
        saved += _base_inputs(n_x1, h, r_bytes, autocast, shared=False)
        if front:
            return replicated + (attn + saved) / tp
        saved += _base_inputs(1, a, att, autocast, shared=not eager)
        saved += _base_inputs(n_x2, h, r_bytes, autocast, shared=False)
        saved += _base_inputs(1, f, mlp_dtype, autocast, shared=False)
    else:
        targets = job.lora.targets
        names = targets if isinstance(targets, str) else [t for t in targets if t not in ("lm_head", "output")]
        per_layer = {m.name.rsplit(".", 1)[-1] for m in model.lora_modules(names)} if names else set()
        groups = (  # (adapted modules, input width, input dtype, kept elsewhere)
            (len(per_layer & _X1), h, r_bytes, False),
            (len(per_layer & {"o_proj"}), a, att, not eager),
            (len(per_layer & _X2), h, r_bytes, False),
            (len(per_layer & _P), f, mlp_dtype, False),
        )
        r_out = job.lora.rank * (BF16 if autocast else FP32)  # A's output, kept by B
        if front:
            n_x1 = len(per_layer & _X1)
            return replicated + (attn + _adapter_inputs(n_x1, h, r_bytes, autocast, dropout, False) + n_x1 * r_out) / tp
        for n, width, x_bytes, shared in groups:
            saved += _adapter_inputs(n, width, x_bytes, autocast, dropout, shared)
        saved += len(per_layer) * r_out
    return replicated + (attn + mlp + saved) / tp


def _per_layer(model: ModelSpec, job: Job, sequence: int, tp: int) -> float:
    """Bytes one decoder layer keeps per token for the backward pass (no checkpointing).

    tp: tensor-parallel degree; attention and MLP tensors are split across the group, norms and
    block inputs are replicated (Korthikanti et al. 2022, eq. 2: sbh(10 + 24/t + 5as/ht)).
    """
    if runs_model_dtypes(job) and not (model.is_moe and trained_groups(model, job) & {GATE, UP, DOWN}):
        return _per_layer_transformers(model, job, sequence, tp)
    if (job.method == "full" and stack_of(job).framework in TRANSFORMERS_STACKS and PARALLELISM[job.parallelism].fsdp
            and tp == 1 and not model.is_moe):
        # a Transformers model under FSDP computes on its gathered units, in bf16 (MixedPrecisionPolicy(param_dtype=
        # bf16) over fp32 shards, or bf16 shards): the layer keeps what a bf16 model keeps on one card (the meta
        # trace of fully_shard over a fake process group: specs/trace/table.jsonl rows 4000 and up)
        bf16_view = job.model_copy(update={"precision": "pure-bf16", "parallelism": "single"})
        return _per_layer_transformers(model, bf16_view, sequence, tp)
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
    if model.is_moe:  # router probabilities, combine and dispatch copies (engine/memory/moe.py)
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
    """Activation bytes on one card for one micro-batch (``sequence_length`` overrides the job's, for sweeps).
    The attention is the one the run executes (stack.py attention_run: Gemma 2 and gpt-oss under ``sdpa`` on a
    Transformers stack run eager)."""
    assert model.hidden_size and model.num_layers and model.vocab_size
    job = as_run(model.architecture, job)
    seq = sequence_length or job.sequence_length
    tokens = seq * job.micro_batch_size
    h, layers, vocab = model.hidden_size, model.num_layers, model.vocab_size
    per_layer = per_layer_bytes_per_token(model, job, seq, tp)
    f = model.tokens_ffn_width

    stack = stack_of(job)
    # PEFT's prepare_model_for_kbit_training casts embeddings, norms and lm_head to fp32
    # (peft/src/peft/utils/other.py); under autocast the embedding output is then fp32 and every residual
    # add (fp32 + bf16) stays fp32, so the residual stream, and the layer inputs checkpointing keeps, are fp32.
    residual = residual_bytes(job)
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

    head: float = FP32 * h * tokens  # final RMSNorm keeps its fp32 input
    head_trained = lm_head_trained(job)
    if head_trained:
        head += residual * h * tokens  # lm_head input for its weight gradient
    transformers = runs_model_dtypes(job)
    autocast = job.precision == "mixed-bf16"
    fp32_logits = (not autocast and job.method == "qlora" and stack.kbit_fp32_prep
                   and not PROFILES[job.framework].prep_head_bf16)  # fmt: skip
    if transformers and autocast and head_trained and residual == FP32:
        head += BF16 * h * tokens  # the fp32 lm_head input cast to bf16 by autocast, kept by the matmul
    if stack.framework in TRANSFORMERS_STACKS and model.architecture == "gemma2":
        # Gemma 2's final-logit soft-capping (modeling_gemma2.py Gemma2ForCausalLM.forward: logits / cap, tanh,
        # * cap) keeps the tanh of the logits for its backward, in the logits' dtype, through the loss backward
        head += tokens * vocab / tp * (FP32 if fp32_logits else BF16)
    if transformers and autocast and job.method == "qlora" and stack.kbit_fp32_prep \
            and not PROFILES[job.framework].prep_head_bf16:
        # the head left fp32 by k-bit preparation is frozen: autocast casts it to bf16 on every call (cached_cast
        # caches only leaves that require grad) and the matmul keeps that copy for the input's gradient
        head += vocab * h * BF16 / tp
    block_targets = _lora_names(job)  # empty where only the head is adapted (its cast is counted with the head)
    if transformers and autocast and job.method != "full" and not job.gradient_checkpointing and block_targets:
        # the bf16 casts autocast caches of the fp32 adapters (leaves that require grad), kept by the graph
        layers_bytes += model.lora_trainable(job.lora.rank, block_targets) * BF16 / tp

    logits = tokens * vocab / tp  # vocab-parallel output layer under tensor parallelism
    # the model's logits, unless the loop drops them; fp32 where the model itself upcast them (stack.py)
    held = 0 if stack.frees_logits else (FP32 if PROFILES[job.framework].held_logits_fp32 else BF16)
    loss, loss_backward = _loss_bytes(job, logits, held, tokens, h)
    loss += loss_backward

    # Gradient buffers of one layer in backward: the MLP intermediates' gradients and the residual stream.
    # (their dtype is the intermediates': fp32 under QLoRA's fp32 norms where the model's own dtypes run)
    grad_bytes = FP32 if transformers and job.method == "qlora" and stack.kbit_fp32_prep else BF16
    workspace = tokens * (grad_bytes * 2 * f / tp + FP32 * h)
    if job.gradient_checkpointing and eager_forward_transient(model, job, seq, tp):
        # a recomputed eager layer peaks inside its attention's forward (before its MLP exists), where the s x s
        # temporaries can outweigh the rest of the layer and the backward's gradient buffers
        attention_peak = (_per_layer_transformers(model, job, seq, tp, front=True)
                          + eager_forward_transient(model, job, seq, tp)) * tokens
        recompute = max(recompute, attention_peak - workspace)
    forward_extra = 0.0
    if transformers and stack.loss == "standard":
        # inside ForCausalLMLoss (transformers loss/loss_utils.py): the model's logits, still held by its output,
        # and their fp32 copy `logits.float()`, beside log_softmax's output: the forward's own loss peak
        forward_extra = logits * (FP32 if fp32_logits else BF16 + FP32) - logits * held
    if not job.gradient_checkpointing:
        # the last layer's eager attention, before the head and the loss exist
        attention_extra = eager_forward_transient(model, job, seq, tp) * tokens - head - (loss - loss_backward)
        forward_extra = max(forward_extra, attention_extra)
    return ActivationBreakdown(per_layer, layers_bytes, recompute, head, loss, workspace, loss_backward, logits * held,
                               forward_extra)  # fmt: skip
