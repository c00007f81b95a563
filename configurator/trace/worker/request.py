"""The request object of the worker's interface (schema 1), checked with the standard library only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

METHODS = ("full", "lora", "qlora")
PRECISIONS = ("bf16", "mixed-bf16")
OPTIMIZERS = ("adamw", "adamw-8bit")
IMPLS = ("fused", "foreach")
CHECKPOINTING = ("non-reentrant", "reentrant")
ATTENTION = ("auto", "sdpa-cudnn", "sdpa-flash", "sdpa-efficient", "flash_attention_2", "eager")
ARCHS = ("sm80", "sm89", "sm90", "sm100", "sm120")


class RequestError(ValueError):
    """A request the worker cannot run, with the reason in one sentence."""


@dataclass(frozen=True)
class Job:
    config: dict[str, Any]
    method: str
    lora_rank: int
    lora_alpha: float
    lora_dropout: float
    lora_targets: str | tuple[str, ...]
    precision: str
    optimizer: str
    optimizer_impl: str
    sequence_length: int
    micro_batch_size: int
    gradient_checkpointing: bool
    checkpointing_kind: str
    attention: str
    arch: str
    steps: int
    warm_optimizer: bool  # create the optimizer states by a step on zero gradients before the traced steps
    # QLoRA: TRL's peft_module_casting_to_bf16 after get_peft_model (lm_head and embed_tokens back to bf16)
    kbit_head_bf16: bool
    parallel_kind: str
    world_size: int
    # vision-language jobs: images per sample (0: text only), each width x height pixels, and whether the vision
    # tower (encoder and projector) trains: fully in a full fine-tune, through LoRA on its linears otherwise
    images_per_sample: int = 0
    image_width: int = 0
    image_height: int = 0
    train_vision_tower: bool = False


def _choice(req: dict[str, Any], key: str, allowed: tuple[str, ...], default: str | None = None) -> str:
    value = req.get(key, default)
    if value not in allowed:
        raise RequestError(f"{key} must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


def _int(req: dict[str, Any], key: str, low: int, high: int, default: int | None = None) -> int:
    value = req.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RequestError(f"{key} must be a whole number from {low} to {high}, not {value!r}")
    return value


def parse(req: Any) -> Job:
    if not isinstance(req, dict):
        raise RequestError("the request must be a JSON object")
    if req.get("schema", 1) != 1:
        raise RequestError(f"schema {req.get('schema')!r} is not understood (this worker reads schema 1)")
    config = req.get("config")
    if not isinstance(config, dict) or not isinstance(config.get("model_type"), str):
        raise RequestError("config must be a Hugging Face config.json object with a model_type")
    method = _choice(req, "method", METHODS)
    rank, alpha, dropout, targets = 0, 0.0, 0.0, "all-linear"
    if method != "full":
        lora = req.get("lora") or {}
        if not isinstance(lora, dict):
            raise RequestError("lora must be an object (rank, alpha, dropout, targets)")
        rank = _int(lora, "rank", 1, 4096, 16)
        alpha = float(lora.get("alpha", 2 * rank))
        dropout = float(lora.get("dropout", 0.0))
        if not 0.0 <= dropout < 1.0:
            raise RequestError(f"lora dropout must be in [0, 1), not {dropout}")
        raw = lora.get("targets", "all-linear")
        if raw == "all-linear":
            targets = "all-linear"
        elif isinstance(raw, list) and raw and all(isinstance(x, str) for x in raw):
            targets = tuple(raw)  # type: ignore[assignment]
        else:
            raise RequestError("lora targets must be 'all-linear' or a list of module names")
    parallel = req.get("parallel") or {"kind": "single"}
    kind = parallel.get("kind", "single") if isinstance(parallel, dict) else None
    if kind not in ("single", "fsdp2"):
        raise RequestError(f"parallel kind must be single or fsdp2, not {kind!r}")
    world = _int(parallel, "world_size", 1, 65536, 1) if kind == "fsdp2" else 1
    images = req.get("images") or {}
    if not isinstance(images, dict):
        raise RequestError("images must be an object (per_sample, width, height, train_vision_tower)")
    per_sample = _int(images, "per_sample", 0, 64, 0)
    width = _int(images, "width", 1, 16384, 448) if per_sample else 0
    height = _int(images, "height", 1, 16384, width or 448) if per_sample else 0
    if per_sample and not isinstance(config.get("vision_config"), dict):
        raise RequestError("images need a vision-language config (one with a vision_config)")
    return Job(
        config=dict(config),
        method=method,
        lora_rank=rank,
        lora_alpha=alpha,
        lora_dropout=dropout,
        lora_targets=targets,
        precision=_choice(req, "precision", PRECISIONS, "bf16"),
        optimizer=_choice(req, "optimizer", OPTIMIZERS, "adamw"),
        optimizer_impl=_choice(req, "optimizer_impl", IMPLS, "fused"),
        sequence_length=_int(req, "sequence_length", 1, 1 << 22),
        micro_batch_size=_int(req, "micro_batch_size", 1, 4096, 1),
        gradient_checkpointing=bool(req.get("gradient_checkpointing", False)),
        checkpointing_kind=_choice(req, "checkpointing_kind", CHECKPOINTING, "non-reentrant"),
        attention=_choice(req, "attention", ATTENTION, "auto"),
        arch=_choice(req, "arch", ARCHS, "sm90"),
        steps=_int(req, "steps", 1, 8, 2),
        warm_optimizer=bool(req.get("warm_optimizer", False)),
        kbit_head_bf16=bool(req.get("kbit_head_bf16", False)),
        parallel_kind=str(kind),
        world_size=world,
        images_per_sample=per_sample,
        image_width=width,
        image_height=height,
        train_vision_tower=bool(images.get("train_vision_tower", False)) if per_sample else False,
    )
