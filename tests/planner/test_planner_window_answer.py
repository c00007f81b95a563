"""The planner window opens on its answer (issue 24): the recommended fleet and why, per class its p95 wait at
the peak hour and MIG gain, and the reversal, as a platform team reads them."""

from __future__ import annotations

from pathlib import Path

from configurator.engine.planner import load_plan
from configurator.paths import resource
from configurator.ui.base.plan_document import PlanDocument
from configurator.ui.planner import PlannerWindow

SEED_B = Path(resource("plans", "seed-b-service.yaml"))


def test_window_opens_on_the_answer(qtbot) -> None:  # type: ignore[no-untyped-def]
    window = PlannerWindow(PlanDocument(load_plan(SEED_B), SEED_B))
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    result = window.wait_for_plan()
    assert result is not None and result.recommendation is not None
    assert window.tabs.currentWidget() is window.answer and window.tabs.tabText(0) == "Answer"
    text = window.answer.toPlainText()
    assert text.startswith(f"Recommended: {result.recommendation.fleet}")
    assert "Ranked by cost per job" in text
    for c in result.classes:
        assert c.name in text
    assert "p95" in text and "MIG gain" in text
    assert result.recommendation.reversal is not None
    assert result.recommendation.reversal.words in " ".join(text.split())
    # an edit re-plans and the answer follows: without prices it ranks by cards, and says so
    window.doc.edit("no prices", lambda p: p.model_copy(update={"prices": {}, "currency": None}))
    window.wait_for_plan()
    assert "Without prices" in window.answer.toPlainText()
