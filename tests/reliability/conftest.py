"""Fixtures of the hostile-input suite (helpers in hostile.py): a private home for fresh processes, and the
main window on private settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.hostile import DEFAULT_BUILD


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "config").mkdir()
    (tmp_path / "data").mkdir()
    return tmp_path


@pytest.fixture
def window(qtbot, tmp_path: Path) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """The main window on the preloaded build and private settings."""
    from PySide6.QtCore import QSettings

    from configurator.engine.model.buildfile import load_build
    from configurator.ui.shell import BuildDocument, MainWindow, Settings

    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    w = MainWindow(BuildDocument(load_build(DEFAULT_BUILD)), settings)
    qtbot.addWidget(w, before_close_func=lambda x: x.doc.undo_stack.setClean())
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.doc.undo_stack.setClean()
