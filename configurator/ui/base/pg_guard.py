"""A guard around one pyqtgraph behaviour that can take the process down.

pyqtgraph 0.14's ``LabelItem.resizeEvent`` (the plot titles, chart notes) reads its child
``QGraphicsTextItem``. While a window is being torn down Qt can still deliver a resize to the
LabelItem after that child's C++ object is gone: the override raises "Internal C++ object
(QGraphicsTextItem) already deleted" inside Qt's event loop, and the process has been seen to crash
with a segmentation fault right after (a test worker, 2026-12-02; the teardown-order crash reported
upstream as pyqtgraph/pyqtgraph#1628). A label whose text item is gone has nothing to lay out, so the
guard skips the event for it and leaves every live label as pyqtgraph draws it.
"""

from __future__ import annotations

import pyqtgraph as pg
from shiboken6 import isValid

_original_resize = pg.LabelItem.resizeEvent


def _guarded_resize(self: pg.LabelItem, ev: object) -> None:
    item = getattr(self, "item", None)
    if item is None or not isValid(item) or not isValid(self):
        return
    _original_resize(self, ev)


def install() -> None:
    """Idempotent: the charts' modules call it when they are imported."""
    if pg.LabelItem.resizeEvent is not _guarded_resize:
        pg.LabelItem.resizeEvent = _guarded_resize
