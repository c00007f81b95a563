"""The window's build sheet PDF is written on a worker thread with the status bar busy (issue 11): the
window keeps drawing, the result comes back as ``sheet_written``, failures as a message, and closing
waits for a sheet still being written."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QProgressBar

import configurator.report.pdf as pdf

pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture
def gate(monkeypatch):  # type: ignore[no-untyped-def]
    """export_pdf held on the worker until ``gate.set()``; records the thread it ran on."""
    real = pdf.export_pdf
    release = threading.Event()
    release.threads = []  # type: ignore[attr-defined]

    def held(*args, **kwargs):  # type: ignore[no-untyped-def]
        release.threads.append(threading.get_ident())  # type: ignore[attr-defined]
        assert release.wait(20), "the test never released the export"
        return real(*args, **kwargs)

    monkeypatch.setattr(pdf, "export_pdf", held)
    yield release
    release.set()


def busy_bar(window) -> QProgressBar | None:  # type: ignore[no-untyped-def]
    bars = [b for b in window.statusBar().findChildren(QProgressBar) if b.isVisible()]
    return bars[0] if bars else None


def test_sheet_written_on_a_worker_with_the_status_bar_busy(window, qtbot, gate, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "sheet.pdf"
    with qtbot.waitSignal(window.sheet.written, timeout=30000) as written:
        assert window.sheet.export_to(out, "a4")  # returns at once: the write has only started
        qtbot.waitUntil(lambda: bool(gate.threads))
        assert not out.exists()
        assert busy_bar(window) is not None and busy_bar(window).maximum() == 0  # busy, no steps
        assert "Writing the build sheet" in window.statusBar().currentMessage()
        assert not window.menus.export_action.isEnabled()
        assert not window.sheet.export_to(tmp_path / "second.pdf")  # one at a time
        window.doc.edit("rename while writing", lambda b: b.model_copy(update={"name": "Renamed"}))
        QApplication.processEvents()  # the window still answers
        assert "Renamed" in window.windowTitle()
        gate.set()
    assert gate.threads[0] != threading.get_ident()  # not the GUI thread
    path, pages = written.args
    assert path == out and pages >= 1 and out.read_bytes().startswith(b"%PDF")
    assert pdf.read_attached_build(out) is not None
    assert "Renamed" not in pdf.read_attached_build(out)  # the build as it was when Export was chosen
    assert busy_bar(window) is None and window.menus.export_action.isEnabled()
    assert "Build sheet saved" in window.statusBar().currentMessage()
    assert not (tmp_path / "second.pdf").exists()


def test_unwritable_path_says_why_and_leaves_nothing(window, qtbot, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shown: list[str] = []
    monkeypatch.setattr(window.sheet, "show_error", lambda title, text: shown.append(f"{title}: {text}"))
    out = tmp_path / "no-such-folder" / "sheet.pdf"
    with qtbot.waitSignal(window.sheet.written, timeout=30000) as written:
        assert window.sheet.export_to(out)
    assert written.args == [out, 0]
    assert shown and shown[0].startswith("Cannot export build sheet") and "no-such-folder" in shown[0]
    assert not out.parent.exists() and busy_bar(window) is None and window.menus.export_action.isEnabled()


def test_a_bug_in_the_sheet_is_reported_not_lost(window, qtbot, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("injected")

    monkeypatch.setattr(pdf, "export_pdf", broken)
    shown: list[str] = []
    monkeypatch.setattr(window.sheet, "show_error", lambda title, text: shown.append(text))
    with qtbot.waitSignal(window.sheet.written, timeout=30000) as written:
        assert window.sheet.export_to(tmp_path / "sheet.pdf")
    assert written.args[1] == 0 and shown and "injected" in shown[0]


def test_closing_waits_for_the_sheet(window, qtbot, gate, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Closing the window while a sheet is written waits until it is saved (the worker would otherwise
    outlive the window that reports it)."""
    out = tmp_path / "sheet.pdf"
    written: list[object] = []
    window.sheet.written.connect(lambda path, pages: written.append((path, pages)))
    assert window.sheet.export_to(out)
    qtbot.waitUntil(lambda: bool(gate.threads))
    threading.Timer(0.3, gate.set).start()
    assert window.close()
    assert written and written[0][0] == out and written[0][1] >= 1 and out.exists()
    assert window.sheet.wait(10)  # nothing left running
