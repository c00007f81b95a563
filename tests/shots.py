"""Where screenshots for review go and the screen sizes every window is checked at. A helper module, not a test
module (test modules import it; none imports a conftest)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.paths import ROOT

SHOTS = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "out" / "screens"))
SCREENS = [(1024, 768), (1280, 800), (1366, 768), (1920, 1080), (2560, 1440)]


def save_shot(widget, name: str) -> Path:  # type: ignore[no-untyped-def]
    """``widget`` rendered to out/screens/``name``.png for a person to look at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    widget.grab().save(str(path))
    return path
