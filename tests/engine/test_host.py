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
    # ZeRO-3's zero.Init: one 5 GB checkpoint shard per process while loading; 2 processes x 3 GB runtime (ASSUMPTION)
    assert _term(job.host_ram, "model loading: one 5.0 GB checkpoint shard") == pytest.approx(10.0)
    assert _term(job.host_ram, "process runtime") == pytest.approx(6.0)
    assert result.host.ram_need_gb == pytest.approx(sum(t.gb for t in job.host_ram) + 8.0)  # + the OS (ASSUMPTION)
    # 32 B x 8.03 B parameters = 256.97 GB, + 10 + 6 + 8 = 280.97 GB (the 2 x 2 x 2048 x 24 B batches: 0.0002 GB)
    assert result.host.ram_need_gb == pytest.approx(p * 32 / 1e9 + 24.0, abs=0.001)


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
    assert two.ram_need_gb - 8.0 == pytest.approx(2 * (one.ram_need_gb - 8.0))  # the OS reserve is the build's, once
    # the checkpoints add up; the model's files are one copy in the server's Hugging Face cache, shared by both jobs
    files = _term(two.nvme_terms, "model files of")
    assert two.nvme_need_gb == pytest.approx(2 * one.nvme_need_gb - files)
    shared = [t for t in two.nvme_terms if t.what.startswith("model files of")]
    assert [t.gb for t in shared] == [pytest.approx(files), 0.0] and "shared with job 'z3'" in shared[1].what
    assert [t.shared_with for t in shared] == [None, "z3"]  # the views say whose copy, not '0.00 GB'


def test_parts_are_picked_to_hold_the_need_when_the_build_states_none() -> None:
    host = _evaluate([ZERO3_OFFLOAD]).host
    assert host is not None and host.dimms is not None and host.drives is not None
    assert not host.dimms.stated and host.dimms.count % 2 == 0  # the same per CPU socket
    assert host.dimms.capacity_gb >= host.ram_need_gb
    assert host.dimms.part_id == f"dimm-{host.dimms.size:g}gb"
    assert host.drives.capacity_gb >= host.nvme_need_gb and host.drives.part_id.startswith("nvme-")
    # 281 GB of need on two 8-channel Xeons: one DIMM in each of the 16 channels; 16 x 16 GiB = 275 GB is short,
    # 16 x 32 GiB = 550 GB holds it
    assert (host.dimms.count, host.dimms.size) == (16, 32)


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


# ------------------------------------------------ model loading, the processes' runtime, the channels filled
LORA_70B_FSDP = {"name": "l", "model": "llama-3.3-70b", "method": "lora", "parallelism": "fsdp", "cards": [1, 2]}
LLAMA_70B = 70_553_706_496  # parameters (the catalog's exact count, config.json shapes)


def test_fsdp_without_cpu_ram_efficient_loading_loads_the_model_in_every_process() -> None:
    """Accelerate's default (FSDP_CPU_RAM_EFFICIENT_LOADING unset: False): each of the 2 processes holds the whole
    16-bit model on the CPU before sharding: 2 x 2 B x 70.55 B = 282.21 GB."""
    job = _evaluate([LORA_70B_FSDP]).jobs[0]
    assert job.params_total == LLAMA_70B
    assert _term(job.host_ram, "model loading: the whole model in each of 2") == pytest.approx(282.2148, abs=1e-3)


def test_fsdp_with_cpu_ram_efficient_loading_loads_it_on_rank_0_only() -> None:
    on = {**LORA_70B_FSDP, "behaviour": {"cpu_ram_efficient_loading": True}}
    result = _evaluate([on])
    job = result.jobs[0]
    assert _term(job.host_ram, "model loading: the whole model on rank 0") == pytest.approx(141.1074, abs=1e-3)
    assert result.host is not None
    # 141.11 load + 6 runtime + 2.485 checkpoint staging (LoRA adapters and Adam) + 8 OS = 157.6 GB
    assert result.host.ram_need_gb == pytest.approx(141.1074 + 6 + 8 + _term(job.host_ram, "checkpoint staging"),
                                                    abs=1e-3)  # fmt: skip
    # rank 0 only makes sense with several ranks: one card loads the whole model either way
    single = _evaluate([{**on, "parallelism": "single", "cards": [1]}], n=1).jobs[0]
    assert _term(single.host_ram, "model loading: the whole model in its one process") == pytest.approx(141.1074,
                                                                                                     abs=1e-3)


