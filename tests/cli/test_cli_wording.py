"""What `configurator size` prints is customer-facing: no engine constant or code path, one notation per output,
the engine's words for a link, and the card's own source for a check about it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from configurator.cli import main

ROOT = Path(__file__).resolve().parents[2]
BUILDS = ROOT / "resources" / "builds"


def _size(capsys: pytest.CaptureFixture[str], name: str) -> str:
    main(["size", str(BUILDS / f"{name}.yaml")])
    return capsys.readouterr().out


def test_host_sources_name_no_engine_constant(capsys: pytest.CaptureFixture[str]) -> None:
    out = _size(capsys, "default")
    assert "ASSUMPTION_PROCESS_HOST_GB" not in out and "ASSUMPTION_OS_RESERVE_GB" not in out
    assert "engine/" not in out
    assert "(The OS, daemons and the NVIDIA driver's services" in out  # the source itself stays, in words


def test_a_check_names_the_link_as_the_rest_of_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    """COMM_DOMINATES said 'communicating over pcie-sys' where the collectives above it say 'PCIe across CPUs
    (SYS)': the engine's check uses the link words every view uses."""
    out = _size(capsys, "seed-70b-lora-8x-h200-nvl")
    assert "pcie-sys" not in out
    (line,) = [ln for ln in out.splitlines() if "COMM_DOMINATES" in ln]
    assert "communicating over PCIe across CPUs (SYS) against" in line
    assert "over PCIe across CPUs (SYS) at" in out  # the collectives' own rows


def test_a_full_fine_tune_says_all_its_parameters_are_trained(capsys: pytest.CaptureFixture[str]) -> None:
    out = _size(capsys, "seed-full-8b-two-rtx")
    assert "8,030.3 M trainable" not in out
    assert "Llama 3.1 8B (llama-3.1-8b), all 8.03 B parameters trained; method full" in out
    lora = _size(capsys, "default")
    assert "70.55 B parameters, 207.1 M trainable; method lora" in lora  # an adapter's share stays in millions


RATIO_X = re.compile(r"\d(?:\.\d+)?x(?![0-9A-Za-z])")  # '3.6x', '0.84x to 2.64x' (not 'x16', not '8x7B')


@pytest.mark.parametrize("name", ["default", "seed-70b-lora-8x-h200-nvl", "mixed-with-errors"])
def test_one_multiplication_sign_per_output(capsys: pytest.CaptureFixture[str], name: str) -> None:
    """'3.50× compute' in the communication block sat beside '(3.6x)' in the check: × throughout."""
    out = _size(capsys, name)
    assert not RATIO_X.findall(out), RATIO_X.findall(out)
    assert "×" in out
    if name == "seed-70b-lora-8x-h200-nvl":
        (line,) = [ln for ln in out.splitlines() if "COMM_DOMINATES" in ln]
        assert "(3.50× compute)" in line and "3.50× compute, on the critical path" in out  # the same figure


def test_the_plan_report_multiplies_with_one_sign(capsys: pytest.CaptureFixture[str]) -> None:
    main(["plan", str(ROOT / "resources" / "plans" / "seed-b-service.yaml")])
    out = capsys.readouterr().out
    assert not RATIO_X.findall(out), RATIO_X.findall(out)
    assert "Recommendation: 13 × RTX PRO 6000 server (2 of 8 cards in each as 4×1g.24gb)" in out
    assert "Classes × devices" in out


def test_a_passive_card_check_cites_that_cards_own_cooling_source(capsys: pytest.CaptureFixture[str]) -> None:
    """The H200 NVL's airflow error cited 'NVIDIA H100 PCIe product brief': it cites the catalog card's cooling
    source (and its UNCONFIRMED note), in the details."""
    out = _size(capsys, "mixed-with-errors")
    block = out[out.index("PASSIVE_CARD_NEEDS_SERVER_AIRFLOW"):]
    error, details = block.splitlines()[:2]
    assert "NVIDIA H200 NVL in slot 1" in error and "H100" not in error
    assert details.strip().startswith("details: NVIDIA H200 NVL cooling: https://www.nvidia.com/en-us/data-center/h200/")
    assert "UNCONFIRMED" in details and "product brief" not in (error + details).lower()


EMPTY_SLOT_BUILD = """\
name: empty slot
chassis: generic-server-8
cards:
  - {slot: 1, card: rtx-pro-6000-server}
  - {slot: 2, card: rtx-pro-6000-server}
jobs:
  - name: 8B full
    model: llama-3.1-8b
    method: full
    parallelism: fsdp
    cards: [1, 5]
"""


def test_a_jobs_errors_come_before_its_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A job naming an empty slot printed a whole FSDP report on one card, 'DOES NOT FIT', and the cause only in
    the checks at the very end: the job's errors now head its block."""
    path = tmp_path / "empty-slot.yaml"
    path.write_text(EMPTY_SLOT_BUILD, encoding="utf-8")
    assert main(["size", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    head = lines.index("Job: 8B full  [DOES NOT FIT]")
    assert lines[head + 1].startswith("  ERROR JOB_SLOT_EMPTY: Job '8B full' names slot 5, which holds no card")
    figures = next(i for i, ln in enumerate(lines) if ln.startswith("  model "))
    assert head < figures and all(ln.startswith("  ERROR ") for ln in lines[head + 1 : figures])
    assert any(ln.startswith("  ERROR   JOB_SLOT_EMPTY") for ln in lines[figures:])  # the full list keeps it
