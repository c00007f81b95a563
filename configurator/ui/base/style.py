"""Colours and small drawing helpers shared by the views."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleOption, QWidget

# Memory components in stacking order, and card colours: one definition shared with the PDF build sheet.
from configurator.present.colours import COMPONENTS as COMPONENTS
from configurator.present.colours import FIT_COLOUR as FIT_COLOUR

# Severity text colours for the light and dark themes: one table with the sheet's (present/colours.py)
from configurator.present.colours import SEVERITY_COLOUR as SEVERITY_COLOUR
from configurator.present.colours import SEVERITY_COLOUR_DARK as SEVERITY_COLOUR_DARK
from configurator.present.colours import luminance, readable
from configurator.present.words import to_unit as to_unit
from configurator.report.figures import card_colour as card_colour

OK_COLOUR, OK_COLOUR_DARK = "#2A7430", "#7BC67E"
MUTED = "#777777"  # secondary text (notes, details, "Check …"): made readable on the theme's background below


def ink(widget: QWidget, colour: str, role: QPalette.ColorRole = QPalette.ColorRole.Window) -> str:
    """``colour`` written as text on ``widget``'s ``role`` background in the current theme: itself where it reads
    at 4.5:1 (WCAG 2.1 SC 1.4.3), else darkened (light theme) or lightened (dark theme) in its hue until it does
    (present/colours.readable). The hard-coded #555 notes and #C62828 errors were 2.5:1 or less on the dark theme."""
    return readable(QColor(colour).name().upper(), widget.palette().color(role).name())


def muted_ink(widget: QWidget, role: QPalette.ColorRole = QPalette.ColorRole.Window) -> str:
    """Secondary text on ``widget``'s background, readable in either theme."""
    return ink(widget, MUTED, role)


def is_dark(widget: QWidget, role: QPalette.ColorRole = QPalette.ColorRole.Window) -> bool:
    """Whether ``widget``'s ``role`` background is the dark theme's (View > Dark theme sets the application's
    palette): the one rule the inks, the job form and the charts outside the analysis tabs follow."""
    return luminance(widget.palette().color(role).name()) < 0.18


def severity_ink(widget: QWidget, severity: str, role: QPalette.ColorRole = QPalette.ColorRole.Window) -> str:
    """A check's severity as text on ``widget``'s background: the dark theme's table where it is dark."""
    return ink(widget, (SEVERITY_COLOUR_DARK if is_dark(widget, role) else SEVERITY_COLOUR)[severity], role)


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


class OutlinedIndicators(QProxyStyle):
    """Fusion with its check boxes and radio buttons outlined halfway between the text and the window colour.

    Fusion outlines an indicator in the window colour darkened by 40 %: on the dark theme an unchecked "Runs on"
    box was #2A2A2A on #1F1F1F (1.15:1), not findable; halfway to the text it is 4:1 on the dark window and
    3.9:1 on the light one (WCAG 2.1 SC 1.4.11 asks 3:1 of a control's boundary)."""

    def __init__(self) -> None:
        super().__init__("Fusion")

    def drawPrimitive(self, element: QStyle.PrimitiveElement, option: QStyleOption, painter: QPainter,
                      widget: QWidget | None = None) -> None:  # fmt: skip
        super().drawPrimitive(element, option, painter, widget)
        box = element == QStyle.PrimitiveElement.PE_IndicatorCheckBox
        if not (box or element == QStyle.PrimitiveElement.PE_IndicatorRadioButton):
            return
        pal = option.palette
        text, window = pal.color(QPalette.ColorRole.Text), pal.color(QPalette.ColorRole.Window)
        edge = QColor((text.red() + window.red()) // 2, (text.green() + window.green()) // 2,
                      (text.blue() + window.blue()) // 2)  # fmt: skip
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(edge, 1))
        rect = QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5)
        if box:
            painter.drawRect(rect)
        else:
            painter.drawEllipse(rect.adjusted(0.5, 0.5, -0.5, -0.5))
        painter.restore()


def apply_theme(dark: bool) -> None:
    """The application's palette for the light or dark theme (Fusion style, its check boxes outlined: see
    OutlinedIndicators): the main window's View > Dark theme and every window started on its own (the planner)
    from the saved ``theme`` setting, so they look alike."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    if not isinstance(app.style(), OutlinedIndicators):
        app.setStyle(OutlinedIndicators())
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
