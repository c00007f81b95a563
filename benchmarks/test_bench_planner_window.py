"""Planner window: a warm re-plan and repaint after an edit of demand (seed B's plan, 1920x1080).

Measures what the user waits for after typing a new jobs-per-day value: the undo command, the plan on the
worker thread (the class x device matrix is cached after the first plan, so only the search and roadmap
re-run), every chart, table and list updated, and one synchronous repaint of the window. The UI thread
stays responsive meanwhile; this is the time until the new figures are on screen.
"""

from __future__ import annotations

from itertools import count

from PySide6.QtWidgets import QApplication

from configurator.engine.planner import load_plan
from configurator.engine.planner.editing import set_class
from configurator.paths import resource
from configurator.ui.base.plan_document import PlanDocument
from configurator.ui.planner import PlannerWindow


def test_replan_to_repaint(benchmark, qtbot) -> None:  # type: ignore[no-untyped-def]
    path = resource("plans", "seed-b-service.yaml")
    window = PlannerWindow(PlanDocument(load_plan(path), path), lambda build: None)
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(1920, 1080)
    window.show()
    qtbot.waitExposed(window)
    assert window.wait_for_plan() is not None  # the cold first plan: the matrix is evaluated here
    jobs = count(100)
    plan_seconds: list[float] = []

    def edit_replan_repaint() -> None:
        j = next(jobs)
        window.doc.edit("jobs", lambda p: set_class(p, 0, jobs_per_day=float(j)), merge_key="bench.jobs")
        assert window.wait_for_plan() is not None
        window.repaint()
        QApplication.processEvents()
        plan_seconds.append(window.runner.last_seconds or 0.0)

    benchmark.pedantic(edit_replan_repaint, rounds=20, iterations=1, warmup_rounds=2)
    median = benchmark.stats.stats.median
    plans = sorted(plan_seconds)[len(plan_seconds) // 2]
    print(f"\nwarm re-plan + repaint median {median * 1000:.1f} ms (plan_service on the worker {plans * 1000:.1f} ms)")
    assert window.charts.demand_series(0)
    assert median < 0.25  # a quarter second: the figures follow an edit at once; the worker keeps the UI live
