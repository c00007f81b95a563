"""The shared worker (ui/base/worker.py) of File > Verify build… and the build sheet: a job that ends after its
Cancel sends nothing back; the error it stops with is not even worded (its ``describe`` is the caller's)."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QApplication

from configurator.ui.base import Progress, Worker

pytestmark = pytest.mark.usefixtures("qapp")


def test_a_job_that_stops_with_an_error_after_its_cancel_sends_nothing_back() -> None:
    worker = Worker()
    heard: list[object] = []
    worker.finished.connect(heard.append)
    worker.failed.connect(heard.append)
    running, sent = threading.Event(), threading.Event()
    described: list[Exception] = []

    def job(progress: Progress, cancel: threading.Event) -> object:
        running.set()
        assert cancel.wait(20), "the test never cancelled the job"
        sent.set()
        raise RuntimeError("stopped part-way")  # as verify's VerifyCancelled

    def describe(exc: Exception) -> str:
        described.append(exc)  # the sheet words its errors for the window: never for a cancelled job
        return str(exc)

    assert worker.start(job, describe)
    assert running.wait(20)
    worker.cancel()
    assert not worker.busy
    assert QThreadPool.globalInstance().waitForDone(20000)  # the job has ended
    QApplication.processEvents()
    assert sent.is_set() and heard == [] and described == []
    # the worker is free for the next job, whose report is delivered
    assert worker.start(lambda progress, cancel: "next")
    assert worker.wait(20000) and heard == ["next"]
