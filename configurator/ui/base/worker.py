"""Long work off the GUI thread: one job at a time on a Qt pool thread, reported in the GUI thread.

The window's build sheet (shell/sheet_worker.py) and File > Verify build… (shell/verify_dialog.py) run on it.
A job is ``work(progress, cancel)``: it calls ``progress(done, total, what)`` as it goes and looks at the
``cancel`` event between steps. Whatever it returns comes back as ``finished(result)``; an exception comes back
as ``failed(message)``, never lost in the thread nor raised at the user.

``cancel()`` stops the waiting at once: the job is told to stop, and nothing it reports afterwards is delivered
(a job that ends with its ``cancel`` set sends nothing back; one that ended just before is dropped here by its
ticket), so a new job can start while the old one ends its current step on its own. A job that can stop part-way
stops before its next step and ends without a result rather than work on what it has. The job runs on Qt's global pool
rather than a pool of the owner's: closing a window whose job was cancelled does not wait for that step.
Waiting for a job (closing the window, quitting) spins a local event loop rather than blocking the thread, so
the report, queued to the GUI thread, is always delivered.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QEventLoop, QObject, QThreadPool, QTimer, Signal, Slot

Progress = Callable[[int, int, str], None]  # (steps done, steps in all or 0 while not known, what is done now)
Work = Callable[[Progress, threading.Event], object]
Describe = Callable[[Exception], str]


def internal_error(exc: Exception) -> str:
    """What a job's unforeseen exception (a bug) says to the user."""
    return f"an internal error ({type(exc).__name__}: {exc})"


class _Relay(QObject):
    """Emitted on the pool thread, delivered queued to the worker. Parentless and held by the running job as
    well as the worker: a job that outlives its worker (the window closed) still has something to emit on."""

    progressed = Signal(int, int, int, str)  # (ticket, done, total, what)
    done = Signal(int, object)  # (ticket, result)
    failed = Signal(int, str)  # (ticket, message)


def _run(ticket: int, work: Work, describe: Describe, cancel: threading.Event, relay: _Relay) -> None:
    def progress(done: int, total: int, what: str) -> None:
        if not cancel.is_set():  # the worker drops them anyway: no queue of stale steps
            relay.progressed.emit(ticket, done, total, what)

    try:
        result = work(progress, cancel)
    except Exception as exc:
        if cancel.is_set():  # cancelled: how it stopped is nobody's concern
            return
        try:
            message = describe(exc)
        except Exception:  # a describe that fails must not lose the report
            message = internal_error(exc)
        relay.failed.emit(ticket, message)
    else:
        if not cancel.is_set():  # a cancelled job's result, partial or late, never leaves its thread
            relay.done.emit(ticket, result)


class Worker(QObject):
    """``start(work)`` runs one job; ``progressed``, then ``finished`` or ``failed``, in the GUI thread. ``busy``
    is false again before either is emitted, so their handlers may start the next job."""

    progressed = Signal(int, int, str)  # (done, total; 0 while not known, what)
    finished = Signal(object)  # what the job returned
    failed = Signal(str)  # why it did not finish
    _settled = Signal()  # a job's report was delivered (wait)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._relay = _Relay()
        self._relay.progressed.connect(self._progressed)
        self._relay.done.connect(self._done)
        self._relay.failed.connect(self._failed)
        self._ticket = 0
        self._cancel: threading.Event | None = None  # the running job's; None when idle

    @property
    def busy(self) -> bool:
        return self._cancel is not None

    def start(self, work: Work, describe: Describe = internal_error) -> bool:
        """Start ``work``; False (nothing started) while another job runs. ``describe`` words an exception the
        job raised (``failed``'s message)."""
        if self._cancel is not None:
            return False
        self._ticket += 1
        self._cancel = threading.Event()
        ticket, cancel, relay = self._ticket, self._cancel, self._relay
        QThreadPool.globalInstance().start(lambda: _run(ticket, work, describe, cancel, relay))
        return True

    def cancel(self) -> None:
        """Tell the running job to stop and stop waiting for it: it reports nothing more, ``busy`` is false."""
        if self._cancel is not None:
            self._cancel.set()
            self._cancel = None
            self._settled.emit()

    def _current(self, ticket: int) -> bool:
        return ticket == self._ticket and self._cancel is not None

    @Slot(int, int, int, str)
    def _progressed(self, ticket: int, done: int, total: int, what: str) -> None:
        if self._current(ticket):
            self.progressed.emit(done, total, what)

    @Slot(int, object)
    def _done(self, ticket: int, result: object) -> None:
        if self._current(ticket):
            self._cancel = None
            self.finished.emit(result)
            self._settled.emit()

    @Slot(int, str)
    def _failed(self, ticket: int, message: str) -> None:
        if self._current(ticket):
            self._cancel = None
            self.failed.emit(message)
            self._settled.emit()

    def wait(self, timeout_ms: int = 60_000) -> bool:
        """Until the running job has reported (its ``finished`` or ``failed`` delivered) or was cancelled, at most
        ``timeout_ms``; user input waits meanwhile. True when nothing is running any more."""
        if self._cancel is None:
            return True
        loop = QEventLoop()
        self._settled.connect(loop.quit)
        QTimer.singleShot(timeout_ms, loop.quit)
        loop.exec(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)  # the report is queued: it waits for us
        self._settled.disconnect(loop.quit)
        return self._cancel is None
