"""A seeded run of 500 random user actions: nothing raises, and the document always equals what the
undo history says it should be."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths

from configurator.ui.dnd.mime import card_mime, slot_mime
from tests.gui_helpers import drag_drop, make_window

CARDS = ["h200-nvl", "rtx-pro-6000-server", "l40s", "h100-nvl", "h200-sxm", "a100-80gb-pcie"]


@pytest.mark.parametrize("seed", [1, 2])
def test_random_actions_follow_history(qtbot, tmp_path: Path, seed: int) -> None:
    """Place, move, remove, bridge, unbridge, undo, redo at random, 250 times per seed."""
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    view, stack = window.chassis_view, window.doc.undo_stack
    rng = random.Random(seed)
    history = [window.doc.build]  # history[i] = the build after i undoable edits
    for _ in range(250):
        slots = sorted(view.slot_items)
        placed = sorted(view.card_items)
        action = rng.choice(["place", "place", "move", "remove", "bridge", "unbridge", "undo", "redo"])
        before_index = stack.index()
        if action == "place":
            drag_drop(view, card_mime(rng.choice(CARDS)), rng.choice(slots))
        elif action == "move" and placed:
            src = rng.choice(placed)
            drag_drop(view, slot_mime(src, window.doc.build.card_in(src).card), rng.choice(slots))
        elif action == "remove" and placed:
            view.select_slot(rng.choice(placed))
            view.remove_action.trigger()
        elif action in ("bridge", "unbridge") and placed:
            view.scene().clearSelection()
            for s in rng.sample(placed, k=min(len(placed), rng.choice([1, 2, 4]))):
                view.card_items[s].setSelected(True)
            (window.menus.bridge_action if action == "bridge" else window.menus.unbridge_action).trigger()
        elif action == "undo":
            window.menus.undo_action.trigger()
        elif action == "redo":
            window.menus.redo_action.trigger()
        if action not in ("undo", "redo") and stack.index() != before_index:
            del history[before_index + 1 :]
            history.append(window.doc.build)
            assert stack.index() == len(history) - 1  # an edit drops the redo branch
        assert window.doc.build == history[stack.index()]
        # the views show the document: one card item per placed card, one chart bar per job card
        assert sorted(view.card_items) == sorted(c.slot for c in window.doc.build.cards if c.slot in view.slot_items)
        assert len(window.chart.rows) == sum(len(j.cards) for j in window.doc.result.jobs)
    while stack.canUndo():
        window.menus.undo_action.trigger()
        assert window.doc.build == history[stack.index()]
    assert window.doc.build == history[0]
