"""The application shell: the main window and what it is assembled from (document, settings, menus,
files and autosave, the build sheet, the crash guard, the checks list and summary strip)."""

from configurator.ui.shell.document import BuildDocument
from configurator.ui.shell.settings import Settings
from configurator.ui.shell.view_state import ViewState

__all__ = ["BuildDocument", "Settings", "ViewState"]
