"""The kiosk PIN never falls back to the shipped default once one was set: a stored PIN that is not valid
(``12ab``, 10 MB of digits) or a settings file that cannot be read locks the demo until staff run
``configurator demo-pin --reset`` (README)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from tests.reliability.hostile import ROOT, run_fresh

DEFAULT_PIN = "2468"


@pytest.fixture(scope="module")
def demo(qapp):  # type: ignore[no-untyped-def]
    """One demo window for the module (a window takes about a second to make); each test gives it settings."""
    from configurator.ui.kiosk import DemoWindow

    window = DemoWindow()
    yield window
    window.allow_close = True
    window.close()
    window.deleteLater()


@pytest.fixture
def demo_with(demo):  # type: ignore[no-untyped-def]
    def use(settings):  # type: ignore[no-untyped-def]
        demo.settings = settings
        demo.allow_close = False
        return demo

    return use


@pytest.mark.parametrize("stored", ["12ab", "1" * 13, "", " 2468"])
def test_an_invalid_stored_pin_locks_the_demo(demo_with, tmp_path: Path, stored: str) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.base import Settings

    q = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    q.setValue("demo/pin", stored)
    demo = demo_with(Settings(q))
    assert demo.pin() is None
    assert not demo.enter_pin(DEFAULT_PIN)  # the shipped default unlocked it before
    assert not demo.allow_close and "demo-pin --reset" in demo.pin_gate.pin_pad.message.text()


def test_a_settings_file_too_large_to_read_locks_the_demo(demo_with, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """10 MB of digits as the PIN: the file is not read, and the demo stays locked."""
    from configurator.ui.base import Settings
    from configurator.ui.base import settings as settings_module

    path = tmp_path / "configurator.ini"
    path.write_text("[demo]\npin=" + "7" * 10_000_000 + "\n", encoding="utf-8")
    monkeypatch.setattr(settings_module, "settings_file", lambda: path)
    demo = demo_with(Settings())
    assert demo.pin() is None and not demo.enter_pin(DEFAULT_PIN)


def test_a_valid_pin_still_leaves_the_demo(demo_with, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.base import Settings

    q = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    q.setValue("demo/pin", "97531")
    demo = demo_with(Settings(q))
    assert not demo.enter_pin(DEFAULT_PIN) and demo.enter_pin("97531")


def test_staff_unlock_with_the_documented_command(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from configurator import cli
    from configurator.ui.base import settings as settings_module

    path = tmp_path / "configurator.ini"
    path.write_text("[demo]\npin=12ab\n", encoding="utf-8")

    class At(settings_module.Settings):  # the user's settings, here
        def __init__(self, settings: QSettings | None = None) -> None:
            super().__init__(settings or QSettings(str(path), QSettings.Format.IniFormat))

    monkeypatch.setattr(settings_module, "settings_file", lambda: path)
    monkeypatch.setattr(settings_module, "Settings", At)
    assert cli.main(["demo-pin"]) == 1 and "locked" in capsys.readouterr().out
    assert cli.main(["demo-pin", "--reset"]) == 0 and DEFAULT_PIN in capsys.readouterr().out
    assert cli.main(["demo-pin"]) == 0
    assert "configurator demo-pin --reset" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_reset_moves_an_unreadable_settings_file_aside(home: Path) -> None:
    """In a fresh process: the settings file is a FIFO (opened blocking, it would hang)."""
    import os

    folder = home / "config" / "GPU Build Configurator"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "configurator.ini")
    code = ("from configurator import cli\n"
            "print('status', cli.main(['demo-pin']))\nprint('reset', cli.main(['demo-pin', '--reset']))\n"
            "print('after', cli.main(['demo-pin']))\n")  # fmt: skip
    proc = run_fresh(["-c", code], home)
    assert "status 1" in proc.stdout and "reset 0" in proc.stdout and "after 0" in proc.stdout, proc.stderr
    assert "aside" in proc.stdout and not (folder / "configurator.ini").is_fifo()
