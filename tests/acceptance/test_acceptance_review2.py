"""The acceptance flow as the second review found it (review2 cli 5, 6, 8, 14, 18, 21, 22, 25): an overall result that
is never PASS on a handful of figures, a build with errors refused, verify's exit codes as documented, and the words
of the acceptance figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from configurator.cli import main
from configurator.engine.acceptance import collect, verify
from configurator.paths import resource

DEFAULT = str(resource("builds", "default.yaml"))
ERRORS = str(resource("builds", "mixed-with-errors.yaml"))
# what the kit writes on a machine without the tools (configurator burnin's run.sh): its report.txt
KIT_REPORT = (
    "Burn-in of the default build\n"
    "NOT MEASURED: nvidia-smi not found (no NVIDIA driver on this machine): card identity, memory, power limits\n"
    "NOT MEASURED: torch not importable by python3: job peak memory and step time\n"
    "NOT MEASURED: wall draw: read the meter during the nccl-tests or jobs and write it into wall-meter.txt\n"
)


def _kit_folder(tmp_path: Path, wall: str) -> Path:
    folder = tmp_path / "kitres"
    folder.mkdir()
    (folder / "report.txt").write_text(KIT_REPORT)
    (folder / "wall-meter.txt").write_text(wall)
    return folder


def test_one_wall_reading_is_incomplete_and_a_low_reading_warns(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The kit's folder on a machine without the tools, then a wall reading 79 % under the prediction: not PASS with
    exit 0 (19 of 20 figures never measured) but INCOMPLETE with exit 4, and the reading warned as no load."""
    folder = _kit_folder(tmp_path, "812 W\n")
    assert main(["verify", DEFAULT, str(folder), "--store-dir", str(tmp_path)]) == 4
    out = capsys.readouterr().out
    assert out.splitlines()[0].split(": ")[-1].startswith("INCOMPLETE")
    assert "Incomplete: 3 cards were never read by nvidia-smi" in out and "accepts nothing yet" in out
    wall = next(line for line in out.splitlines() if "wall draw under load" in line)
    # the difference in watts, once in parentheses, whole watts (review2 cli 22)
    assert wall.startswith("WARN") and wall.endswith("measured 812 W, difference -3,121 W (-79 %)")
    assert "the load had probably stopped" in out
    kit_lines = out.split("The burn-in kit could not measure:")[1]
    assert "nvidia-smi not found" in kit_lines and "wall draw:" not in kit_lines  # the wall was read after the kit ran


def test_the_result_is_the_engines_and_in_the_json(tmp_path: Path, fixtures: Path, eight_gpu) -> None:  # type: ignore[no-untyped-def]
    """The healthy machine passes with its GEMM probe alone unmeasured; one reading alone is incomplete."""
    _build, _result, pred = eight_gpu
    healthy = verify(pred, collect([fixtures / "healthy-8gpu"]))
    assert healthy.count("missing") > 0 and healthy.result == "pass" and healthy.not_accepted is None
    (tmp_path / "wall-meter.txt").write_text("7000 W\n")
    wall_only = verify(pred, collect([tmp_path / "wall-meter.txt"]))
    assert wall_only.verdict == "pass" and wall_only.result == "incomplete"
    assert json.loads(wall_only.model_dump_json())["result"] == "incomplete"


def test_a_kit_folder_that_measured_nothing_exits_4_not_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The kit's own folder was read (its report.txt): 4 as the help says, not 2 ('no file could be read')."""
    folder = _kit_folder(tmp_path, "")
    assert main(["verify", DEFAULT, str(folder), "--store-dir", str(tmp_path)]) == 4
    assert "Nothing was measured" in capsys.readouterr().out


def test_an_idle_link_is_not_called_downgraded_beside_a_pass(eight_gpu, fixtures: Path) -> None:  # type: ignore[no-untyped-def]
    _build, _result, pred = eight_gpu
    link = next(c for c in verify(pred, collect([fixtures / "healthy-8gpu"])).checks if c.figure == "GPU0 PCIe link")
    assert link.status == "pass" and link.measured == "Gen1 x16 now (idle power saving), capable Gen5 x16"


@pytest.mark.parametrize("command", ["acceptance", "burnin", "verify"])
def test_a_build_with_errors_is_refused_with_its_errors(
    command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, fixtures: Path
) -> None:
    """size exits 1 on this build's 4 errors; acceptance set a 154.5 GB target on a 102.6 GB card and 2,100 W from a
    2,000 W PSU, with exit 0. Now: exit 1, the errors listed, no figures and no kit."""
    extra = {"acceptance": [], "burnin": ["-o", str(tmp_path / "kit")],
             "verify": [str(fixtures / "healthy-8gpu")]}[command]  # fmt: skip
    assert main([command, ERRORS, *extra, "--store-dir", str(tmp_path)] if command != "burnin"
                else [command, ERRORS, *extra]) == 1  # fmt: skip
    out, err = capsys.readouterr()
    assert out == "" and "the build has 4 errors" in err
    for code in ("PSU_OVERLOAD", "PASSIVE_CARD_NEEDS_SERVER_AIRFLOW", "BRIDGE_MIXED_CARDS", "JOB_DOES_NOT_FIT"):
        assert f"ERROR {code}: " in err
    assert not (tmp_path / "kit").exists()


def test_a_build_with_errors_as_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["acceptance", ERRORS, "--json", "--store-dir", str(tmp_path)]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["kind"] == "build-errors" and len(error["problems"]) == 4


def test_acceptance_words_busbw_basis_band_and_assumptions(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Predicted busbw is not '(measured)' (14); the QLoRA job's nvidia-smi band rounds once, as size prints it
    (21); the step band's sources print once, each job's own clause named by job (25)."""
    assert main(["acceptance", DEFAULT, "--store-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "(measured)" not in out
    assert "pass >= 139.2, warn >= 95.7 (basis: typical busbw, published measurements)" in out
    assert main(["size", DEFAULT]) == 0
    size = capsys.readouterr().out
    assert "48.3–61.5 GB" in size and "as nvidia-smi shows it 54.8 GB (48.3–61.5 GB)" in out
    assumptions = out.split("Assumptions:")[1]
    assert assumptions.count("90% of 28 published runs") == 1
    assert "step time, 70B QLoRA: none of the runs is QLoRA as this job is" in assumptions
    assert "step time, 70B LoRA, FSDP over the bridge: none of the runs is timed with cuDNN attention" in assumptions


def test_the_report_pdf_says_incomplete_under_its_result_and_asks_no_customer(tmp_path: Path, default_build) -> None:  # type: ignore[no-untyped-def]
    from configurator.report.sheet_acceptance import verify_html

    _build, _result, pred = default_build
    (tmp_path / "wall-meter.txt").write_text("3800 W\n")
    html = verify_html(verify(pred, collect([tmp_path / "wall-meter.txt"])), "GBC-X", "3 December 2026", "")
    assert "INCOMPLETE</span>" in html and "Accepted by (customer)" not in html
    assert html.index("Incomplete: 3 cards were never read") < html.index("Figures")
