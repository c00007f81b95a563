"""Demo mode: a full-screen kiosk for a trade-show stand or a shop window (see scenarios.py's docstring).

Modules: scenarios (the scenario model and figures read from the result), resultpaths (field paths checked
against the result models), planspec / planscene / planmode (the service-plan scenario: its figure specs, its
figures read from the planner's result, its buttons: PlanMode), widgets (palette, chassis, overlays), layout (the
window's widgets: KioskView), kioskchart (the headroom chart dressed through its public interface: KioskChart),
attract (the idle loop: AttractLoop), pin (leaving: PinGate), takehome (codes and the take-home sheet:
TakeHomeFlow), window (DemoWindow, assembled from those parts)."""

from configurator.ui.kiosk.scenarios import (
    CODE_ALPHABET,
    METHODS,
    SEQUENCE_LENGTHS,
    Figure,
    FigureSpec,
    Scenario,
    demo_resources,
    load_scenarios,
    read_figure,
)
from configurator.ui.kiosk.takehome import demo_code, demo_folder, normalise_code, open_demo_code
from configurator.ui.kiosk.window import DemoWindow

__all__ = [
    "CODE_ALPHABET",
    "METHODS",
    "SEQUENCE_LENGTHS",
    "DemoWindow",
    "Figure",
    "FigureSpec",
    "Scenario",
    "demo_code",
    "demo_folder",
    "demo_resources",
    "load_scenarios",
    "normalise_code",
    "open_demo_code",
    "read_figure",
]
