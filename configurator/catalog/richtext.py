"""User strings bound for Qt rich text (labels, tooltips, QTextDocument HTML), made safe in one place.

Qt treats a string that looks like markup as rich text: a build or job name such as ``<img src='/dev/zero'>``
would be parsed (and the image loaded). Every user string placed in rich text goes through
:func:`escape_rich`; plain-text widgets (``Qt.PlainText``, ``drawText``) need nothing.
"""

from __future__ import annotations

from html import escape

from configurator.catalog.errors import shorten


def escape_rich(text: object, limit: int = 300) -> str:
    """``text`` as inert rich text: cut to ``limit`` characters, control characters shown, markup escaped."""
    return escape(shorten(str(text), limit), quote=True)


def plain_tooltip(text: str) -> str:
    """A tooltip that Qt shows as the characters given: a tooltip that looks like markup is rich text to Qt
    (``QToolTip.showText``, ``setToolTip``), so text with a ``<`` is escaped and kept on its lines."""
    if "<" not in text and "&" not in text:
        return text
    return f"<p style='white-space:pre'>{escape(text, quote=False)}</p>"
