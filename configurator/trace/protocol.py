"""The tracer's wire format: one request JSON object on the worker's stdin, one result JSON object on its
stdout, progress lines ``progress <fraction> <words>`` on its stderr (``python -m configurator.trace.worker``).

Pydantic models of both objects, Qt-free and torch-free: the engine-facing side (runner, cache, CLI, window)
builds and reads them; the worker (``configurator/trace/worker/``, the only code that imports torch) speaks the
same format. ``schema`` is 1; a worker that answers another schema is refused by name.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from configurator.catalog.units import GB

SCHEMA = 1

TraceMethod = Literal["full", "lora", "qlora"]
TracePrecision = Literal["bf16", "mixed-bf16"]  # bf16: pure bf16 weights; mixed-bf16: fp32 masters + bf16 autocast
TraceOptimizer = Literal["adamw", "adamw-8bit"]
TraceOptimizerImpl = Literal["fused", "foreach"]
CheckpointingKind = Literal["non-reentrant", "reentrant"]
TraceAttention = Literal["auto", "sdpa-cudnn", "sdpa-flash", "sdpa-efficient", "flash_attention_2", "eager"]
Arch = Literal["sm80", "sm89", "sm90", "sm100", "sm120"]
Phase = Literal["load", "forward", "backward", "optimizer"]
ARCHES: tuple[str, ...] = ("sm80", "sm89", "sm90", "sm100", "sm120")

# The libraries a trace depends on, named in every result and in the cache key.
LIBRARIES: tuple[str, ...] = ("torch", "transformers", "peft", "accelerate", "bitsandbytes", "torchao")


class _Wire(BaseModel):
    # extra keys a newer worker adds are kept, not refused: the reader shows what it knows
    model_config = ConfigDict(frozen=True, extra="allow")


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LoraRequest(_Strict):
    rank: int = Field(ge=1, le=4096)
    alpha: float
    dropout: float = Field(default=0.0, ge=0, lt=1)
    targets: Literal["all-linear"] | list[str]


class Parallel(_Strict):
    kind: Literal["single", "fsdp2"] = "single"
    world_size: int | None = Field(default=None, ge=1, le=4096)


class ImagesRequest(_Strict):
    """A vision-language job's images per sample (each width x height pixels) and whether its tower trains."""

    per_sample: int = Field(ge=1, le=64)
    width: int = Field(ge=1, le=16384)
    height: int = Field(ge=1, le=16384)
    train_vision_tower: bool = False


class TraceRequest(_Strict):
    """What the worker traces: a config.json dict and the run's settings (all of them, no defaults implied)."""

    schema_: int = Field(default=SCHEMA, alias="schema")
    config: dict[str, object]
    method: TraceMethod
    lora: LoraRequest | None = None
    precision: TracePrecision
    optimizer: TraceOptimizer
    optimizer_impl: TraceOptimizerImpl
    sequence_length: int = Field(ge=1)
    micro_batch_size: int = Field(ge=1)
    gradient_checkpointing: bool
    checkpointing_kind: CheckpointingKind
    attention: TraceAttention
    arch: Arch
    steps: int = Field(default=2, ge=1, le=8)
    parallel: Parallel = Parallel()
    # QLoRA under bf16 with TRL: trl _prepare_peft_model's peft_module_casting_to_bf16 puts the fp32-cast lm_head and
    # embed_tokens back to bf16 after PEFT wraps the model (the engine's prep_head_bf16, specs/frameworks.yaml)
    kbit_head_bf16: bool = False
    images: ImagesRequest | None = None  # a vision-language job (configurator/trace/worker/vision.py)

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    def wire(self) -> dict[str, object]:
        """The request as the worker reads it (``schema`` spelled so; ``lora`` absent for a full fine-tune)."""
        data = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        if not self.kbit_head_bf16:
            data.pop("kbit_head_bf16", None)  # absent unless asked: requests (and cache keys) as before
        if self.parallel.kind == "single":
            data["parallel"] = {"kind": "single"}
        return data


class Breakdown(_Wire):
    parameters: int = 0
    gradients: int = 0
    optimizer_states: int = 0
    activations: int = 0
    temporaries: int = 0

    def total(self) -> int:
        return self.parameters + self.gradients + self.optimizer_states + self.activations + self.temporaries


class TraceResult(_Wire):
    """The worker's answer. ``ok`` false with ``error`` is a clean "cannot trace this" (exit 0)."""

    schema_: int = Field(default=SCHEMA, alias="schema")
    ok: bool
    peak_allocated_bytes: int = Field(default=0, ge=0)
    phase: str | None = None
    step: int | None = None
    op: str | None = None
    module: str | None = None
    breakdown: Breakdown = Breakdown()
    versions: dict[str, str | None] = {}
    attention_kernel: str | None = None
    seconds: float = 0.0
    notes: list[str] = []
    error: str | None = None

    model_config = ConfigDict(frozen=True, extra="allow", populate_by_name=True)

    @property
    def peak_gb(self) -> float:
        return self.peak_allocated_bytes / GB

    def versions_text(self) -> str:
        """'torch 2.9.1, transformers 4.57.1, peft 0.17.1' (the libraries the figure is exact for)."""
        parts = [f"{lib} {self.versions[lib]}" for lib in LIBRARIES if self.versions.get(lib)]
        return ", ".join(parts) or "library versions not reported"


_PROGRESS = re.compile(r"^progress\s+([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)\s*(.*)$")


def parse_progress(line: str) -> tuple[float, str] | None:
    """``progress 0.4 forward step 1`` -> (0.4, 'forward step 1'); None for any other stderr line. The
    fraction is clamped to 0..1 (a worker's rounding never moves a bar backwards past its ends)."""
    m = _PROGRESS.match(line.strip())
    if m is None:
        return None
    try:
        fraction = float(m.group(1))
    except ValueError:
        return None
    return min(max(fraction, 0.0), 1.0), m.group(2).strip()
