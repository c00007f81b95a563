"""The command line finds its commands: the top-level help names the demo, a mistyped command says so (it went
to the window's parser: 'unrecognized arguments'), and `compare` prints the engine's comparison."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from configurator.cli import main
from tests.helpers import BAD_BUILD

ROOT = Path(__file__).resolve().parents[2]
BUILDS = ROOT / "resources" / "builds"
H100 = BUILDS / "seed-30b-lora-h100-sxm.yaml"
RTX = BUILDS / "seed-30b-lora-rtx-pro-6000-server.yaml"


def test_top_level_help_names_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--demo" in out and "kiosk" in out and "compare" in out


@pytest.mark.parametrize(("word", "hint"), [("compair", "did you mean 'compare'?"), ("frobnicate", "")])
def test_a_mistyped_command_is_named_with_the_commands(capsys: pytest.CaptureFixture[str], word: str,
                                                       hint: str) -> None:  # fmt: skip
    assert main([word, "a.yaml", "b.yaml"]) == 2
    err = capsys.readouterr().err
    assert f"unknown command '{word}'" in err and hint in err
    assert "commands: size, plan, compare" in err and "unrecognized arguments" not in err


def test_compare_prints_the_engines_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(H100), str(RTX)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Compare: 30B LoRA on one H100 SXM (left) with 30B LoRA on one RTX PRO 6000 Server (right)")
    assert "Job: 30B LoRA" in out
    headroom = next(ln for ln in out.splitlines() if "headroom (GB, smallest card)" in ln)
    assert headroom.split()[-1] == "right"  # the RTX PRO 6000's 96 GB leave more room than the H100's 80 GB
    assert main(["compare", str(H100), str(RTX), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert any(r["what"] == "power" and r["job"] is None for r in rows)
    # review 2 (CLI) #19: numbers under unit-suffixed keys, not display strings
    head = next(r for r in rows if r["job"] == "30B LoRA" and r["what"].startswith("headroom"))
    assert isinstance(head["left_gb"], float) and "left" not in head
    assert head["delta_gb"] == pytest.approx(head["right_gb"] - head["left_gb"])
    framework = next(r for r in rows if r["what"] == "framework")
    assert isinstance(framework["left"], str) and "left_gb" not in framework


def test_compare_json_says_absent_for_a_job_one_build_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    """A job only one build has: null figures and the word 'absent' on the side that lacks it, for headroom and
    step time alike (one said '—', the other 'unknown'), and no difference."""
    assert main(["compare", str(BUILDS / "default.yaml"), str(BUILDS / "seed-13b-tensor-parallel.yaml"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows[0]["job"] is None  # the build-level rows come first
    only_left = {r["what"]: r for r in rows if r["job"] == "70B QLoRA"}
    assert only_left["headroom (GB, smallest card)"]["right"] == "absent" == only_left["step time"]["right"]
    assert only_left["step time"]["right_s"] is None and only_left["step time"]["delta_s"] is None



def test_size_json_reports_bad_input_as_json_on_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`size --json` printed its errors as text on stderr: a script parsing stdout got nothing to parse."""
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_BUILD, encoding="utf-8")
    assert main(["size", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.err == ""
    error = json.loads(captured.out)["error"]
    assert error["kind"] == "bad-input" and error["file"] == str(path)
    (problem,) = error["problems"]
    assert problem["line"] == 8 and problem["field"] == "jobs[0].method" and "'lora'" in problem["message"]
    assert main(["size", str(path)]) == 2  # without --json: the text on stderr, as before
    captured = capsys.readouterr()
    assert captured.out == "" and "jobs[0].method" in captured.err


def test_plan_given_a_build_file_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """It listed six schema errors ('classes: required key is missing', 'chassis: unknown key', ...)."""
    assert main(["plan", str(BUILDS / "default.yaml")]) == 2
    err = capsys.readouterr().err
    assert "this is a build file (chassis, cards, jobs), not a service plan" in err and "configurator size" in err
    assert "required key" not in err and "1 problem" in err
    assert main(["size", str(ROOT / "resources" / "plans" / "seed-b-service.yaml")]) == 2
    err = capsys.readouterr().err
    assert "this is a service plan (classes, nodes), not a build file" in err and "configurator plan" in err
