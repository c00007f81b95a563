"""Communication (issue 24, item 5): NVLink SHARP all-reduce on NVSwitch, a PCIe pair against a group, NCCL's
latency per collective (alpha + bytes / beta), the calibration still overriding the rate."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from configurator.engine.model.result import JobResult
from configurator.engine.time.communication import collective_rate, latency_s


def test_latency_follows_nccl_ring_model() -> None:
    """NCCL tuning.cc Ring/Simple: 8.4 us + steps x (3.4 us NVLink, 5.7 us PCI)."""
    assert latency_s("all-reduce", 8, "nvswitch") == pytest.approx((8.4 + 14 * 3.4) * 1e-6)
    assert latency_s("all-gather", 8, "nvswitch") == pytest.approx((8.4 + 7 * 3.4) * 1e-6)
    assert latency_s("all-reduce", 2, "pcie") == pytest.approx((8.4 + 2 * 5.7) * 1e-6)


def test_nvls_only_for_all_reduce_on_sharp_switches_and_never_over_a_calibration() -> None:
    assert collective_rate("all-reduce", 8, "nvswitch", 370, "measured", True) == (480.0, "NVLink SHARP (NVLS)")
    # the switch reduces: NVLS's algbw does not grow with n, so on a pair the ring (no reduction) is as fast
    assert collective_rate("all-reduce", 2, "nvswitch", 370, "measured", True)[0] == 370
    assert collective_rate("all-reduce", 4, "nvswitch", 370, "measured", True)[0] == pytest.approx(480 * 8 / 14 * 1.5)
    assert collective_rate("all-gather", 8, "nvswitch", 370, "measured", True)[0] == 370
    assert collective_rate("all-reduce", 8, "nvswitch", 230, "measured", False)[0] == 230  # A100: no SHARP
    assert collective_rate("all-reduce", 8, "nvswitch", 300, "calibrated", True) == (300, "calibrated")


def test_pcie_pair_faster_than_a_group() -> None:
    pair = collective_rate("all-reduce", 2, "pcie", 40, "measured", False)[0]
    group = collective_rate("all-reduce", 4, "pcie", 40, "measured", False)[0]
    assert pair == pytest.approx(1.2 * group)
    assert collective_rate("all-reduce", 2, "pcie", 64, "nominal", False)[0] == 64  # nominal stays nominal


def test_h100_hgx_ddp_all_reduce_runs_at_nvls(one_job: Callable[..., JobResult]) -> None:
    job = {"model": "llama-3.1-8b", "method": "full", "parallelism": "ddp", "optimizer": "adamw-8bit"}
    r = one_job("h100-sxm", job, chassis="hgx-8", slots=8)
    ar = r.communication.collectives[0]
    assert ar.kind == "all-reduce" and ar.rate_gb_s == 480 and "SHARP" in ar.rate_basis
    a100 = one_job("a100-sxm4-80gb", job, chassis="hgx-8", slots=8)
    assert a100.communication.collectives[0].rate_gb_s == 230


def test_tensor_parallel_messages_pay_latency(one_job: Callable[..., JobResult]) -> None:
    """~21 MB per all-reduce (13B, 2,048 tokens x 5,120 x 2 B): the latency is a visible share of each call."""
    job = {"model": "llama-2-13b", "method": "lora", "parallelism": "tp", "tensor_parallel": 8,
           "sequence_length": 2048}  # fmt: skip
    r = one_job("h100-sxm", job, chassis="hgx-8", slots=8)
    fwd = r.communication.collectives[0]
    assert fwd.payload_bytes == pytest.approx(2048 * 5120 * 2)
    bandwidth_only = fwd.bytes_per_card / (fwd.rate_gb_s * 1e9)
    assert fwd.latency_s > 0.2 * bandwidth_only
    assert fwd.seconds == pytest.approx(fwd.latency_s + bandwidth_only)


def test_calibration_still_overrides_the_rate(one_job: Callable[..., JobResult]) -> None:
    job = {"model": "llama-3.1-8b", "method": "full", "parallelism": "ddp", "optimizer": "adamw-8bit"}
    r = one_job("h100-sxm", job, chassis="hgx-8", slots=8, calibration=[{"link": "nvswitch", "busbw_gb_s": 300}])
    ar = r.communication.collectives[0]
    assert ar.rate_gb_s == 300 and ar.rate_basis == "calibrated"
