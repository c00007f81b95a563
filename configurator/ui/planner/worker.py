"""Planning off the UI thread: the first plan of a session evaluates every class on every device (1.5-2 s
for seed B on 2 cores); a re-plan after an edit of demand or prices is ~26 ms. One worker thread runs one
plan at a time, and the latest request wins: a request made while a plan runs stops that plan (the engine asks
the job's cancel event between steps, engine/planner/cancel.py) and requests replace each other, so only the
newest is planned next and a held-down spin box never queues stale work. ``stop()`` stops the running plan and
drops the pending one (the window's Stop); ``stopped`` says so once the worker is idle.
"""

from __future__ import annotations

import threading
import time
import traceback
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from configurator.engine.planner import Plan, PlanCancelled, PlanResult, plan_service


class _Signals(QObject):
    done = Signal(int, object, object, float)  # (request id, Plan, PlanResult | None, seconds)
    failed = Signal(int, str)
    cancelled = Signal(int)


class _Job(QRunnable):
    def __init__(self, ticket: int, plan: Plan, base_dir: Path | None, signals: _Signals) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self.ticket, self.plan, self.base_dir, self.signals = ticket, plan, base_dir, signals
        self.cancel = threading.Event()

    def run(self) -> None:
        t0 = time.perf_counter()
        try:
            result = plan_service(self.plan, base_dir=self.base_dir, cancel=self.cancel.is_set)
        except PlanCancelled:
            self.signals.cancelled.emit(self.ticket)
            return
        except Exception as exc:  # the engine promises no raise; a bug must not kill the window
            detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
            self.signals.failed.emit(self.ticket, f"the planner failed: {detail}")
            return
        self.signals.done.emit(self.ticket, self.plan, result, time.perf_counter() - t0)


class PlanRunner(QObject):
    """``request(plan, base_dir)``; ``finished(plan, result, seconds)`` for the newest request only."""

    busy_changed = Signal(bool)
    finished = Signal(object, object, float)  # (Plan, PlanResult, seconds)
    failed = Signal(str)
    stopped = Signal()  # stop() ended a running plan; nothing of it is shown

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)  # one plan at a time: the engine's cell cache is not shared-write safe
        self._signals = _Signals()
        self._signals.done.connect(self._done)
        self._signals.failed.connect(self._failed)
        self._signals.cancelled.connect(self._cancelled)
        self._ticket = 0
        self._cancel: threading.Event | None = None  # the running job's
        self._stopping = False
        self._running = False
        self._pending: tuple[Plan, Path | None] | None = None
        self.last_seconds: float | None = None

    @property
    def busy(self) -> bool:
        return self._running

    def request(self, plan: Plan, base_dir: Path | None) -> None:
        self._pending = (plan, base_dir)
        self._stopping = False
        if not self._running:
            self._start_next()
        elif self._cancel is not None:
            self._cancel.set()  # its answer is for a plan that no longer is: stop it at its next step

    def stop(self) -> bool:
        """Stop the running plan and forget the pending one; ``stopped`` follows once the job has ended (at its
        next step: at most a few tenths of a second). False when nothing was running."""
        if not self._running:
            return False
        self._pending = None
        self._stopping = True
        if self._cancel is not None:
            self._cancel.set()
        return True

    def _start_next(self) -> None:
        if self._pending is None:
            self._cancel = None
            if self._running:
                self._running = False
                self.busy_changed.emit(False)
            if self._stopping:
                self._stopping = False
                self.stopped.emit()
            return
        plan, base = self._pending
        self._pending = None
        self._ticket += 1
        if not self._running:
            self._running = True
            self.busy_changed.emit(True)
        job = _Job(self._ticket, plan, base, self._signals)
        self._cancel = job.cancel  # the event only: the pool deletes the job when it has run
        self.pool.start(job)

    def _done(self, ticket: int, plan: Plan, result: PlanResult, seconds: float) -> None:
        if ticket == self._ticket and self._pending is None:
            self.last_seconds = seconds
            self._stopping = False  # it ended before the Stop was seen: its result is the plan's, and shown
            self.finished.emit(plan, result, seconds)
        self._start_next()

    def _failed(self, ticket: int, message: str) -> None:
        if ticket == self._ticket and self._pending is None:
            self.failed.emit(message)
        self._start_next()

    def _cancelled(self, _ticket: int) -> None:
        self._start_next()

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until the worker is idle (tests, closing the window)."""
        return self.pool.waitForDone(msecs)
