"""A card's label laid out inside the card: the largest font at which every line fits, wrapped at its
natural breaks, elided only when nothing fits (issue 15: the MIG layout ran past the card's edge)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF

from configurator.present.words import mig_words

__all__ = ["CARD_FONT_PX", "Piece", "bold_px", "layout", "mig_words", "wrap"]

CARD_FONT_PX = (26, 11)  # the card label's largest and smallest pixel size (scene pixels)
# a text to lay out and where it may break: a name between words, figures between '·' parts
Piece = tuple[str, str]


def bold_px(px: float) -> QFont:
    font = QFont()
    font.setPixelSize(max(1, round(px)))
    font.setBold(True)
    return font


def wrap(text: str, sep: str, metrics: QFontMetricsF, width: float) -> list[str]:
    """``text`` in as few lines as fit ``width``, broken only at ``sep`` (a part wider than the width
    stays whole: the caller elides or picks a smaller font)."""
    lines: list[str] = []
    for part in text.split(sep):
        joined = f"{lines[-1]}{sep}{part}" if lines else part
        if lines and metrics.horizontalAdvance(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(part)
    return lines


def _lines(pieces: list[Piece], metrics: QFontMetricsF, width: float) -> list[str]:
    return [line for text, sep in pieces for line in wrap(text, sep, metrics, width)]


def layout(choices: list[list[Piece]], box: QRectF, min_px: int = CARD_FONT_PX[1]) -> tuple[list[str], QFont]:
    """The lines to draw in ``box`` and their font. ``choices`` are the label's variants, fullest first
    (the card's full name, then shorter ones): the largest size at which a variant fits whole wins, the
    fullest variant at that size. When none fits at the smallest size, the last variant at that size is
    cut to the lines that fit, each elided to the width. ``min_px``: the smallest size allowed (the view raises it
    where the drawing is scaled down, so the text stays legible on screen: elided rather than smaller)."""
    min_px = max(min_px, CARD_FONT_PX[1])  # above the largest size too: a drawing scaled to 0.3 needs 30 px for 9
    for px in range(max(CARD_FONT_PX[0], min_px), min_px - 1, -1):
        metrics = QFontMetricsF(bold_px(px))
        for pieces in choices:
            lines = _lines(pieces, metrics, box.width())
            fits_wide = all(metrics.horizontalAdvance(line) <= box.width() for line in lines)
            if fits_wide and metrics.lineSpacing() * len(lines) <= box.height():
                return lines, bold_px(px)
    font = bold_px(min_px)
    metrics = QFontMetricsF(font)
    lines = _lines(choices[-1], metrics, box.width())
    room = max(1, int(box.height() // metrics.lineSpacing()))
    if len(lines) > room:
        lines = [*lines[: room - 1], " · ".join(lines[room - 1 :])]
    return [metrics.elidedText(line, Qt.TextElideMode.ElideRight, box.width()) for line in lines], font
