"""Starting the window: ``configurator [BUILD.yaml]`` and ``configurator --screenshot FILE.png``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from configurator.ui.shell.main_window import MainWindow

NO_DISPLAY = (
    "No display found (DISPLAY and WAYLAND_DISPLAY are unset), so the window cannot open.\n"
    "  Headless: configurator --screenshot window.png [BUILD.yaml]   (renders offscreen)\n"
    "  Virtual display: xvfb-run -a configurator [BUILD.yaml]\n"
    "  Sizing only: configurator size [BUILD.yaml]"
)


def has_display() -> bool:
    if sys.platform != "linux" or os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))



def window_args(args: argparse.Namespace, parser: argparse.ArgumentParser) -> tuple[int, int] | None:
    """The window size of ``--size``, with ``--screenshot``'s target checked before any window is made (a swapped
    argument never truncates a build or a plan); None after saying why the target cannot be written."""
    # start-up time: loaded once the display and the arguments are checked (this module runs first)
    from configurator.catalog.errors import FileError
    from configurator.catalog.fileio import check_image_target
    from configurator.catalog.limits import LimitError, parse_window_size

    try:
        size = parse_window_size(args.size)
        if args.screenshot:
            args.screenshot = check_image_target(args.screenshot)[0]
    except LimitError as exc:
        parser.error(str(exc))
    except FileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None
    return size

def make_window(build_path: Path | None) -> MainWindow:
    # start-up time: loaded once the display and the arguments are checked (this module runs first)
    from configurator.engine.model.buildfile import load_build
    from configurator.paths import resource
    from configurator.ui.base import BuildDocument
    from configurator.ui.shell.main_window import MainWindow

    path = build_path or resource("builds", "default.yaml")  # cli.default_build_path; ui sits below cli
    build = load_build(path, keep_unknown=True)  # unknown ids open, shown where they are (File > Open too)
    doc = BuildDocument(build, path=path if build_path else None)
    return MainWindow(doc)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="configurator", description="GPU build configurator for LLM fine-tuning")
    parser.add_argument("build", nargs="?", type=Path, help="build file to open (default: the preloaded build)")
    parser.add_argument("--screenshot", type=Path, metavar="FILE.png", help="render the window to a PNG and exit")
    parser.add_argument("--size", default="1920x1080", help="window size for --screenshot, WIDTHxHEIGHT")
    parser.add_argument("--demo", action="store_true", help="in-store demo mode: full screen, guided scenarios")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.screenshot and not has_display():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if not has_display():
        print(NO_DISPLAY, file=sys.stderr)
        return 2
    size = window_args(args, parser)
    if size is None:
        return 2
    width, height = size

    # start-up time: loaded once the display and the arguments are checked (this module runs first)
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("configurator")
    app.setOrganizationName("GPU Build Configurator")
    if args.demo:
        return _run_demo(app, args.screenshot, width, height)
    return _run_editor(app, args.build, args.screenshot, width, height)


def _run_demo(app, screenshot: Path | None, width: int, height: int) -> int:  # type: ignore[no-untyped-def]
    """The in-store demo full screen, or its screenshot at ``width`` x ``height``."""
    # start-up time: loaded once the display and the arguments are checked (this module runs first)
    from configurator.ui.base import write_screenshot
    from configurator.ui.kiosk import DemoWindow

    demo = DemoWindow()
    demo.exit_requested.connect(app.quit)
    if screenshot:
        demo.resize(width, height)
        demo.show()
        app.processEvents()
        return write_screenshot(demo, screenshot)
    demo.cover_screen()
    return int(app.exec())


def _run_editor(app, build: Path | None, screenshot: Path | None, width: int, height: int) -> int:  # type: ignore[no-untyped-def]
    """The build editor on ``build``, or its screenshot; a file that cannot be opened is reported."""
    # start-up time: loaded once the display and the arguments are checked (this module runs first)
    from PySide6.QtCore import Qt

    from configurator.catalog.errors import FileError
    from configurator.ui.base import install_excepthook, write_screenshot

    install_excepthook()  # an exception in a slot shows a message instead of ending the program
    problem: FileError | None = None
    try:
        window = make_window(build)
    except FileError as exc:
        if screenshot:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        # the window still opens (with the preloaded build) and says why the file was not opened: only an
        # unreadable file gets here (malformed YAML, a wrong schema); an unknown id opens with its check
        problem = exc
        print(f"error: {exc}", file=sys.stderr)
        window = make_window(None)
    if screenshot:
        window.remember_geometry = False  # the user's next start opens where they left it, not at --size
        window.setWindowState(Qt.WindowState.WindowNoState)  # a small screen's maximized state would win
        window.resize(width, height)
        window.show()
        app.processEvents()
        window.chassis_view.fit()
        app.processEvents()
        status = write_screenshot(window, screenshot)
        window.doc.undo_stack.setClean()
        window.close()
        return status
    window.show()
    if problem is not None:
        window.files.show_file_error("Cannot open build", problem, "Showing the preloaded build instead.")
    window.files.offer_restore()
    return int(app.exec())
