"""Kiosk type and sizes scaled to the screen (issue 15: the demo at 1280x800 up to 2560x1440).

The kiosk is designed at 1920x1080 (every point size and pixel size in these modules is a 1920x1080 value).
On another screen every font, minimum and fixed size, layout margin and spacing, and every ``pt``/``px`` in a
style sheet is multiplied by one factor: the smaller of width/1920 and height/1080, so both directions fit.
The base values are read once from each widget (kept in a dynamic property) so scaling twice never compounds.
"""

from __future__ import annotations

import math
import re

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QLayout, QWidget

DESIGN_W, DESIGN_H = 1920, 1080
MIN_SCALE, MAX_SCALE = 0.5, 2.0
QT_MAX = 16_777_215  # QWIDGETSIZE_MAX: "no maximum"
_UNIT = re.compile(r"(-?\d+(?:\.\d+)?)(pt|px)\b")


def scale_for(width: int, height: int) -> float:
    """The factor for a window of ``width`` x ``height`` px (1.0 at 1920x1080)."""
    s = min(width / DESIGN_W, height / DESIGN_H)
    return min(max(s, MIN_SCALE), MAX_SCALE)


def scale_css(css: str, s: float) -> str:
    """Every ``12pt`` / ``8px`` in a style sheet (or inline rich-text style) times ``s``; 1px borders stay 1px."""

    def one(m: re.Match[str]) -> str:
        value = float(m.group(1))
        if m.group(2) == "px" and abs(value) <= 2:
            return m.group(0)
        scaled = value * s
        return f"{scaled:.1f}{m.group(2)}" if m.group(2) == "pt" else f"{math.floor(scaled)}{m.group(2)}"

    return _UNIT.sub(one, css)


def _size(base: QSize, s: float) -> QSize:
    w = base.width() if base.width() >= QT_MAX else round(base.width() * s)
    h = base.height() if base.height() >= QT_MAX else round(base.height() * s)
    return QSize(w, h)


def _scale_layout(layout: QLayout, s: float) -> None:
    base = layout.property("kiosk_base")
    if base is None:
        m = layout.contentsMargins()
        base = [m.left(), m.top(), m.right(), m.bottom(), layout.spacing()]
        layout.setProperty("kiosk_base", base)
    left, top, right, bottom, spacing = (int(v) for v in base)
    layout.setContentsMargins(round(left * s), round(top * s), round(right * s), round(bottom * s))
    if spacing >= 0:
        layout.setSpacing(round(spacing * s))
    for i in range(layout.count()):
        item = layout.itemAt(i)
        child = item.layout() if item is not None else None
        if child is not None:
            _scale_layout(child, s)


def _record(widget: QWidget) -> list[object]:
    base = widget.property("kiosk_base")
    if base is None:
        base = [widget.font().pointSizeF(), widget.minimumSize(), widget.maximumSize(), widget.styleSheet()]
        widget.setProperty("kiosk_base", base)
    return list(base)


def scale_widget(widget: QWidget, s: float, sizes: bool = True) -> None:
    """Scale ``widget``'s font (and, with ``sizes``, its minimum/maximum size, style sheet and layout)."""
    points, minimum, maximum, css = _record(widget)
    if isinstance(points, float) and points > 0:
        font = widget.font()
        font.setPointSizeF(max(points * s, 6.0))
        widget.setFont(font)
    if not sizes:
        return
    assert isinstance(minimum, QSize) and isinstance(maximum, QSize)
    widget.setMinimumSize(_size(minimum, s))
    widget.setMaximumSize(_size(maximum, s))
    if css and _UNIT.search(str(css)):  # colour-only sheets are left alone (the window recolours them live)
        widget.setStyleSheet(scale_css(str(css), s))
    own = widget.layout()
    if own is not None:
        _scale_layout(own, s)


def scale_tree(root: QWidget, s: float, skip: tuple[QWidget, ...] = ()) -> None:
    """``root`` and every descendant widget, except the ``skip`` widgets' insides (they scale themselves).

    Every base value is recorded before any is changed: a child that inherits its parent's font must not
    record the parent's already scaled size."""
    widgets = [root]
    stack = [c for c in root.children() if isinstance(c, QWidget)]
    while stack:
        w = stack.pop()
        widgets.append(w)
        if w not in skip:
            stack.extend(c for c in w.children() if isinstance(c, QWidget))
    for w in widgets:
        _record(w)
    for w in widgets:
        scale_widget(w, s, sizes=w not in skip)
