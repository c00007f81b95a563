"""File > Verify build… reads a results folder on a worker (ui/base/worker.py), as a user meets it: progress while
the files are read, then the verdict; Cancel gives the dialog back at once and the cancelled read stops before
its next file, is never verified, and a cancelled check stops before its next figure; a file that does not parse
is named with its problem; a bug is a message, never an exception."""

from __future__ import annotations

import importlib
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths, Qt, QThreadPool
from PySide6.QtWidgets import QApplication, QFileDialog

import configurator.ui.shell.verify_dialog as verify_module
from configurator.engine.acceptance import Measurements
from configurator.paths import resource
from configurator.ui.shell.main_window import MainWindow
from configurator.ui.shell.verify_dialog import VerifyDialog
from tests.gui_helpers import make_window
from tests.helpers import spy_on_checks

collect_module = importlib.import_module("configurator.engine.acceptance.collect")  # the package names the function
RESULTS = Path(__file__).resolve().parents[1] / "fixtures" / "acceptance" / "gpu-x8"  # for the 8 x H200 NVL build
BAD = "measure-bad.json"  # the measure tool's JSON with a negative peak: refused by its bounds
BAD_JSON = {"tool": "configurator-measure", "format": 1, "jobs": [{"name": "j", "status": "ok",
                                                                   "peak_allocated_gb": -1}]}  # fmt: skip


