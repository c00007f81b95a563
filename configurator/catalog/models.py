"""Model architectures (``specs/models.yaml``) and their exact parameter counts.

A model is described by the fields of its Hugging Face ``config.json`` (verbatim names), normalised here
into a :class:`ModelSpec`. Counts follow the module layout of the ``transformers`` modelling code:
``modeling_llama.py``, ``modeling_mistral.py``, ``modeling_qwen2.py``, ``modeling_qwen3.py``,
``modeling_gemma2.py``, ``modeling_phi3.py``, ``modeling_mixtral.py``, ``modeling_qwen2_moe.py``,
``modeling_qwen3_moe.py``. Every norm here is an RMSNorm (one weight vector, no bias).

Seed B sizes some models by parameter count alone ("30B"): those are ``architecture: params-only``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from configurator.catalog.errors import short_repr, shorten
from configurator.catalog.sourced import Strict

PARAMS_ONLY = "params-only"
SUPPORTED_MODEL_TYPES = (
    "llama",
    "mistral",
    "qwen2",
    "qwen3",
    "gemma2",
    "phi3",
    "mixtral",
    "qwen2_moe",
    "qwen3_moe",
)
ArchitectureName = Literal[
    "llama", "mistral", "qwen2", "qwen3", "gemma2", "phi3", "mixtral", "qwen2_moe", "qwen3_moe", "params-only"
]


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
    other: int  # norms, biases, q/k norms, final norm

    def __post_init__(self) -> None:
        if self.total != self.embedding + self.lm_head + self.block_linear + self.other:
            raise ValueError(f"parameter counts do not add up: {self}")


class ModelSpec(Strict):
    """A model, normalised from its HF config (or a bare parameter count for ``params-only``)."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    source: str = Field(min_length=3)  # URL of the config.json, or the seed sentence
    architecture: ArchitectureName
    note: str | None = None

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
            # router: Linear(hidden, num_experts, bias=False) (Mixtral block_sparse_moe.gate, Qwen mlp.gate)
            mods.append(LinearModule("gate", h, e, sparse, False, "router"))
            mods += [
                LinearModule(f"experts.{gate}", h, eff, n, False, "expert"),
                LinearModule(f"experts.{up}", h, eff, n, False, "expert"),
                LinearModule(f"experts.{down}", eff, h, n, False, "expert"),
            ]
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
        assert self.vocab_size is not None
        embedding = self.vocab_size * h
        lm_head = 0 if self.tie_word_embeddings else self.vocab_size * h
        mods = self.linear_modules()
        block_linear = sum(m.weights for m in mods)
        norms = layers * (self.norms_per_layer * h + (2 * hd if self.qk_norm else 0)) + h  # + final norm
        other = norms + sum(m.biases for m in mods)
        return ParamCounts(embedding + lm_head + block_linear + other, embedding, lm_head, block_linear, other)

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
        "q, k, v, o, gate, up, down". "attention": q, k, v, o (or fused qkv_proj + o_proj).
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

    # ---- activations -----------------------------------------------------------------------------------

    @property
    def tokens_ffn_width(self) -> int:
        """Per-token active MLP width: dense intermediate_size, or for MoE k x moe width + shared expert."""
        _, _, ffn, *_ = self._arch()
        if not self.is_moe:
            return ffn
        assert self.moe_intermediate_size is not None
        return self.num_experts_per_tok * self.moe_intermediate_size + (self.shared_expert_intermediate_size or 0)


# ---- reading HF config.json ----------------------------------------------------------------------------


