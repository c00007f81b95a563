"""The host around the cards (engine/memory/host.py, engine/checks/host.py): RAM and NVMe per job and per build,
the DIMMs and drives picked or stated, and the chassis checks."""

from __future__ import annotations

import pytest

from configurator.catalog.units import GIB
from configurator.engine.evaluate import evaluate
from configurator.engine.memory.host import pick_dimms, pick_drives
from configurator.engine.model.build import Build
from configurator.engine.model.result import BuildResult, HostTerm


def _evaluate(jobs: list[dict], chassis: str = "generic-server-8", n: int = 2, **extra: object) -> BuildResult:
    return evaluate(Build.model_validate({"chassis": chassis, **extra,
                                          "cards": [{"slot": s, "card": "h200-nvl"} for s in range(1, n + 1)],
                                          "jobs": jobs}))  # fmt: skip


def _term(terms: list[HostTerm], what: str) -> float:
    return next(t.gb for t in terms if t.what.startswith(what))


ZERO3_OFFLOAD = {"name": "z3", "model": "llama-3.1-8b", "method": "full", "parallelism": "zero3", "offload": "cpu",
                 "cards": [1, 2]}  # fmt: skip


def test_zero3_cpu_offload_keeps_every_state_on_the_host() -> None:
    """ZeRO-3 with offload_optimizer and offload_param cpu: bf16 parameters (2 B), the fp32 gradient partition (4 B)
    and fp32 master + Adam's two moments (12 B) per parameter, all ranks together: 18 B x 8.03 B parameters."""
    result = _evaluate([ZERO3_OFFLOAD])
    job = result.jobs[0]
    p = job.params_total
    assert _term(job.host_ram, "offloaded states") == pytest.approx(p * 18 / 1e9, rel=1e-6)
    # the checkpoint is staged in host memory while written: bf16 weights + fp32 master and moments
    assert _term(job.host_ram, "checkpoint staging") == pytest.approx(p * 14 / 1e9, rel=1e-6)
    assert result.host is not None
    assert result.host.ram_need_gb == pytest.approx(sum(t.gb for t in job.host_ram))
    assert 250 < result.host.ram_need_gb < 260


def test_checkpoints_on_nvme_are_what_the_job_writes_times_how_many_it_keeps() -> None:
    full = _evaluate([{**ZERO3_OFFLOAD, "offload": "none", "checkpoints_kept": 3}]).jobs[0]
    p = full.params_total
    assert _term(full.host_nvme, "checkpoints (3 kept)") == pytest.approx(3 * p * 14 / 1e9, rel=1e-6)
    assert _term(full.host_nvme, "model files") == pytest.approx(p * 2 / 1e9, rel=1e-6)
    # LoRA writes the adapters (fp32) and their Adam states, not the base
    lora = _evaluate([{"name": "l", "model": "llama-3.1-8b", "method": "lora", "cards": [1]}], n=1).jobs[0]
    assert _term(lora.host_nvme, "checkpoints (2 kept)") == pytest.approx(2 * lora.params_trainable * 12 / 1e9)
    assert _term(lora.host_nvme, "checkpoints") < _term(full.host_nvme, "checkpoints") / 100  # 42 M adapter params


def test_zero_infinity_swaps_to_nvme_through_pinned_buffers() -> None:
    job = _evaluate([{**ZERO3_OFFLOAD, "offload": "nvme"}]).jobs[0]
    p = job.params_total
    assert not any(t.what == "offloaded states" for t in job.host_ram)
    # per rank: 5 x 1e8 bf16 parameter elements + 4 fp32 buffers of a 1e9-element sub-group
    assert _term(job.host_ram, "ZeRO-Infinity pinned buffers") == pytest.approx(2 * (1.0 + 16.0))
    assert _term(job.host_nvme, "ZeRO-Infinity swap") == pytest.approx(p * 18 / 1e9, rel=1e-6)
    assert job.host_memory_gb == pytest.approx(34.0)


def test_jobs_of_a_build_add_up() -> None:
    one = _evaluate([ZERO3_OFFLOAD]).host
    two = _evaluate([ZERO3_OFFLOAD, {**ZERO3_OFFLOAD, "name": "z3b"}]).host
    assert one is not None and two is not None
    assert two.ram_need_gb == pytest.approx(2 * one.ram_need_gb)
    assert two.nvme_need_gb == pytest.approx(2 * one.nvme_need_gb)


