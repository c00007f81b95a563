"""The burn-in kit's GEMM probe output (``configurator/acceptance_tool/gemm_probe.py``): one JSON document per GPU.

``{"tool": "configurator-gemm", "format": 1, "versions": {...}, "gpus": [{"gpu": 0, "status": "ok" | "skipped" |
"error", "reason": ..., "name": ..., "shape": [8192, 8192, 8192], "calls": ..., "seconds": ..., "tflops": ...,
"tflops_first": ..., "tflops_last": ..., "smi": {"clocks.sm": "1980", "clocks.max.sm": "1980", "power.draw":
"598.1", "power.limit": "600.00", "temperature.gpu": "71", "clocks_event_reasons.active": "0x0000000000000004"}}]}``.
The ``smi`` values are nvidia-smi's ``--format=csv,noheader,nounits`` strings (MHz, W, C); the reasons are NVML's
clock-event bitmask (nvml.h ``nvmlClocksEventReason*``, formerly ``nvmlClocksThrottleReason*``), read into names
here. Validated with pydantic, so a wrong type or a negative rate is reported by field.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from configurator.engine.acceptance.parse.common import ParseError, number, tool_json

TOOL_NAME = "configurator-gemm"
FORMAT = 1
# nvml.h clock-event reasons (the same bits as the older nvmlClocksThrottleReason* names)
REASON_BITS = {
    0x1: "GPU idle",
    0x2: "applications clocks setting",
    0x4: "SW power cap",
    0x8: "HW slowdown",
    0x10: "sync boost",
    0x20: "SW thermal slowdown",
    0x40: "HW thermal slowdown",
    0x80: "HW power brake slowdown",
    0x100: "display clock setting",
}


class GemmSmi(BaseModel):
    """nvidia-smi read once while the GEMMs ran."""

    model_config = ConfigDict(frozen=True)

    sm_clock_mhz: float | None = None
    max_sm_clock_mhz: float | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    temperature_c: float | None = None
    reasons: int | None = None  # the clock-event bitmask

    @property
    def reason_names(self) -> list[str]:
        return [name for bit, name in REASON_BITS.items() if self.reasons is not None and self.reasons & bit]


def _smi(raw: dict[str, str]) -> GemmSmi:
    def num(key: str) -> float | None:
        v = number(str(raw.get(key, ""))[:40])
        return v if v is not None and math.isfinite(v) and 0 <= v < 1e6 else None

    reasons: int | None
    try:
        reasons = int(str(raw.get("clocks_event_reasons.active", ""))[:20], 16)
    except ValueError:
        reasons = None
    return GemmSmi(
        sm_clock_mhz=num("clocks.sm"),
        max_sm_clock_mhz=num("clocks.max.sm"),
        power_draw_w=num("power.draw"),
        power_limit_w=num("power.limit"),
        temperature_c=num("temperature.gpu"),
        reasons=reasons,
    )


class GemmResult(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    gpu: int = Field(ge=0, le=1023)  # nvidia-smi index (PCI bus order)
    status: Literal["ok", "skipped", "error"]
    reason: str | None = Field(default=None, max_length=2000)
    name: str | None = Field(default=None, max_length=200)
    shape: tuple[int, int, int] | None = None
    seconds: float | None = Field(default=None, gt=0, le=1e5)
    tflops: float | None = Field(default=None, gt=0, le=1e6)
    tflops_first: float | None = Field(default=None, gt=0, le=1e6)
    tflops_last: float | None = Field(default=None, gt=0, le=1e6)
    smi: GemmSmi | None = None

    @field_validator("smi", mode="before")
    @classmethod
    def _read_smi(cls, v: object) -> object:
        if isinstance(v, dict) and not v:
            return None
        if isinstance(v, dict) and all(isinstance(x, str) for x in v.values()):
            return _smi(v)
        return v

    @field_validator("seconds", "tflops", "tflops_first", "tflops_last")
    @classmethod
    def _finite(cls, v: float | None) -> float | None:
        if v is not None and not math.isfinite(v):
            raise ValueError("must be a finite number")
        return v

    @model_validator(mode="after")
    def _ok_has_a_rate(self) -> GemmResult:
        if self.status == "ok" and (self.tflops is None or self.shape is None):
            raise ValueError("status ok without tflops and shape")
        return self

    @property
    def fell(self) -> float | None:
        """How much the last chunk's rate is below the first's (0.1 = 10 % lower), None without both."""
        if self.tflops_first and self.tflops_last:
            return 1 - self.tflops_last / self.tflops_first
        return None


class GemmOutput(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    tool: Literal["configurator-gemm"]
    format: int = Field(ge=1, le=FORMAT)
    versions: dict[str, str | None] = {}
    gpus: list[GemmResult] = Field(min_length=1, max_length=1024)


def parse_gemm_json(text: str) -> GemmOutput:
    if not isinstance(text, str) or not text.strip():
        raise ParseError("GEMM probe JSON: the file is empty (the probe was stopped before it printed)")
    return tool_json(text, "GEMM probe JSON", TOOL_NAME, "the kit's gemm_probe.py", GemmOutput)
