"""File > Verify build…: open a machine's burn-in results (files or the kit's folder), show pass / warn / fail per
figure, outline the slots on the chassis drawing and put the measured peaks beside the predicted bars of the
headroom chart. Every figure comes from the engine (``engine.acceptance``); the dialog only presents it.

A kit's folder can be large (DCGM exports, nccl-tests logs): reading and checking it runs on a worker
(ui/base/worker.py) with a progress bar and Cancel, the dialog usable meanwhile. The prediction is made before,
in the GUI thread: the worker never reads the window's document."""

from __future__ import annotations

import html
import threading
from pathlib import Path
from typing import Protocol, cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.errors import FileError
from configurator.catalog.richtext import escape_rich, plain_tooltip
from configurator.engine.acceptance import (
    AcceptancePrediction,
    Measurements,
    VerifyCancelled,
    VerifyReport,
    collect,
    predict,
    verify,
)
from configurator.engine.acceptance.measured_store import run_of, save
from configurator.report.acceptance_pdf import export_acceptance_pdf
from configurator.report.acceptance_text import kit_missing
from configurator.ui.base import (
    OK_COLOUR,
    SEVERITY_COLOUR,
    BuildDocument,
    Progress,
    Worker,
    ink,
    internal_error,
)
from configurator.ui.charts import HeadroomChart
from configurator.ui.chassis import ChassisView
from configurator.ui.shell.files import data_folder  # where measured runs are kept (tests patch it here)

COLOUR = {"pass": OK_COLOUR, "warn": SEVERITY_COLOUR["warning"], "fail": SEVERITY_COLOUR["error"], "missing": "#757575",
          "incomplete": "#757575"}  # fmt: skip
COLUMNS = ["Result", "Figure", "Expected", "Measured", "Difference", "Likely cause"]
WIDTHS = {1: 220, 2: 160, 3: 140, 4: 100}  # pixels at most, per column but the first and the last
ORDER = {"fail": 0, "warn": 1, "missing": 2, "pass": 3}
PLACEHOLDER = (
    "No results yet. Open the burn-in kit's results folder (Open results folder…) to compare the machine's measured "
    "figures with this build's predictions, one row per figure."
)


def unreadable_names(problems: list[str]) -> list[str]:
    """The file name of each problem line (the engine writes each as 'PATH: what is wrong'), once each, in order."""
    names = [Path(p.split(": ", 1)[0]).name or p for p in problems]
    return list(dict.fromkeys(names))


class VerifiedWindow(Protocol):
    """The window a verify dialog marks: its document, its chassis (slot outlines) and chart (measured points)."""

    doc: BuildDocument
    chassis_view: ChassisView
    chart: HeadroomChart


def _read_and_verify(
    paths: list[Path], prediction: AcceptancePrediction, progress: Progress, cancel: threading.Event
) -> tuple[Measurements, VerifyReport]:
    """The worker's job: only files and the prediction made before, never the window's document. Cancelled, it
    ends without a verdict: collect stops before its next file and what it read is never verified; verify stops
    before its next check (the worker reports nothing of a cancelled job)."""
    measurements = collect(paths, on_progress=progress, cancel=cancel)
    if cancel.is_set():  # a part of the folder: a verdict on it would pass a machine on the files not read
        raise VerifyCancelled("cancelled while reading")
    return measurements, verify(prediction, measurements, cancel)


