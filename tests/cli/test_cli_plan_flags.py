"""``configurator plan``'s flags: a measurement file named on the command line that measures nothing, or a node
type the plan lacks, is not buried in the report; --pdf's name and folder are checked before the plan is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.cli import main
from configurator.paths import resource

SEED_B = str(resource("plans", "seed-b-service.yaml"))
LGIP = str(Path(__file__).parents[1] / "planner" / "fixtures" / "rtx-pro-6000-mig-lgip.txt")


def test_an_empty_or_foreign_measurement_file_warns_on_stderr_and_exits_nonzero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert main(["plan", SEED_B, "--mig-lgip", f"RTX PRO 6000 server={empty}"]) == 1
    err = capsys.readouterr().err
    assert f"warning: {empty}: nothing measured" in err and "the file is empty" in err
    foreign = tmp_path / "notes.txt"
    foreign.write_text("just some notes\n")
    assert main(["plan", SEED_B, "--lspci", f"RTX PRO 6000 server={foreign}"]) == 1
    assert f"{foreign}: nothing measured" in capsys.readouterr().err
    assert main(["plan", SEED_B, "--mig-lgip", f"RTX PRO 6000 server={LGIP}"]) == 0  # a real file: fine


def test_an_unknown_node_type_is_a_usage_error_naming_the_flag(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    assert main(["plan", SEED_B, "--mig-lgip", f"Nope={LGIP}"]) == 2
    captured = capsys.readouterr()
    assert "--mig-lgip" in captured.err and "no node type 'Nope'" in captured.err
    assert "measurements[0]" not in captured.err + captured.out and "Recommendation" not in captured.out
    assert main(["plan", SEED_B, "--dcgm", f"RTX PRO 6000 server:Nope={LGIP}"]) == 2
    assert "no job class 'Nope'" in capsys.readouterr().err


def test_pdf_target_is_checked_before_the_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", SEED_B, "--pdf", str(tmp_path / "plan.txt")]) == 2
    captured = capsys.readouterr()
    assert "not one (choose a name ending in .pdf)" in captured.err and captured.out == ""
    assert main(["plan", SEED_B, "--pdf", str(tmp_path / "nope" / "plan.pdf")]) == 2
    captured = capsys.readouterr()
    assert "does not exist" in captured.err and captured.out == ""  # no plan printed before the failure
    keep = tmp_path / "plan.pdf"
    keep.write_text("schema_version: 1\n")
    assert main(["plan", SEED_B, "--pdf", str(keep)]) == 2 and keep.read_text() == "schema_version: 1\n"
