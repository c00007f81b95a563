"""Trace exactly in the window, offscreen, with the stub tracer: progress and Cancel, the traced figure beside
the estimate with the breakdown in its tooltip, failures on the row with the build untouched, a cached result
shown at once after a restart, and the headroom bar's context menu."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from configurator.engine.model.buildfile import load_build
from configurator.ui.base.document import BuildDocument
from configurator.ui.jobs import JobsPanel
from tests.gui_helpers import make_window

pytestmark = pytest.mark.usefixtures("qapp", "stub_worker")

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "resources" / "builds" / "default.yaml"
QLORA = 1  # the default build's second job: 70B QLoRA on the RTX PRO 6000 Server


def open_panel(qtbot, path: Path = DEFAULT, job: int = QLORA) -> tuple[BuildDocument, JobsPanel]:  # type: ignore[no-untyped-def]
    doc = BuildDocument(load_build(path))
    doc._set_path(path)  # relative config.json paths from the build's folder
    panel = JobsPanel(doc)
    qtbot.addWidget(panel)
    panel.resize(360, 800)
    panel.show()
    qtbot.waitExposed(panel)
    panel.select_job(job)
    return doc, panel


def finish(qtbot, panel: JobsPanel, timeout: int = 20_000) -> None:  # type: ignore[no-untyped-def]
    row = panel.trace_row
    qtbot.waitUntil(lambda: row.task is not None and row.task.isFinished(), timeout=timeout)
    qtbot.waitUntil(lambda: not row.progress.isVisible(), timeout=timeout)


def test_trace_shows_progress_then_the_figure_beside_the_estimate(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("STUB_TRACE_MODE", "slow")
    monkeypatch.setenv("STUB_TRACE_SECONDS", "1.5")
    doc, panel = open_panel(qtbot)
    row = panel.trace_row
    assert row.button.isEnabled() and row.label.text() == ""
    before = doc.build
    qtbot.mouseClick(row.button, Qt.MouseButton.LeftButton)
    assert row.progress.isVisible() and row.cancel_button.isVisible() and not row.button.isEnabled()
    qtbot.waitUntil(lambda: row.progress.value() > 0, timeout=10_000)  # the worker's progress lines move the bar
    assert "Tracing 70B QLoRA: " in row.label.text() and "70B QLoRA: " in row.progress.toolTip()
    finish(qtbot, panel)
    assert row.progress.value() == 1000
    text = row.label.text()
    assert "traced: " in text and " GB allocated, peak in backward at aten.mm.default" in text
    assert "(model.layers.31.mlp.down_proj)" in text
    estimate = doc.result.job("70B QLoRA").cards[0].peak_allocated_gb
    assert f"engine estimate {estimate:.2f} GB allocated" in text
    tip = row.label.toolTip()
    assert "Parameters:" in tip and "Activations:" in tip and "Temporaries:" in tip and "torch 2.9.1" in tip
    assert row.button.isEnabled() and not row.cancel_button.isVisible()
    assert doc.build is before and not doc.undo_stack.count()  # a trace never edits the build


def test_cancel_stops_the_worker_and_says_so(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("STUB_TRACE_MODE", "hang")
    _, panel = open_panel(qtbot)
    row = panel.trace_row
    assert row.start()
    qtbot.waitUntil(lambda: row.progress.value() > 0, timeout=10_000)
    qtbot.mouseClick(row.cancel_button, Qt.MouseButton.LeftButton)
    finish(qtbot, panel, timeout=10_000)
    assert row.label.text() == "Trace cancelled."
    assert row.button.isEnabled()


def test_a_failure_is_shown_on_the_row_and_the_build_kept(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("STUB_TRACE_MODE", "notorch")
    doc, panel = open_panel(qtbot)
    before = doc.build
    row = panel.trace_row
    row.start()
    finish(qtbot, panel)
    assert "Trace failed" in row.label.text() and "gpu-build-configurator[trace]" in row.label.text()
    assert doc.build is before and row.button.isEnabled()


def test_a_cached_trace_shows_at_once_after_a_restart(qtbot, stub_worker: Path, stub_runs) -> None:  # type: ignore[no-untyped-def]
    _, panel = open_panel(qtbot)
    panel.trace_row.start()
    finish(qtbot, panel)
    traced = panel.trace_row.label.text()
    panel.close()
    assert stub_runs(stub_worker) == 1
    _, again = open_panel(qtbot)  # a new document and panel: the cache on disk is all that is left
    text = again.trace_row.label.text()
    assert "cached" in text and traced.split("<br>")[0] in text
    assert stub_runs(stub_worker) == 1  # shown without running the tracer
    again.trace_row.start()  # the same versions: the cache answers, the worker does not run
    finish(qtbot, again)
    assert stub_runs(stub_worker) == 1 and "cached" in again.trace_row.label.text()


def test_a_job_the_tracer_cannot_express_says_why(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "b.yaml"
    path.write_text(DEFAULT.read_text().replace("parallelism: fsdp", "parallelism: zero3"))
    _, panel = open_panel(qtbot, path, job=0)
    row = panel.trace_row
    assert not row.button.isEnabled() and "DeepSpeed ZeRO-3 is not traced" in row.label.text()
    assert not row.start()


def test_a_config_the_engine_cannot_size_offers_the_trace(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "ds.json").write_text('{"model_type": "deepseek_v3", "hidden_size": 2048, "num_hidden_layers": 4,'
                                      ' "vocab_size": 1000}')  # fmt: skip
    path = tmp_path / "b.yaml"
    path.write_text("name: t\nchassis: generic-server-8\ncards: [{slot: 1, card: h100-sxm}]\n"
                    "jobs: [{name: DS, model: ds.json, cards: [1]}]\n")  # fmt: skip
    _, panel = open_panel(qtbot, path, job=0)
    row = panel.trace_row
    assert "The engine cannot size this config" in row.label.text() and "deepseek_v3" in row.label.text()
    assert row.button.isEnabled()
    row.start()
    finish(qtbot, panel)
    assert "traced: " in row.label.text() and "traced only (the engine cannot size it)" in row.label.text()
    assert "no engine estimate to compare" in row.label.text()


def test_headroom_bar_menu_traces_its_job(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    chart = window.chart
    index = next(i for i, (job, _) in enumerate(chart.rows) if job == "70B QLoRA")
    menu = chart.menu_for(index)
    assert menu is not None
    (action,) = menu.actions()
    assert action.text() == "Trace exactly: 70B QLoRA"
    assert chart.menu_for(None) is None
    assert "Right-click: Trace exactly" in chart.tooltip_for(index)
    action.trigger()
    panel = window.jobs_panel
    assert window.doc.build.jobs[panel.index].name == "70B QLoRA"
    finish(qtbot, panel)
    assert "traced: " in panel.trace_row.label.text()
    assert window.statusBar().currentMessage().startswith("Traced 70B QLoRA")
    tip = chart.tooltip_for(index)  # the bar's tooltip carries the traced figure under the estimate
    assert "<b>traced: " in tip and "peak in backward at aten.mm.default" in tip and "torch 2.9.1" in tip


def test_the_tracer_python_comes_from_preferences(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from configurator.trace import runner

    monkeypatch.delenv("CONFIGURATOR_TRACE_WORKER")
    monkeypatch.setattr(runner, "_probed", {})
    window = make_window(qtbot, tmp_path)
    missing = tmp_path / "venv" / "bin" / "python"
    window.settings.set("trace_python", str(missing))
    panel = window.jobs_panel
    panel.select_job(QLORA)
    assert panel.trace_row.python() == str(missing)
    panel.trace_row.start()
    finish(qtbot, panel)
    assert "Trace failed" in panel.trace_row.label.text()
    assert f"cannot run the tracer's Python '{missing}'" in panel.trace_row.label.toolTip()  # the plain message


def test_importing_a_family_the_engine_cannot_size_offers_the_trace(qtbot, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    path = tmp_path / "DeepSeek-V3" / "config.json"
    path.parent.mkdir()
    path.write_text('{"model_type": "deepseek_v3", "hidden_size": 2048, "num_hidden_layers": 4, "vocab_size": 1000}')
    asked: list[str] = []

    def question(parent, title, text, *rest):  # type: ignore[no-untyped-def]
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    monkeypatch.setattr(QMessageBox, "question", question)
    doc, panel = open_panel(qtbot)
    qtbot.mouseClick(panel.import_button, Qt.MouseButton.LeftButton)
    assert len(asked) == 1 and "does not model 'deepseek_v3'" in asked[0] and "Trace exactly" in asked[0]
    assert Path(doc.build.jobs[QLORA].model) == path.resolve()  # type: ignore[arg-type]
    assert any(c.code == "JOB_MODEL_UNKNOWN" for c in doc.result.checks)  # the engine still says it cannot
    row = panel.trace_row
    assert "The engine cannot size this config" in row.label.text() and row.button.isEnabled()
    doc.undo_stack.undo()
    assert doc.build.jobs[QLORA].model == "llama-3.3-70b"


def test_charts_that_cannot_trace_offer_nothing(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The kiosk's and the compare dialog's headroom charts have no Jobs tab to trace in: no menu, no hint."""
    from configurator.engine import evaluate
    from configurator.ui.charts import HeadroomChart

    chart = HeadroomChart()
    qtbot.addWidget(chart)
    chart.update_result(evaluate(load_build(DEFAULT), base_dir=DEFAULT.parent))
    assert chart.menu_for(0) is None and "Trace exactly" not in chart.tooltip_for(0)