class VerifyDialog(QDialog):
    """``load(paths)`` starts reading on a worker and returns; ``verified(report)`` once the report is shown
    (``loading`` is false again when it is shown, has failed or was cancelled)."""

    verified = Signal(object)  # the VerifyReport, shown

    def __init__(self, window: VerifiedWindow) -> None:
        assert isinstance(window, QWidget)  # the main window
        super().__init__(window)
        self.window_ = window
        self.report: VerifyReport | None = None
        self.measurements: Measurements | None = None
        self.setWindowTitle("Verify build against measured results")
        layout = QVBoxLayout(self)
        self._shown = (
            "Open the burn-in kit's results folder (configurator burnin), or result files: "
            "nvidia-smi, lspci -vv, nccl-tests, DCGM, the measure tool's JSON."
        )  # the summary of what the table shows, without the lines added since (a cancel puts it back)
        self.summary = QLabel(self._shown)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        # the files that could not be read: one bullet per file, by name; the paths and problems in the tooltip
        self.unreadable = QLabel()
        self.unreadable.setWordWrap(True)
        self.unreadable.setTextFormat(Qt.TextFormat.RichText)
        self.unreadable.setVisible(False)
        layout.addWidget(self.unreadable)
        progress_row = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Reading result files")
        self.progress_label = QLabel()
        self.progress_label.setTextFormat(Qt.TextFormat.PlainText)  # file names as typed
        self.cancel_button = QPushButton("&Cancel")
        self.cancel_button.setToolTip("Stop reading these results; the dialog shows what it showed before")
        self.cancel_button.clicked.connect(self.cancel_load)
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.progress_label, 2)
        progress_row.addWidget(self.cancel_button)
        layout.addLayout(progress_row)
        self.worker = Worker(self)
        self.worker.progressed.connect(self._progressed)
        self.worker.finished.connect(self._verified)
        self.worker.failed.connect(self._load_failed)
        self._kept_buttons = (False, False)  # the store and PDF buttons' states before a load (a cancel restores)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(True)
        self.table.setAccessibleName("Verify results")
        # before any result: what to do, in place of an empty grey table
        self.placeholder = QLabel(PLACEHOLDER)
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setMargin(24)
        self.table_stack = QStackedWidget()
        self.table_stack.addWidget(self.placeholder)
        self.table_stack.addWidget(self.table)
        layout.addWidget(self.table_stack, 1)
        row = QHBoxLayout()
        self.folder_button = QPushButton("Open results &folder…")
        self.files_button = QPushButton("Open result &files…")
        self.store_button = QPushButton("&Keep these measurements")
        self.store_button.setToolTip(
            "Store the measured runs with the machine's record in your data folder; the "
            "acceptance figures then show them as 'measured on this machine'"
        )
        self.store_button.setEnabled(False)
        self.pdf_button = QPushButton("Save report &PDF…")
        self.pdf_button.setToolTip("The acceptance report with the build sheet's reference and sign-off lines")
        self.pdf_button.setEnabled(False)
        close = QPushButton("Close")
        for b in (self.folder_button, self.files_button, self.store_button, self.pdf_button):
            row.addWidget(b)
        row.addStretch(1)
        row.addWidget(close)
        layout.addLayout(row)
        self.folder_button.clicked.connect(self.choose_folder)
        self.files_button.clicked.connect(self.choose_files)
        self.store_button.clicked.connect(self.store)
        self.pdf_button.clicked.connect(self.choose_pdf)
        close.clicked.connect(self.close)
        self.finished.connect(self.cancel_load)  # closed mid-load: nothing more arrives, nothing is marked
        self.finished.connect(self._clear_marks)
        self._set_loading(False)
        self.resize(1000, 560)

    # ---- input ----
    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Burn-in results folder")
        if folder:
            self.load([Path(folder)])

    def choose_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Result files", "", "Results (*.txt *.csv *.json *.log);;All (*)")
        if files:
            self.load([Path(f) for f in files])

    @property
    def loading(self) -> bool:
        return self.worker.busy

    def load(self, paths: list[Path]) -> None:
        """Verify the window's build against ``paths`` on the worker; returns at once. Bad files are listed in the
        report, a failure is said in the summary, never raised; a load still running is cancelled first."""
        if self.worker.busy:
            self.worker.cancel()
        else:
            self._kept_buttons = (self.store_button.isEnabled(), self.pdf_button.isEnabled())
        doc = self.window_.doc
        try:  # the build as it is now, in this thread: the worker never reads the document
            prediction = predict(doc.build, doc.result, doc.catalog)
        except Exception as exc:  # a bug: said in the dialog rather than raised at the user
            self._set_loading(False)
            self._say("Could not verify these results", internal_error(exc))
            return
        self.worker.start(lambda progress, cancel: _read_and_verify(paths, prediction, progress, cancel))
        self.summary.setText(f"Reading {len(paths)} result path(s)…")
        self.progress.setRange(0, 0)  # busy until the files are counted
        self.progress_label.setText("")
        self._set_loading(True)

    def cancel_load(self) -> None:
        """Cancel: stop waiting for the load at once; the table and summary stay as before it."""
        if not self.worker.busy:
            return
        self.worker.cancel()  # the worker stops before its next file; what it read is dropped
        self._set_loading(False)
        self._say("Cancelled", "these results were not verified")

    def _set_loading(self, loading: bool) -> None:
        for widget in (self.progress, self.progress_label, self.cancel_button):
            widget.setVisible(loading)
        self.folder_button.setEnabled(not loading)
        self.files_button.setEnabled(not loading)
        store, pdf = self._kept_buttons if not loading else (False, False)
        self.store_button.setEnabled(store)
        self.pdf_button.setEnabled(pdf)

    def _say(self, head: str, detail: str) -> None:
        """A line above what the table shows: a failed or cancelled load (the report before it stays)."""
        red = ink(self, COLOUR["fail"])  # readable on the theme's window
        self.summary.setText(f"<b style='color:{red}'>{head}</b>: {escape_rich(detail)}<br>{self._shown}")

    def _progressed(self, done: int, total: int, what: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress_label.setText(f"{done} of {total} file(s){': ' + Path(what).name if what else ''}")

    def _verified(self, outcome: object) -> None:
        measurements, report = cast(tuple[Measurements, VerifyReport], outcome)  # _read_and_verify's pair
        self._set_loading(False)
        self.measurements, self.report = measurements, report
        self._show(report)
        self.verified.emit(report)

    def _load_failed(self, message: str) -> None:
        self._set_loading(False)
        self._say("Could not verify these results", message)

    def _show(self, report: VerifyReport) -> None:
        v = report.result  # the engine's overall result: "incomplete" when too little was measured
        colour = ink(self, COLOUR[v])
        text = (
            f"<b style='color:{colour}'>{v.upper()}</b> — {report.count('pass')} pass, {report.count('warn')} "
            f"warn, {report.count('fail')} fail, {report.count('missing')} not measured, from "
            f"{len(report.files)} file(s)."
        )
        names = unreadable_names(report.problems)
        if names:
            more = f"<li>… and {len(names) - 5} more</li>" if len(names) > 5 else ""
            self.unreadable.setText(
                f"<b>Could not read {len(names)} file{'s' if len(names) != 1 else ''}</b> (hover for why):<ul "
                "style='margin:0'>" + "".join(f"<li>{html.escape(n)}</li>" for n in names[:5]) + more + "</ul>"
            )
            self.unreadable.setToolTip(plain_tooltip("\n".join(report.problems)))
        self.unreadable.setVisible(bool(names))
        if not report.files:
            text += "<br>No result file was recognised: give the kit's results folder or the tools' outputs."
        elif report.not_accepted:
            text += "<br>" + html.escape(report.not_accepted)
        missing = kit_missing(report)
        if missing:
            text += f"<br>The burn-in kit could not measure {len(missing)} item(s): " + "; ".join(
                escape_rich(m.split(":")[0]) for m in missing
            )
        self.summary.setText(text)
        self._shown = text
        checks = sorted(report.checks, key=lambda c: ORDER[c.status])
        self.table.setRowCount(len(checks))
        self.table_stack.setCurrentWidget(self.table)
        for r, c in enumerate(checks):
            cells = [
                c.status.upper(),
                c.figure,
                c.expected,
                c.measured or "—",
                c.difference or "",
                c.cause if c.status != "pass" else (c.cause or ""),
            ]
            for col, value in enumerate(cells):
                item = QTableWidgetItem(value or "")
                if col == 0:
                    item.setForeground(QColor(ink(self, COLOUR[c.status], QPalette.ColorRole.Base)))
                if c.source:
                    item.setToolTip(plain_tooltip(
                        f"{value}\n\nSource: {c.source}" if col == len(COLUMNS) - 1 else f"Source: {c.source}"
                    ))
                self.table.setItem(r, col, item)
        self.table.resizeColumnsToContents()
        for col, cap in WIDTHS.items():  # the likely cause keeps the room left
            self.table.setColumnWidth(col, min(self.table.columnWidth(col), cap))
        self.table.resizeRowsToContents()
        self.store_button.setEnabled(bool(report.files))
        self.pdf_button.setEnabled(bool(report.files))
        self._mark(report)

    def _mark(self, report: VerifyReport) -> None:
        """Slots outlined by their worst result; measured peaks beside the predicted bars."""
        doc = self.window_.doc
        marks = {}
        for card in doc.build.cards:
            status = report.slot_status(card.slot)
            if status is not None:
                bad = [
                    c.figure
                    for c in report.checks
                    if (c.slot == card.slot or card.slot in c.slots) and c.status == status
                ]
                marks[card.slot] = (
                    COLOUR[status],
                    f"Slot {card.slot}: {status}" + (f" ({'; '.join(bad[:3])})" if status != "pass" else ""),
                )
        self.window_.chassis_view.set_slot_marks(marks)
        measured = {}
        for job in doc.result.jobs:
            value = report.job_measured(job.name, "job memory")
            if value is not None:
                measured[job.name] = value
        self.window_.chart.set_measured(measured)

    def _clear_marks(self) -> None:
        self.window_.chassis_view.set_slot_marks({})
        self.window_.chart.set_measured({})

    # ---- keep and report ----
    def choose_pdf(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save acceptance report", "acceptance.pdf", "PDF (*.pdf)")
        if path:
            self.save_pdf(Path(path))

    def save_pdf(self, path: Path) -> int:
        """Write the acceptance report; 0 (and a line in the summary) when it cannot be written."""
        if self.report is None:
            return 0
        try:
            pages = export_acceptance_pdf(path, self.window_.doc.build, self.report)
        except (FileError, OSError) as exc:
            self.summary.setText(self.summary.text() + f"<br>Could not write the report: {escape_rich(exc)}")
            return 0
        self.summary.setText(self.summary.text() + f"<br>Wrote {escape_rich(path)} ({pages} page(s)).")
        return pages

    def store(self) -> Path | None:
        if self.report is None or self.measurements is None:
            return None
        try:
            path = save(data_folder(), run_of(self.report, self.measurements))
        except (FileError, OSError) as exc:
            self.summary.setText(self.summary.text() + f"<br>Could not keep the measurements: {escape_rich(exc)}")
            return None
        self.summary.setText(self.summary.text() + f"<br>Kept in {escape_rich(path)}.")
        self.store_button.setEnabled(False)
        return path


def open_verify_dialog(window: VerifiedWindow) -> VerifyDialog:
    """File > Verify build…: the dialog, non-modal so the chassis and chart stay visible beside it."""
    dialog = VerifyDialog(window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
