"""The quick start's pictures (Help > Quick start), cut from an offscreen main window on the default build:
``python -m configurator.ui.shell.help_pictures OUT_FOLDER`` (the shipped ones are in resources/help/).

A module of its own because it opens a main window, which imports the help dialogs: kept in help.py it tied the
two into an import circle."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QRect, QSettings, QStandardPaths, Qt
from PySide6.QtWidgets import QApplication, QWidget

from configurator.engine.model.buildfile import load_build
from configurator.paths import resource
from configurator.ui.base import BuildDocument, Settings, save_image
from configurator.ui.shell.help import TASKS, help_folder
from configurator.ui.shell.main_window import MainWindow


def render_pictures(out: Path) -> list[Path]:
    """The quick start's pictures, cut from an offscreen main window on the default build (1280x800)."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    QStandardPaths.setTestModeEnabled(True)
    settings = Settings(QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat))
    window = MainWindow(BuildDocument(load_build(Path(resource("builds", "default.yaml")))), settings)
    window.remember_geometry = False
    window.setWindowState(Qt.WindowState.WindowNoState)
    window.resize(1280, 800)
    window.show()
    for _ in range(5):
        app.processEvents()
    out.mkdir(parents=True, exist_ok=True)

    def region(*widgets: QWidget) -> QRect:
        rect = QRect()
        for w in widgets:
            rect = rect.united(QRect(w.mapTo(window, w.rect().topLeft()), w.size()))
        return rect

    shots = []
    shots.append((TASKS[0][0], region(window.card_palette, window.chassis_view)))
    window.jobs_dock.raise_()
    for _ in range(3):
        app.processEvents()
    form_top = region(window.jobs_panel)
    shots_jobs = (TASKS[1][0], QRect(form_top.left(), form_top.top(), form_top.width(), min(form_top.height(), 520)))
    save_image(window.grab(shots_jobs[1]).toImage(), out / shots_jobs[0])
    window.cards_dock.raise_()
    for _ in range(3):
        app.processEvents()
    shots.append((TASKS[2][0], region(window.verdict_line, window.analysis_scroll)))
    written = [out / shots_jobs[0]]
    for name, rect in shots:
        save_image(window.grab(rect).toImage(), out / name)
        written.append(out / name)
    window.doc.undo_stack.setClean()
    window.close()
    return written


if __name__ == "__main__":
    for path in render_pictures(Path(sys.argv[1] if len(sys.argv) > 1 else help_folder())):
        print(f"wrote {path}")