class Gate:
    """Holds the worker when it reads the file named ``at`` until ``release()``; records the threads it read on."""

    def __init__(self) -> None:
        self.at = ""
        self.reached = threading.Event()
        self.released = threading.Event()
        self.threads: set[int] = set()

    def release(self) -> None:
        self.released.set()


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    held = Gate()
    real = collect_module.safe_read_text

    def read(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        held.threads.add(threading.get_ident())
        if Path(path).name == held.at:
            held.reached.set()
            assert held.released.wait(20), "the test never released the read"
        return real(path, *args, **kwargs)

    monkeypatch.setattr(collect_module, "safe_read_text", read)
    yield held
    held.release()  # never leave a pool thread waiting


@pytest.fixture
def collected(monkeypatch: pytest.MonkeyPatch) -> list[Measurements]:
    """What each load's ``collect`` returned, appended when it returns (on the worker)."""
    runs: list[Measurements] = []
    real = verify_module.collect

    def record(*args, **kwargs):  # type: ignore[no-untyped-def]
        runs.append(real(*args, **kwargs))
        return runs[-1]

    monkeypatch.setattr(verify_module, "collect", record)
    return runs


@pytest.fixture
def verified(monkeypatch: pytest.MonkeyPatch) -> list[Measurements]:
    """The measurements each load's ``verify`` was given, appended when it is called (on the worker)."""
    runs: list[Measurements] = []
    real = verify_module.verify

    def record(prediction, measurements, *args, **kwargs):  # type: ignore[no-untyped-def]
        runs.append(measurements)
        return real(prediction, measurements, *args, **kwargs)

    monkeypatch.setattr(verify_module, "verify", record)
    return runs


@pytest.fixture
def window(qtbot, tmp_path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    QStandardPaths.setTestModeEnabled(True)
    return make_window(qtbot, tmp_path, resource("builds", "seed-70b-lora-8x-h200-nvl.yaml"))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The kit's results folder of the 8-GPU machine, with one file that does not parse."""
    out = tmp_path / "results"
    shutil.copytree(RESULTS, out)
    (out / BAD).write_text(json.dumps(BAD_JSON))
    return out


def open_dialog(window: MainWindow) -> VerifyDialog:
    window.menus.verify_action.trigger()
    dialogs = window.findChildren(VerifyDialog)
    assert len(dialogs) == 1 and dialogs[0].isVisible()
    return dialogs[0]


def file_count(folder: Path) -> int:
    return sum(1 for p in folder.rglob("*") if p.is_file())


def test_a_folder_is_read_with_progress_then_the_verdict(window, qtbot, gate, folder, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog(window)
    assert not dialog.progress.isVisible() and not dialog.cancel_button.isVisible()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder))
    gate.at = BAD
    with qtbot.waitSignal(dialog.verified, timeout=30000) as verified:
        dialog.folder_button.click()  # returns at once: the files are read on the worker
        qtbot.waitUntil(lambda: dialog.progress_label.text().endswith(BAD))
        done = sorted(p.name for p in folder.iterdir() if p.is_file()).index(BAD)  # read before it, in order
        assert dialog.loading and dialog.progress.isVisible() and dialog.cancel_button.isVisible()
        assert (dialog.progress.value(), dialog.progress.maximum()) == (done, file_count(folder))
        assert dialog.progress_label.text() == f"{done} of {file_count(folder)} file(s): {BAD}"
        assert not dialog.folder_button.isEnabled() and not dialog.files_button.isEnabled()
        assert not dialog.store_button.isEnabled() and dialog.report is None
        window.doc.edit("rename while reading", lambda b: b.model_copy(update={"name": "Renamed"}))
        QApplication.processEvents()  # the window still answers
        assert "Renamed" in window.windowTitle()
        gate.release()
    assert threading.get_ident() not in gate.threads  # read off the GUI thread
    report = verified.args[0]
    assert dialog.report is report and report.verdict == "fail"
    text = dialog.summary.text()
    assert text.startswith("<b style=") and "FAIL" in text and f"from {len(report.files)} file(s)" in text
    # the bad file by name, its path and problem in the tooltip
    assert f"<li>{BAD}</li>" in dialog.unreadable.text() and "peak_allocated_gb" in dialog.unreadable.toolTip()
    assert "Not ready for acceptance" in text  # a failed figure: nobody is asked to accept the machine
    rows = [(dialog.table.item(r, 0).text(), dialog.table.item(r, 1).text()) for r in range(dialog.table.rowCount())]
    assert ("FAIL", "GPU5 PCIe link") in rows
    assert not dialog.loading and not dialog.progress.isVisible() and not dialog.cancel_button.isVisible()
    assert dialog.folder_button.isEnabled() and dialog.store_button.isEnabled() and dialog.pdf_button.isEnabled()
    assert window.chassis_view.slot_marks()  # the slots outlined, as before the worker
    dialog.close()


def test_cancel_gives_the_dialog_back_and_stops_the_read(window, qtbot, gate, collected, folder) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog(window)
    with qtbot.waitSignal(dialog.verified, timeout=30000):
        dialog.load([RESULTS])
    before = dialog.summary.text()
    rows = dialog.table.rowCount()
    gate.at = "lspci-vv.txt"
    dialog.load([folder])
    qtbot.waitUntil(gate.reached.is_set)
    assert dialog.loading and not dialog.store_button.isEnabled()
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    # at once, the read still held on the worker: the dialog is usable and shows what it showed before
    assert not dialog.loading and not dialog.progress.isVisible() and not dialog.cancel_button.isVisible()
    assert dialog.folder_button.isEnabled() and dialog.store_button.isEnabled() and dialog.pdf_button.isEnabled()
    assert dialog.summary.text().startswith("<b style=") and "Cancelled" in dialog.summary.text()
    assert dialog.summary.text().endswith(before) and dialog.table.rowCount() == rows
    first, cancelled = dialog.report, dialog.summary.text()
    gate.release()
    assert QThreadPool.globalInstance().waitForDone(20000)  # the cancelled job has ended and reported
    QApplication.processEvents()  # its report delivered: dropped
    assert len(collected) == 2 and len(collected[1].files) < file_count(folder) - 1  # stopped before the next file
    assert dialog.report is first and dialog.summary.text() == cancelled and not dialog.loading
    # a new load after the cancelled one: its report is shown, the cancelled one's never is
    with qtbot.waitSignal(dialog.verified, timeout=30000) as verified:
        dialog.load([folder / BAD, folder / "topo.txt"])
    assert dialog.report is verified.args[0] and dialog.report is not first
    assert str(folder / "topo.txt") in dialog.report.files and "Could not read" in dialog.unreadable.text()
    dialog.close()


def shown(dialog: VerifyDialog, window: MainWindow) -> tuple[object, ...]:
    """What the user sees of the last verdict: the table, the report kept and stored, the chassis and chart marks."""
    rows = [
        tuple(dialog.table.item(r, c).text() for c in range(dialog.table.columnCount()))
        for r in range(dialog.table.rowCount())
    ]
    marks = window.chassis_view.slot_marks()
    return rows, dialog.report, dialog.measurements, marks, window.chart.measured_points()


def cancel_and_let_the_job_end(dialog: VerifyDialog, qtbot, release) -> str:  # type: ignore[no-untyped-def]
    """Press Cancel while the job is held on the worker, then let it go on until it ends; the summary at the
    Cancel."""
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert not dialog.loading and "Cancelled" in dialog.summary.text()
    said = dialog.summary.text()
    release()
    assert QThreadPool.globalInstance().waitForDone(20000)  # the cancelled job has ended
    QApplication.processEvents()  # anything it sent delivered
    return said


def test_a_cancelled_read_is_never_verified(window, qtbot, gate, collected, verified, folder) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog(window)
    with qtbot.waitSignal(dialog.verified, timeout=30000):
        dialog.load([RESULTS])
    before = shown(dialog, window)
    assert len(verified) == 1 and before[0] and before[3]  # a verdict in the table, slots outlined
    gate.at = "lspci-vv.txt"
    dialog.load([folder])
    qtbot.waitUntil(gate.reached.is_set)
    said = cancel_and_let_the_job_end(dialog, qtbot, gate.release)
    assert len(collected) == 2 and len(collected[1].files) < file_count(folder) - 1  # the read stopped part-way
    assert len(verified) == 1  # and what it read was not checked: no verdict on a part of the folder
    assert shown(dialog, window) == before and dialog.summary.text() == said and not dialog.loading
    assert dialog.store_button.isEnabled()  # keeps the measurements shown, not the part read


def test_a_cancel_while_checking_stops_before_the_next_figure(window, qtbot, folder, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A large DCGM export takes seconds per job to check: Cancel during the checks is honoured too."""
    dialog = open_dialog(window)
    with qtbot.waitSignal(dialog.verified, timeout=30000):
        dialog.load([RESULTS])
    before = shown(dialog, window)
    reached, released = threading.Event(), threading.Event()

    def on_group(n: int) -> None:
        if n == 1:  # the first link group of this load: held until the test lets it go
            reached.set()
            assert released.wait(20), "the test never released the check"

    groups, jobs = spy_on_checks(monkeypatch, on_group)
    try:
        dialog.load([folder])
        qtbot.waitUntil(reached.is_set)
        said = cancel_and_let_the_job_end(dialog, qtbot, released.set)
    finally:
        released.set()  # never leave a pool thread waiting
    assert len(groups) == 1 and jobs == []  # stopped after the group it was checking: no more checks, no verdict
    assert shown(dialog, window) == before and dialog.summary.text() == said and not dialog.loading
    monkeypatch.undo()
    with qtbot.waitSignal(dialog.verified, timeout=30000):  # and the next load is checked in full
        dialog.load([folder])
    nccl = [c for c in before[1].checks if c.category == "nccl"]  # the first, uncancelled verdict's nccl checks
    assert dialog.report is not before[1] and sum(1 for c in dialog.report.checks if c.category == "nccl") == len(nccl)
    assert nccl


def test_closing_mid_read_marks_nothing(window, qtbot, gate, collected, folder) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog(window)
    gate.at = "lspci-vv.txt"
    dialog.load([folder])
    qtbot.waitUntil(gate.reached.is_set)
    dialog.close()  # deleted on close, its worker with it; the read ends on its own
    gate.release()
    assert QThreadPool.globalInstance().waitForDone(20000)  # the cancelled job has ended and reported
    QApplication.processEvents()  # to nobody: its worker went with the dialog
    assert window.chassis_view.slot_marks() == {} and window.chart.measured_points() == []
    assert len(collected[0].files) < file_count(folder) - 1


def test_files_that_do_not_parse_are_named_with_their_problem(window, qtbot, folder, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    dialog = open_dialog(window)
    broken = folder / "all_reduce_gpus-0-1.txt"
    broken.write_text("# nccl-tests all_reduce_perf\n#       size         count      type\nnot a number row\n")
    picked = [str(folder / "topo.txt"), str(folder / BAD), str(broken)]
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: (picked, ""))
    with qtbot.waitSignal(dialog.verified, timeout=30000):
        dialog.files_button.click()
    text = dialog.unreadable.toolTip()  # the names listed, each path with its problem in the tooltip
    assert f"<li>{BAD}</li>" in dialog.unreadable.text() and f"<li>{broken.name}</li>" in dialog.unreadable.text()
    assert f"{folder / BAD}: " in text and "peak_allocated_gb" in text
    assert f"{broken}: nccl-tests all_reduce_perf: no all_reduce_perf rows" in text
    assert dialog.report is not None and str(folder / "topo.txt") in dialog.report.files
    assert dialog.store_button.isEnabled()  # the file that was read can be kept


def test_files_that_measure_nothing_say_it_is_no_acceptance(window, qtbot, folder, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    host = folder / "lspci-host.txt"  # lspci of a host with no GPU: read, and nothing in it to check
    host.write_text("00:00.0 Host bridge: Intel Corporation Device 1234\n")
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(host)], ""))
    dialog = open_dialog(window)
    with qtbot.waitSignal(dialog.verified, timeout=30000):
        dialog.files_button.click()
    assert dialog.report is not None and dialog.report.files and dialog.report.nothing_measured
    assert "Nothing was measured: this report accepts nothing" in dialog.summary.text()


def test_a_bug_while_verifying_is_a_message_not_an_exception(window, qtbot, folder, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("injected")

    real = verify_module.verify
    monkeypatch.setattr(verify_module, "verify", broken)
    dialog = open_dialog(window)
    dialog.load([folder])
    qtbot.waitUntil(lambda: not dialog.loading)
    text = dialog.summary.text()
    assert "Could not verify these results" in text and "ZeroDivisionError: injected" in text
    assert dialog.report is None and not dialog.store_button.isEnabled() and not dialog.progress.isVisible()
    assert dialog.folder_button.isEnabled() and dialog.files_button.isEnabled()
    monkeypatch.setattr(verify_module, "verify", real)
    with qtbot.waitSignal(dialog.verified, timeout=30000):  # and the next load works
        dialog.load([folder])
    assert "FAIL" in dialog.summary.text()


def test_before_any_result_the_dialog_says_what_to_open(window, qtbot, folder) -> None:  # type: ignore[no-untyped-def]
    """review2 gui 18: an empty grey table with headers and no guidance; now a line saying what to open, until a
    report fills the table. No unreadable file: no 'Could not read' list."""
    from configurator.ui.shell.verify_dialog import PLACEHOLDER

    dialog = open_dialog(window)
    assert dialog.table_stack.currentWidget() is dialog.placeholder and dialog.placeholder.text() == PLACEHOLDER
    assert dialog.placeholder.isVisible() and not dialog.table.isVisible()
    with qtbot.waitSignal(dialog.verified, timeout=30000):
        dialog.load([RESULTS])
    assert dialog.table_stack.currentWidget() is dialog.table and dialog.table.rowCount() > 0
    assert not dialog.unreadable.isVisibleTo(dialog)
    dialog.close()