def test_cancel_stops_a_slow_tracer_python_at_once(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Review 2 #4: a tracer Python slow to answer the version probe (a cold torch import on a network disk) kept
    the row at "Tracing…" until its minute ran out. Cancel now says "Cancelling…" at once, kills the probe, and the
    row says "Trace cancelled."; the thread has ended (nothing left running at quit)."""
    import os

    from configurator.trace import runner

    monkeypatch.delenv("CONFIGURATOR_TRACE_WORKER")
    monkeypatch.setattr(runner, "_probed", {})
    pid_file = tmp_path / "probe.pid"
    slow = tmp_path / "python"
    slow.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 30\n")
    slow.chmod(0o755)
    _, panel = open_panel(qtbot)
    row = panel.trace_row
    row.python = lambda: str(slow)
    assert row.start()
    qtbot.waitUntil(pid_file.exists, timeout=10_000)
    qtbot.mouseClick(row.cancel_button, Qt.MouseButton.LeftButton)
    assert row.label.text() == "Cancelling…" and not row.cancel_button.isEnabled()
    finish(qtbot, panel, timeout=10_000)  # the probe's own limit is 60 s and the script sleeps 30 s
    assert row.label.text() == "Trace cancelled." and not row.task.isRunning()
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the probe's process is gone, not left sleeping
    assert runner._probed == {}  # a cancelled probe answers nothing: the next trace asks again
