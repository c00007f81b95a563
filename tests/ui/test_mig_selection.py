"""The MIG editor shares the one selection: a card picked in its card box becomes the view state's selected slot
(the chassis selects it too), and a MIG card selected in the chassis is the one the editor shows."""

from __future__ import annotations

from configurator.engine.model.buildfile import load_build
from configurator.ui.base import BuildDocument, ViewState
from configurator.ui.mig import MigEditor
from tests.paths import BUILDS


def test_a_card_picked_in_the_editor_is_the_selection(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc = BuildDocument(load_build(BUILDS / "default.yaml"))
    view = ViewState()
    editor = MigEditor(doc)
    qtbot.addWidget(editor)
    editor.follow(view)
    editor.show()
    slots = editor.mig_slots()
    assert len(slots) >= 2, slots  # the default build has MIG-capable cards in several slots
    other = next(s for s in slots if s != editor.current_slot())
    editor.card_box.setCurrentIndex(editor.card_box.findData(other))
    assert editor.current_slot() == other and view.slot == other
    view.set_slot(slots[0])  # a click in the chassis
    assert editor.current_slot() == slots[0]
