"""The RTX PRO 6000 Server publishes no dense BF16 rate: the Step time tab said only "step time unknown". It now
says where the labelled estimate is, and with estimates on, each step time that uses one says "estimated"."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from tests.gui_helpers import make_window


def test_unknown_step_time_points_to_the_estimate(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    window.analysis.setCurrentIndex(2)  # Step time
    QApplication.processEvents()
    chart = window.analysis.step_time
    names = [job.name for job in window.doc.result.jobs]
    rtx = names.index("70B QLoRA")  # on the RTX PRO 6000 Server
    job = window.doc.result.jobs[rtx]
    text = chart.labels[rtx].textItem.toPlainText()
    if job.step_seconds is None:  # no estimate in the default view: the label says where it is
        assert "step time unknown" in text and "Compute rates" in text
    else:  # the engine's labelled estimate (the step-time work): the view says "estimated"
        assert job.compute is not None and job.compute.bf16_rate_estimated
        assert "estimated" in text, text
