"""The MIG editor: split cards into GPU instances and place jobs in them."""

from configurator.ui.mig.common import DISPLAY_MODE_NOTE, EMPTY_TEXT
from configurator.ui.mig.editor import MigEditor
from configurator.ui.mig.view import MigView

__all__ = ["DISPLAY_MODE_NOTE", "EMPTY_TEXT", "MigEditor", "MigView"]
