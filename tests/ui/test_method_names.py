"""One name per method in the window and the kiosk (engine/model/labels.METHOD_NAMES): the Jobs form's choice,
the kiosk's method buttons and its take-home name said "Full fine-tune", "Full" and "full fine-tune" from three
tables of their own."""

from __future__ import annotations

import pytest

from configurator.engine import evaluate
from configurator.engine.editing import update_job
from configurator.engine.model.buildfile import load_build
from configurator.engine.model.labels import METHOD_NAMES
from configurator.ui.kiosk import METHODS
from configurator.ui.kiosk.takehome import take_home_name
from tests.gui_helpers import open_panel
from tests.paths import BUILDS

pytestmark = pytest.mark.usefixtures("qapp")


def test_the_jobs_form_offers_the_methods_by_their_names(qtbot) -> None:  # type: ignore[no-untyped-def]
    _, panel = open_panel(qtbot)
    box = panel.method_box
    assert {box.itemData(i): box.itemText(i) for i in range(box.count())} == METHOD_NAMES


def test_the_kiosk_names_the_methods_alike() -> None:
    assert [label for _, label in METHODS] == ["LoRA", "QLoRA", "Full fine-tune"]
    build = update_job(load_build(BUILDS / "seed-full-8b-two-rtx.yaml"), 0, method="full")
    assert "Llama 3.1 8B full fine-tune" in take_home_name(build, evaluate(build))
