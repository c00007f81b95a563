"""Writing a build sheet PDF on a worker thread (ui/base/worker.py), one at a time, so the window keeps drawing
(issue 11).

The job only runs ``report.pdf.export_pdf`` (its own QTextDocument and QPdfWriter, created on the worker:
both are reentrant; nothing of the window is touched there). Waiting for it (closing the window, quitting)
spins a local event loop, so the report, queued to the main thread, is always delivered.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from configurator.catalog.errors import FileError
from configurator.catalog.loader import Catalog
from configurator.engine import Build, BuildResult
from configurator.report import pdf
from configurator.report.sheet import SheetOptions
from configurator.ui.base import Progress, Worker


class SheetWriter(QObject):
    """Starts one sheet write at a time; ``finished(path, pages, error)`` in the main thread when it is
    done (pages 0 and the reason in ``error`` when it failed, ``error`` empty when it was written)."""

    finished = Signal(object, int, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._worker = Worker(self)
        self._worker.finished.connect(self._written)
        self._worker.failed.connect(self._failed)
        self._path = Path()

    @property
    def busy(self) -> bool:
        return self._worker.busy

    def start(self, path: Path, build: Build, result: BuildResult, catalog: Catalog, options: SheetOptions) -> bool:
        """Start writing ``path``; False (nothing started) while another sheet is being written."""

        def write(progress: Progress, cancel: threading.Event) -> int:
            return pdf.export_pdf(path, build, result, catalog, options)

        def describe(exc: Exception) -> str:
            if isinstance(exc, FileError):  # unwritable folder, full disk: export_pdf left the old file as it was
                return str(exc)
            return f"{path}: the build sheet could not be written ({exc!r})"  # a bug in the sheet, said in the window

        if not self._worker.start(write, describe):
            return False
        self._path = path
        return True

    def _written(self, pages: object) -> None:
        self.finished.emit(self._path, pages if isinstance(pages, int) else 0, "")

    def _failed(self, error: str) -> None:
        self.finished.emit(self._path, 0, error)

    def wait(self, timeout_ms: int = 60_000) -> bool:
        """Until the running write has reported (its ``finished`` delivered), at most ``timeout_ms``;
        user input waits meanwhile. True when nothing is running any more."""
        return self._worker.wait(timeout_ms)
