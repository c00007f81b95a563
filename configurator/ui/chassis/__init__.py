"""The chassis: the chassis view (slots, cards, bridges) and the card palette.

The other rooms of ui/ import the chassis through these names only (an import-linter contract in
pyproject.toml)."""

from configurator.ui.chassis.chassis_view import ChassisView
from configurator.ui.chassis.frame import chassis_line
from configurator.ui.chassis.palette import Palette, card_icon

__all__ = ["ChassisView", "Palette", "card_icon", "chassis_line"]
