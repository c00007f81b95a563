"""``configurator planner [PLAN.yaml] [--screenshot FILE.png --size WxH]``: the planner window on its own.
"Open as build" then opens the build editor with the candidate node."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from configurator.ui.shell.app import NO_DISPLAY, has_display, window_args  # the standard library only


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="configurator planner", description="the service planner window")
    parser.add_argument("plan", nargs="?", type=Path, help="plan YAML (default: the shipped example service plan)")
    parser.add_argument("--screenshot", type=Path, metavar="FILE.png", help="render the window to a PNG and exit")
    parser.add_argument("--size", default="1920x1080", help="window size for --screenshot, WIDTHxHEIGHT")
    args = parser.parse_args(argv)
    size = window_args(args, parser)
    if size is None:
        return 2
    width, height = size

    if args.screenshot and not has_display():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if not has_display():
        print(NO_DISPLAY.replace("configurator ", "configurator planner ", 2), file=sys.stderr)
        return 2

    # start-up time: loaded once the display and the arguments are checked (this module runs first)
    from PySide6.QtWidgets import QApplication

    from configurator.catalog.errors import FileError
    from configurator.engine.planner import load_plan
    from configurator.ui.base import PlanDocument, Settings, apply_theme
    from configurator.ui.planner import PlannerWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("configurator")
    app.setOrganizationName("GPU Build Configurator")
    # the saved View > Dark theme, as the main window applies it (its screenshot was light in a dark setting)
    apply_theme(Settings().get("theme") == "dark")
    try:
        doc = PlanDocument(load_plan(args.plan), args.plan) if args.plan else None
    except FileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    editors: list[object] = []

    def open_build(build):  # type: ignore[no-untyped-def]
        # start-up time: loaded once the display and the arguments are checked (this module runs first)
        from configurator.ui.base import BuildDocument
        from configurator.ui.shell import MainWindow

        editor = MainWindow(BuildDocument(build))
        editors.append(editor)  # keep it alive
        editor.show()

    window = PlannerWindow(doc, open_build)
    if args.screenshot:
        window.resize(width, height)
        window.show()
        window.wait_for_plan()
        app.processEvents()
        # start-up time: loaded once the display and the arguments are checked (this module runs first)
        from configurator.ui.base import write_screenshot

        status = write_screenshot(window, args.screenshot)
        window.doc.undo_stack.setClean()
        window.close()
        return status
    window.show()
    return app.exec()
