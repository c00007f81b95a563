"""Colours and small drawing helpers shared by the views."""

from __future__ import annotations

from PySide6.QtGui import QColor

# Memory components, in stacking order (bottom to top), with colour-blind-safe colours (Okabe-Ito).
COMPONENTS: list[tuple[str, str, str]] = [
    ("weights_gb", "Weights", "#0072B2"),
    ("adapters_gb", "Adapters", "#56B4E9"),
    ("gradients_gb", "Gradients", "#009E73"),
    ("optimizer_gb", "Optimizer", "#E69F00"),
    ("activations_gb", "Activations", "#CC79A7"),
    ("transient_gb", "Transients", "#D55E00"),
    ("overhead_gb", "Overhead", "#999999"),
]

SEVERITY_COLOUR = {"error": "#C62828", "warning": "#E69F00", "info": "#1565C0"}
FIT_COLOUR = {"fits": "#2E7D32", "tight": "#E69F00", "does-not-fit": "#C62828", "unknown": "#777777"}


def card_colour(card_id: str) -> QColor:
    """A stable colour per card family."""
    if card_id.startswith("h200") or card_id.startswith("h100") or card_id.startswith("b200"):
        return QColor("#76B900")  # NVIDIA green for data-centre parts
    if card_id.startswith("rtx-pro"):
        return QColor("#4A4A4A")
    if card_id.startswith("a100"):
        return QColor("#5E8C31")
    return QColor("#2F6F8F")


def to_unit(gb: float, unit: str) -> float:
    """GB (10^9 B) to the display unit: GB or GiB (2^30 B)."""
    return gb * 1e9 / 2**30 if unit == "GiB" else gb


def dark_palette():  # type: ignore[no-untyped-def]
    """A dark QPalette for the Fusion style (View > Dark theme)."""
    from PySide6.QtGui import QPalette

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
    return p
