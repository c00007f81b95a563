"""The Qt-free helpers the window uses for reliability: per-window autosave with a lock and the build's folder,
validated preferences, and escaping user strings for rich text."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

from configurator.catalog.richtext import escape_rich
from configurator.engine import evaluate
from configurator.engine.model.autosave import AutosaveSlot, orphans
from configurator.engine.model.buildfile import load_build
from configurator.ui.base.settings import OPTIONS

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "resources" / "builds" / "default.yaml"
LLAMA = ROOT / "tests" / "fixtures" / "hf_configs" / "llama-3.1-8b.json"


def test_a_live_windows_autosave_is_never_offered(tmp_path: Path) -> None:
    first, second = AutosaveSlot(tmp_path), AutosaveSlot(tmp_path)
    first.save(load_build(DEFAULT), None)
    assert orphans(tmp_path) == []  # the second window sees the first's autosave as live
    second.release()
    first.release()
    assert orphans(tmp_path) == [] and not list(tmp_path.glob("autosave-*"))


def test_a_crashed_windows_autosave_is_offered_with_its_folder(tmp_path: Path) -> None:
    """A window killed with unsaved edits leaves its autosave; restored, a relative config.json still resolves."""
    project = tmp_path / "project"
    (project / "hf").mkdir(parents=True)
    (project / "hf" / "config.json").write_text(LLAMA.read_text(encoding="utf-8"), encoding="utf-8")
    build_file = project / "build.yaml"
    text = DEFAULT.read_text(encoding="utf-8")
    first_model = next(line for line in text.splitlines() if line.strip().startswith("model:"))
    build_file.write_text(text.replace(first_model, first_model.split(":")[0] + ": hf/config.json", 1), "utf-8")
    store = tmp_path / "autosaves"
    code = (
        "import sys, time\nfrom pathlib import Path\n"
        "from configurator.engine.model.autosave import AutosaveSlot\n"
        "from configurator.engine.model.buildfile import load_build\n"
        f"slot = AutosaveSlot(Path({str(store)!r}))\n"
        f"slot.save(load_build({str(build_file)!r}), Path({str(build_file)!r}))\n"
        "print('saved', flush=True)\ntime.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline().strip() == "saved"
    assert orphans(store) == []  # still running: live
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()
    [orphan] = orphans(store)
    assert orphan.origin == build_file and orphan.base_dir == project
    result = evaluate(orphan.load(), base_dir=orphan.base_dir)
    assert not [c for c in result.checks if c.code == "JOB_MODEL_UNKNOWN"]
    orphan.discard()
    assert orphans(store) == []


def test_bad_preferences_fall_back_with_a_warning(caplog) -> None:  # type: ignore[no-untyped-def]
    """The one settings registry (ui/base/settings.py) holds each setting's type, choices, range and length."""

    def read(key: str, raw: object) -> object:
        return OPTIONS[key].read(raw)

    with caplog.at_level(logging.WARNING, logger="configurator.ui.base.settings"):
        assert read("units", "MB") == "GB"
    assert "units='MB'" in caplog.text
    assert read("units", "GiB") == "GiB"
    assert read("autosave_seconds", "-4") == 30
    assert read("autosave_seconds", "60") == 60
    assert read("autosave_seconds", "9" * 5000) == 30
    assert read("theme", ["dark"]) == "light"
    assert read("page", "a5") == ""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="configurator.ui.base.settings"):
        recent = read("recent_files", ["a.yaml", 5, "", *[f"{i}.yaml" for i in range(50)]])
    assert isinstance(recent, list) and recent[0] == "a.yaml" and len(recent) == 10 and "dropped" in caplog.text
    assert read("seller_name", "x" * 10_000) == ""  # the default: no seller named
    assert read("sheet/customer", "x" * 10_000) == ""


def test_escape_rich_makes_markup_inert() -> None:
    assert escape_rich("<img src='/dev/zero'>") == "&lt;img src=&#x27;/dev/zero&#x27;&gt;"
    assert len(escape_rich("x" * 100_000)) <= 300
    assert "\x00" not in escape_rich("a\x00b")
    json.dumps(escape_rich("\u202e"))
