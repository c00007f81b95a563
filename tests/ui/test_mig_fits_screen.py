"""The MIG tab at the window's first-start size (review of a6a1e7f): at 1366x768 the seed's fourth instance and
"Copy mig-parted YAML" lay behind a sideways scrollbar, and the diagram's title was cut ("up to 4 i…") even at
1920x1080. From 1024x768 up the tab fits the analysis area: no sideways scroll, every instance and both copy
buttons inside the visible part, the title whole (wrapped where it must)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QApplication, QGraphicsSimpleTextItem

from tests.paths import BUILDS

SIZES = [(1024, 768), (1280, 800), (1366, 768), (1920, 1080), (2560, 1440)]


def visible_in(widget, window) -> bool:  # type: ignore[no-untyped-def]
    """Whether all of ``widget`` lies inside the visible part of the analysis scroll area."""
    scroll = window.analysis_scroll.viewport()
    seen = QRect(scroll.mapTo(window, QPoint(0, 0)), scroll.size())
    return seen.contains(QRect(widget.mapTo(window, QPoint(0, 0)), widget.size()))


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_mig_tab_fits_the_analysis_area(first_start, size: tuple[int, int], theme: str) -> None:  # type: ignore[no-untyped-def]
    window = first_start(size, theme, BUILDS / "seed-mig-four-tenants.yaml")
    window.analysis.setCurrentWidget(window.mig_editor)
    QApplication.processEvents()
    editor = window.mig_editor
    assert window.analysis_scroll.horizontalScrollBar().maximum() == 0
    for button in (editor.copy_commands_button, editor.copy_yaml_button):
        assert button.isVisible() and visible_in(button, window), button.text()
    view = editor.view
    assert visible_in(view, window)
    assert len(view.blocks) == 4
    for block in view.blocks.values():  # every instance inside the diagram's viewport
        assert view.viewport().rect().contains(view.mapFromScene(block.rect()).boundingRect()), block.index
    title = [i for i in view.scene().items() if isinstance(i, QGraphicsSimpleTextItem) and "Slot 1" in i.text()]
    assert title, "the diagram's title"
    words = " ".join(" ".join(t.text().split()) for t in sorted(title, key=lambda t: t.y()))
    assert "up to 4 instances" in words and "…" not in words, words
    for t in title:
        assert view.viewport().rect().contains(view.mapFromScene(t.sceneBoundingRect()).boundingRect())


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_narrow_instance_names_its_profile_and_headroom_whole(first_start, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Four 1g.24gb instances on a 12-unit card leave each block ~60 px: its profile takes a narrower type and its
    chips say '+13.3 GB free' (or the figure alone) instead of '1g.24…' and 'headro…'."""
    window = first_start(size, "light", BUILDS / "seed-mig-four-tenants.yaml")
    window.analysis.setCurrentWidget(window.mig_editor)
    QApplication.processEvents()
    for block in window.mig_editor.view.blocks.values():
        texts = [i.text() for i in block.childItems() if isinstance(i, QGraphicsSimpleTextItem)]
        texts += [i.text() for chip in block.chips for i in chip.childItems() if isinstance(i, QGraphicsSimpleTextItem)]
        assert block.profile in texts, texts
        assert not any("…" in t for t in texts), [t for t in texts if "…" in t]