def test_qlora_loads_one_checkpoint_shard_at_a_time() -> None:
    """bitsandbytes quantises each safetensors shard on the card as it loads: 5 GB (huggingface_hub's
    MAX_SHARD_SIZE) per process, not the 141 GB model."""
    job = _evaluate([{"name": "q", "model": "llama-3.3-70b", "method": "qlora", "cards": [1]}], n=1).jobs[0]
    assert _term(job.host_ram, "model loading: one 5.0 GB checkpoint shard") == pytest.approx(5.0)
    # a model smaller than a shard: its own size (1 B parameters x 2 B = 2 GB < 5 GB)
    small = _evaluate([{"name": "s", "model": {"parameters": 1e9}, "method": "qlora", "cards": [1]}], n=1).jobs[0]
    assert _term(small.host_ram, "model loading: one 2.0 GB checkpoint shard") == pytest.approx(2.0)


def test_the_default_build_needs_its_model_loads() -> None:
    """resources/builds/default.yaml: the 70B LoRA over two H200 NVL (FSDP, Accelerate's default loading: 282.21 GB)
    and the 70B QLoRA on the RTX PRO 6000 (one 5 GB shard), 3 processes x 3 GB, 2 x 2.485 GB checkpoint staging,
    8 GB for the OS: 309.2 GB, which 16 x 32 GB DIMMs hold (16 x 16 GiB = 275 GB would not), one per channel of the
    two 8-channel sockets. Before the loading and runtime terms it read 5 GB and 2 x 16 GB."""
    from configurator.catalog.fileio import safe_read_text
    from configurator.engine.model.buildfile import parse_build

    path = "resources/builds/default.yaml"
    result = evaluate(parse_build(safe_read_text(path), path))
    host = result.host
    assert host is not None and host.dimms is not None
    assert host.ram_need_gb == pytest.approx(282.2148 + 5 + 9 + 2 * 2.4852 + 8, abs=0.01)
    assert (host.dimms.count, host.dimms.size) == (16, 32)


def test_dimms_fill_every_channel_with_the_smallest_size_that_holds_the_need() -> None:
    gb = GIB / 1e9  # a "16 GB" DIMM holds 16 GiB = 17.18 GB
    # two 8-channel sockets: 16 DIMMs at one per channel; 16 x 16 GiB = 274.9 GB holds 100 GB and 274 GB ...
    assert pick_dimms(100, 32, 256, 2, channels=8) == (16, 16)
    assert pick_dimms(274, 32, 256, 2, channels=8) == (16, 16)
    # ... 281 GB takes 16 x 32 (549.8 GB), 600 GB 16 x 64 (1,099.5 GB)
    assert pick_dimms(281, 32, 256, 2, channels=8) == (16, 32)
    assert pick_dimms(600, 32, 256, 2, channels=8) == (16, 64)
    # beyond 16 x 256 GiB (4,398 GB): two per channel, 32 x 256
    assert pick_dimms(16 * 256 * gb + 1, 32, 256, 2, channels=8) == (32, 256)
    assert pick_dimms(32 * 256 * gb + 1, 32, 256, 2, channels=8) is None
    # two 12-channel EPYCs with 24 slots: 24 x 16 GiB = 412 GB
    assert pick_dimms(300, 24, 256, 2, channels=12) == (24, 16)
    # the channels unknown: today's rule, the least capacity in whole DIMMs per socket
    assert pick_dimms(100, 32, 256, 2) == (6, 16)


