"""The project's own measurement output (``configurator.acceptance_tool.measure``): one JSON file per run.

``{"tool": "configurator-measure", "format": 1, "device": {...}, "versions": {...}, "jobs": [{"name": ...,
"status": "ok" | "oom" | "timeout" | "skipped" | "error", "reason": ..., "peak_allocated_gb": ...,
"peak_reserved_gb": ..., "device_used_gb": ..., "step_seconds": ..., "tokens_per_second": ...}]}``. GB = 10^9
bytes. Validated with pydantic, so a wrong type or a negative peak is reported by field.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from configurator.engine.acceptance.parse.common import ParseError, tool_json

TOOL_NAME = "configurator-measure"
FORMAT = 1


class MeasuredJob(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    name: str = Field(max_length=200)
    status: Literal["ok", "oom", "timeout", "skipped", "error"]
    reason: str | None = Field(default=None, max_length=2000)
    gpu: int | None = Field(default=None, ge=0, le=1023)  # the GPU index it ran on
    peak_allocated_gb: float | None = Field(default=None, ge=0, le=10_000)
    peak_reserved_gb: float | None = Field(default=None, ge=0, le=10_000)
    device_used_gb: float | None = Field(default=None, ge=0, le=10_000)  # what nvidia-smi shows (mem_get_info)
    step_seconds: float | None = Field(default=None, gt=0, le=1e6)
    tokens_per_second: float | None = Field(default=None, gt=0, le=1e9)
    layers_run: int | None = Field(default=None, ge=1)
    layers_full: int | None = Field(default=None, ge=1)

    @field_validator("peak_allocated_gb", "peak_reserved_gb", "device_used_gb", "step_seconds", "tokens_per_second")
    @classmethod
    def _finite(cls, v: float | None) -> float | None:
        if v is not None and not math.isfinite(v):
            raise ValueError("must be a finite number")
        return v


class MeasureOutput(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    tool: Literal["configurator-measure"]
    format: int = Field(ge=1, le=FORMAT)
    device: dict[str, str | int | float | None] = {}
    versions: dict[str, str | None] = {}
    jobs: list[MeasuredJob] = Field(default=[], max_length=1000)


def parse_measure_json(text: str) -> MeasureOutput:
    if not isinstance(text, str) or not text.strip():
        raise ParseError("measurement JSON: the file is empty")
    return tool_json(text, "measurement JSON", TOOL_NAME, "the configurator's measurement tool", MeasureOutput)
