"""The planner window: beside the build editor, its own File and Edit menus; inputs on the left, charts
above, the class x device table, the ranked fleets and the plan's problems below. Planning runs on a worker
thread (``worker.PlanRunner``); the status bar shows a busy indicator and a Stop button while it runs. File >
Export plan PDF… writes the plan section ``configurator plan --pdf`` writes, on a worker (``export.py``)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEvent, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.errors import FileError
from configurator.engine import Build
from configurator.engine.planner import Plan, PlanResult, load_plan
from configurator.engine.planner.buildout import node_build
from configurator.paths import resource
from configurator.report.plan_text import answer_html
from configurator.ui.base import (
    MIN_WINDOW,
    PlanDocument,
    fit_to_screen,
    muted_ink,
    redo_shortcuts,
    safe_message,
    severity_ink,
)
from configurator.ui.planner.charts import PlannerCharts
from configurator.ui.planner.export import PlanPdfWriter
from configurator.ui.planner.fleets import FleetsPanel
from configurator.ui.planner.inputs import InputsPanel
from configurator.ui.planner.table import MatrixTable
from configurator.ui.planner.worker import PlanRunner

TITLE = "Service planner"


def example_plan_path() -> Path:
    return Path(resource("plans", "seed-b-service.yaml"))


class PlannerWindow(QMainWindow):
    def __init__(self, doc: PlanDocument | None = None, on_open_build: Callable[[Build], object] | None = None,
                 parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        if parent is not None:
            self.setWindowFlag(Qt.WindowType.Window, True)  # its own top-level window beside the editor
        if doc is None:
            path = example_plan_path()
            doc = PlanDocument(load_plan(path), path)
        self.doc = doc
        self.on_open_build = on_open_build
        self.result: PlanResult | None = None
        self.result_plan: Plan | None = None
        self.runner = PlanRunner(self)
        self.pdf_writer = PlanPdfWriter(self)

        self._build_centre()
        self._build_inputs_dock()
        self._build_status_bar()
        self._make_actions()

        doc.changed.connect(lambda _p: self.replan())
        doc.path_changed.connect(lambda _p: self._title())
        doc.undo_stack.cleanChanged.connect(lambda _c: self._title())
        doc.refused.connect(lambda reason: self.statusBar().showMessage(f"Refused: {reason}", 8000))
        self.runner.busy_changed.connect(self._busy)
        self.runner.finished.connect(self._planned)
        self.runner.failed.connect(lambda msg: self.statusBar().showMessage(msg, 12000))
        self.runner.stopped.connect(self._stopped)
        self.pdf_writer.finished.connect(self._pdf_written)
        self.fleets.open_requested.connect(self.open_as_build)
        # explicit, as the main window's (shell/layout.py MIN_WINDOW): a minimum taken from the layout changed
        # on relayouts and made the offscreen platform log "does not support propagateSizeHints()"
        self.setMinimumSize(MIN_WINDOW)
        fit_to_screen(self, 1440, 900)
        self._title()
        self.replan()

    # ---- layout ----
    def _build_centre(self) -> None:
        """The charts above the tabs (classes x devices table, fleets, problems)."""
        self.charts = PlannerCharts()
        self.table = MatrixTable()
        self.fleets = FleetsPanel()
        self.problems = QTextBrowser()
        self.problems.setOpenLinks(False)
        # the answer first, in words a platform team reads (report/plan_text.answer_html)
        self.answer = QTextBrowser()
        self.answer.setOpenLinks(False)
        self.answer.setAccessibleName("The planner's answer")
        self.tabs = QTabWidget()
        self.tabs.addTab(self.answer, "Answer")
        matrix = QWidget()
        box = QVBoxLayout(matrix)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.table, 1)
        self.table_note = QLabel(
            "Per cell: the memory verdict (peak reserved / capacity per card, GB = 10^9 B), then one job's service "
            "time and jobs per day per card at the utilisation target. * service time from the catalog's "
            "UNCONFIRMED compute-rate estimate. Hover a cell for its figures."
        )
        self.table_note.setWordWrap(True)
        box.addWidget(self.table_note)
        self.tabs.addTab(matrix, "Classes × devices")
        self.tabs.addTab(self.fleets, "Fleets")
        self.tabs.addTab(self.problems, "Problems && notes")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.charts)
        split.addWidget(self.tabs)
        split.setChildrenCollapsible(False)
        self.charts.setMinimumHeight(260)
        self.tabs.setMinimumHeight(200)
        # the charts take five eighths: at 1024x768 three fifths left the demand plot 96 px high (review 2 finding 23)
        split.setStretchFactor(0, 5)
        split.setStretchFactor(1, 3)
        split.setSizes([500, 300])
        self.setCentralWidget(split)

    def _build_inputs_dock(self) -> None:
        """The plan's inputs, scrolled, in a dock on the left."""
        self.inputs = InputsPanel(self.doc)
        scroll = QScrollArea()
        scroll.setWidget(self.inputs)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(300)
        dock = QDockWidget("Inputs", self)
        dock.setObjectName("planner-inputs")
        dock.setWidget(scroll)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)

    def _build_status_bar(self) -> None:
        """The planning time and the busy indicator, permanent in the status bar."""
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # indeterminate: planning is running
        self.busy.setMaximumWidth(120)
        self.busy.setTextVisible(False)
        self.busy.setAccessibleName("Planning")
        self.busy.setVisible(False)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop the plan being computed (Esc); the figures shown stay those of the last "
                                    "plan that finished. Plan › Plan again (F5) runs it again.")  # fmt: skip
        self.stop_button.setAccessibleName("Stop planning")
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.setVisible(False)
        self.pdf_busy = QProgressBar()
        self.pdf_busy.setRange(0, 0)  # export_plan_pdf reports no steps
        self.pdf_busy.setMaximumWidth(120)
        self.pdf_busy.setTextVisible(False)
        self.pdf_busy.setAccessibleName("Writing the plan PDF")
        self.pdf_busy.setVisible(False)
        self.timing = QLabel()
        self.statusBar().addPermanentWidget(self.timing)
        self.statusBar().addPermanentWidget(self.busy)
        self.statusBar().addPermanentWidget(self.stop_button)
        self.statusBar().addPermanentWidget(self.pdf_busy)

    # ---- menus ----
    def _make_actions(self) -> None:
        mb = self.menuBar()

        def act(menu: QMenu, text: str, slot: Callable[[], object],
                shortcut: QKeySequence | QKeySequence.StandardKey | None = None,
                tip: str | None = None) -> QAction:  # fmt: skip
            a = QAction(text, self)
            if shortcut is not None:
                a.setShortcut(shortcut)
            if tip:
                a.setStatusTip(tip)
            a.triggered.connect(slot)
            menu.addAction(a)
            return a

        file = mb.addMenu("&File")
        self.new_action = act(file, "&New plan", self.new_plan, QKeySequence.StandardKey.New,
                              "A new plan, starting from the shipped example (a fine-tuning service)")  # fmt: skip
        self.open_action = act(file, "&Open plan…", self.open_dialog, QKeySequence.StandardKey.Open)
        file.addSeparator()
        self.save_action = act(file, "&Save", self.save, QKeySequence.StandardKey.Save)
        self.save_as_action = act(file, "Save &As…", self.save_as, QKeySequence.StandardKey.SaveAs)
        file.addSeparator()
        self.export_action = act(file, "&Export plan PDF…", self.export_dialog, QKeySequence("Ctrl+E"),
                                 "The plan as a PDF: the answer, classes × devices, ranked fleets and the roadmap "
                                 "(as configurator plan --pdf)")  # fmt: skip
        file.addSeparator()
        act(file, "&Close", self.close, QKeySequence.StandardKey.Close)
        edit = mb.addMenu("&Edit")
        self.undo_action = self.doc.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = self.doc.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts(redo_shortcuts())  # Ctrl+Shift+Z once: twice was ambiguous on X11
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        plan = mb.addMenu("&Plan")
        self.open_build_action = act(plan, "Open as &build", self.fleets._open, QKeySequence("Ctrl+Shift+B"),
                                     "Open a node of the selected fleet in the build editor")  # fmt: skip
        self.open_build_action.setEnabled(self.on_open_build is not None)
        plan.addSeparator()
        self.stop_action = act(plan, "&Stop planning", self.stop, QKeySequence(Qt.Key.Key_Escape),
                               "Stop the plan being computed; the last finished plan stays on screen")  # fmt: skip
        self.stop_action.setEnabled(False)
        self.replan_action = act(plan, "&Plan again", self.replan, QKeySequence(Qt.Key.Key_F5),
                                 "Compute the plan again from the inputs")  # fmt: skip

    def _title(self) -> None:
        name = self.doc.path.name if self.doc.path else "untitled"
        self.setWindowTitle(f"{self.doc.plan.name} — {name}[*] — {TITLE}")
        self.setWindowModified(self.doc.modified)

    # ---- planning ----
    def replan(self) -> None:
        self.runner.request(self.doc.plan, self.doc.base_dir)

    def stop(self) -> None:
        """Stop the running plan (Stop button, Plan › Stop planning, Esc)."""
        if self.runner.stop():
            self.timing.setText("stopping…")

    def _stopped(self) -> None:
        stale = self.result_plan != self.doc.plan
        self.timing.setText("plan stopped" + (": the figures are those of an earlier plan" if stale else ""))
        self.statusBar().showMessage("Plan stopped. Plan › Plan again (F5) or any edit runs it again.", 10000)

    def _busy(self, busy: bool) -> None:
        self.busy.setVisible(busy)
        self.stop_button.setVisible(busy)
        self.stop_action.setEnabled(busy)
        if busy:
            self.timing.setText("planning…")

    def _planned(self, plan: Plan, result: PlanResult, seconds: float) -> None:
        if plan != self.doc.plan:  # an edit arrived meanwhile; its own plan follows
            return
        self.result, self.result_plan = result, plan
        self.charts.update_result(result, plan.service.utilisation_target)
        self.table.update_result(result)
        self.fleets.update_result(result)
        self.inputs.set_currency(result.currency)
        self.problems.setHtml(self._problems_html(result))
        self.answer.setHtml(answer_html(result))
        errors = len(result.errors)
        text = f"Problems ({errors} error{'s' if errors != 1 else ''})" if errors else "Problems && notes"
        self.tabs.setTabText(self.tabs.indexOf(self.problems), text)
        s = result.search
        self.timing.setText(f"planned in {seconds * 1000:.0f} ms · {s.candidates:,} fleets searched")

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.result is not None:  # the theme: inks follow it
            self.problems.setHtml(self._problems_html(self.result))

    def _problems_html(self, result: PlanResult) -> str:
        """The problems in their severity's ink and the notes in a secondary one, both readable on the theme's
        background (a fixed #555 on the dark theme was 2.0:1)."""
        base = QPalette.ColorRole.Base
        rows = []
        for p in result.problems:
            colour = severity_ink(self, p.severity, base)
            where = f" [{escape(p.field)}]" if p.field else ""
            rows.append(f"<p><b style='color:{colour}'>{p.severity.upper()}</b>{where}: {escape(p.message)}</p>")
        if not result.problems:
            rows.append("<p>No problems.</p>")
        muted = muted_ink(self, base)
        rows += [f"<p style='color:{muted}'>{escape(n)}</p>" for n in result.notes]
        return "".join(rows)

    def wait_for_plan(self, msecs: int = 30_000) -> PlanResult | None:
        """Block until the newest plan is on screen (tests and benchmarks)."""
        timer = QElapsedTimer()
        timer.start()
        while timer.elapsed() < msecs:
            QCoreApplication.processEvents()
            if not self.runner.busy and self.result_plan == self.doc.plan:
                return self.result
            self.runner.pool.waitForDone(5)
        return None

    # ---- export ----
    def export_dialog(self) -> None:
        if not self._can_export():
            return
        folder = self.doc.base_dir or Path.home()
        start = str(folder / f"{self.doc.path.stem if self.doc.path else self.doc.plan.name}.pdf")
        path, _ = QFileDialog.getSaveFileName(self, "Export plan PDF", start, "PDF (*.pdf)")
        if path:
            self.export_to(Path(path))

    def _can_export(self) -> bool:
        """A PDF only of the plan as it is now: not while it is computed, nor after a Stop left an older one."""
        if self.pdf_writer.busy:
            self.statusBar().showMessage("A plan PDF is still being written; try again when it is saved", 8000)
            return False
        if self.result is None or self.result_plan != self.doc.plan:
            why = "is still being computed" if self.runner.busy else "was stopped: Plan › Plan again (F5) first"
            self.statusBar().showMessage(f"Cannot export yet: the plan {why}", 8000)
            return False
        return True

    def export_to(self, path: Path, page: str | None = None) -> bool:
        """Write the plan PDF on a worker; the status bar is busy until it is written. False when not started."""
        if not self._can_export() or self.result is None:
            return False
        if not self.pdf_writer.start(path, self.result, page):
            return False
        self.pdf_busy.setVisible(True)
        self.statusBar().showMessage(f"Writing the plan PDF to {path}…")
        return True

    def _pdf_written(self, path: Path, pages: int, error: str) -> None:
        self.pdf_busy.setVisible(False)
        if error:
            self.statusBar().clearMessage()
            QMessageBox.critical(self, "Cannot export plan PDF", safe_message(error))
        else:
            self.statusBar().showMessage(f"Plan PDF saved: {path} ({pages} page{'s' if pages != 1 else ''})", 8000)

    # ---- open as build ----
    def open_as_build(self, rank: int, node: str) -> Build | None:
        if self.result is None or self.result_plan is None or self.on_open_build is None:
            return None
        fleet = next((f for f in self.result.fleets if f.rank == rank), None)
        if fleet is None:
            return None
        try:
            build = node_build(self.result_plan, fleet, node, base_dir=self.doc.base_dir)
        except ValueError as exc:
            self.statusBar().showMessage(f"Cannot open as build: {exc}", 8000)
            return None
        self.on_open_build(build)
        editor = self.parentWidget()
        if editor is not None:  # bring the build editor forward with the candidate in it
            editor.raise_()
            editor.activateWindow()
        self.statusBar().showMessage(f"Opened {node} of fleet #{rank} in the build editor", 6000)
        return build

    # ---- files ----
    def new_plan(self) -> None:
        if self.maybe_save():
            plan = load_plan(example_plan_path())
            self.doc.replace(plan.model_copy(update={"name": "Untitled plan"}), None)

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        start = str(self.doc.base_dir or example_plan_path().parent)
        path, _ = QFileDialog.getOpenFileName(self, "Open plan", start, "Plan files (*.yaml *.yml);;All files (*)")
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path) -> bool:
        """Open a plan; on any problem show file, line and field, and keep the current plan."""
        try:
            self.doc.open(path)
        except FileError as exc:
            QMessageBox.critical(self, "Cannot open plan", safe_message(str(exc)))
            return False
        self.statusBar().showMessage(f"Opened {path}", 5000)
        return True

    def save(self) -> bool:
        return self.save_as() if self.doc.path is None else self.save_to(self.doc.path)

    def save_as(self) -> bool:
        start = str((self.doc.base_dir or Path.home()) / f"{self.doc.plan.name}.yaml")
        path, _ = QFileDialog.getSaveFileName(self, "Save plan", start, "Plan files (*.yaml)")
        return self.save_to(Path(path)) if path else False

    def save_to(self, path: Path) -> bool:
        try:
            self.doc.save(path)
        except (FileError, ValueError) as exc:
            message = f"{exc}\nThe plan is unchanged; choose another place."
            QMessageBox.critical(self, "Cannot save plan", safe_message(message))
            return False
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def maybe_save(self) -> bool:
        if not self.doc.modified:
            return True
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(self, "Unsaved changes", f"Save changes to {self.doc.plan.name}?",
                                      buttons.Save | buttons.Discard | buttons.Cancel)  # fmt: skip
        if answer == buttons.Save:
            return self.save()
        return answer == buttons.Discard

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.runner.stop()  # a plan nobody will see: stopped at its next step rather than waited for
        self.runner.wait()
        self.pdf_writer.wait()
        event.accept()


def open_planner(parent: QWidget | None, on_open_build: Callable[[Build], object] | None,
                 path: Path | None = None) -> PlannerWindow:  # fmt: skip
    """Show the planner (one per parent window, raised when already open), with ``path`` or the example."""
    existing = getattr(parent, "_planner_window", None) if parent is not None else None
    if isinstance(existing, PlannerWindow):
        existing.show()
        existing.raise_()
        existing.activateWindow()
        return existing
    doc = None
    if path is not None:
        doc = PlanDocument(load_plan(path), path)
    window = PlannerWindow(doc, on_open_build, parent)
    if parent is not None:
        parent._planner_window = window  # type: ignore[attr-defined]
    window.show()
    return window
