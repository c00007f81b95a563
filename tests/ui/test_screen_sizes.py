"""The main window at every screen size from 1024x768 to 2560x1440, in both themes, as a first start opens it:
every chart tab's plot, title and legend inside the visible part of its view (at 1280x800 the Headroom chart lost
slot 3's bar and its legend's right side, the Roofline its title, with no scrollbar), every tab of the strip shown,
no widget clipped. Screenshots go to out/screens for review."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from tests.gui_helpers import charts_cut, clipped
from tests.shots import SCREENS, save_shot


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_first_start_shows_every_chart_whole(first_start, size: tuple[int, int], theme: str) -> None:  # type: ignore[no-untyped-def]
    window = first_start(size, theme)
    assert window.width() <= size[0] and window.height() <= size[1]
    # the Headroom chart first, whole, and the whole tab strip (no scroll arrows hiding the MIG tab)
    assert window.analysis.currentIndex() == 0
    bar = window.analysis.tabBar()
    assert bar.width() >= bar.sizeHint().width(), (bar.width(), bar.sizeHint().width())
    assert window.analysis_scroll.horizontalScrollBar().maximum() == 0
    for i in range(window.analysis.count()):
        window.analysis.setCurrentIndex(i)
        QApplication.processEvents()
        name = window.analysis.tabText(i)
        assert not charts_cut(window), (name, charts_cut(window))
        assert not clipped(window), (name, clipped(window))
        if i == 0 or size in ((1024, 768), (1920, 1080)):
            save_shot(window, f"first-{size[0]}x{size[1]}-{theme}-{name.lower().replace(' ', '-')}")
    # the window paints in the theme asked for (the light theme too: the platform's palette may be dark)
    assert (window.palette().window().color().lightness() < 128) == (theme == "dark")


def test_first_split_gives_the_tab_strip_its_width() -> None:
    from configurator.ui.shell.layout import CHASSIS_MIN_W, first_split

    assert first_split(1000, 454) == (500, 500)  # half each where half is enough
    chassis, analysis = first_split(760, 454)
    assert analysis >= 454 and chassis >= CHASSIS_MIN_W
    assert first_split(700, 454)[0] == CHASSIS_MIN_W  # never less chassis than its minimum
