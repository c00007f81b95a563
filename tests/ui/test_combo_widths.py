"""Review 2 #22: drop-downs cut short where the row has room (the MIG card box) or cut at the end so two names
read alike (the Chassis box): sized to their entries, cut in the middle where they must be cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths

from tests.gui_helpers import make_window
from tests.paths import BUILDS

SHOTS = Path(__file__).resolve().parents[2] / "out" / "screens"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_mig_card_box_shows_the_whole_card_at_1920(qtbot, tmp_path: Path, theme: str) -> None:  # type: ignore[no-untyped-def]
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path, BUILDS / "seed-mig-four-tenants.yaml")
    window.set_dark(theme == "dark")
    window.resize(1920, 1080)
    window.analysis.setCurrentWidget(window.mig_editor)
    box = window.mig_editor.card_box
    assert box.currentText().startswith("Slot 1: RTX PRO 6000 Server")
    qtbot.waitUntil(lambda: window.mig_editor.top_rows.width() > 700)  # the tab laid out at the window's width
    assert box.shown_text() == box.currentText()
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(SHOTS / f"mig-card-box-1920-{theme}.png"))
    window.resize(1024, 768)
    qtbot.wait(50)
    window.grab().save(str(SHOTS / f"mig-card-box-1024-{theme}.png"))
    window.set_dark(False)


def test_chassis_box_cuts_in_the_middle(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    box = window.card_palette.chassis_box
    box.setCurrentIndex(box.findText("Generic HGX H100/H200 8-GPU server"))
    box.resize(box.minimumSizeHint())  # as narrow as the dock may make it
    shown = box.shown_text()
    assert shown.startswith("Generic") and shown.endswith("server"), shown
