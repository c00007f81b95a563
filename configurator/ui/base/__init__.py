"""The base of ui/, below every room: the documents (the build's, with its undo stack and model resolver; the
service plan's), the view state, the typed settings, the palette and theme helpers, window sizing, the crash
guard, the screenshot writer, the worker that runs long work off the GUI thread and small scene helpers.

It imports no room. The rooms (chassis, charts, dnd, jobs, mig, planner, kiosk) import it through these names;
the application (ui/shell) assembles the rooms on top (the layers contract in pyproject.toml).
"""

from __future__ import annotations

from configurator.ui.base.combo import MiddleElidedComboBox, ShownTextComboBox, edit_field_width
from configurator.ui.base.document import BuildDocument
from configurator.ui.base.guard import guard_slot, guarded, install_excepthook
from configurator.ui.base.lazy import hidden_in_shown_window
from configurator.ui.base.pg_guard import install as install_pg_guard
from configurator.ui.base.plan_document import PlanDocument
from configurator.ui.base.scene import drag_started, item_under
from configurator.ui.base.screenshot import save_image, save_screenshot, write_screenshot
from configurator.ui.base.settings import OPTIONS, Settings
from configurator.ui.base.style import (
    COMPONENTS,
    FIT_COLOUR,
    OK_COLOUR,
    OK_COLOUR_DARK,
    SEVERITY_COLOUR,
    SEVERITY_COLOUR_DARK,
    OutlinedIndicators,
    apply_theme,
    card_colour,
    dark_palette,
    hidpi_canvas,
    ink,
    is_dark,
    muted_ink,
    severity_ink,
    to_unit,
)
from configurator.ui.base.view_state import ViewState
from configurator.ui.base.windows import MIN_WINDOW, file_error_box, fit_to_screen, redo_shortcuts, safe_message
from configurator.ui.base.worker import Progress, Worker, internal_error
from configurator.ui.base.wrap_label import WrapLabel

__all__ = [
    "COMPONENTS",
    "FIT_COLOUR",
    "MIN_WINDOW",
    "OK_COLOUR",
    "OK_COLOUR_DARK",
    "OPTIONS",
    "SEVERITY_COLOUR",
    "SEVERITY_COLOUR_DARK",
    "BuildDocument",
    "MiddleElidedComboBox",
    "OutlinedIndicators",
    "PlanDocument",
    "Progress",
    "Settings",
    "ShownTextComboBox",
    "ViewState",
    "Worker",
    "WrapLabel",
    "apply_theme",
    "card_colour",
    "dark_palette",
    "drag_started",
    "edit_field_width",
    "file_error_box",
    "fit_to_screen",
    "guard_slot",
    "guarded",
    "hidden_in_shown_window",
    "hidpi_canvas",
    "ink",
    "install_excepthook",
    "install_pg_guard",
    "internal_error",
    "is_dark",
    "item_under",
    "muted_ink",
    "redo_shortcuts",
    "safe_message",
    "save_image",
    "save_screenshot",
    "severity_ink",
    "to_unit",
    "write_screenshot",
]
