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
# A status written as text on paper or a light panel (the sheet's verdicts and figures, the kiosk's words): the
# FIT_COLOUR hues darkened until each reads at 4.5:1 or more on white (WCAG 2.1 SC 1.4.3; the fills above are
# for markers and bars, and the amber #E69F00 is 2.3:1 as text). One table: the sheet, its figures and the kiosk
# each had their own, and the kiosk's amber was 4.2:1.
STATUS_INK = {"fits": "#1B5E20", "tight": "#8A5A00", "does-not-fit": "#C62828", "unknown": "#555555"}
# The same meanings on the dark theme's chart panel (#1f1f1f), each 4.5:1 or more there (5.5 to 9.5:1): the charts
# wrote the light table's #C62828 on it (2.9:1).
STATUS_INK_DARK = {"fits": "#81C784", "tight": "#FFB74D", "does-not-fit": "#FF6F6F", "unknown": "#B0B0B0"}
# A check's severity as text, at least 4.5:1 (WCAG AA) on the light window (#efefef) and on white: the warning is
# a darker amber than the charts' fill (#E69F00, 2.0:1 on the window). The sheet's checks and the window's summary
# and checks panel; the dark theme's are the same meanings lightened (4.5:1 or more on #2a2a2a).
SEVERITY_COLOUR = {"error": "#C62828", "warning": "#8C5E00", "info": "#1565C0"}
SEVERITY_COLOUR_DARK = {"error": "#EF7A78", "warning": "#FFB74D", "info": "#7FB8F5"}


# Card fills, one per family. Each is chosen to stand out at 3:1 or more (WCAG 2.1 non-text contrast,
# SC 1.4.11) from the chassis canvas of either theme, directly or through its darker outline, and to carry
# its label at 4.5:1 or more (SC 1.4.3) in the ink ``card_ink_hex`` picks. Issue 15: the RTX PRO grey
# #4A4A4A was 1.7:1 on the dark canvas; white on NVIDIA green was 2.4:1.
DATACENTRE_GREEN = "#76B900"  # NVIDIA green
RTX_PRO_SLATE = "#6E7480"
OTHER_BLUE = "#3A7A9E"
INK_LIGHT, INK_DARK = "#FFFFFF", "#111111"  # label ink on a card: the one with the higher contrast
FOCUS = "#1E88E5"  # the keyboard cursor's frame in the chassis view: 3.7:1 on white, 4.1:1 on #262626
SELECTED = "#FFD54F"  # a selected card's outline (drawn with a dark inner line, readable on any fill)


def card_colour_hex(card_id: str) -> str:
    """A stable colour per card family (NVIDIA green for data-centre parts)."""
    if card_id.startswith(("h200", "h100", "b200")):
        return DATACENTRE_GREEN
    if card_id.startswith("rtx-pro"):
        return RTX_PRO_SLATE
    return OTHER_BLUE


def luminance(hex_colour: str) -> float:
    """Relative luminance of an sRGB colour '#RRGGBB' (WCAG 2.1, definition of relative luminance)."""
    value = hex_colour.lstrip("#")
    channels = [int(value[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio of two '#RRGGBB' colours, from 1 to 21."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def readable(colour: str, background: str, ratio: float = 4.5) -> str:
    """``colour`` as text on ``background``: itself where it reads at ``ratio`` or more (WCAG 2.1 SC 1.4.3: 4.5:1),
    else mixed toward black (a light background) or white (a dark one) in 5 % steps until it does; keeps the hue of
    a series' line for its label (the roofline's ridge labels in the roof's colour were 3.2:1 on the dark panel)."""
    if contrast(colour, background) >= ratio:
        return colour
    target = 0 if luminance(background) > 0.18 else 255
    rgb = [int(colour.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)]
    out = colour
    for step in range(1, 21):
        t = step / 20
        out = "#" + "".join(f"{round(c + (target - c) * t):02X}" for c in rgb)
        if contrast(out, background) >= ratio:
            break
    return out


def status_ink(status: str, dark: bool) -> str:
    """A fit status written as text on a light (STATUS_INK) or dark (STATUS_INK_DARK) panel."""
    table = STATUS_INK_DARK if dark else STATUS_INK
    return table.get(status, table["unknown"])


def ink_on(fill: str) -> str:
    """The text ink on a '#RRGGBB' fill: white or near-black, whichever contrasts more (WCAG 2.1 ratio; the one
    luminance formula of the app, for the chassis' cards and the charts' labelled bars alike)."""
    return INK_LIGHT if contrast(fill, INK_LIGHT) >= contrast(fill, INK_DARK) else INK_DARK


def card_ink_hex(card_id: str) -> str:
    """The label ink on a card's fill: white or near-black, whichever contrasts more."""
    return ink_on(card_colour_hex(card_id))
