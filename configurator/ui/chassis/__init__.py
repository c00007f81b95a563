"""The chassis: the chassis view (slots, cards, bridges), the card palette and the scene helpers.

The other rooms of ui/ import the chassis through these names only (an import-linter contract in
pyproject.toml)."""

from configurator.ui.chassis.chassis_view import ChassisView
from configurator.ui.chassis.palette import Palette, card_icon
from configurator.ui.chassis.scene import drag_started, item_under

__all__ = ["ChassisView", "Palette", "card_icon", "drag_started", "item_under"]
