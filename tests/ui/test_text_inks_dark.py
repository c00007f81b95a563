"""Text written in a hard-coded colour on the window read at 2.0-2.5:1 on the dark theme (review 2 finding 19):
the planner's notes in #555, the trace error in #C62828 and its detail in #777, the MIG editor's messages in
#C62828. Each is now the theme's ink at 4.5:1 or more (WCAG 2.1 SC 1.4.3), in light and in dark."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from configurator.engine.model.buildfile import load_build
from configurator.engine.planner import load_plan
from configurator.paths import resource
from configurator.present.colours import contrast
from configurator.ui.base import dark_palette
from configurator.ui.base.document import BuildDocument
from configurator.ui.base.plan_document import PlanDocument

SEED_B = Path(resource("plans", "seed-b-service.yaml"))
COLOUR = re.compile(r"color:\s*(#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{3})\b")


@pytest.fixture(params=["light", "dark"])
def theme(request: pytest.FixtureRequest, qapp: QApplication) -> Iterator[str]:  # type: ignore[type-arg]
    before = qapp.palette()
    qapp.setPalette(dark_palette() if request.param == "dark" else qapp.style().standardPalette())
    yield request.param
    qapp.setPalette(before)


def _long(colour: str) -> str:
    c = colour.lstrip("#")
    return "#" + ("".join(ch * 2 for ch in c) if len(c) == 3 else c)


def _inks(html: str) -> list[str]:
    return [_long(c) for c in COLOUR.findall(html)]


def test_planner_problems_and_notes_read_on_either_theme(qtbot, theme: str) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.planner import PlannerWindow

    window = PlannerWindow(PlanDocument(load_plan(SEED_B), SEED_B))
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.show()
    assert window.wait_for_plan() is not None
    html = window.problems.toHtml()
    base = window.problems.palette().color(QPalette.ColorRole.Base).name()
    inks = _inks(window._problems_html(window.result))  # type: ignore[arg-type]
    assert len(inks) >= 2 and window.result is not None and window.result.notes
    low = {c: round(contrast(c, base), 2) for c in inks if contrast(c, base) < 4.5}
    assert not low, (theme, base, low)
    assert html  # rendered


def test_trace_error_and_detail_read_on_either_theme(qtbot, theme: str) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.jobs.trace_action import TraceRow

    row = TraceRow(BuildDocument(load_build(resource("builds", "default.yaml"))))
    qtbot.addWidget(row)
    row._show_error("the worker died")
    window = row.label.palette().color(QPalette.ColorRole.Window).name()
    inks = _inks(row.label.text())
    assert inks and all(contrast(c, window) >= 4.5 for c in inks), (theme, window, inks)


def test_mig_editor_error_reads_on_either_theme(qtbot, theme: str) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.mig import MigEditor

    doc = BuildDocument(load_build(resource("builds", "seed-mig-four-tenants.yaml")))
    editor = MigEditor(doc)
    qtbot.addWidget(editor)
    editor.say("That profile does not fit there", error=True)
    window = editor.message.palette().color(QPalette.ColorRole.Window).name()
    inks = _inks(editor.message.styleSheet())
    assert inks and all(contrast(c, window) >= 4.5 for c in inks), (theme, window, inks)
