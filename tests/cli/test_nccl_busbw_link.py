"""nccl-busbw names the link its calibration is for and refuses a figure no such link carries (review2 cli 8: an
NVLink run's 170.8 GB/s was suggested as a PCIe calibration, the default link unsaid, and --json refused)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from configurator.cli import main

NCCL_X8 = Path(__file__).resolve().parents[1] / "fixtures" / "acceptance" / "gpu-x8"
NCCL_X8 = NCCL_X8 / "nccl" / "all_reduce_gpus-2-3.txt"


def test_nccl_busbw_refuses_an_nvlink_figure_as_pcie(capsys: pytest.CaptureFixture[str]) -> None:
    """170.8 GB/s over the default --link pcie was suggested as a PCIe calibration (PCIe Gen5 x16: 64 GB/s)."""
    assert main(["nccl-busbw", str(NCCL_X8)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "170.8 GB/s is more than a pcie link can carry" in err and "--link nvlink" in err
    assert main(["nccl-busbw", str(NCCL_X8), "--link", "nvlink", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["link"] == "nvlink" and got["calibration"] == [
        {"link": "nvlink", "busbw_gb_s": 170.8, "source": "all_reduce_gpus-2-3.txt"}
    ]


def test_nccl_busbw_says_its_default_link_and_warns_above_gen5(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row = "   134217728   33554432   float   sum   -1   1000.0  134.22  {bw}   0   1000.0  134.22  {bw}  0\n"
    log = tmp_path / "allreduce.txt"
    log.write_text(row.format(bw="40.1"))
    assert main(["nccl-busbw", str(log)]) == 0
    out, err = capsys.readouterr()
    assert "40.1 GB/s over pcie (the default: give --link for another link)" in out and err == ""
    log.write_text(row.format(bw="90.0"))
    assert main(["nccl-busbw", str(log), "--link", "pcie"]) == 0
    out, err = capsys.readouterr()
    assert "over pcie\n" in out and err.startswith("warning: 90.0 GB/s is above PCIe Gen5 x16's 64 GB/s")
