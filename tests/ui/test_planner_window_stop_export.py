"""The planner window's Stop and File > Export plan PDF… (review 2 finding 11): a running plan can be stopped
(the engine is asked to cancel and the last finished plan stays on screen), and the plan's PDF, the one
``configurator plan --pdf`` writes, is written from the window on a worker."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from PySide6.QtGui import QKeySequence

from configurator.engine.planner import PlanCancelled
from configurator.engine.planner.editing import set_class
from configurator.paths import resource
from configurator.ui.planner import PlannerWindow
from configurator.ui.planner import worker as planner_worker
from tests.gui_helpers import open_seed_b_planner

SEED_B = Path(resource("plans", "seed-b-service.yaml"))


@pytest.fixture
def planner(qtbot):  # type: ignore[no-untyped-def]
    return open_seed_b_planner(qtbot)


def test_stop_cancels_a_running_plan(qtbot, planner: PlannerWindow, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A plan that runs until it is told to stop: Stop tells the engine (its cancel), the busy bar and the Stop
    button go, the window says so, and the figures of the last finished plan stay."""
    started = threading.Event()
    asked: list[bool] = []

    def slow_plan(plan, base_dir=None, cancel=None):  # type: ignore[no-untyped-def]
        started.set()
        for _ in range(2000):  # a safety net only (~20 s of polls): the test fails on it, never waits on it
            asked.append(True)
            if cancel is not None and cancel():
                raise PlanCancelled("stopped")
            time.sleep(0.01)
        raise AssertionError("never cancelled")

    monkeypatch.setattr(planner_worker, "plan_service", slow_plan)
    before = planner.result
    assert not planner.stop_button.isVisibleTo(planner) and not planner.stop_action.isEnabled()
    planner.doc.edit("jobs", lambda p: set_class(p, 0, jobs_per_day=321.0))
    assert started.wait(10)
    assert planner.stop_button.isVisibleTo(planner) and planner.stop_action.isEnabled()
    assert planner.stop_action.shortcut() == QKeySequence("Esc")
    with qtbot.waitSignal(planner.runner.stopped, timeout=10_000):
        planner.stop_button.click()
    assert asked  # the engine's cancel was asked
    assert not planner.runner.busy
    assert not planner.busy.isVisibleTo(planner) and not planner.stop_button.isVisibleTo(planner)
    assert planner.result is before  # nothing of the stopped plan is shown
    assert "stopped" in planner.timing.text() and "earlier plan" in planner.timing.text()
    # a PDF of a plan that is not the one in the inputs is refused, with the reason
    assert not planner.export_to(Path("unused.pdf"))
    assert "Plan again" in planner.statusBar().currentMessage()


def test_a_new_request_stops_the_stale_plan(qtbot, planner: PlannerWindow, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """An edit made while a plan runs stops that plan (its answer would be for inputs that no longer are)."""
    cancelled = threading.Event()
    real = planner_worker.plan_service

    def plan(plan, base_dir=None, cancel=None):  # type: ignore[no-untyped-def]
        if plan.classes[0].jobs_per_day == 321.0:
            for _ in range(2000):  # a safety net only, as above
                if cancel is not None and cancel():
                    cancelled.set()
                    raise PlanCancelled("stopped")
                time.sleep(0.01)
            raise AssertionError("never cancelled")
        return real(plan, base_dir=base_dir, cancel=cancel)

    monkeypatch.setattr(planner_worker, "plan_service", plan)
    planner.doc.edit("jobs", lambda p: set_class(p, 0, jobs_per_day=321.0))
    planner.doc.edit("jobs", lambda p: set_class(p, 0, jobs_per_day=123.0))
    assert planner.wait_for_plan() is not None
    assert cancelled.is_set()
    assert planner.result_plan == planner.doc.plan


def test_export_plan_pdf_from_the_window(qtbot, planner: PlannerWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """File > Export plan PDF… (Ctrl+E) writes the plan section on a worker and says where, with its pages."""
    assert planner.export_action.shortcut() == QKeySequence("Ctrl+E")
    assert planner.export_action in planner.menuBar().actions()[0].menu().actions()
    out = tmp_path / "plan.pdf"
    with qtbot.waitSignal(planner.pdf_writer.finished, timeout=60_000) as got:
        assert planner.export_to(out, "a4")
        assert planner.pdf_busy.isVisibleTo(planner)
    path, pages, error = got.args
    assert (path, error) == (out, "") and pages >= 2
    assert out.read_bytes().startswith(b"%PDF")
    assert not planner.pdf_busy.isVisibleTo(planner)
    assert f"Plan PDF saved: {out}" in planner.statusBar().currentMessage()


def test_export_plan_pdf_to_an_unwritable_place_says_why(qtbot, planner: PlannerWindow, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda _p, _t, text: shown.append(text))
    out = tmp_path / "no such folder" / "plan.pdf"
    with qtbot.waitSignal(planner.pdf_writer.finished, timeout=60_000):
        assert planner.export_to(out, "a4")
    assert shown and "no such folder" in shown[0]
    assert not out.exists()
