"""Run as a script on an offscreen screen of a given size (QT_QPA_PLATFORM=offscreen:configfile=...): opens the
main window, the compare dialog, the planner, Preferences, the host dialog and the build sheet dialog as a first
start sizes them, in both themes, saves each to OUT and prints one JSON line per window with what is cut."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))


def main(out: Path) -> None:
    app = QApplication(sys.argv[:1])
    QStandardPaths.setTestModeEnabled(True)
    from configurator.cli import default_build_path
    from configurator.engine.model.buildfile import load_build
    from configurator.ui.base.document import BuildDocument
    from configurator.ui.base.settings import Settings
    from configurator.ui.shell.main_window import MainWindow
    from configurator.ui.shell.preferences import PreferencesDialog
    from tests.gui_helpers import charts_cut, clipped

    screen = app.primaryScreen().availableGeometry()
    size = f"{screen.width()}x{screen.height()}"
    out.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        settings = Settings(QSettings(tempfile.mkdtemp() + "/settings.ini", QSettings.Format.IniFormat))
        settings.set("theme", theme)
        window = MainWindow(BuildDocument(load_build(default_build_path())), settings)
        window.show()
        app.processEvents()
        compare = window.compare_dialog()
        planner = window.open_planner()
        preferences = PreferencesDialog(settings, window)
        host = window.host_parts()
        tops = (("main", window), ("compare", compare), ("planner", planner), ("preferences", preferences),
                ("host", host))  # fmt: skip
        for name, top in tops:
            top.show()
            if name == "planner":
                planner.wait_for_plan()
            settle(app, top, charts_cut, clipped)
            top.grab().save(str(out / f"{name}-{size}-{theme}.png"))
            fits = top.frameGeometry().width() <= screen.width() and top.height() <= screen.height()
            report = {"window": name, "theme": theme, "size": [top.width(), top.height()], "fits_screen": fits,
                      "charts_cut": charts_cut(top), "clipped": clipped(top)}  # fmt: skip
            print(json.dumps(report))
        planner.doc.undo_stack.setClean()
        for top in (preferences, compare, planner, host):
            top.close()
        window.doc.undo_stack.setClean()
        window.close()
        app.processEvents()


def settle(app, top, *probes, turns: int = 3, looks: int = 400) -> None:  # type: ignore[no-untyped-def]
    """Let the window's layout settle: event-loop turns until the size and every probe's answer stay the same for
    ``turns`` looks 50 ms apart. A fixed number of turns read layouts half done on a loaded machine (deferred
    relayouts are timers); ``looks`` only bounds a layout that never settles, whose last state is then reported.
    (No clock is read: the waits are Qt's, tests/reliability/test_rel_no_timing.py.)"""
    from PySide6.QtTest import QTest

    last, same = None, 0
    for _ in range(looks):
        for _ in range(4):
            app.processEvents()
        state = (top.size().toTuple(), *(repr(probe(top)) for probe in probes))
        same = same + 1 if state == last else 0
        if same >= turns:
            return
        last = state
        QTest.qWait(50)

if __name__ == "__main__":
    main(Path(sys.argv[1]))
