"""Words a user reads: no project jargon ("as the seeds"), no stale states."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QComboBox, QLabel

from configurator.ui.base.settings import Settings
from configurator.ui.shell.preferences import PreferencesDialog


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
    from configurator.engine.model.build import Build
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


def test_mig_profile_reads_its_names_size() -> None:
    """1g.18gb was shown as "16.5 GB nominal" (an article's figure) beside its own name."""
    from configurator.present.words import mig_profile_gb

    assert mig_profile_gb("1g.18gb", 16.5) == 18
    assert mig_profile_gb("1g.18gb+me", 16.5) == 18
    assert mig_profile_gb("4g.96gb", 96) == 96
    assert mig_profile_gb("odd", 7.5) == 7.5


def test_mig_palette_says_the_names_size(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from configurator.catalog.loader import default_catalog
    from configurator.ui.mig.palette import profile_text

    card = default_catalog().cards["h200-nvl"]
    small = next(p for p in card.mig.profiles if p.name == "1g.18gb")
    assert "18 GB nominal" in profile_text(small) and "16.5" not in profile_text(small)


def test_chassis_heading_in_plain_words(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """'2 CPU socket(s)', 'rating n/p': the chassis heading counts in words."""
    from PySide6.QtWidgets import QGraphicsSimpleTextItem, QGraphicsTextItem

    from tests.gui_helpers import make_window

    window = make_window(qtbot, tmp_path)
    texts = []
    for item in window.chassis_view.scene().items():
        if isinstance(item, QGraphicsSimpleTextItem):
            texts.append(item.text())
        elif isinstance(item, QGraphicsTextItem):
            texts.append(item.toPlainText())
    heading = " ".join(texts)
    assert "2 CPU sockets" in heading and "(s)" not in heading and "n/p" not in heading


def test_checks_list_shows_no_upper_case_codes(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import re

    from configurator.engine.model.buildfile import load_build
    from tests.gui_helpers import make_window

    window = make_window(qtbot, tmp_path)
    window.doc.replace(load_build(Path(__file__).resolve().parents[2] / "resources/builds/mixed-with-errors.yaml"),
                       None)  # fmt: skip
    lines = [window.checks.item(i).text() for i in range(window.checks.count())]
    assert len(lines) > 3
    assert not [t for t in lines if re.search(r"\b[A-Z]+_[A-Z_]+\b", t)], lines
    assert "Check bridge-" in window.checks.item(1).toolTip()  # the code, for support, in the tooltip