class ConfigError(ValueError):
    """A config.json that cannot be read as a supported model; ``field`` names the key at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


# Defaults of the transformers config classes, per model_type, for keys a config.json may omit.
_TIE_DEFAULT = {"gemma2": True}  # Gemma2Config(tie_word_embeddings=True); all others default to False
_HEAD_DIM_DEFAULT = {"qwen3": 128, "qwen3_moe": 128, "gemma2": 256}  # Qwen3Config/Gemma2Config head_dim

# Keys the reader uses; a catalog entry may only use these (a typo must not pass silently).
KNOWN_CONFIG_KEYS = frozenset(
    {
        "model_type",
        "hidden_size",
        "num_hidden_layers",
        "intermediate_size",
        "num_attention_heads",
        "num_key_value_heads",
        "head_dim",
        "vocab_size",
        "tie_word_embeddings",
        "attention_bias",
        "mlp_bias",
        "num_local_experts",
        "num_experts",
        "num_experts_per_tok",
        "moe_intermediate_size",
        "shared_expert_intermediate_size",
        "decoder_sparse_step",
        "mlp_only_layers",
    }
)


# Upper bounds on config.json sizes: about four times the largest published model's, so every real config
# passes and a typo or a hostile file (10^9 layers, a 400-digit vocab) is refused by name before any count.
# Largest published, for scale: hidden_size 16384, intermediate_size 53248, 126 layers and 128 heads
# (Llama 3.1 405B config.json); vocab_size 262144 (Gemma 3); head_dim 256 (Gemma 2); 512 experts
# (Qwen3-Next-80B-A3B).
CONFIG_LIMITS: dict[str, int] = {
    "hidden_size": 65_536,
    "num_hidden_layers": 1_024,
    "intermediate_size": 262_144,
    "num_attention_heads": 1_024,
    "num_key_value_heads": 1_024,
    "head_dim": 1_024,
    "vocab_size": 1_048_576,
    "num_local_experts": 4_096,
    "num_experts": 4_096,
    "num_experts_per_tok": 4_096,
    "moe_intermediate_size": 262_144,
    "shared_expert_intermediate_size": 262_144,
    "decoder_sparse_step": 1_024,
}


def _int(config: dict[str, Any], key: str, default: int | None = None) -> int:
    value = config.get(key, default)
    if value is None:
        raise ConfigError(key, "required key is missing")
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)  # 4096.0: a whole number written as a float
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"must be a whole number, got {short_repr(value)}")
    limit = CONFIG_LIMITS.get(key)
    if value <= 0 or (limit is not None and value > limit):
        allowed = f"1 to {limit:,}" if limit is not None else "a positive number"
        what = short_repr(value) if value.bit_length() > 64 else f"{value:,}"
        raise ConfigError(key, f"must be {allowed} (no published model comes near the top), got {what}")
    return value


def _bool(config: dict[str, Any], key: str, default: bool) -> bool:
    value = config.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ConfigError(key, f"must be true or false, got {short_repr(value)}")
    return value


def model_from_hf_config(config: dict[str, Any], *, id: str, name: str, source: str) -> ModelSpec:
    """Normalise a Hugging Face config.json (as a dict) into a ModelSpec.

    Raises ValueError (a :class:`ConfigError`, with ``field``) for unsupported model types and for
    missing or malformed keys.
    """
    if not isinstance(config, dict):
        raise ConfigError("", f"a config must be a JSON object / mapping, got {type(config).__name__}")
    mt = config.get("model_type")
    if mt is None:
        raise ConfigError("model_type", "required key is missing")
    text = config.get("text_config")
    if mt not in SUPPORTED_MODEL_TYPES and isinstance(text, dict):
        # Multimodal configs (mllama, gemma3, llava ...) hold the language model in text_config: read that one.
        inner = text.get("model_type")
        if inner in SUPPORTED_MODEL_TYPES:
            spec = model_from_hf_config(text, id=id, name=name, source=source)
            note = (
                f"language model only: read from text_config of this {shorten(str(mt), 40)} config; the "
                "vision tower and projector are not counted"
            )
            return spec.model_copy(update={"note": note})
        raise ConfigError("text_config.model_type", f"{short_repr(mt)} is a multimodal config whose language model "
                          f"(text_config) is {short_repr(inner)}, which is not supported; supported: "
                          f"{', '.join(SUPPORTED_MODEL_TYPES)}")  # fmt: skip
    if mt not in SUPPORTED_MODEL_TYPES:
        raise ConfigError("model_type", f"unsupported model type {short_repr(mt)}; supported: "
                          f"{', '.join(SUPPORTED_MODEL_TYPES)}")  # fmt: skip
    hidden = _int(config, "hidden_size")
    heads = _int(config, "num_attention_heads")
    if mt in _HEAD_DIM_DEFAULT:
        head_dim = _int(config, "head_dim", _HEAD_DIM_DEFAULT[mt])
    elif config.get("head_dim") is not None and mt in ("llama", "mistral", "mixtral"):
        head_dim = _int(config, "head_dim")  # e.g. Llama 3.2: head_dim given explicitly
    else:  # Qwen2, Qwen2-MoE, Phi-3: hidden_size // num_attention_heads
        if hidden % heads:
            raise ConfigError("num_attention_heads", f"hidden_size {hidden} is not divisible by {heads}")
        head_dim = hidden // heads
    attention_bias = _bool(config, "attention_bias", False)
    fields: dict[str, Any] = {
        "id": id,
        "name": name,
        "source": source,
        "architecture": mt,
        "hidden_size": hidden,
        "num_layers": _int(config, "num_hidden_layers"),
        "intermediate_size": _int(config, "intermediate_size"),
        "num_attention_heads": heads,
        "num_key_value_heads": _int(config, "num_key_value_heads", heads),  # HF default: = heads (MHA)
        "head_dim": head_dim,
        "vocab_size": _int(config, "vocab_size"),
        "tie_word_embeddings": _bool(config, "tie_word_embeddings", _TIE_DEFAULT.get(mt, False)),
    }
    if mt in ("qwen2", "qwen2_moe"):
        fields["qkv_bias"] = True  # modeling_qwen2: q/k/v_proj bias=True, o_proj bias=False
    elif mt in ("llama", "qwen3", "qwen3_moe", "gemma2"):
        fields["qkv_bias"] = fields["o_bias"] = attention_bias  # q, k, v and o all follow attention_bias
    if mt == "llama":
        fields["mlp_bias"] = _bool(config, "mlp_bias", False)
    if mt in ("qwen3", "qwen3_moe"):
        fields["qk_norm"] = True
    if mt == "gemma2":
        fields["norms_per_layer"] = 4  # input, post_attention, pre_feedforward, post_feedforward
    if mt == "phi3":
        fields["fused_qkv"] = fields["fused_gate_up"] = True
    if mt == "mixtral":
        # experts are w1 (gate), w3 (up), w2 (down) of width intermediate_size; router over num_local_experts
        fields["num_experts"] = _int(config, "num_local_experts")
        fields["num_experts_per_tok"] = _int(config, "num_experts_per_tok")
        fields["moe_intermediate_size"] = fields["intermediate_size"]
        fields["expert_module_names"] = ("w1", "w3", "w2")
    if mt in ("qwen2_moe", "qwen3_moe"):
        fields["num_experts"] = _int(config, "num_experts")
        fields["num_experts_per_tok"] = _int(config, "num_experts_per_tok")
        fields["moe_intermediate_size"] = _int(config, "moe_intermediate_size")
        fields["decoder_sparse_step"] = _int(config, "decoder_sparse_step", 1)
        only = config.get("mlp_only_layers") or []
        layers = fields["num_layers"]
        if (
            not isinstance(only, list)
            or len(only) > layers
            or any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < layers for i in only)
        ):
            raise ConfigError("mlp_only_layers", f"must be a list of layer numbers 0 to {layers - 1}, got "
                              f"{short_repr(only)}")  # fmt: skip
        fields["mlp_only_layers"] = tuple(sorted(set(only)))
    if mt == "qwen2_moe":
        fields["shared_expert_intermediate_size"] = _int(config, "shared_expert_intermediate_size")
        fields["shared_expert_gate"] = True
    if heads % fields["num_key_value_heads"]:
        raise ConfigError(
            "num_key_value_heads",
            f"num_attention_heads {heads} is not a multiple of {fields['num_key_value_heads']}",
        )
    if fields.get("num_experts_per_tok", 0) > fields.get("num_experts", 0):
        raise ConfigError(
            "num_experts_per_tok",
            f"{fields['num_experts_per_tok']} is more than the {fields['num_experts']} experts",
        )
    try:
        return ModelSpec(**fields)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        msg = err["msg"].removeprefix("Value error, ")
        raise ConfigError(".".join(str(p) for p in err["loc"]), shorten(msg)) from None


# ---- specs/models.yaml ---------------------------------------------------------------------------------

_ENTRY_KEYS = {"id", "name", "source", "note", "config", "parameters", "adapter_fraction"}


def _entry(raw: Any, index: int) -> ModelSpec:
    if not isinstance(raw, dict):
        raise ValueError(f"models[{index}]: an entry must be a mapping")
    ident = raw.get("id")
    label = f"model {ident!r}" if ident else f"models[{index}]"
    extra = set(raw) - _ENTRY_KEYS
    if extra:
        raise ValueError(f"{label}: unknown key(s) {', '.join(sorted(map(str, extra)))}")
    for key in ("id", "name", "source"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise ValueError(f"{label}: '{key}' is required (text)")
    has_config, has_params = "config" in raw, "parameters" in raw
    if has_config == has_params:
        raise ValueError(f"{label}: give exactly one of 'config' (HF config.json fields) or 'parameters'")
    try:
        if has_config:
            config = raw["config"]
            if not isinstance(config, dict):
                raise ValueError("'config' must be a mapping of HF config.json fields")
            unknown = set(config) - KNOWN_CONFIG_KEYS
            if unknown:
                raise ValueError(f"config has key(s) the reader does not use: {', '.join(sorted(map(str, unknown)))}")
            if "adapter_fraction" in raw:
                raise ValueError("'adapter_fraction' is only for params-only entries")
            spec = model_from_hf_config(config, id=raw["id"], name=raw["name"], source=raw["source"])
            return spec.model_copy(update={"note": raw.get("note")}) if raw.get("note") else spec
        params = raw["parameters"]
        if isinstance(params, float) and params.is_integer():
            params = int(params)  # YAML reads 30e9 as a float
        extra_fields = {"adapter_fraction": raw["adapter_fraction"]} if "adapter_fraction" in raw else {}
        return ModelSpec(
            id=raw["id"],
            name=raw["name"],
            source=raw["source"],
            note=raw.get("note"),
            architecture=PARAMS_ONLY,
            parameters=params,
            **extra_fields,
        )
    except ValidationError as exc:
        msgs = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(entry)'}: {e['msg']}" for e in exc.errors(include_url=False)
        )
        raise ValueError(f"{label}: {msgs}") from None
    except ValueError as exc:
        raise ValueError(f"{label}: {exc}") from None


def load_models_yaml(data: dict[str, Any]) -> list[ModelSpec]:
    """Build the models of a parsed ``specs/models.yaml``; ValueError naming the entry on a bad one."""
    if not isinstance(data, dict):
        raise ValueError("models.yaml must be a mapping with 'schema_version' and 'models'")
    if data.get("schema_version") != 1:
        raise ValueError(f"schema_version must be 1, got {data.get('schema_version')!r}")
    extra = set(data) - {"schema_version", "models"}
    if extra:
        raise ValueError(f"unknown top-level key(s) {', '.join(sorted(map(str, extra)))}")
    entries = data.get("models")
    if not isinstance(entries, list) or not entries:
        raise ValueError("'models' must be a non-empty list")
    models = [_entry(raw, i) for i, raw in enumerate(entries)]
    seen: set[str] = set()
    for m in models:
        if m.id in seen:
            raise ValueError(f"model {m.id!r}: id appears twice")
        seen.add(m.id)
    return models


def model_from_catalog_entry(raw: Any) -> ModelSpec:
    """One ``specs/models.yaml`` entry (the catalog loader adds the file position to errors)."""
    return _entry(raw, 0)
