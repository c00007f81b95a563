"""Every file the app opens goes through the safe reader or opener (non-blocking, regular files only, a size
limit): a FIFO or a device in place of a settings file, an autosave lock, a scenarios file or a take-home
build never blocks a start. The AST scan in test_rel_writer.py keeps plain open() out of the package."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from configurator.catalog.errors import FileError
from configurator.catalog.fileio import open_regular, regular_or_absent
from tests.reliability.hostile import DEFAULT_BUILD, run_fresh


@pytest.mark.timeout(20)  # a hang guard: the old plain open() of the lock waited for a writer for ever
def test_a_fifo_as_an_autosave_lock_never_blocks(tmp_path: Path) -> None:
    from configurator.engine.model.autosave import AutosaveSlot, orphans

    (tmp_path / "autosave-1-abc.yaml").write_bytes(DEFAULT_BUILD.read_bytes())
    os.mkfifo(tmp_path / "autosave-1-abc.lock")
    assert orphans(tmp_path) == []  # not offered (nobody's lock can be read), and not waited on
    slot = AutosaveSlot(tmp_path)  # a new window still claims its own slot
    slot.release()


@pytest.mark.timeout(20)
def test_an_autosave_lock_that_is_a_fifo_is_never_claimed(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import configurator.engine.model.autosave as autosave

    monkeypatch.setattr(autosave.secrets, "token_hex", lambda n: "fixed")
    os.mkfifo(tmp_path / f"autosave-{os.getpid()}-fixed.lock")
    with pytest.raises(FileError, match=r"FIFO|File exists"):
        autosave.AutosaveSlot(tmp_path)


def test_a_fifo_as_the_settings_file_never_blocks_a_start(home: Path) -> None:
    """QSettings opened it blocking: every window start hung. Checked in a fresh process (a hang is the risk)."""
    folder = home / "config" / "GPU Build Configurator"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "configurator.ini")
    code = ("from configurator.ui.base.settings import Settings\n"
            "s = Settings()\nprint('problem:', s.problem)\nprint('units:', s.get('units'))\n")  # fmt: skip
    proc = run_fresh(["-c", code], home)
    assert proc.returncode == 0, proc.stderr
    assert "FIFO" in proc.stdout and "units: GB" in proc.stdout


@pytest.mark.parametrize("kind", ["folder", "fifo", "big"])
def test_an_unusable_settings_file_is_named_and_not_read(tmp_path: Path, monkeypatch, kind: str, qapp) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.base import settings as settings_module

    path = tmp_path / "configurator.ini"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.write_text("[demo]\npin=" + "1" * 2_000_000 + "\n", encoding="utf-8")
    monkeypatch.setattr(settings_module, "settings_file", lambda: path)
    s = settings_module.Settings()
    assert s.problem is not None and str(path) in s.problem
    assert s.get("units") == "GB"
    if kind == "fifo":  # the window says so (once is enough for the three kinds)
        from configurator.engine.model.buildfile import load_build
        from configurator.ui.base import BuildDocument
        from configurator.ui.shell import MainWindow
        from tests.reliability.hostile import DEFAULT_BUILD as BUILD

        window = MainWindow(BuildDocument(load_build(BUILD)), s)
        assert "Settings not read" in window.statusBar().currentMessage()
        window.deleteLater()


@pytest.mark.timeout(20)
def test_a_scenarios_file_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    from configurator.ui.kiosk.scenarios import load_scenarios

    fifo = tmp_path / "scenarios.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="FIFO"):
        load_scenarios(fifo)


@pytest.mark.timeout(20)
def test_a_take_home_code_never_reads_a_fifo(tmp_path: Path, qapp) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.kiosk.takehome import _other_build_under

    os.mkfifo(tmp_path / "K7Q2MX.yaml")
    assert _other_build_under(tmp_path / "K7Q2MX.yaml", "text") is True  # taken: the next code is used
    assert _other_build_under(tmp_path / "ABCDEF.yaml", "text") is False


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_the_safe_opener_refuses_what_is_not_a_file(tmp_path: Path, kind: str) -> None:
    path = {"device": Path("/dev/zero"), "folder": tmp_path}.get(kind, tmp_path / "pipe")
    if kind == "fifo":
        os.mkfifo(path)
    with pytest.raises(FileError):
        os.close(open_regular(path))
    assert regular_or_absent(path) is not None
    assert regular_or_absent(tmp_path / "absent") is None
