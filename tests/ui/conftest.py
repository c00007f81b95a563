"""Fixtures of the window tests: a first start on a screen of a given size and theme, screenshots for review."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSettings, QStandardPaths
from PySide6.QtWidgets import QApplication

from tests.shots import SCREENS, SHOTS, save_shot  # noqa: F401  (the fixtures below use them)


@pytest.fixture
def first_start(qtbot, tmp_path: Path) -> Callable:  # type: ignore[no-untyped-def]
    """``first_start((w, h), theme)``: the main window as a first start makes it on a ``w`` x ``h`` screen (no saved
    geometry: ``default_geometry`` of that screen), in ``theme``, shown and laid out."""
    from configurator.cli import default_build_path
    from configurator.engine.model.buildfile import load_build
    from configurator.ui.base.document import BuildDocument
    from configurator.ui.base.settings import Settings
    from configurator.ui.shell import layout
    from configurator.ui.shell.main_window import MainWindow

    QStandardPaths.setTestModeEnabled(True)
    made = []

    def make(size: tuple[int, int], theme: str = "light", build: Path | None = None) -> MainWindow:
        settings = Settings(QSettings(str(tmp_path / f"settings-{len(made)}.ini"), QSettings.Format.IniFormat))
        settings.set("theme", theme)
        window = MainWindow(BuildDocument(load_build(build or default_build_path())), settings)
        qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
        window.setGeometry(layout.default_geometry(QRect(0, 0, *size), window.minimumSize()))
        window.show()
        qtbot.waitExposed(window)
        qtbot.wait(20)
        made.append(window)
        return window

    yield make
    # the palette is the application's: the next test starts from the light one
    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.setPalette(app.style().standardPalette())

