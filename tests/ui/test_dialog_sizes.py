"""Every window and dialog on screens from 1024x768 to 2560x1440, in both themes: each fits its screen and shows
its charts' plots, titles and legends whole and no widget cut (the planner opened at 1440x900 on any screen and
cut the right half of its charts at 1024x768; the compare dialog opened at 1200x760). Each screen is a real one of
that size (Qt's offscreen platform, configured), so the windows size themselves as on a first start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shots import SCREENS, SHOTS

PROBE = Path(__file__).with_name("dialogs_probe.py")


@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_windows_and_dialogs_fit_each_screen(tmp_path: Path, size: tuple[int, int]) -> None:
    config = tmp_path / "screen.json"
    screen = {"name": "probe", "x": 0, "y": 0, "width": size[0], "height": size[1], "logicalDpi": 96,
              "logicalBaseDpi": 96, "dpr": 1}  # fmt: skip
    config.write_text(json.dumps({"screens": [screen], "windowFrameMargins": False}))  # no window manager
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    run = subprocess.run([sys.executable, str(PROBE), str(SHOTS)], env=env, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    reports = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    assert len(reports) == 10
    for report in reports:
        assert report["fits_screen"], report
        assert not report["charts_cut"], report
        assert not report["clipped"], report
