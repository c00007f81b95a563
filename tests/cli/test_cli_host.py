"""``configurator size`` carries the host: RAM and NVMe needed, the DIMM and drive lines, in text and in JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from configurator.cli import main

OFFLOAD_BUILD = """\
name: host
chassis: generic-server-8
cards: [{slot: 1, card: h200-nvl}, {slot: 2, card: h200-nvl}]
jobs:
  - {name: z3, model: llama-3.1-8b, method: full, parallelism: zero3, offload: cpu, checkpoints_kept: 3,
     cards: [1, 2]}
"""


@pytest.fixture
def build_file(tmp_path: Path) -> Path:
    path = tmp_path / "host.yaml"
    path.write_text(OFFLOAD_BUILD)
    return path


def test_size_text_names_the_host_need_and_parts(build_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["size", str(build_file)]) == 0
    out = capsys.readouterr().out
    assert "Host RAM: 281 GB needed, at most 8,796 GB in this chassis" in out
    # picked: one DIMM per channel of the two 8-channel sockets; 16 x 16 GiB = 275 GB is short of 281 GB
    assert "part dimm-32gb: 16 × DDR5 RDIMM, 32 GB" in out
    assert "process runtime, 2 × 3 GB (ASSUMPTION)" in out and "the host: OS and services (ASSUMPTION, 8 GB)" in out
    assert re.search(r"NVMe: 3\d\d GB needed, 8 bays in this chassis", out) and "part nvme-1.92tb: 1 × NVMe SSD" in out
    assert "z3: checkpoints (3 kept)" in out and "Transformers Trainer _save_checkpoint" in out


def test_size_json_carries_the_host(build_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["size", "--json", str(build_file)])
    data = json.loads(capsys.readouterr().out)
    host = data["host"]
    assert host["dimms"]["part_id"] == "dimm-32gb" and host["dimms"]["count"] == 16 and not host["dimms"]["stated"]
    assert host["drives"]["part_id"] == "nvme-1.92tb"
    assert host["ram_need_gb"] == pytest.approx(sum(t["gb"] for t in host["ram_terms"]))
    job = data["jobs"][0]
    assert {t["what"] for t in job["host_ram"]} == {
        "model loading: one 5.0 GB checkpoint shard per process", "process runtime, 2 × 3 GB (ASSUMPTION)",
        "offloaded states", "data loader batches (pinned)", "checkpoint staging"}  # fmt: skip
    assert all(t["source"] for t in job["host_ram"] + job["host_nvme"])


def test_size_exits_1_when_stated_dimms_are_short(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "short.yaml"
    path.write_text(OFFLOAD_BUILD + "host: {dimms: {count: 4, size_gb: 32}}\n")
    assert main(["size", str(path)]) == 1
    assert "HOST_RAM_SHORT" in capsys.readouterr().out
