"""A card tile scaled down (1024x768: the label's smallest size leaves one or two lines) keeps its capacity whole:
'RTX PRO 6000 Server · 10…' cut the figure the user places the card for; fewer words instead (the MIG layout, the
power, then the name's edition)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF


@pytest.mark.parametrize(("min_px", "mig"), [(26, True), (30, True), (34, False), (34, True), (38, False)])
def test_the_tile_keeps_its_capacity_whole(qapp, min_px: int, mig: bool) -> None:  # type: ignore[no-untyped-def]
    from configurator.catalog.loader import default_catalog
    from configurator.ui.chassis.items import CardItem

    card = default_catalog().cards["rtx-pro-6000-server"]
    item = CardItem(1, card, QRectF(0, 0, 534, 75), ["1g.24gb"] * 4 if mig else None, None, min_px)
    text = " ".join(item.lines)
    assert "102.6 GB" in text, item.lines
    assert not any(line.endswith("…") and "GB" not in line for line in item.lines)
    if min_px <= 34:
        assert not any("…" in line for line in item.lines), item.lines  # fewer words, none cut
