"""File > Export plan PDF… in the planner window: the plan section ``configurator plan --pdf`` writes
(report/plan_sheet.export_plan_pdf), written on the shared worker (ui/base/worker.py), one at a time, so the
window keeps drawing while Qt lays out and writes the pages; the status bar is busy meanwhile."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from configurator.catalog.errors import FileError
from configurator.engine.planner import PlanResult
from configurator.report.pdf import default_page
from configurator.report.plan_sheet import export_plan_pdf
from configurator.ui.base import Progress, Worker


class PlanPdfWriter(QObject):
    """``start(path, result)``; ``finished(path, pages, error)`` in the GUI thread (pages 0 and the reason in
    ``error`` when it failed)."""

    finished = Signal(object, int, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._path = Path()
        self._worker = Worker(self)
        self._worker.finished.connect(lambda pages: self.finished.emit(self._path, int(pages), ""))
        self._worker.failed.connect(lambda error: self.finished.emit(self._path, 0, error))

    @property
    def busy(self) -> bool:
        return self._worker.busy

    def start(self, path: Path, result: PlanResult, page: str | None = None) -> bool:
        """Start writing ``path``; False (nothing started) while another plan PDF is being written."""
        size = page or default_page()  # read here, in the GUI thread: QLocale's system locale

        def write(progress: Progress, cancel: threading.Event) -> int:
            return export_plan_pdf(path, result, page=size)

        def describe(exc: Exception) -> str:
            if isinstance(exc, FileError):  # unwritable folder, full disk: written atomically, nothing left behind
                return str(exc)
            return f"{path}: the plan PDF could not be written ({exc!r})"

        if not self._worker.start(write, describe):
            return False
        self._path = path
        return True

    def wait(self, timeout_ms: int = 60_000) -> bool:
        """Until the running write has reported, at most ``timeout_ms``; True when nothing runs any more."""
        return self._worker.wait(timeout_ms)
