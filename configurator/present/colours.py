"""The app's colours, one definition for the window and the PDF build sheet (hex strings; Qt-free)."""

from __future__ import annotations

# Memory components in stacking order (bottom to top), colour-blind-safe colours (Okabe-Ito palette,
# Okabe & Ito 2008, "Color Universal Design").
COMPONENTS: list[tuple[str, str, str]] = [
    ("weights_gb", "Weights", "#0072B2"),
    ("adapters_gb", "Adapters", "#56B4E9"),
    ("gradients_gb", "Gradients", "#009E73"),
    ("optimizer_gb", "Optimizer", "#E69F00"),
    ("activations_gb", "Activations", "#CC79A7"),
    ("transient_gb", "Transients", "#D55E00"),
    ("overhead_gb", "Overhead", "#999999"),
]
BRIDGE_FILL, BRIDGE_EDGE = "#FFB300", "#E65100"  # NVLink bridge bar: sheet, chassis view and palette
FIT_COLOUR = {"fits": "#2E7D32", "tight": "#E69F00", "does-not-fit": "#C62828", "unknown": "#777777"}


def card_colour_hex(card_id: str) -> str:
    """A stable colour per card family (NVIDIA green for data-centre parts)."""
    if card_id.startswith(("h200", "h100", "b200")):
        return "#76B900"
    if card_id.startswith("rtx-pro"):
        return "#4A4A4A"
    return "#2F6F8F"
