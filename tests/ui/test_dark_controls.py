"""Controls findable on the dark theme: an unchecked "Runs on" box was #2A2A2A on #1F1F1F (1.15:1); its outline
stands at 3:1 or more on the window behind it (WCAG 2.1 SC 1.4.11), on either theme."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QStyle, QStyleOptionButton

from configurator.present.colours import contrast


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_an_unchecked_runs_on_box_is_outlined_at_three_to_one(first_start, theme: str) -> None:  # type: ignore[no-untyped-def]
    window = first_start((1366, 768), theme)
    window.jobs_dock.raise_()
    boxes = [b for b in window.jobs_panel.cards_rows.checks.values() if not b.isChecked()]
    assert boxes, "the default build has a card the first job does not run on"
    box = boxes[0]
    image = box.grab().toImage()
    option = QStyleOptionButton()
    box.initStyleOption(option)
    rect = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
    ratio = image.devicePixelRatio()
    behind = box.palette().color(box.backgroundRole()).name()
    edge = max(contrast(image.pixelColor(round(x * ratio), round(y * ratio)).name(), behind)
               for x in range(rect.left(), rect.right() + 1) for y in range(rect.top(), rect.bottom() + 1))  # fmt: skip
    assert edge >= 3.0, (theme, behind, edge)
