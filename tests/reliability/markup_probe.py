"""Run by test_rel_markup.py in a fresh process: a build whose name and jobs are ``<img src='/dev/zero'>`` shown
through every tab, the Jobs tab, the checks and the compare dialog, each drawn
(``grab``). Qt rendering such a name as HTML reads /dev/zero for ever (std::bad_alloc, an abort): the process
must exit 0. Not a test module (no test_ prefix): the test runs it with a timeout."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

HOSTILE = "<img src='/dev/zero'>"


def main(folder: str) -> int:
    app = QApplication([])
    from configurator.engine.model.buildfile import load_build
    from configurator.paths import resource
    from configurator.ui.base import BuildDocument, Settings
    from configurator.ui.jobs import CompareDialog
    from configurator.ui.shell import MainWindow

    build = load_build(resource("builds", "default.yaml"))
    jobs = [j.model_copy(update={"name": f"{HOSTILE}{i}"}) for i, j in enumerate(build.jobs)]
    build = build.model_copy(update={"jobs": jobs, "name": HOSTILE})
    settings = Settings(QSettings(os.path.join(folder, "settings.ini"), QSettings.Format.IniFormat))
    settings.set("seller_name", HOSTILE)
    window = MainWindow(BuildDocument(build), settings)
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    window.view.set_job(window.doc.build.jobs[0].name)  # the charts title the selected job (the audit checks every job)
    for i in range(window.analysis.count()):
        window.analysis.setCurrentIndex(i)
        app.processEvents()
        window.grab()
    dialog = CompareDialog(window.doc, window)
    dialog.show()
    dialog.use_swap("h200-nvl", "rtx-pro-6000-server")
    app.processEvents()
    dialog.grab()
    window.doc.undo_stack.setClean()
    print("drawn")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
