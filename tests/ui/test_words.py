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
