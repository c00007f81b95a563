"""The Jobs dock while a trace runs, at 1024x768 (review 2, finding 10): the progress bar and Cancel made the
trace row 280 px wide in a 256 px dock; the whole form was cut ("Ca" for Cancel, "Tracing 70B LoRA, FSDP over
the bridg") with no scroll bar. Progress and Cancel now sit on a line of their own and every wrapped line shows."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt

STUB = Path(__file__).resolve().parents[1] / "trace" / "stub_worker.py"  # the tracer's stand-in (tests/trace)
pytestmark = pytest.mark.usefixtures("qapp")


def inside(widget, area) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``widget`` lies wholly inside ``area`` (both shown)."""
    rect = QRect(widget.mapTo(area, QPoint(0, 0)), widget.size())
    return area.rect().contains(rect)


def test_trace_row_fits_the_dock_while_tracing(active_window, qtbot, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CONFIGURATOR_TRACE_WORKER", shlex.join([sys.executable, str(STUB)]))
    monkeypatch.setenv("STUB_TRACE_LOG", str(tmp_path / "runs.jsonl"))
    monkeypatch.setenv("STUB_TRACE_MODE", "hang")
    window = active_window
    window.resize(1024, 768)
    qtbot.wait(50)
    qtbot.keyClick(window.chassis_view, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)  # View › Jobs
    panel = window.jobs_panel
    row = panel.trace_row
    panel.select_job(0)  # 70B LoRA, FSDP over the bridge: the longest name of the default build
    assert row.button.isEnabled()
    qtbot.mouseClick(row.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: row.progress.value() > 0, timeout=10_000)
    qtbot.wait(50)
    viewport = panel.form_scroll.viewport()
    assert panel.editor.width() <= viewport.width()  # nothing wider than the dock
    for widget in (row.button, row.progress, row.cancel_button):
        assert inside(widget, viewport), widget.objectName()
    assert row.cancel_button.width() >= row.cancel_button.sizeHint().width()  # "Cancel", not "Ca"
    for label in (row.label, panel.info):  # every wrapped line shown
        assert label.height() >= label.heightForWidth(label.width()), label.objectName()
    for i in range(panel.job_list.count()):  # the job list's verdicts are not cut
        assert panel.job_list.visualItemRect(panel.job_list.item(i)).right() < panel.job_list.viewport().width()
    qtbot.mouseClick(row.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: row.task is not None and row.task.isFinished(), timeout=10_000)
