"""Builds open whatever they reference: a job whose model config.json was moved, is a folder, a FIFO, a device
or unreadable is shown with the reason (a check on that job, and in the Jobs tab with "Locate config.json…");
the rest of the build works, and File > Open never refuses the whole build for it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from tests.reliability.hostile import DEFAULT_BUILD, LLAMA_CONFIG


def _build_naming(tmp_path: Path, ref: str) -> Path:
    data = yaml.safe_load(DEFAULT_BUILD.read_text(encoding="utf-8"))
    data["jobs"][0]["model"] = ref
    path = tmp_path / "project" / "build.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _make(kind: str, tmp_path: Path) -> str:
    target = tmp_path / "project" / "hf" / "config.json"
    target.parent.mkdir(parents=True)
    if kind == "folder":
        target.mkdir()
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        return "/dev/zero"
    elif kind == "unreadable":
        target.write_text("{", encoding="utf-8")  # as good as unreadable for any user (root reads mode 000)
    return "hf/config.json"  # "moved": nothing there


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["moved", "folder", "fifo", "device", "unreadable"])
def test_open_shows_the_job_with_the_reason_and_a_locate_action(window, tmp_path: Path, kind: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = _build_naming(tmp_path, _make(kind, tmp_path))
    monkeypatch.setattr(window.files, "show_error", lambda *a: pytest.fail(f"the build was refused: {a}"))
    assert window.files.open_path(path)
    job = window.doc.build.jobs[0]
    [check] = [c for c in window.doc.result.checks if c.code == "JOB_MODEL_UNKNOWN"]
    assert check.job == job.name and "validation error" not in check.message
    assert len(window.doc.result.jobs) == 2 and window.doc.result.jobs[1].cards  # the rest works
    panel = window.jobs_panel
    window.jobs_dock.raise_()
    panel.select_job(0)
    panel.catch_up()
    rows = panel.model_rows
    assert rows.locate_button.isVisibleTo(panel) and rows.missing_label.isVisibleTo(panel)
    assert rows.missing_label.text() == check.message
    panel.select_job(1)
    panel.catch_up()
    assert not rows.locate_button.isVisibleTo(panel)  # a job whose model is read has no such row
    panel.select_job(0)
    panel.catch_up()
    # point the job at a real config.json: the check is gone
    good = tmp_path / "llama.json"
    shutil.copy(LLAMA_CONFIG, good)
    assert rows.locate(str(good))
    assert not [c for c in window.doc.result.checks if c.code == "JOB_MODEL_UNKNOWN"]


def test_the_cli_reports_the_same_check(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from configurator import cli

    path = _build_naming(tmp_path, _make("folder", tmp_path))
    assert cli.main(["size", str(path)]) == 1
    assert "JOB_MODEL_UNKNOWN" in capsys.readouterr().out
