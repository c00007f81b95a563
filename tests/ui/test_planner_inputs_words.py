"""The planner's inputs explain themselves and show numbers as people write them (review 2 finding 15): a
tooltip on every input, "same as roadmap" for a class without its own growth, "1,000,000 /day", "20 M tokens"."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QLineEdit

from configurator.engine.planner import load_plan
from configurator.paths import resource
from configurator.ui.base.plan_document import PlanDocument
from configurator.ui.planner.inputs import NO_GROWTH_OVERRIDE, InputsPanel

SEED_B = Path(resource("plans", "seed-b-service.yaml"))


@pytest.fixture
def inputs(qtbot):  # type: ignore[no-untyped-def]
    panel = InputsPanel(PlanDocument(load_plan(SEED_B), SEED_B))
    qtbot.addWidget(panel)
    panel.show()
    return panel


def test_every_input_has_a_tooltip(inputs: InputsPanel) -> None:
    fields = [w for kind in (QAbstractSpinBox, QComboBox, QLineEdit) for w in inputs.findChildren(kind)]
    fields = [w for w in fields if not isinstance(w.parent(), QAbstractSpinBox | QComboBox)]  # their line edits
    assert len(fields) >= 15
    missing = [w.accessibleName() or type(w).__name__ for w in fields if len(w.toolTip()) < 20]
    assert not missing, missing
    # the class's Growth and the Roadmap growth say how they relate
    assert "Roadmap growth" in inputs.growth.toolTip() and "Growth" in inputs.roadmap_growth.toolTip()


def test_growth_without_its_own_value_reads_same_as_roadmap(inputs: InputsPanel) -> None:
    inputs.growth.setValue(NO_GROWTH_OVERRIDE)
    assert inputs.growth.text() == "same as roadmap"


def test_numbers_read_as_people_write_them(qtbot, inputs: InputsPanel) -> None:  # type: ignore[no-untyped-def]
    assert inputs.tokens.text() == "20 M tokens"  # was "20.000 M tokens"
    assert inputs.jobs_per_day.text() == "120 /day"  # was "120.0 /day"
    inputs.jobs_per_day.setValue(1_000_000)
    assert inputs.jobs_per_day.text() == "1,000,000 /day"
    assert inputs.doc.plan.classes[0].jobs_per_day == 1_000_000
    # typed with or without the commas, as it reads
    for typed, value in (("12,345", 12_345), ("2500.5", 2500.5)):
        inputs.jobs_per_day.lineEdit().selectAll()
        qtbot.keyClicks(inputs.jobs_per_day, typed)
        qtbot.keyClick(inputs.jobs_per_day, Qt.Key.Key_Return)
        assert inputs.doc.plan.classes[0].jobs_per_day == value
    assert inputs.jobs_per_day.text() == "2,500.5 /day"
