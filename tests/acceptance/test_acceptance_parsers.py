"""The tool-output parsers: the recorded outputs, the variations real tools print, and hostile input (a clear
ParseError, never another exception)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from configurator.engine.acceptance.parse import (
    ParseError,
    detect,
    parse_dcgm,
    parse_lgip,
    parse_lspci,
    parse_measure_json,
    parse_nccl,
    parse_query_csv,
    parse_smi_q,
    parse_topo,
)
from configurator.engine.acceptance.parse.common import bus_id

PARSERS = [
    parse_topo,
    parse_query_csv,
    parse_smi_q,
    parse_lgip,
    parse_lspci,
    parse_nccl,
    parse_dcgm,
    parse_measure_json,
]


def test_topo_with_underlined_header_nic_columns_and_legend(fixtures: Path) -> None:
    t = parse_topo((fixtures / "healthy-8gpu" / "topo.txt").read_text())
    assert t.gpus == list(range(8))
    assert t.link(0, 1) == "NV6" and t.link(0, 4) == "SYS" and t.link(4, 0) == "SYS"
    assert parse_topo((fixtures / "missing-bridge" / "topo.txt").read_text()).link(4, 5) == "PIX"


def test_topo_as_a_dgx_prints_it_with_spaces_and_crlf() -> None:
    text = (
        "        GPU0    GPU1    CPU Affinity    NUMA Affinity\r\n"
        "GPU0     X      NV18    0-51    0\r\nGPU1    NV18     X      0-51    0\r\n\r\nLegend:\r\n  X = Self\r\n"
    )
    assert parse_topo(text).link(1, 0) == "NV18"


def test_query_csv_with_and_without_units(fixtures: Path) -> None:
    gpus = parse_query_csv((fixtures / "gpu-x8" / "query-gpu.csv").read_text())
    assert len(gpus) == 8 and gpus[5].width_current == 8 and gpus[0].width_current == 16
    assert gpus[0].bus_id == "0000:18:00.0" and gpus[0].memory_total_mib == 143771 and gpus[0].power_limit_w == 600
    bare = parse_query_csv("index, name, memory.total [MiB], power.limit [W]\n0, NVIDIA L40S, 46068, [N/A]\n")
    assert bare[0].memory_total_mib == 46068 and bare[0].power_limit_w is None


def test_smi_q_blocks(fixtures: Path) -> None:
    gpus = parse_smi_q((fixtures / "healthy-8gpu" / "smi-q.txt").read_text())
    assert len(gpus) == 8
    g = gpus[3]
    assert (g.name, g.memory_total_mib, g.power_limit_w, g.power_max_limit_w) == ("NVIDIA H200 NVL", 143771, 600, 600)
    assert (g.gen_max, g.gen_current, g.width_current, g.driver) == (5, 1, 16, "570.133.20")
    assert g.bus_id == "0000:5d:00.0" and g.mig_mode == "Disabled"


def test_lspci_links_and_acs(fixtures: Path) -> None:
    devs = parse_lspci((fixtures / "gpu-x8" / "lspci-vv.txt").read_text())
    gpus = [d for d in devs if d.is_nvidia_gpu]
    assert len(gpus) == 8
    assert (gpus[5].sta_width, gpus[5].sta_gen, gpus[5].cap_width) == (8, 5, 16)
    assert gpus[0].sta_gen == 1 and gpus[0].downgraded and gpus[0].cap_gen == 5
    assert not any(d.acs_redirect for d in devs if d.is_bridge)
    acs = parse_lspci((fixtures / "p2p-off" / "lspci-vv.txt").read_text())
    assert sum(1 for d in acs if d.is_bridge and d.acs_redirect) == 8


def test_lspci_without_root_says_so() -> None:
    with pytest.raises(ParseError, match="as root"):
        parse_lspci("41:00.0 3D controller: NVIDIA Corporation GH100 [H200 NVL] (rev a1)\n\tSubsystem: NVIDIA\n")


def test_lgip_rows_and_mig_off() -> None:
    text = (
        "| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |\n"
        "|   0  MIG 1g.18gb       19     7/7        16.00      No     16     1     0   |\n"
        "|   0  MIG 7g.141gb       0     1/1        139.75     No     132    7     0   |\n"
    )
    profiles, on = parse_lgip(text)
    assert on and [(p.name, p.profile_id, p.total, p.memory_gib) for p in profiles] == [
        ("1g.18gb", 19, 7, 16.0),
        ("7g.141gb", 0, 1, 139.75),
    ]
    assert parse_lgip("No MIG-enabled devices found.\n") == ([], False)


def test_nccl_reads_ranks_and_the_large_message_busbw(fixtures: Path) -> None:
    run = parse_nccl((fixtures / "healthy-8gpu" / "nccl" / "all_reduce_gpus-0-4.txt").read_text())
    assert run.ranks == 2 and run.bus_ids == ["0000:18:00.0", "0000:9a:00.0"] and run.wrong == 0
    assert 28.5 < run.busbw_gb_s < 30.0
    everything = parse_nccl((fixtures / "healthy-8gpu" / "nccl" / "all_reduce_gpus-0-1-2-3-4-5-6-7.txt").read_text())
    assert everything.ranks == 8


def test_nccl_wrong_values_are_counted(fixtures: Path) -> None:
    text = (fixtures / "healthy-8gpu" / "nccl" / "all_reduce_gpus-0-1.txt").read_text()
    lines = text.splitlines()
    i = next(n for n, ln in enumerate(lines) if ln.strip().startswith("1073741824"))
    parts = lines[i].split()
    parts[8] = "3"
    lines[i] = "  ".join(parts)
    assert parse_nccl("\n".join(lines)).wrong == 3


def test_dcgm_dmon_exporter_and_csv(fixtures: Path) -> None:
    dmon = parse_dcgm((fixtures / "healthy-8gpu" / "dcgm-dmon.txt").read_text())
    assert len(dmon) == 24 and dmon[0].gpu == 0 and dmon[0].fb_used_mib == 32200 and dmon[0].sm_active == 0.71
    prom = parse_dcgm(
        "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n"
        'DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-1",device="nvidia1",modelName="NVIDIA H200 NVL",'
        'GPU_I_PROFILE="1g.18gb",GPU_I_ID="3",Hostname="h"} 12034\n'
        'DCGM_FI_PROF_SM_ACTIVE{gpu="1",GPU_I_ID="3"} 0.45\n'
    )
    assert [(s.gpu, s.instance, s.fb_used_mib, s.sm_active) for s in prom] == [(1, 3, 12034, 0.45)]
    csv = parse_dcgm("gpu,DCGM_FI_DEV_FB_USED,DCGM_FI_PROF_SM_ACTIVE\n0,1000,0.5\n1,N/A,0.2\n")
    assert csv[1].fb_used_mib is None and csv[1].sm_active == 0.2
    blank = parse_dcgm("#Entity   FBUSD   SMACT\nID\nGPU 0     9223372036854775792   0.1\n")
    assert blank[0].fb_used_mib is None  # DCGM_INT64_BLANK means no data


def test_measure_json_is_validated_by_field() -> None:
    good = {
        "tool": "configurator-measure",
        "format": 1,
        "jobs": [{"name": "j", "status": "ok", "peak_allocated_gb": 3}],
    }
    assert parse_measure_json(json.dumps(good)).jobs[0].peak_allocated_gb == 3
    bad = {**good, "jobs": [{"name": "j", "status": "ok", "peak_allocated_gb": -1}]}
    with pytest.raises(ParseError, match="peak_allocated_gb"):
        parse_measure_json(json.dumps(bad))
    with pytest.raises(ParseError, match="not written by"):
        parse_measure_json('{"runs": []}')
    with pytest.raises(ParseError, match="peak_allocated_gb"):  # NaN: refused by its bounds
        parse_measure_json(json.dumps(good).replace("3}", "NaN}"))
    with pytest.raises(ParseError, match="not JSON"):
        parse_measure_json("[" * 100_000)


def test_detect_each_recorded_output(fixtures: Path) -> None:
    h = fixtures / "healthy-8gpu"
    kinds = {
        n: detect((h / n).read_text(), n)
        for n in ("topo.txt", "query-gpu.csv", "smi-q.txt", "lspci-vv.txt", "mig-lgip.txt", "dcgm-dmon.txt")
    }
    assert kinds == {
        "topo.txt": "topo",
        "query-gpu.csv": "query-csv",
        "smi-q.txt": "smi-q",
        "lspci-vv.txt": "lspci",
        "mig-lgip.txt": "lgip",
        "dcgm-dmon.txt": "dcgm",
    }
    assert detect((h / "nccl" / "all_reduce_gpus-0-1.txt").read_text()) == "nccl"


def test_bus_id_forms() -> None:
    assert (
        bus_id("41:00.0") == bus_id("00000000:41:00.0") == bus_id("0000:41:00.0") == bus_id("[0x41]") == "0000:41:00.0"
    )
    assert bus_id("not a bus") is None


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\n",
        "\x00\x01\x02garbage",
        "GPU0\tGPU1\n",
        "index\n0\n",
        "{" * 5000,
        "9" * 100_000,
        "\n" * 300_000,
        "# nThread 1 nGpus 2\n  8 2 float sum -1 1 1 1 0\n",
    ],
)
def test_hostile_input_gives_a_parse_error(parser, text: str) -> None:  # type: ignore[no-untyped-def]
    try:
        parser(text)
    except ParseError as exc:
        assert str(exc)
    except Exception as exc:  # pragma: no cover - the failure this test exists for
        pytest.fail(f"{parser.__name__} raised {type(exc).__name__}: {exc}")


@pytest.mark.parametrize("parser", PARSERS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from(list('GPU0123456789 \t\n|:.,-xX[]#NVPIXSYSNODE{}"')), max_size=400))
def test_random_text_never_crashes_a_parser(parser, text: str) -> None:  # type: ignore[no-untyped-def]
    with contextlib.suppress(ParseError):
        parser(text)
