"""The PSU room in the summary strip (issue 15): the preloaded 8-slot server has 500 W left, not enough for
another of its 600 W cards, and the window says so instead of letting two more cards overload it unseen."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths

from configurator.catalog.loader import default_catalog
from configurator.cli import default_build_path
from configurator.engine import evaluate
from configurator.engine.editing import place_card, remove_card
from configurator.engine.model.buildfile import load_build
from configurator.present.words import largest_card_w, psu_room_label
from tests.gui_helpers import make_window


def test_psu_room_words() -> None:
    assert psu_room_label(500, 600) == "500 W free: not enough for another 600 W card"
    assert psu_room_label(1200, 400) == "room for 3 more 400 W cards (1,200 W free)"
    assert psu_room_label(700, 600) == "room for 1 more 600 W card (700 W free)"
    assert psu_room_label(-300, 600) == "300 W over the PSU rating"
    assert psu_room_label(2500, None) == "2,500 W free"


def test_largest_card_counts_power_limits() -> None:
    catalog = default_catalog()
    build = load_build(default_build_path())
    assert largest_card_w(build, catalog) == 600  # H200 NVL and RTX PRO 6000 Server, 600 W each
    limited = build.model_copy(update={"cards": [c.model_copy(update={"power_limit_w": 450}) for c in build.cards]})
    assert largest_card_w(limited, catalog) == 450
    assert largest_card_w(build.model_copy(update={"cards": []}), catalog) is None
    # the figure the words divide is the engine's own margin
    power = evaluate(build).power
    assert power is not None and power.margin_w == power.psu_capacity_w - power.total_w == 500


@pytest.mark.usefixtures("qapp")
def test_summary_shows_the_room_left(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    doc = window.doc

    def room() -> str:
        return window.summary.room.text()

    assert room() == "<b>PSU</b> 500 W free: not enough for another 600 W card"
    assert window.summary.room.isVisible()
    doc.edit("remove", partial(remove_card, slot=3))
    assert doc.result.power.margin_w == 1100
    assert "room for 1 more 600 W card (1,100 W free)" in room()
    doc.edit("H100 NVL", partial(place_card, catalog=doc.catalog, slot=4, card_id="h100-nvl"))
    doc.edit("H100 NVL", partial(place_card, catalog=doc.catalog, slot=5, card_id="h100-nvl"))
    doc.edit("H100 NVL", partial(place_card, catalog=doc.catalog, slot=6, card_id="h100-nvl"))
    over = -doc.result.power.margin_w
    assert over > 0 and f"{over:,.0f} W over the PSU rating" in room()
    assert "PSU_OVERLOAD" in window.checks.codes()


def test_palette_shows_capacity_as_the_demo_does() -> None:
    """One capacity wording everywhere (issue 15): the datasheet figure, then what the driver shows."""
    from configurator.catalog.loader import default_catalog
    from configurator.ui.chassis.palette import card_summary

    card = default_catalog().cards["h200-nvl"]
    assert card_summary(card).split("\n")[1:] == ["141 GB (150.8 GB visible)", "600 W · NVLink"]
