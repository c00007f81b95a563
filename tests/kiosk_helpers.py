"""Helpers of the kiosk tests. A helper module, not a test module."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from configurator.ui.kiosk import DemoWindow


def clipped_labels(window: DemoWindow) -> list[str]:
    """Visible labels whose text needs more room than they have."""
    out = []
    for label in window.findChildren(QLabel):
        pixmap = label.pixmap()
        if not label.isVisibleTo(window) or not label.text().strip() or (pixmap is not None and not pixmap.isNull()):
            continue
        if label.parent() is window.ui.fade or label is window.ui.fade:
            continue
        if label.wordWrap():
            need = label.heightForWidth(label.width())
            if need > label.height() + 2:
                out.append(f"{label.text()[:40]!r}: needs {need} px high, has {label.height()}")
        elif label.sizeHint().width() > label.width() + 2:
            out.append(f"{label.text()[:40]!r}: needs {label.sizeHint().width()} px wide, has {label.width()}")
    return out
