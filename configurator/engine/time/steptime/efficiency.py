"""Achieved efficiencies (specs/efficiency.yaml): GEMM fraction of peak by architecture with the tile/wave model,
FlashAttention fraction, streaming bandwidth fraction, elementwise bytes per kernel stack, launch cost, trainer
factors. Each figure carries its source in the data file; this module only reads and applies them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from configurator.catalog.fileio import safe_read_text
from configurator.catalog.loader import specs_dir


@dataclass(frozen=True)
class Efficiency:
    gemm_peak: dict[str, float]
    tiles: dict[str, tuple[int, int]]
    k_fill: float
    attention: dict[str, float]
    attention_backward: float
    bandwidth: float
    elementwise: dict[str, tuple[float, float, float]]  # stack -> (per hidden, per ffn, per q+kv width) bytes
    loss_bytes: dict[str, float]
    launch_us: dict[str, float]
    kernels_per_layer: float
    kernels_per_adapter: float
    kernels_per_dequant: float
    framework_factor: dict[str, float]
    framework_stack: dict[str, str]
    sustained: dict[str, float]  # FITTED: compute-bound ops in a training step over the GEMM benchmark, per arch
    dequant_bandwidth: float  # FITTED: achieved bandwidth fraction of the 4-bit dequantisation kernels

    def arch(self, architecture: str) -> str:
        """The efficiency table's key for a card's architecture (unknown ones read as Hopper-class)."""
        return architecture if architecture in self.gemm_peak else "Hopper"

    def gemm_fraction(self, arch: str, m: float, n: float, k: float, sms: float) -> float:
        """Achieved fraction of peak for an M x N x K GEMM on ``sms`` SMs: the architecture's large-GEMM fraction
        times wave quantisation (tiles over SMs, a partial last wave costs a whole one: NVIDIA performance guide,
        'Matrix Multiplication Background') times the pipeline fill of a short K."""
        tm, tn = self.tiles[arch]
        tiles = math.ceil(max(m, 1) / tm) * math.ceil(max(n, 1) / tn)
        waves = tiles / max(sms, 1)
        wave = waves / math.ceil(waves)
        return self.gemm_peak[arch] * self.sustained.get(arch, 1.0) * wave * k / (k + self.k_fill)


def _value(entry: Any) -> float:
    return float(entry["value"]) if isinstance(entry, dict) else float(entry)


def load_efficiency(path: Path | None = None) -> Efficiency:
    data = yaml.safe_load(safe_read_text(path or specs_dir() / "efficiency.yaml"))
    launch = data["launch"]
    ew = data["elementwise_bytes"]
    return Efficiency(
        gemm_peak={k: _value(v) for k, v in data["gemm_peak_fraction"].items()},
        tiles={k: (int(v["m"]), int(v["n"])) for k, v in data["tiles"].items()},
        k_fill=_value(data["k_fill"]),
        attention={k: _value(v) for k, v in data["attention_fraction"].items()},
        attention_backward=_value(data["attention_backward_factor"]),
        bandwidth=_value(data["bandwidth_fraction"]),
        elementwise={k: (float(v["hidden"]), float(v["ffn"]), float(v["qk"])) for k, v in ew.items()},
        loss_bytes={k: float(v) for k, v in data["loss_bytes_per_vocab"].items() if k != "source"},
        launch_us={"eager": _value(launch["eager_us"]), "fused": _value(launch["fused_us"])},
        kernels_per_layer=_value(launch["kernels_per_layer"]),
        kernels_per_adapter=_value(launch["kernels_per_adapter"]),
        kernels_per_dequant=_value(launch["kernels_per_dequant"]),
        framework_factor={k: _value(v) for k, v in data["framework_factor"].items()},
        framework_stack=dict(data["framework_stack"]),
        sustained={k: _value(v) for k, v in data["sustained_compute_fraction"].items()},
        dequant_bandwidth=_value(data["dequant_bandwidth_fraction"]),
    )


_OVERRIDE: list[Efficiency] = []
# the memos timed with a table (ops.py registers its own on import: no import back from here)
_CLEAR_ON_OVERRIDE: list[Callable[[], None]] = []


@functools.lru_cache(maxsize=1)
def _shipped() -> Efficiency:
    return load_efficiency()


def efficiency() -> Efficiency:
    """The shipped table, read once (or the one a fit is trying: ``set_override``)."""
    return _OVERRIDE[-1] if _OVERRIDE else _shipped()


def set_override(eff: Efficiency | None) -> None:
    """Time with ``eff`` instead of the shipped table (None: back to it). Used by the constants' fit
    (validation.fit_constants) only; clears the per-shape memos so no cached time outlives its table."""
    _OVERRIDE.clear()
    if eff is not None:
        _OVERRIDE.append(eff)
    for clear in _CLEAR_ON_OVERRIDE:
        clear()
