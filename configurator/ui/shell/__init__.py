"""The application shell: the main window and what it is assembled from (document, settings, menus,
files and autosave, the build sheet, the crash guard, the checks list and summary strip).

The other rooms of ui/ import the shell through these names only (an import-linter contract in
pyproject.toml). The document, settings, view state, style and lazy-drawing helpers load with the
package; the main window and the start-up helpers load on first use, since the main window imports the
other rooms, which import this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from configurator.ui.shell.document import BuildDocument
from configurator.ui.shell.layout import MIN_WINDOW, fit_to_screen
from configurator.ui.shell.lazy import hidden_in_shown_window
from configurator.ui.shell.menus import redo_shortcuts
from configurator.ui.shell.settings import Settings
from configurator.ui.shell.style import (
    COMPONENTS,
    FIT_COLOUR,
    SEVERITY_COLOUR,
    card_colour,
    hidpi_canvas,
    to_unit,
)
from configurator.ui.shell.view_state import ViewState

if TYPE_CHECKING:
    from configurator.ui.shell.app import NO_DISPLAY
    from configurator.ui.shell.app import _has_display as has_display
    from configurator.ui.shell.files import safe_message
    from configurator.ui.shell.main_window import MainWindow
    from configurator.ui.shell.screenshot import save_image, save_screenshot, write_screenshot

# name -> (module, attribute) for the names loaded on first use
_LAZY = {
    "MainWindow": ("main_window", "MainWindow"),
    "NO_DISPLAY": ("app", "NO_DISPLAY"),
    "has_display": ("app", "_has_display"),
    "safe_message": ("files", "safe_message"),
    "save_image": ("screenshot", "save_image"),
    "save_screenshot": ("screenshot", "save_screenshot"),
    "write_screenshot": ("screenshot", "write_screenshot"),
}

__all__ = [
    "COMPONENTS",
    "FIT_COLOUR",
    "MIN_WINDOW",
    "NO_DISPLAY",
    "SEVERITY_COLOUR",
    "BuildDocument",
    "MainWindow",
    "Settings",
    "ViewState",
    "card_colour",
    "fit_to_screen",
    "has_display",
    "hidden_in_shown_window",
    "hidpi_canvas",
    "redo_shortcuts",
    "safe_message",
    "save_image",
    "save_screenshot",
    "to_unit",
    "write_screenshot",
]


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{where[0]}"), where[1])
