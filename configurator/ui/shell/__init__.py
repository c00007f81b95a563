"""The application, on top of ui/: the main window assembled from the rooms (chassis, charts, jobs, MIG),
its menus, files and autosave, the build sheet, preferences, help, the verify dialog, and the start-up of the
editor, the planner and the demo (``app.py``, ``planner_app.py``).

What the rooms share lives below them in ``configurator.ui.base``; nothing below imports this package.
``MainWindow`` loads on first use: importing the package for a start-up helper must not load every room.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from configurator.ui.shell.main_window import MainWindow

__all__ = ["MainWindow"]


def __getattr__(name: str) -> Any:
    if name != "MainWindow":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return importlib.import_module(f"{__name__}.main_window").MainWindow
