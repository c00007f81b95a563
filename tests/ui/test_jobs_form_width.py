"""The Jobs form fits its dock: at 1024x768 the form was 264 px wide in a 234 px viewport (the "Runs on" check
boxes elided to a fixed 210 px set its minimum), so the info line's fit status, the stack line, "slot 3 · RTX
PRO…0 Server Edition" and every combo box's right edge were cut off, with no horizontal scroll bar to reach them."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QWidget


def _right_edge(widget: QWidget, viewport: QWidget) -> int:
    return widget.mapTo(viewport, widget.rect().topRight()).x()


@pytest.mark.parametrize("size", [(1024, 768), (1366, 768)])
def test_the_jobs_form_is_no_wider_than_its_viewport(first_start, qtbot, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    window = first_start(size)
    window.jobs_dock.raise_()
    qtbot.wait(20)
    panel = window.jobs_panel
    viewport = panel.form_scroll.viewport()
    assert panel.editor.width() <= viewport.width(), (panel.editor.width(), viewport.width())
    assert _right_edge(panel.info, viewport) < viewport.width()
    assert panel.card_checks, "the default build places cards"
    for check in panel.card_checks.values():
        assert check.isVisible()
        assert _right_edge(check, viewport) < viewport.width(), (check.text(), _right_edge(check, viewport))
