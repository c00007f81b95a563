"""Colours and small drawing helpers shared by the views."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QApplication

# Memory components in stacking order, and card colours: one definition shared with the PDF build sheet.
from configurator.present.colours import COMPONENTS as COMPONENTS
from configurator.present.colours import FIT_COLOUR as FIT_COLOUR

# Severity text colours for the light and dark themes: one table with the sheet's (present/colours.py)
from configurator.present.colours import SEVERITY_COLOUR as SEVERITY_COLOUR
from configurator.present.colours import SEVERITY_COLOUR_DARK as SEVERITY_COLOUR_DARK
from configurator.present.words import to_unit as to_unit
from configurator.report.figures import card_colour as card_colour

OK_COLOUR, OK_COLOUR_DARK = "#2A7430", "#7BC67E"


def dark_palette() -> QPalette:
    """A dark QPalette for the Fusion style (View > Dark theme)."""
    p = QPalette()
    role = QPalette.ColorRole
    for r, c in (
        (role.Window, "#2b2b2b"), (role.WindowText, "#e6e6e6"), (role.Base, "#1f1f1f"),
        (role.AlternateBase, "#2f2f2f"), (role.ToolTipBase, "#3a3a3a"), (role.ToolTipText, "#f0f0f0"),
        (role.Text, "#e6e6e6"), (role.Button, "#353535"), (role.ButtonText, "#e6e6e6"),
        (role.BrightText, "#ff5252"), (role.Highlight, "#2a82da"), (role.HighlightedText, "#ffffff"),
        (role.PlaceholderText, "#9a9a9a"), (role.Link, "#64b5f6"),
    ):  # fmt: skip
        p.setColor(r, QColor(c))
    # disabled text greyed: setColor(role, c) sets every group, so a disabled field read as an enabled one (the
    # host dialog's count and size while the engine picks the parts)
    disabled = QPalette.ColorGroup.Disabled
    for r in (role.WindowText, role.Text, role.ButtonText):
        p.setColor(disabled, r, QColor("#7a7a7a"))
    return p


def apply_theme(dark: bool) -> None:
    """The application's palette for the light or dark theme (Fusion style): the main window's View > Dark theme
    and every window started on its own (the planner) from the saved ``theme`` setting, so they look alike."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    app.setStyle("Fusion")
    app.setPalette(dark_palette() if dark else app.style().standardPalette())


def hidpi_canvas(size: int) -> tuple[QPixmap, QPainter]:
    """A transparent ``size`` x ``size`` icon canvas drawn at 2x for high-DPI screens, and an antialiased
    painter on it (the caller ends the painter and wraps the pixmap in a QIcon)."""
    pm = QPixmap(size * 2, size * 2)
    pm.setDevicePixelRatio(2.0)
    pm.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pm)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    return pm, painter
