"""The command line finds its commands: the top-level help names the demo, a mistyped command says so (it went
to the window's parser: 'unrecognized arguments'), and `compare` prints the engine's comparison."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from configurator.cli import main

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
    assert {"job", "what", "left", "right", "better", "delta"} <= set(rows[0])
    assert any(r["what"] == "power" and r["job"] is None for r in rows)
