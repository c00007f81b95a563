"""A model architecture (:class:`ModelSpec`) and its exact parameter counts.

A model is described by the fields of its Hugging Face ``config.json`` (verbatim names), normalised here
into a :class:`ModelSpec`. Counts follow the module layout of the ``transformers`` modelling code:
``modeling_llama.py``, ``modeling_mistral.py``, ``modeling_qwen2.py``, ``modeling_qwen3.py``,
``modeling_gemma2.py``, ``modeling_phi3.py``, ``modeling_mixtral.py``, ``modeling_qwen2_moe.py``,
``modeling_qwen3_moe.py``, ``modeling_gpt_oss.py``, ``modeling_gemma3.py``, ``modeling_mllama.py``,
``modeling_qwen2_5_vl.py``. Every norm of the language model is an RMSNorm (one weight vector, no bias).
Vision-language models carry a :class:`VisionTower` (the vision encoder and its projector into the language
model), counted by :mod:`configurator.catalog.vision`.

Seed B sizes some models by parameter count alone ("30B"): those are ``architecture: params-only``.
Reading a config.json is :mod:`configurator.catalog.hf_config`; reading ``specs/models.yaml`` is
:mod:`configurator.catalog.models` (which re-exports these names).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from pydantic import Field, model_validator

from configurator.catalog.sourced import Strict
from configurator.catalog.vision import VisionTower

PARAMS_ONLY = "params-only"
ArchitectureName = Literal[
    "llama",
    "mistral",
    "qwen2",
    "qwen3",
    "gemma2",
    "phi3",
    "mixtral",
    "qwen2_moe",
    "qwen3_moe",
    "gpt_oss",
    "gemma3_text",
    "mllama_text_model",
    "qwen2_5_vl",
    "params-only",
]
# the families the engine models, in the order a picker lists them (every architecture but the params-only one)
SUPPORTED_MODEL_TYPES: tuple[str, ...] = tuple(a for a in get_args(ArchitectureName) if a != PARAMS_ONLY)
# Bits per expert weight as shipped. MXFP4 (OCP Microscaling FP4): 4-bit E2M1 values with one 8-bit E8M0 scale
# shared by each block of 32, 4 + 8/32 = 4.25 bits (gpt-oss model card; transformers integrations/mxfp4.py keeps
# the experts' ``*_blocks`` (uint8, two values a byte) and ``*_scales`` (uint8 per 32 values)).
EXPERT_FORMAT_BITS = {"bf16": 16.0, "mxfp4": 4.25}


@dataclass(frozen=True)
class LinearModule:
    """One kind of linear layer inside the decoder blocks, with how many instances the model has."""

    name: str  # HF module name relative to the block: "q_proj", "gate_up_proj", "experts.w1", "gate" ...
    in_features: int
    out_features: int
    count: int  # instances in the whole model (layers x experts)
    bias: bool
    group: Literal["attention", "mlp", "expert", "router"]

    @property
    def weights(self) -> int:
        """Weight parameters of all instances (bias not included)."""
        return self.in_features * self.out_features * self.count

    @property
    def biases(self) -> int:
        return self.out_features * self.count if self.bias else 0

    @property
    def short_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class ParamCounts:
    total: int  # exact parameter count of the HF model
    embedding: int  # input embedding
    lm_head: int  # 0 when tied (tie_word_embeddings)
    block_linear: int  # weights of all linear layers in the decoder blocks (incl. experts and router)
    other: int  # norms, biases, q/k norms, final norm, attention sinks, cross-attention gates
    vision: int = 0  # vision tower + projector of a vision-language model

    def __post_init__(self) -> None:
        if self.total != self.embedding + self.lm_head + self.block_linear + self.other + self.vision:
            raise ValueError(f"parameter counts do not add up: {self}")


class ModelSpec(Strict):
    """A model, normalised from its HF config (or a bare parameter count for ``params-only``)."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    source: str = Field(min_length=3)  # URL of the config.json, or the seed sentence
    architecture: ArchitectureName
    note: str | None = None
    family: str | None = None  # the model picker's group ("Qwen3", "gpt-oss", "Gemma 3" ...)

    # normalised architecture (None for params-only)
    hidden_size: int | None = Field(default=None, gt=0)
    num_layers: int | None = Field(default=None, gt=0)
    intermediate_size: int | None = Field(default=None, gt=0)  # dense MLP width (Mixtral: expert width)
    num_attention_heads: int | None = Field(default=None, gt=0)
    num_key_value_heads: int | None = Field(default=None, gt=0)
    head_dim: int | None = Field(default=None, gt=0)
    vocab_size: int | None = Field(default=None, gt=0)
    tie_word_embeddings: bool = False

    # attention details
    qkv_bias: bool = False  # bias on q, k, v (Qwen2: always; Llama/Qwen3/Gemma2: attention_bias)
    o_bias: bool = False  # bias on o_proj (Llama/Qwen3/Gemma2: attention_bias; Qwen2: never)
    qk_norm: bool = False  # Qwen3: RMSNorm(head_dim) on q and on k in every layer
    fused_qkv: bool = False  # Phi-3: one qkv_proj
    # sliding-window attention: the window and the layers that use it (config.json layer_types, or the family's
    # pattern: Gemma 2 every other layer, Gemma 3 five of six, Mistral / Phi-3 all when sliding_window is set)
    sliding_window: int | None = Field(default=None, gt=0)
    sliding_layers: tuple[int, ...] = ()
    # Gemma 2 / Gemma 3 attn_logit_softcapping: eager_attention_forward caps the scores, ``tanh(s / cap) * cap``
    # (modeling_gemma2.py; Gemma2Config default 50.0, Gemma3TextConfig None)
    attn_logit_softcapping: float | None = Field(default=None, gt=0)
    # MLP details
    mlp_bias: bool = False  # Llama mlp_bias: bias on gate, up, down
    fused_gate_up: bool = False  # Phi-3: one gate_up_proj of out 2 x intermediate_size
    norms_per_layer: int = Field(default=2, ge=0)  # RMSNorms of hidden_size per block (Gemma 2: 4)

    # mixture of experts (0 = dense)
    num_experts: int = Field(default=0, ge=0)
    num_experts_per_tok: int = Field(default=0, ge=0)
    moe_intermediate_size: int | None = Field(default=None, gt=0)
    shared_expert_intermediate_size: int | None = Field(default=None, gt=0)
    shared_expert_gate: bool = False  # Qwen2-MoE: Linear(hidden, 1) gating the shared expert
    expert_module_names: tuple[str, str, str] = ("gate_proj", "up_proj", "down_proj")  # Mixtral: w1, w3, w2
    decoder_sparse_step: int = Field(default=1, gt=0)  # Qwen MoE: every n-th layer is sparse
    mlp_only_layers: tuple[int, ...] = ()  # Qwen MoE: layers that keep a dense MLP
    # gpt-oss (modeling_gpt_oss.py): GptOssTopKRouter has a bias; GptOssExperts holds gate_up_proj
    # (E, h, 2 x width) and down_proj (E, width, h) as 3-D parameters, each with a bias; every attention
    # layer has one learned sink logit per head (``sinks``)
    router_bias: bool = False
    expert_bias: bool = False
    fused_expert_gate_up: bool = False
    attention_sinks: bool = False
    expert_format: Literal["bf16", "mxfp4"] = "bf16"  # expert weights as shipped (gpt-oss: MXFP4)

    # Llama 3.2 Vision (modeling_mllama.py MllamaCrossAttentionDecoderLayer): these layers attend to the image
    # instead of the text (same linear shapes, plus q/k norms and two tanh gates); embed_tokens has
    # vocab_size + 8 rows (MllamaTextModel: config.vocab_size + 8)
    cross_attention_layers: int = Field(default=0, ge=0)
    extra_embedding_rows: int = Field(default=0, ge=0)
    vision: VisionTower | None = None  # the vision encoder and projector of a vision-language model

    # params-only models (seed B)
    parameters: int | None = Field(default=None, gt=0)  # the total as given ("30B": 30e9)
    adapter_fraction: float = Field(default=0.005, gt=0, lt=1)  # LoRA trainable share of the base (0.5 %)

    @model_validator(mode="after")
    def _consistent(self) -> ModelSpec:
        if self.architecture == PARAMS_ONLY:
            if self.parameters is None:
                raise ValueError("a params-only model needs 'parameters'")
            return self
        needed = (
            "hidden_size",
            "num_layers",
            "intermediate_size",
            "num_attention_heads",
            "num_key_value_heads",
            "head_dim",
            "vocab_size",
        )
        missing = [f for f in needed if getattr(self, f) is None]
        if missing:
            raise ValueError(f"architecture {self.architecture} needs {', '.join(missing)}")
        assert self.num_attention_heads is not None and self.num_key_value_heads is not None
        if self.num_attention_heads % self.num_key_value_heads:
            raise ValueError(
                f"num_attention_heads {self.num_attention_heads} is not a multiple of "
                f"num_key_value_heads {self.num_key_value_heads}"
            )
        if self.num_experts:
            if not 0 < self.num_experts_per_tok <= self.num_experts:
                raise ValueError(f"num_experts_per_tok must be 1..{self.num_experts}, got {self.num_experts_per_tok}")
            if self.moe_intermediate_size is None:
                raise ValueError("an MoE model needs moe_intermediate_size")
        if self.parameters is not None:
            raise ValueError("'parameters' is only for params-only models (the count comes from the config)")
        return self

    # ---- structure -------------------------------------------------------------------------------------

    @property
    def is_params_only(self) -> bool:
        return self.architecture == PARAMS_ONLY

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    def _arch(self) -> tuple[int, int, int, int, int, int]:
        """(hidden, layers, ffn, heads, kv_heads, head_dim), or ValueError for params-only models."""
        if self.is_params_only:
            raise ValueError(f"model {self.id} is given by parameter count only; it has no architecture")
        assert self.hidden_size and self.num_layers and self.intermediate_size
        assert self.num_attention_heads and self.num_key_value_heads and self.head_dim
        return (
            self.hidden_size,
            self.num_layers,
            self.intermediate_size,
            self.num_attention_heads,
            self.num_key_value_heads,
            self.head_dim,
        )

    @property
    def moe_layers(self) -> int:
        """Layers with a sparse MoE block (rule of modeling_qwen2_moe / qwen3_moe; Mixtral: all).

        Layer i (0-based) is sparse when i is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0:
        counted, never looped over (a config may claim 10^9 layers before its bounds are checked).
        """
        if not self.is_moe:
            return 0
        _, layers, *_ = self._arch()
        step = self.decoder_sparse_step
        dense_only = {i for i in self.mlp_only_layers if 0 <= i < layers and (i + 1) % step == 0}
        return layers // step - len(dense_only)

    @property
    def dense_layers(self) -> int:
        return self._arch()[1] - self.moe_layers

    def linear_modules(self) -> list[LinearModule]:
        """Linear layers of the decoder blocks (not lm_head); [] for params-only models."""
        if self.is_params_only:
            return []
        h, layers, ffn, nh, nkv, hd = self._arch()
        q_out, kv_out = nh * hd, nkv * hd
        mods: list[LinearModule] = []
        if self.fused_qkv:  # Phi-3: qkv_proj out = nh*hd + 2*nkv*hd (modeling_phi3.Phi3Attention)
            mods.append(LinearModule("qkv_proj", h, q_out + 2 * kv_out, layers, self.qkv_bias, "attention"))
        else:
            mods += [
                LinearModule("q_proj", h, q_out, layers, self.qkv_bias, "attention"),
                LinearModule("k_proj", h, kv_out, layers, self.qkv_bias, "attention"),
                LinearModule("v_proj", h, kv_out, layers, self.qkv_bias, "attention"),
            ]
        mods.append(LinearModule("o_proj", q_out, h, layers, self.o_bias, "attention"))

        dense = self.dense_layers
        if dense:
            if self.fused_gate_up:  # Phi-3: gate_up_proj out = 2 * intermediate_size
                mods.append(LinearModule("gate_up_proj", h, 2 * ffn, dense, self.mlp_bias, "mlp"))
            else:
                mods += [
                    LinearModule("gate_proj", h, ffn, dense, self.mlp_bias, "mlp"),
                    LinearModule("up_proj", h, ffn, dense, self.mlp_bias, "mlp"),
                ]
            mods.append(LinearModule("down_proj", ffn, h, dense, self.mlp_bias, "mlp"))

        sparse = self.moe_layers
        if sparse:
            e, eff = self.num_experts, self.moe_intermediate_size
            assert eff is not None
            gate, up, down = self.expert_module_names
            n = sparse * e
            # router: Linear(hidden, num_experts, bias=False) (Mixtral block_sparse_moe.gate, Qwen mlp.gate);
            # gpt-oss mlp.router with a bias
            mods.append(
                LinearModule("router" if self.router_bias else "gate", h, e, sparse, self.router_bias, "router")
            )
            eb = self.expert_bias
            if self.fused_expert_gate_up:  # gpt-oss experts.gate_up_proj: (E, h, 2 x width)
                mods.append(LinearModule("experts.gate_up_proj", h, 2 * eff, n, eb, "expert"))
            else:
                mods += [
                    LinearModule(f"experts.{gate}", h, eff, n, eb, "expert"),
                    LinearModule(f"experts.{up}", h, eff, n, eb, "expert"),
                ]
            mods.append(LinearModule(f"experts.{down}", eff, h, n, eb, "expert"))
            sff = self.shared_expert_intermediate_size
            if sff:  # Qwen2-MoE shared expert: a dense MLP every token passes through
                mods += [
                    LinearModule("shared_expert.gate_proj", h, sff, sparse, False, "mlp"),
                    LinearModule("shared_expert.up_proj", h, sff, sparse, False, "mlp"),
                    LinearModule("shared_expert.down_proj", sff, h, sparse, False, "mlp"),
                ]
            if self.shared_expert_gate:  # Linear(hidden, 1, bias=False)
                mods.append(LinearModule("shared_expert_gate", h, 1, sparse, False, "router"))
        return mods

    def param_counts(self) -> ParamCounts:
        if self.is_params_only:
            # Only the total is known; treat it all as block linear weights (most of a large model is).
            assert self.parameters is not None
            return ParamCounts(self.parameters, 0, 0, self.parameters, 0)
        h, layers, _, _, _, hd = self._arch()
        assert self.vocab_size is not None and self.num_attention_heads is not None
        embedding = (self.vocab_size + self.extra_embedding_rows) * h
        lm_head = 0 if self.tie_word_embeddings else self.vocab_size * h
        mods = self.linear_modules()
        block_linear = sum(m.weights for m in mods)
        norms = layers * (self.norms_per_layer * h + (2 * hd if self.qk_norm else 0)) + h  # + final norm
        # mllama cross-attention layers: q_norm and k_norm (head_dim) and the attention and MLP gates (1 each)
        cross = self.cross_attention_layers * ((0 if self.qk_norm else 2 * hd) + 2)
        sinks = layers * self.num_attention_heads if self.attention_sinks else 0
        other = norms + cross + sinks + sum(m.biases for m in mods)
        vision = self.vision.params() if self.vision is not None else 0
        return ParamCounts(
            embedding + lm_head + block_linear + other + vision, embedding, lm_head, block_linear, other, vision
        )

    def active_params(self, *, embedding: bool = True) -> int:
        """Parameters one token passes through: the total less the routed experts it is not sent to (E - k of E
        per MoE layer); the vision tower counts (a sample with images runs it). ``embedding=False`` also leaves
        out the input embedding (a row lookup, no matmul: what step FLOPs want). Model cards differ: Qwen3
        ("30B-A3B": 3.3B activated) and Mixtral (12.9B active) count the embedding; the gpt-oss model card
        (arXiv 2508.10925 table 1: 3.61B / 5.13B active) does not (it counts the unembedding)."""
        counts = self.param_counts()
        if self.is_params_only:
            return counts.total
        idle = self.expert_params() * (self.num_experts - self.num_experts_per_tok) // max(self.num_experts, 1)
        return counts.total - idle - (0 if embedding else counts.embedding)

    def expert_params(self) -> int:
        """Weights and biases of all routed experts (0 for a dense model)."""
        return sum(m.weights + m.biases for m in self.linear_modules() if m.group == "expert")

    def weight_bytes_as_shipped(self) -> float:
        """Bytes of the checkpoint as shipped: experts in their format (MXFP4: 4.25 bits), the rest bf16."""
        experts = sum(m.weights for m in self.linear_modules() if m.group == "expert")  # biases stay bf16
        return experts * EXPERT_FORMAT_BITS[self.expert_format] / 8 + (self.total_params - experts) * 2

    @property
    def total_params(self) -> int:
        return self.param_counts().total

    @property
    def module_names(self) -> list[str]:
        return [m.name for m in self.linear_modules()]

    # ---- LoRA ------------------------------------------------------------------------------------------

    def lora_modules(self, targets: str | list[str]) -> list[LinearModule]:
        """The linear layers LoRA adapts for ``targets``.

        "all-linear": every block linear incl. the experts, but not the MoE router (``gate``,
        ``shared_expert_gate``) and not lm_head. PEFT's own "all-linear" would also wrap the router;
        we leave it out because adapting a router is rarely done and the seed's convention is
        "q, k, v, o, gate, up, down". gpt-oss's experts are 3-D parameters, not nn.Linear: PEFT's own
        "all-linear" reaches only its attention there, and the experts through ``target_parameters``
        (PEFT >= 0.17); "all-linear" here counts both. "attention": q, k, v, o (or fused qkv_proj + o_proj).
        "qv": q_proj and v_proj. A list: module names, matched on the full name or its last dotted part
        (as PEFT matches suffixes), e.g. ["q_proj", "v_proj"], ["qkv_proj"], ["w1", "w2", "w3"].
        """
        mods = self.linear_modules()
        if isinstance(targets, str):
            if targets == "all-linear":
                return [m for m in mods if m.group != "router"]
            if targets == "attention":
                return [m for m in mods if m.group == "attention"]
            if targets == "qv":
                if self.fused_qkv:
                    raise ValueError(
                        f"model {self.id} has a fused qkv_proj: q and v cannot be adapted alone; "
                        "use 'attention' or ['qkv_proj']"
                    )
                return [m for m in mods if m.name in ("q_proj", "v_proj")]
            raise ValueError(
                f"unknown LoRA target '{targets}': use 'all-linear', 'attention', 'qv' or a list of "
                f"module names ({', '.join(m.name for m in mods)})"
            )
        wanted = list(targets)
        if not wanted:
            raise ValueError("no LoRA target modules given")
        unknown = [t for t in wanted if not any(t in (m.name, m.short_name) for m in mods)]
        if unknown:
            raise ValueError(
                f"model {self.id} has no linear module {', '.join(map(repr, unknown))}; "
                f"its modules: {', '.join(m.name for m in mods)}"
            )
        return [m for m in mods if m.name in wanted or m.short_name in wanted]

    def lora_trainable(self, rank: int, targets: str | list[str]) -> int:
        """Trainable LoRA parameters: rank x (in + out) per adapted linear (A: in x r, B: r x out)."""
        if isinstance(rank, bool) or not isinstance(rank, int) or rank <= 0:
            raise ValueError(f"LoRA rank must be a positive integer, got {rank!r}")
        if self.is_params_only:
            assert self.parameters is not None
            return round(self.adapter_fraction * self.parameters)  # seed B: adapters at ~0.5 % of the base
        return sum(rank * (m.in_features + m.out_features) * m.count for m in self.lora_modules(targets))

    # ---- sliding-window attention -----------------------------------------------------------------------

    def window_masks(self, sequence: int | None) -> bool:
        """Whether Transformers passes SDPA the sliding layers' window mask at ``sequence`` tokens (None: any
        sequence): from the window's length on; below it masking_utils.py _ignore_causal_mask_sdpa keeps is_causal
        (``kv_length < local_attention_size``). The mask takes SDPA to its memory-efficient kernel and is kept for
        the backward (step time's attention_kernel_of, memory's _mask_bytes)."""
        return self.sliding_window is not None and (sequence is None or sequence >= self.sliding_window)

    def window_cuts(self, sequence: int) -> bool:
        """Whether the window leaves out keys at ``sequence`` tokens (it is shorter than the sequence), so a kernel
        that takes the window skips work (FlashAttention-2's local tiles) and a run is windowed."""
        return self.sliding_window is not None and bool(self.sliding_layers) and sequence > self.sliding_window

    # ---- activations -----------------------------------------------------------------------------------

    @property
    def tokens_ffn_width(self) -> int:
        """Per-token active MLP width: dense intermediate_size, or for MoE k x moe width + shared expert."""
        _, _, ffn, *_ = self._arch()
        if not self.is_moe:
            return ffn
        assert self.moe_intermediate_size is not None
        return self.num_experts_per_tok * self.moe_intermediate_size + (self.shared_expert_intermediate_size or 0)
