"""The pyqtgraph guard (configurator/ui/pg_guard.py): a resize delivered to a plot title whose text item
is already deleted is skipped instead of raising inside Qt's event loop (where it was followed by a crash)."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
import shiboken6

import configurator.ui.charts  # noqa: F401  (installs the guard)
from configurator.ui.base import pg_guard

pytestmark = pytest.mark.usefixtures("qapp")


def test_charts_install_the_guard() -> None:
    assert pg.LabelItem.resizeEvent is pg_guard._guarded_resize


def test_resize_after_the_text_item_is_gone_is_skipped() -> None:
    label = pg.LabelItem("Memory per card")
    shiboken6.delete(label.item)
    label.resizeEvent(None)  # raised RuntimeError ("Internal C++ object ... already deleted") unguarded
    with pytest.raises(RuntimeError):
        pg_guard._original_resize(label, None)


def test_a_live_label_is_laid_out_as_before() -> None:
    label = pg.LabelItem("Memory per card")
    label.resize(300, 40)
    label.resizeEvent(None)
    assert label.item.pos().x() > 0  # centred in its 300 px by pyqtgraph's own code
