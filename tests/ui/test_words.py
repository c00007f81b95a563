"""Words a user reads: no project jargon ("as the seeds"), no stale states."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QComboBox, QLabel

from configurator.ui.shell.preferences import PreferencesDialog
from configurator.ui.shell.settings import Settings


def test_preferences_say_what_gb_means_without_jargon(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    dialog = PreferencesDialog(settings)
    qtbot.addWidget(dialog)
    texts = [w.text() for w in dialog.findChildren(QLabel)]
    texts += [box.itemText(i) for box in dialog.findChildren(QComboBox) for i in range(box.count())]
    assert not [t for t in texts if "seeds" in t.lower()]
    assert any(t.startswith("GB (10⁹ bytes") for t in texts)


def test_screenshot_leaves_the_users_window_size_alone(tmp_path: Path) -> None:
    """`--screenshot --size 1024x700` wrote 1024x700 as the window's geometry into the user's settings."""
    import os
    import subprocess
    import sys

    home = tmp_path / "home"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    shot = tmp_path / "shot.png"
    run = subprocess.run([sys.executable, "-m", "configurator", "--screenshot", str(shot), "--size", "1024x700"],
                         env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    written = [p for p in home.rglob("*") if p.is_file() and "geometry" in p.read_text(errors="ignore")]
    assert not written, [p.read_text(errors="ignore")[:300] for p in written]
