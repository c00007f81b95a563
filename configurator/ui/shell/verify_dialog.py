"""File > Verify build…: open a machine's burn-in results (files or the kit's folder), show pass / warn / fail per
figure, outline the slots on the chassis drawing and put the measured peaks beside the predicted bars of the
headroom chart. Every figure comes from the engine (``engine.acceptance``); the dialog only presents it."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.errors import FileError
from configurator.catalog.richtext import escape_rich, plain_tooltip
from configurator.engine.acceptance import Measurements, VerifyReport, collect, predict, verify
from configurator.engine.acceptance.measured_store import run_of, save
from configurator.report.acceptance_pdf import export_acceptance_pdf
from configurator.report.acceptance_text import kit_missing
from configurator.ui.base import OK_COLOUR, SEVERITY_COLOUR, BuildDocument
from configurator.ui.charts import HeadroomChart
from configurator.ui.chassis import ChassisView
from configurator.ui.shell.files import data_folder  # where measured runs are kept (tests patch it here)

COLOUR = {"pass": OK_COLOUR, "warn": SEVERITY_COLOUR["warning"], "fail": SEVERITY_COLOUR["error"], "missing": "#757575"}
COLUMNS = ["Result", "Figure", "Expected", "Measured", "Difference", "Likely cause"]
WIDTHS = {1: 220, 2: 160, 3: 140, 4: 100}  # pixels at most, per column but the first and the last
ORDER = {"fail": 0, "warn": 1, "missing": 2, "pass": 3}


class VerifiedWindow(Protocol):
    """The window a verify dialog marks: its document, its chassis (slot outlines) and chart (measured points)."""

    doc: BuildDocument
    chassis_view: ChassisView
    chart: HeadroomChart


class VerifyDialog(QDialog):
    def __init__(self, window: VerifiedWindow) -> None:
        assert isinstance(window, QWidget)  # the main window
        super().__init__(window)
        self.window_ = window
        self.report: VerifyReport | None = None
        self.measurements: Measurements | None = None
        self.setWindowTitle("Verify build against measured results")
        layout = QVBoxLayout(self)
        self.summary = QLabel(
            "Open the burn-in kit's results folder (configurator burnin), or result files: "
            "nvidia-smi, lspci -vv, nccl-tests, DCGM, the measure tool's JSON."
        )
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(True)
        self.table.setAccessibleName("Verify results")
        layout.addWidget(self.table, 1)
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
        self.finished.connect(self._clear_marks)
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

    def load(self, paths: list[Path]) -> None:
        """Verify the window's build against ``paths``; bad files are listed, never raised."""
        doc = self.window_.doc
        prediction = predict(doc.build, doc.result, doc.catalog)
        self.measurements = collect(paths)
        self.report = verify(prediction, self.measurements)
        self._show(self.report)

    def _show(self, report: VerifyReport) -> None:
        v = report.verdict
        text = (
            f"<b style='color:{COLOUR[v]}'>{v.upper()}</b> — {report.count('pass')} pass, {report.count('warn')} "
            f"warn, {report.count('fail')} fail, {report.count('missing')} not measured, from "
            f"{len(report.files)} file(s)."
        )
        if report.problems:
            text += "<br>Could not read: " + "; ".join(html.escape(p[:160]) for p in report.problems[:5])
        if not report.files:
            text += "<br>No result file was recognised: give the kit's results folder or the tools' outputs."
        missing = kit_missing(report)
        if missing:
            text += f"<br>The burn-in kit could not measure {len(missing)} item(s): " + "; ".join(
                escape_rich(m.split(":")[0]) for m in missing
            )
        self.summary.setText(text)
        checks = sorted(report.checks, key=lambda c: ORDER[c.status])
        self.table.setRowCount(len(checks))
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
                    item.setForeground(QColor(COLOUR[c.status]))
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
