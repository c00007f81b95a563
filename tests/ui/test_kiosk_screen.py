"""The kiosk owns the screen on a bare X server (no window manager, as kiosks often run): it stayed at 853x533
on a 1280x800 screen. On 1920x1080 its chassis shows all 8 slots (it stopped after slot 4 or 5) and its chart
has room; the take-home panel's title wraps instead of being cut and tells a customer what to do, with no
QBasicTimer warnings from the PDF writer's thread."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, qInstallMessageHandler

from tests.shots import SHOTS

PROBE = Path(__file__).with_name("kiosk_probe.py")


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run not installed (apt-get install xvfb)")
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_kiosk_covers_a_bare_x_screen(tmp_path: Path, size: tuple[int, int]) -> None:
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.update(QT_QPA_PLATFORM="xcb", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / ".config"))
    shot = SHOTS / f"kiosk-xvfb-{size[0]}x{size[1]}.png"
    command = ["xvfb-run", "-a", "-s", f"-screen 0 {size[0]}x{size[1]}x24", sys.executable, str(PROBE), str(shot)]
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    report = json.loads(next(line for line in run.stdout.splitlines() if line.startswith("{")))
    assert report["screen"] == list(size)
    assert report["window"] == [0, 0, *size], report  # the whole screen, not two thirds of it
    assert report["frameless"] and report["on_top"]
    assert report["slots"] == 8 and not report["slots_cut"], report  # every slot of the chassis reachable
    assert report["slot_height_px"] >= (26 if size[0] < 1600 else 34), report  # a tap target, readable
    assert report["chart_plot_px"] >= (120 if size[0] < 1600 else 170), report
    assert not report["charts_cut"], report  # the chart's plot, title and legend inside its view
    assert not [m for m in report["messages"] if "QBasicTimer" in m or "propagateSizeHints" in m], report


def test_take_home_panel_wraps_its_title_and_speaks_to_customers(qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.base.settings import Settings
    from configurator.ui.kiosk import DemoWindow

    monkeypatch.setenv("HOME", str(tmp_path))
    messages: list[str] = []
    previous = qInstallMessageHandler(lambda mode, context, text: messages.append(text))
    try:
        demo = DemoWindow(Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)))
        qtbot.addWidget(demo)
        demo.allow_close = True
        demo.resize(1280, 800)
        demo.show()
        qtbot.waitExposed(demo)
        with qtbot.waitSignal(demo.take_home_done, timeout=60_000):
            demo.ui.take_home_button.click()
        qtbot.wait(200)
    finally:
        qInstallMessageHandler(previous)
    panel = demo.take_home_flow.code_panel
    assert panel.title.isVisible() and panel.title.wordWrap()
    assert panel.title.height() >= panel.title.heightForWidth(panel.title.width())  # not cut
    assert "configurator open-code" not in panel.note.text() and "staff" in panel.note.text()
    assert not [m for m in messages if "QBasicTimer" in m], messages