def test_parts_are_picked_to_hold_the_need_when_the_build_states_none() -> None:
    host = _evaluate([ZERO3_OFFLOAD]).host
    assert host is not None and host.dimms is not None and host.drives is not None
    assert not host.dimms.stated and host.dimms.count % 2 == 0  # the same per CPU socket
    assert host.dimms.capacity_gb >= host.ram_need_gb
    assert host.dimms.part_id == f"dimm-{host.dimms.size:g}gb"
    assert host.drives.capacity_gb >= host.nvme_need_gb and host.drives.part_id.startswith("nvme-")
    # 256 GB of need: 16 x 16 GB, 8 x 32, 4 x 64 and 2 x 128 all hold 275 GB; the most modules fill the most channels
    assert (host.dimms.count, host.dimms.size) == (16, 16)


def test_pick_prefers_the_smallest_capacity_then_fewer_modules() -> None:
    assert pick_dimms(100, 32, 256, 2) == (6, 16)  # 103 GB, the least that holds 100
    assert pick_dimms(100, 4, 256, 2) == (4, 32)  # only four slots: 137 GB
    assert pick_dimms(10_000, 32, 256, 2) is None  # beyond 32 x 256 GiB = 8.8 TB
    assert pick_drives(5000, 8) == (3, 1.92)  # 5.76 TB, the least that holds 5 TB
    assert pick_drives(5000, 2) == (1, 7.68)  # two bays: 2 x 3.84 and 1 x 7.68 tie, the fewer drives
    assert pick_drives(200_000, 8) is None


def test_stated_parts_are_kept_and_checked() -> None:
    result = _evaluate([ZERO3_OFFLOAD], host={"dimms": {"count": 16, "size_gb": 64},
                                              "drives": {"count": 2, "tb": 3.84}})  # fmt: skip
    assert result.host is not None and result.host.dimms is not None and result.host.drives is not None
    assert result.host.dimms.stated and result.host.dimms.count == 16
    assert result.host.dimms.capacity_gb == pytest.approx(16 * 64 * GIB / 1e9)
    assert result.host.drives.part_id == "nvme-3.84tb"
    assert not any(c.code.startswith("HOST_") for c in result.checks)


def test_the_chassis_check_fires_only_beyond_what_the_chassis_holds() -> None:
    # 70B full fine-tune with ZeRO-3 CPU offload on eight cards: 18 B x 70.6 B parameters = 1.27 TB of states,
    # within the generic server's 32 x 256 GB ...
    big = {"name": "big", "model": "llama-3.3-70b", "method": "full", "parallelism": "zero3", "offload": "cpu",
           "cards": list(range(1, 9))}  # fmt: skip
    fits = _evaluate([big], n=8)
    assert not any(c.code == "HOST_MEMORY" for c in fits.checks)
    # ... but not within the AS-4125GS-TNRT's 6.6 TB when four such jobs run at once on its eight cards
    jobs = [{**big, "name": f"big{i}", "cards": [2 * i + 1, 2 * i + 2]} for i in range(4)]
    over = _evaluate(jobs, chassis="supermicro-as-4125gs-tnrt", n=8)
    hits = [c for c in over.checks if c.code == "HOST_MEMORY"]
    assert hits and hits[0].severity == "error"
    assert "more than the 6597 GB" in hits[0].message and "choose a chassis with more DIMM slots" in hits[0].message


def test_the_host_and_checkpoints_kept_survive_the_file_and_the_qr_code() -> None:
    from configurator.engine.model.buildcode import decode_build, encode_build
    from configurator.engine.model.buildfile import build_to_yaml, parse_build

    build = Build.model_validate({"chassis": "generic-server-8", "cards": [{"slot": 1, "card": "h200-nvl"}],
                                  "host": {"dimms": {"count": 8, "size_gb": 64}, "drives": {"count": 2, "tb": 3.84}},
                                  "jobs": [{**ZERO3_OFFLOAD, "checkpoints_kept": 5, "cards": [1]}]})  # fmt: skip
    assert parse_build(build_to_yaml(build), "b.yaml") == build
    assert decode_build(encode_build(build)) == build
