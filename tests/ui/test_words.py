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


def test_psu_room_counts_only_free_slots() -> None:
    """A full 8-socket HGX read "PSU room for 6 more 700 W cards"."""
    from configurator.present.words import psu_room_label

    assert psu_room_label(4300, 700, free_slots=0) == "4,300 W free; every slot is taken"
    assert psu_room_label(4300, 700, free_slots=2).startswith("room for 2 more 700 W cards")
    assert psu_room_label(4300, 700).startswith("room for 6 more")  # slots unknown: power alone


def test_summary_on_a_full_hgx_offers_no_more_cards(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from configurator.catalog.loader import default_catalog
    from configurator.engine.build import Build
    from configurator.present.words import free_slots
    from tests.gui_helpers import make_window

    catalog = default_catalog()
    hgx = catalog.chassis["hgx-8"]
    cards = [{"slot": p.slot, "card": "h100-sxm"} for p in hgx.positions]
    build = Build.model_validate({"name": "Full HGX", "chassis": hgx.id, "cards": cards})
    assert free_slots(build, catalog) == 0
    window = make_window(qtbot, tmp_path)
    window.doc.replace(build, None)
    text = window.summary.room.text()
    assert "more" not in text and "every slot is taken" in text, text
