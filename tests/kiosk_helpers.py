"""Helpers of the kiosk tests. A helper module, not a test module."""

from __future__ import annotations

import itertools

from PySide6.QtGui import QFontMetrics
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


def assert_bar_words_apart(window: DemoWindow) -> None:
    """The bars' words over the planner's node (one bar per whole card or MIG instance) are the kiosk's (whole
    GB; the unit and the plus where they fit) and do not run into each other: neighbouring texts are apart by more
    than 2 px."""
    labels = [lb for lb in window.chart.labels if lb.isVisible()]
    cards = window.doc.build.cards
    assert len(cards) == 8
    assert len(labels) == sum(len(c.mig) if c.mig else 1 for c in cards)
    texts = [lb.toPlainText() for lb in labels]
    assert all(t.lstrip("+").split(" ")[0].isdigit() and "." not in t for t in texts), texts
    spans = []
    for lb in labels:
        width = QFontMetrics(lb.textItem.font()).horizontalAdvance(lb.toPlainText())
        centre = lb.sceneBoundingRect().center().x()
        spans.append((centre - width / 2, centre + width / 2))
    assert all(a[1] + 2 < b[0] for a, b in itertools.pairwise(spans)), (texts, spans)
