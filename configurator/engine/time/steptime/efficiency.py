"""Achieved efficiencies (specs/efficiency.yaml): GEMM fraction of peak by architecture with the tile/wave model,
FlashAttention fraction, streaming bandwidth fraction, elementwise bytes per kernel stack, launch cost, trainer
factors. Each figure carries its source in the data file; this module only reads and applies them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, model_validator

from configurator.catalog.fileio import safe_read_text
from configurator.catalog.loader import specs_dir
from configurator.catalog.sourced import Strict


@dataclass(frozen=True)
class Efficiency:
    gemm_peak: dict[str, float]
    tiles: dict[str, tuple[int, int]]
    k_fill: float
    attention: dict[str, float]
    attention_by_cc: dict[float, float]  # a chip whose measured kernel rate departs from its architecture's
    cudnn_attention_by_cc: dict[float, float]  # cuDNN's fused attention, on the chips where SDPA prefers it
    efficient_attention_ratio: float  # the memory-efficient kernel's rate over FlashAttention-2's on the same chip
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
    grouped_experts: dict[str, bool]  # stack -> a MoE layer's experts run as one grouped GEMM
    # arch -> the compute capability of the chip its large-GEMM fraction was measured on (absent: UNCONFIRMED)
    gemm_measured_on: dict[str, float] = field(default_factory=dict)
    # card id -> its own measured large-GEMM fraction, which takes precedence over its architecture's (gemm_large)
    gemm_by_card: dict[str, float] = field(default_factory=dict)

    def arch(self, architecture: str) -> str:
        """The efficiency table's key for a card's architecture (unknown ones read as Hopper-class)."""
        return architecture if architecture in self.gemm_peak else "Hopper"

    def gemm_large(self, arch: str, card: str = "") -> float:
        """The large-GEMM fraction of peak on a card: its own measured figure where the table has one for its id
        (gemm_peak_fraction_by_card: the H100 PCIe runs well below the H100 SXM's), else its architecture's."""
        return self.gemm_by_card.get(card, self.gemm_peak[arch])

    def attention_kernel(self, attention: str, compute_capability: float = 0.0, masked: bool = False) -> str:
        """The kernel a job's attention runs on a chip: PyTorch SDPA puts cuDNN first where the table has a cuDNN
        figure (the pinned PyTorch's check_prefer_cudnn_attention: CC 9.0 and 10.0), else FlashAttention-2; with an
        explicit mask (a sliding-window model past its window, a padded batch: Transformers passes one) SDPA moves to
        its memory-efficient kernel, as the tracer routes it (trace/worker/emulation.py). The flash-attn package
        (``attention: flash``) is FlashAttention-2 everywhere. Eager attention is its matmuls and elementwise passes
        (ops.py _eager_attention); the memory-efficient kernel runs at its measured ratio to FlashAttention-2
        (attention_fraction)."""
        if attention == "eager":
            return "eager"
        if attention != "sdpa":
            return "flash"
        if masked:
            return "efficient"
        return "cudnn" if compute_capability in self.cudnn_attention_by_cc else "flash"

    def attention_fraction(self, arch: str, compute_capability: float = 0.0, kernel: str = "flash") -> float:
        """The attention kernel's achieved fraction of peak on a chip: cuDNN's where it runs, else FlashAttention-2's
        own measured figure where the table has one for the chip's compute capability, else its architecture's; the
        memory-efficient kernel at FlashAttention-2's times its measured ratio (efficient_attention_ratio)."""
        if kernel == "cudnn" and compute_capability in self.cudnn_attention_by_cc:
            return self.cudnn_attention_by_cc[compute_capability]
        flash = self.attention_by_cc.get(compute_capability, self.attention[arch])
        return flash * self.efficient_attention_ratio if kernel == "efficient" else flash

    def gemm_kernel_fraction(self, arch: str, m: float, n: float, k: float, sms: float, card: str = "") -> float:
        """Achieved fraction of peak for an M x N x K GEMM on ``sms`` SMs, the kernel alone (as a benchmark times
        it): the large-GEMM fraction (the card's own, else its architecture's: gemm_large) times wave quantisation
        (tiles over SMs, a partial last wave costs a whole one: NVIDIA performance guide, 'Matrix Multiplication
        Background') times the pipeline fill of a short K."""
        tm, tn = self.tiles[arch]
        tiles = math.ceil(max(m, 1) / tm) * math.ceil(max(n, 1) / tn)
        waves = tiles / max(sms, 1)
        wave = waves / math.ceil(waves)
        return self.gemm_large(arch, card) * wave * k / (k + self.k_fill)

    def gemm_fraction(self, arch: str, m: float, n: float, k: float, sms: float, card: str = "") -> float:
        """The same GEMM in a training step: the kernel's fraction times the FITTED sustained fraction of
        compute-bound ops in a step."""
        return self.gemm_kernel_fraction(arch, m, n, k, sms, card) * self.sustained.get(arch, 1.0)


class _Sourced(Strict):
    """A figure with where it comes from (every entry of specs/efficiency.yaml carries its source)."""

    value: float = Field(gt=0)
    source: str = Field(min_length=1)
    quote: str | None = None
    note: str | None = None


class _Fraction(_Sourced):
    value: float = Field(gt=0, le=1)


class _MeasuredOn(Strict):
    """The chip a measured figure was measured on, by compute capability, and where that capability is read."""

    compute_capability: float = Field(gt=0)
    source: str = Field(min_length=1)


class _GemmFraction(_Fraction):
    # the chip of the quote's row; left out where the figure is an UNCONFIRMED assumption (no chip measured it)
    measured_on: _MeasuredOn | None = None

    @model_validator(mode="after")
    def _measured_or_assumed(self) -> _GemmFraction:
        if (self.measured_on is None) != self.source.startswith("UNCONFIRMED"):
            raise ValueError("a measured fraction names the chip it was measured on (measured_on) and an UNCONFIRMED "
                             "one names none")  # fmt: skip
        return self


class _Tile(Strict):
    m: int = Field(gt=0)
    n: int = Field(gt=0)
    source: str = Field(min_length=1)


class _Elementwise(Strict):
    hidden: float = Field(ge=0)
    ffn: float = Field(ge=0)
    qk: float = Field(ge=0)
    source: str = Field(min_length=1)


class _LossBytes(Strict):
    standard: float = Field(gt=0)
    chunked: float = Field(gt=0)
    source: str = Field(min_length=1)


class _Launch(Strict):
    eager_us: _Sourced
    fused_us: _Sourced
    kernels_per_layer: _Sourced
    kernels_per_adapter: _Sourced
    kernels_per_dequant: _Sourced


class _Flag(Strict):
    value: bool
    source: str = Field(min_length=1)


Stack = Literal["eager", "fused"]


class EfficiencySpec(Strict):
    """specs/efficiency.yaml as validated at load: a missing, misspelt or unsourced entry fails here, not as a
    KeyError (or a silent default) deep inside a step's timing."""

    schema_version: Literal[1]
    gemm_peak_fraction: dict[str, _GemmFraction]
    gemm_peak_fraction_by_card: dict[str, _GemmFraction] = {}
    tiles: dict[str, _Tile]
    k_fill: _Sourced
    attention_fraction: dict[str, _Fraction]
    attention_fraction_by_compute_capability: dict[float, _Fraction] = {}
    cudnn_attention_fraction_by_compute_capability: dict[float, _Fraction] = {}
    efficient_attention_ratio: _Fraction
    attention_backward_factor: _Sourced
    bandwidth_fraction: _Fraction
    elementwise_bytes: dict[Stack, _Elementwise]
    loss_bytes_per_vocab: _LossBytes
    launch: _Launch
    framework_factor: dict[Stack, _Sourced]
    framework_stack: dict[str, Stack]
    sustained_compute_fraction: dict[str, _Sourced]
    dequant_bandwidth_fraction: _Fraction
    grouped_experts: dict[Stack, _Flag]

    @model_validator(mode="after")
    def _architectures_agree(self) -> EfficiencySpec:
        archs = set(self.gemm_peak_fraction)
        for name in ("tiles", "attention_fraction", "sustained_compute_fraction"):
            if set(getattr(self, name)) != archs:
                raise ValueError(f"{name} names architectures {sorted(getattr(self, name))}, "
                                 f"gemm_peak_fraction {sorted(archs)}")  # fmt: skip
        assumed = [card for card, v in self.gemm_peak_fraction_by_card.items() if v.measured_on is None]
        if assumed:
            raise ValueError(f"gemm_peak_fraction_by_card {assumed}: a card's own fraction is measured on it, "
                             "else its architecture's applies")  # fmt: skip
        return self


def load_efficiency(path: Path | None = None) -> Efficiency:
    raw = yaml.safe_load(safe_read_text(path or specs_dir() / "efficiency.yaml"))
    d = EfficiencySpec.model_validate(raw)
    launch = d.launch
    return Efficiency(
        gemm_peak={k: v.value for k, v in d.gemm_peak_fraction.items()},
        tiles={k: (v.m, v.n) for k, v in d.tiles.items()},
        k_fill=d.k_fill.value,
        attention={k: v.value for k, v in d.attention_fraction.items()},
        attention_by_cc={float(k): v.value for k, v in d.attention_fraction_by_compute_capability.items()},
        cudnn_attention_by_cc={float(k): v.value
                               for k, v in d.cudnn_attention_fraction_by_compute_capability.items()},
        efficient_attention_ratio=d.efficient_attention_ratio.value,
        attention_backward=d.attention_backward_factor.value,
        bandwidth=d.bandwidth_fraction.value,
        elementwise={k: (v.hidden, v.ffn, v.qk) for k, v in d.elementwise_bytes.items()},
        loss_bytes={"standard": d.loss_bytes_per_vocab.standard, "chunked": d.loss_bytes_per_vocab.chunked},
        launch_us={"eager": launch.eager_us.value, "fused": launch.fused_us.value},
        kernels_per_layer=launch.kernels_per_layer.value,
        kernels_per_adapter=launch.kernels_per_adapter.value,
        kernels_per_dequant=launch.kernels_per_dequant.value,
        framework_factor={k: v.value for k, v in d.framework_factor.items()},
        framework_stack=dict(d.framework_stack),
        sustained={k: v.value for k, v in d.sustained_compute_fraction.items()},
        dequant_bandwidth=d.dequant_bandwidth_fraction.value,
        grouped_experts={k: v.value for k, v in d.grouped_experts.items()},
        gemm_measured_on={k: v.measured_on.compute_capability
                          for k, v in d.gemm_peak_fraction.items() if v.measured_on is not None},
        gemm_by_card={k: v.value for k, v in d.gemm_peak_fraction_by_card.items()},
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
