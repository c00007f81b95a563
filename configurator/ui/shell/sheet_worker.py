"""Writing a build sheet PDF on a worker thread, one at a time, so the window keeps drawing (issue 11).

The worker only runs ``report.pdf.export_pdf`` (its own QTextDocument and QPdfWriter, created on the worker:
both are reentrant; nothing of the window is touched there) and reports through a queued signal. Waiting
for it (closing the window, quitting) spins a local event loop rather than blocking in QThreadPool's
waitForDone, so the report, queued to the main thread, is always delivered.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, QRunnable, QThreadPool, QTimer, Signal, SignalInstance, Slot

from configurator.catalog.errors import FileError
from configurator.catalog.loader import Catalog
from configurator.engine import Build, BuildResult
from configurator.report import pdf
from configurator.report.sheet import SheetOptions


class _Job(QRunnable):
    def __init__(self, report: SignalInstance, path: Path, build: Build, result: BuildResult, catalog: Catalog,
                 options: SheetOptions) -> None:  # fmt: skip
        super().__init__()
        self.setAutoDelete(False)  # the writer keeps it until it has reported
        self.report, self.path = report, path
        self.build, self.result, self.catalog, self.options = build, result, catalog, options

    def run(self) -> None:
        try:
            pages = pdf.export_pdf(self.path, self.build, self.result, self.catalog, self.options)
        except FileError as exc:  # unwritable folder, full disk: export_pdf left the old file as it was
            self.report.emit(self.path, 0, str(exc))
        except Exception as exc:  # a bug in the sheet: said in the window, never lost in a thread
            self.report.emit(self.path, 0, f"{self.path}: the build sheet could not be written ({exc!r})")
        else:
            self.report.emit(self.path, pages, "")


class SheetWriter(QObject):
    """Starts one sheet write at a time; ``finished(path, pages, error)`` in the main thread when it is
    done (pages 0 and the reason in ``error`` when it failed, ``error`` empty when it was written)."""

    finished = Signal(object, int, str)
    _reported = Signal(object, int, str)  # emitted on the worker, delivered queued to _finish

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._job: _Job | None = None
        self._reported.connect(self._finish)

    @property
    def busy(self) -> bool:
        return self._job is not None

    def start(self, path: Path, build: Build, result: BuildResult, catalog: Catalog, options: SheetOptions) -> bool:
        """Start writing ``path``; False (nothing started) while another sheet is being written."""
        if self._job is not None:
            return False
        self._job = _Job(self._reported, path, build, result, catalog, options)
        self._pool.start(self._job)
        return True

    @Slot(object, int, str)
    def _finish(self, path: Path, pages: int, error: str) -> None:
        self._job = None
        self.finished.emit(path, pages, error)

    def wait(self, timeout_ms: int = 60_000) -> bool:
        """Until the running write has reported (its ``finished`` delivered), at most ``timeout_ms``;
        user input waits meanwhile. True when nothing is running any more."""
        if self._job is None:
            return True
        loop = QEventLoop()
        self.finished.connect(loop.quit)
        QTimer.singleShot(timeout_ms, loop.quit)
        loop.exec(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)  # the report is queued: it waits for us
        self.finished.disconnect(loop.quit)
        return self._job is None