def test_a_chassis_with_unknown_channels_keeps_the_least_capacity_rule() -> None:
    """generic-server-8 with its channels removed from the catalog entry: the pick falls back to whole DIMMs per
    socket, the least capacity that holds the 281 GB: 9 x 16 GiB per socket, 18 x 16 GiB = 309 GB (nine DIMMs on
    eight channels: what the channel rule avoids)."""
    from configurator.catalog.loader import default_catalog
    from configurator.engine.memory.host import host_result

    chassis = default_catalog().chassis["generic-server-8"]
    assert chassis.host is not None and chassis.host.memory_channels_per_socket is not None
    blind = chassis.model_copy(update={"host": chassis.host.model_copy(update={"memory_channels_per_socket": None})})
    result = _evaluate([ZERO3_OFFLOAD])
    build = Build.model_validate({"chassis": "generic-server-8",
                                  "cards": [{"slot": s, "card": "h200-nvl"} for s in (1, 2)],
                                  "jobs": [ZERO3_OFFLOAD]})  # fmt: skip
    host = host_result(build, blind, result.jobs)
    assert host.dimms is not None and (host.dimms.count, host.dimms.size) == (18, 16)


def test_a_full_dpo_loads_the_policy_and_its_reference() -> None:
    """DPO of a full fine-tune keeps a frozen reference copy (engine/memory/rl.py keeps_reference), loaded from the
    same checkpoint the same way: ZeRO-3 over 4 cards, one 5 GB shard per process, twice: 40 GB. With LoRA the
    reference is the base without adapters: loaded once, 20 GB."""
    dpo = {"name": "d", "model": "llama-3.1-8b", "method": "full", "objective": "dpo", "parallelism": "zero3",
           "cards": [1, 2, 3, 4]}  # fmt: skip
    full = _evaluate([dpo], n=4).jobs[0]
    assert _term(full.host_ram, "model loading: one 5.0 GB checkpoint shard per process, policy and reference") == (
        pytest.approx(40.0))
    lora = _evaluate([{**dpo, "method": "lora"}], n=4).jobs[0]
    assert _term(lora.host_ram, "model loading: one 5.0 GB checkpoint shard per process") == pytest.approx(20.0)
    assert not any("reference" in t.what for t in lora.host_ram)


GPT_OSS_MXFP4 = {"name": "g", "model": "gpt-oss-20b", "method": "lora", "base_weights": "mxfp4",
                 "lora": {"rank": 8, "targets": "attention"}, "cards": [1]}  # fmt: skip


def test_a_base_kept_in_mxfp4_loads_and_stores_the_bytes_it_ships_in() -> None:
    """gpt-oss-20b ships its experts in MXFP4 (4.25 bits a weight): the load holds what the card holds
    (engine/memory/moe.py base_weight_bytes, 13.8 GB, not 20.9 B x 2 B = 41.8 GB) and the cache the checkpoint as
    published (catalog weight_bytes_as_shipped); a job that dequantises the base to bf16 loads 16-bit weights, but
    the files on disk are still the published MXFP4 ones."""
    from configurator.catalog.loader import default_catalog

    model = default_catalog().models["gpt-oss-20b"]
    kept = _evaluate([GPT_OSS_MXFP4], n=1).jobs[0]
    loaded = _term(kept.host_ram, "model loading: the whole model in its one process, experts in MXFP4")
    assert loaded == pytest.approx(kept.cards[0].weights_gb, rel=1e-6)
    assert loaded < kept.params_total * 2 / 1e9 / 2.9
    files = _term(kept.host_nvme, "model files of gpt-oss-20b")
    assert files == pytest.approx(model.weight_bytes_as_shipped() / 1e9, rel=1e-9) and files < 14.0
    bf16 = _evaluate([{**GPT_OSS_MXFP4, "base_weights": "bf16"}], n=1).jobs[0]
    assert _term(bf16.host_ram, "model loading: the whole model in its one process") == pytest.approx(
        bf16.params_total * 2 / 1e9, rel=1e-6)
    assert _term(bf16.host_nvme, "model files of gpt-oss-20b") == pytest.approx(files)


def test_two_models_of_one_name_keep_their_own_files() -> None:
    """The files are shared by model (its id), not by the name a report shows: two parameter-count models both
    called 'in-house' are two checkpoints on disk."""
    jobs = [{**ZERO3_OFFLOAD, "name": n, "model": {"parameters": size, "name": "in-house"}}
            for n, size in (("a", 7e9), ("b", 13e9))]  # fmt: skip
    host = _evaluate(jobs).host
    assert host is not None
    files = [t for t in host.nvme_terms if t.what.startswith("model files of")]
    assert [round(t.gb) for t in files] == [14, 26] and not any("shared" in t.what for t in files)
    assert all(t.shared_with is None for t in files)
