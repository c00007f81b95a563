"""The main window: palette, chassis view, headroom chart, checks and summary around one document."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6.QtCore import QStandardPaths, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QColor, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from configurator import __version__
from configurator.catalog.errors import FileError
from configurator.engine import Build, BuildResult, editing
from configurator.engine.buildfile import load_build, save_build
from configurator.ui.chassis_view import ChassisView
from configurator.ui.checks_panel import ChecksPanel
from configurator.ui.document import BuildDocument
from configurator.ui.headroom_chart import HeadroomChart
from configurator.ui.palette import Palette
from configurator.ui.settings import Settings
from configurator.ui.style import dark_palette
from configurator.ui.view_state import ViewState

APP_NAME = "GPU Build Configurator"


def autosave_path() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".local/share/gpu-configurator") / "autosave.yaml"


class MainWindow(QMainWindow):
    def __init__(self, document: BuildDocument, settings: Settings | None = None) -> None:
        super().__init__()
        self.doc = document
        self.settings = settings or Settings()
        # how the build is looked at (unit, theme, selection): views subscribe to it like to the document
        self.view = ViewState(self.settings.get("units"), self.settings.get("theme") == "dark", self)
        from configurator.paths import resource

        self.setWindowIcon(QIcon(str(resource("icons", "configurator.svg"))))

        # ---- views ----
        from configurator.ui.analysis import AnalysisTabs
        from configurator.ui.jobs.panel import JobsPanel
        from configurator.ui.mig_editor import MigEditor
        from configurator.ui.summary import SummaryStrip

        self.card_palette = Palette(document.catalog)
        self.jobs_panel = JobsPanel(document)
        self.chassis_view = ChassisView(document)
        self.chart = HeadroomChart(unit=self.unit)
        self.analysis = AnalysisTabs(document)
        self.mig_editor = MigEditor(document)
        self.checks = ChecksPanel()
        self.summary = SummaryStrip()
        # One tab strip for every chart, with the MIG editor beside them: headroom first (the question the
        # user asks first), then fit frontier, step time, roofline, topology.
        self.analysis.insertTab(0, self.chart, "Headroom")
        self.analysis.addTab(self.mig_editor, "MIG")
        self.analysis.setCurrentIndex(0)

        centre = QWidget()
        col = QVBoxLayout(centre)
        col.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.chassis_view)
        split.addWidget(self.analysis)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        self.analysis.setMinimumSize(360, 240)
        self.chassis_view.setMinimumSize(300, 240)
        split.setSizes([500, 560])
        self.splitter = split
        col.addWidget(split, 1)
        col.addWidget(self.summary)
        self.setCentralWidget(centre)

        left = QDockWidget("Cards", self)
        left.setObjectName("palette")
        left.setWidget(self.card_palette)
        left.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, left)
        jobs = QDockWidget("Jobs", self)
        jobs.setObjectName("jobs")
        jobs.setWidget(self.jobs_panel)
        jobs.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, jobs)
        self.tabifyDockWidget(left, jobs)
        jobs.visibilityChanged.connect(self.jobs_panel.catch_up)
        left.raise_()
        self.jobs_dock, self.cards_dock = jobs, left
        right = QDockWidget("Checks", self)
        right.setObjectName("checks")
        right.setWidget(self.checks)
        self.checks.setMinimumHeight(80)
        self.card_palette.setMinimumWidth(230)
        right.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, right)
        self.resizeDocks([left], [290], Qt.Orientation.Horizontal)
        self.resizeDocks([right], [120], Qt.Orientation.Vertical)

        # ---- wiring: views subscribe to the document only ----
        document.changed.connect(self._on_changed)
        document.path_changed.connect(self._update_title)
        document.refused.connect(lambda reason: self.statusBar().showMessage(f"Refused: {reason}", 8000))
        document.undo_stack.cleanChanged.connect(self._update_title)
        self.chassis_view.status.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.checks.slot_clicked.connect(self.chassis_view.select_slot)
        self.checks.job_clicked.connect(self.select_job_named)
        self.jobs_panel.job_selected.connect(self.view.set_job)
        self.view.job_changed.connect(self.analysis.set_job)
        self.chassis_view.slot_selected.connect(self.view.set_slot)
        self.view.slot_changed.connect(self._slot_selected)
        self.view.unit_changed.connect(lambda unit: self.chart.set_unit(unit, self.doc.result))
        self.view.unit_changed.connect(self.analysis.set_unit)
        self.view.theme_changed.connect(self._apply_theme)
        self.view.theme_changed.connect(self.chart.set_dark)
        self.view.theme_changed.connect(self.analysis.set_dark)
        self.view.theme_changed.connect(self.checks.set_dark)
        self.mig_editor.status.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.card_palette.chassis_chosen.connect(self._choose_chassis)
        self.card_palette.card_activated.connect(self.place_in_first_free_slot)
        self.card_palette.bridge_activated.connect(self.bridge_from_palette)
        self._make_actions()
        self._autosave = QTimer(self)
        self._autosave.timeout.connect(self.autosave)
        self._autosave.start(max(5, self.settings.get("autosave_seconds")) * 1000)
        geometry = self.settings.get("window/geometry")
        if not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1440, 900)
        self._on_changed(document.build, document.result)
        if self.view.dark:
            self._apply_theme(True)
            self.chart.set_dark(True)
            self.analysis.set_dark(True)
            self.checks.set_dark(True)
        self.analysis.set_unit(self.view.unit)
        self._update_title()
        self.statusBar().showMessage("Drag a card from the palette into a slot", 10000)

    # ---- actions ----
    def _make_actions(self) -> None:
        mb = self.menuBar()
        file = mb.addMenu("&File")

        def act(menu, text, slot, shortcut=None, tip=None):  # type: ignore[no-untyped-def]
            a = QAction(text, self)
            if shortcut is not None:
                a.setShortcut(shortcut)
            if tip:
                a.setStatusTip(tip)
                a.setToolTip(tip)
            a.triggered.connect(slot)
            menu.addAction(a)
            return a

        self.new_action = act(file, "&New", self.new_build, QKeySequence.StandardKey.New, "Start an empty build")
        self.open_action = act(file, "&Open…", self.open_dialog, QKeySequence.StandardKey.Open, "Open a build file")
        act(file, "Open &demo code…", self.open_demo_code, None, "Reopen a build a visitor took home from the demo")
        self.recent_menu = file.addMenu("Open &Recent")
        self.recent_menu.triggered.connect(lambda action: self.open_path(Path(action.data())))
        self._fill_recent()
        file.addSeparator()
        self.save_action = act(file, "&Save", self.save, QKeySequence.StandardKey.Save, "Save the build")
        self.save_as_action = act(file, "Save &As…", self.save_as, QKeySequence.StandardKey.SaveAs)
        file.addSeparator()
        self.export_action = act(file, "&Export build sheet…", self.export_sheet, QKeySequence("Ctrl+E"),
                                 "Preview the build sheet and save it as PDF")  # fmt: skip
        act(file, "Pr&eferences…", self.preferences, QKeySequence.StandardKey.Preferences)
        file.addSeparator()
        act(file, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        edit = mb.addMenu("&Edit")
        undo = self.doc.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.doc.undo_stack.createRedoAction(self, "&Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence.StandardKey.Redo])
        edit.addAction(undo)
        edit.addAction(redo)
        self.undo_action, self.redo_action = undo, redo
        edit.addSeparator()
        edit.addAction(self.chassis_view.remove_action)
        self.bridge_action = act(edit, "&Bridge selected cards", self.bridge_selected, QKeySequence("Ctrl+B"),
                                 "Join two or four adjacent identical cards with an NVLink bridge")  # fmt: skip
        self.unbridge_action = act(edit, "Remove bridge", self.unbridge_selected, None,
                                   "Remove the NVLink bridge of the selected card")  # fmt: skip
        for a in (self.bridge_action, self.unbridge_action):
            self.chassis_view.addAction(a)

        view = mb.addMenu("&View")
        unit_actions = self._radio_menu(view, "&Units", [
            ("GB", "GB (10^9 bytes)", ""), ("GiB", "GiB (2^30 bytes)", "")], self.set_unit)  # fmt: skip
        unit_actions[self.unit].setChecked(True)
        self.rate_actions = self._radio_menu(view, "&Link rates", [
            ("measured", "Measured (typical nccl-tests busbw)", ""),
            ("nominal", "Nominal (datasheet)", ""),
        ], self.set_link_rates)  # fmt: skip
        self.compute_rate_actions = self._radio_menu(view, "Compute &rates", [
            ("published", "Published only", "Compute time only where NVIDIA publishes a dense BF16 rate"),
            ("estimated", "Include UNCONFIRMED estimates",
             "Where no rate is published, use the catalog's sourced estimate; every result that does says so"),
        ], self.set_compute_rates)  # fmt: skip
        view.addSeparator()
        self.compare_action = QAction("&Compare with…", self)
        self.compare_action.setShortcut(QKeySequence("Ctrl+K"))
        self.compare_action.setStatusTip("This build beside another, or beside itself with another card")
        self.compare_action.triggered.connect(self.compare_with)
        view.addAction(self.compare_action)
        self.demo_action = QAction("Demo &mode", self)
        self.demo_action.setShortcut(QKeySequence("F11"))
        self.demo_action.setStatusTip("Full-screen in-store demo; leave with Ctrl+Shift+Q and the PIN")
        self.demo_action.triggered.connect(self.start_demo)
        view.addAction(self.demo_action)
        view.addSeparator()
        self.dark_action = QAction("&Dark theme", self)
        self.dark_action.setCheckable(True)
        self.dark_action.setChecked(self.settings.get("theme") == "dark")
        self.dark_action.toggled.connect(self.set_dark)
        view.addAction(self.dark_action)
        help_menu = mb.addMenu("&Help")
        act(help_menu, "&About", self.about)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.get("recent_files")
        for path in recent:
            a = QAction(path, self)
            a.setData(path)
            self.recent_menu.addAction(a)
        self.recent_menu.setEnabled(bool(recent))

    # ---- document updates ----
    def _on_changed(self, build: Build, result: BuildResult) -> None:
        self.chart.update_result(result)
        self.checks.update_result(result)
        self.summary.update_result(result, len(build.cards), len(build.bridges))
        self.card_palette.set_chassis(build.chassis)
        for actions, key in ((self.rate_actions, build.assumptions.link_rates),
                             (self.compute_rate_actions, build.assumptions.compute_rates)):  # fmt: skip
            a = actions.get(key)
            if a is not None:
                a.setChecked(True)
        self._update_title()

    def _update_title(self, *_: object) -> None:
        name = self.doc.path.name if self.doc.path else "untitled"
        self.setWindowTitle(f"{self.doc.build.name} — {name}[*] — {APP_NAME}")
        self.setWindowModified(self.doc.modified)

    def _choose_chassis(self, chassis_id: str) -> None:
        if chassis_id == self.doc.build.chassis:
            return
        name = self.doc.catalog.chassis[chassis_id].name
        self.doc.edit(f"Change chassis to {name}", partial(editing.set_chassis, catalog=self.doc.catalog,
                                                           chassis_id=chassis_id))  # fmt: skip

    def select_job_named(self, name: str) -> None:
        """Show a job in the jobs panel (and the charts that follow it)."""
        for i, job in enumerate(self.doc.build.jobs):
            if job.name == name:
                self.jobs_dock.raise_()
                self.jobs_panel.select_job(i)
                return

    def place_in_first_free_slot(self, card_id: str) -> bool:
        """Keyboard placement: Enter on a palette card puts it in the first slot that takes it."""
        chassis = self.doc.catalog.chassis.get(self.doc.build.chassis)
        card = self.doc.catalog.cards.get(card_id)
        if chassis is None or card is None:
            return False
        for pos in sorted(chassis.positions, key=lambda p: p.slot):
            if editing.check_place(self.doc.build, self.doc.catalog, pos.slot, card_id) is None:
                make = partial(editing.place_card, catalog=self.doc.catalog, slot=pos.slot, card_id=card_id)
                return self.doc.edit(f"Place {card.name} in slot {pos.slot}", make)
        self.statusBar().showMessage(f"No free slot in this chassis takes {card.name}", 8000)
        return False

    def bridge_selected(self) -> None:
        slots = self.chassis_view.selected_slots()
        make = partial(editing.add_bridge, catalog=self.doc.catalog, slots=slots)
        self.doc.edit(f"Bridge slots {', '.join(map(str, slots))}", make)

    def bridge_from_palette(self, size: int) -> None:
        """Keyboard bridging: Enter on a palette bridge joins the selected cards, when they are ``size``."""
        slots = self.chassis_view.selected_slots()
        if len(slots) != size:
            self.statusBar().showMessage(
                f"Select the {size} cards to bridge (Ctrl+click), or drag the bridge onto one of them", 8000
            )
            return
        self.bridge_selected()

    def unbridge_selected(self) -> None:
        slots = self.chassis_view.selected_slots()
        if slots:
            self.doc.edit(f"Remove bridge from slot {slots[0]}", partial(editing.remove_bridge, slot=slots[0]))

    @property
    def unit(self) -> str:
        return self.view.unit

    def set_unit(self, unit: str) -> None:
        """View > Units: every chart and label follows the view state; remembered in the settings."""
        self.settings.set("units", unit)
        self.view.set_unit(unit)

    def set_dark(self, dark: bool) -> None:
        """View > Dark theme: remembered in the settings; views follow the view state's theme."""
        self.settings.set("theme", "dark" if dark else "light")
        self.view.set_dark(dark)

    def _apply_theme(self, dark: bool) -> None:
        """The application palette (Fusion style) and the chassis view's canvas."""
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        app.setStyle("Fusion")
        app.setPalette(dark_palette() if dark else app.style().standardPalette())
        self.chassis_view.setBackgroundBrush(QColor("#262626") if dark else QColor("white"))
        self.chassis_view.set_ink("#e6e6e6" if dark else "#222222")

    def _slot_selected(self, slot: int | None) -> None:
        """A card clicked in the chassis: the MIG editor shows it when it can split."""
        if slot is not None and slot in self.mig_editor.mig_slots():
            self.mig_editor.select_slot(slot)

    def _radio_menu(self, parent: QMenu, title: str, entries: list[tuple[str, str, str]],
                    on_pick: Callable[[str], None]) -> dict[str, QAction]:  # fmt: skip
        """A submenu of exclusive checkable choices (key, label, status tip); picking one calls ``on_pick(key)``."""
        menu = parent.addMenu(title)
        group = QActionGroup(self)
        actions: dict[str, QAction] = {}
        for key, label, tip in entries:
            a = QAction(label, self)
            a.setCheckable(True)
            a.setData(key)
            if tip:
                a.setStatusTip(tip)
            group.addAction(a)
            menu.addAction(a)
            actions[key] = a
        group.triggered.connect(lambda action: on_pick(action.data()))
        return actions

    def set_compute_rates(self, key: str) -> None:
        if key != self.doc.build.assumptions.compute_rates:
            label = "estimated" if key == "estimated" else "published"
            self.doc.edit(f"Use {label} compute rates", partial(editing.set_compute_rates, rates=key))

    def set_link_rates(self, key: str) -> None:
        if key != self.doc.build.assumptions.link_rates:
            self.doc.edit(f"Use {key} link rates", partial(editing.set_link_rates, rates=key))

    # ---- files ----
    def show_error(self, title: str, text: str) -> None:
        QMessageBox.critical(self, title, text)

    def new_build(self) -> None:
        if not self.maybe_save():
            return
        self.doc.replace(Build(name="New build", chassis=self.doc.build.chassis), None)

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open build", self.settings.get("last_folder"),
                                              "Build files (*.yaml *.yml);;All files (*)")  # fmt: skip
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path) -> bool:
        """Open a build; on any problem show file, line and reason and keep the current build."""
        try:
            self.doc.open(path)
        except FileError as exc:
            self.show_error("Cannot open build", str(exc))
            return False
        self.settings.add_recent(str(path))
        self.settings.set("last_folder", str(path.parent))
        self._fill_recent()
        self.statusBar().showMessage(f"Opened {path}", 5000)
        return True

    def save(self) -> bool:
        if self.doc.path is None:
            return self.save_as()
        return self._save_to(self.doc.path)

    def save_as(self) -> bool:
        start = str(Path(self.settings.get("last_folder") or Path.home()) / f"{self.doc.build.name}.yaml")
        path, _ = QFileDialog.getSaveFileName(self, "Save build", start, "Build files (*.yaml)")
        return self._save_to(Path(path)) if path else False

    def _save_to(self, path: Path) -> bool:
        try:
            self.doc.save(path)
        except (FileError, ValueError) as exc:
            self.show_error("Cannot save build", f"{exc}\nThe build is unchanged; choose another place.")
            return False
        self.settings.add_recent(str(path))
        self.settings.set("last_folder", str(path.parent))
        self._fill_recent()
        autosave_path().unlink(missing_ok=True)
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def autosave(self) -> bool:
        """Write unsaved edits to the user data folder (atomic); the next start offers them back."""
        if not self.doc.modified:
            return False
        target = autosave_path()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            save_build(self.doc.build, target)
        except (FileError, OSError) as exc:
            self.statusBar().showMessage(f"Autosave failed: {exc}", 8000)
            return False
        return True

    def offer_restore(self) -> bool:
        """After a crash: offer the autosaved build back."""
        path = autosave_path()
        if not path.is_file():
            return False
        answer = QMessageBox.question(self, "Restore unsaved build?",
                                      "The configurator closed with unsaved changes. Restore them?")  # fmt: skip
        if answer != QMessageBox.StandardButton.Yes:
            path.unlink(missing_ok=True)
            return False
        try:
            build = load_build(path, self.doc.catalog)
        except FileError as exc:
            self.show_error("Cannot restore", str(exc))
            return False
        self.doc.replace(build, None)
        self.doc.undo_stack.resetClean()
        self._update_title()
        return True

    def maybe_save(self) -> bool:
        if not self.doc.modified:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes", f"Save changes to {self.doc.build.name}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        )  # fmt: skip
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.settings.set("window/geometry", self.saveGeometry())
        if not self.doc.modified:
            autosave_path().unlink(missing_ok=True)
        event.accept()

    # ---- build sheet ----
    def sheet_options(self):  # type: ignore[no-untyped-def]
        from configurator.report.pdf import default_page
        from configurator.report.sheet import SheetOptions

        return SheetOptions(
            seller_name=self.settings.get("seller_name"),
            seller_logo=self.settings.get("seller_logo") or None,
            page=self.settings.get("page") or default_page(),
        )

    def preview_dialog(self):  # type: ignore[no-untyped-def]
        """Print preview of the build sheet, with a Save PDF button; page size changeable in the dialog."""
        from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog
        from PySide6.QtWidgets import QToolBar

        from configurator.report.pdf import BuildSheet, page_layout

        options = self.sheet_options()
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setPageLayout(page_layout(options.page))
        dialog = QPrintPreviewDialog(printer, self)
        dialog.setWindowTitle(f"Build sheet — {self.doc.build.name}")
        sheet = BuildSheet(self.doc.build, self.doc.result, self.doc.catalog, options)
        dialog.paintRequested.connect(sheet.paint)
        save = QAction("Save PDF…", dialog)
        save.setToolTip("Save this build sheet as a PDF file")
        save.triggered.connect(lambda: self._save_sheet_dialog(printer, dialog))
        toolbar = dialog.findChild(QToolBar)
        if toolbar is not None:
            toolbar.addSeparator()
            toolbar.addAction(save)
        dialog._sheet = sheet  # keep the sheet alive as long as the dialog
        return dialog

    def export_sheet(self) -> None:
        self.preview_dialog().exec()

    def _save_sheet_dialog(self, printer, dialog) -> None:  # type: ignore[no-untyped-def]
        from PySide6.QtGui import QPageSize

        page = "letter" if printer.pageLayout().pageSize().id() == QPageSize.PageSizeId.Letter else "a4"
        start = str(Path(self.settings.get("last_folder") or Path.home()) / f"{self.doc.build.name}.pdf")
        path, _ = QFileDialog.getSaveFileName(dialog, "Save build sheet", start, "PDF (*.pdf)")
        if path and self.export_sheet_to(Path(path), page):
            dialog.accept()

    def export_sheet_to(self, path: Path, page: str | None = None) -> bool:
        """Write the build sheet; an unwritable path shows a message and leaves no file behind."""
        from configurator.report.pdf import export_pdf

        options = self.sheet_options()
        if page:
            options.page = page
        try:
            pages = export_pdf(path, self.doc.build, self.doc.result, self.doc.catalog, options)
        except FileError as exc:
            self.show_error("Cannot export build sheet", str(exc))
            return False
        self.statusBar().showMessage(f"Build sheet saved: {path} ({pages} pages)", 8000)
        return True

    def compare_dialog(self):  # type: ignore[no-untyped-def]
        from configurator.ui.jobs.compare import CompareDialog

        return CompareDialog(self.doc, self)

    def compare_with(self) -> None:
        dialog = self.compare_dialog()
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()  # non-modal: keep editing, both sides update live

    def start_demo(self):  # type: ignore[no-untyped-def]
        """Full-screen demo over the window; the PIN brings the window back."""
        from configurator.ui.demo import DemoWindow

        self.demo = DemoWindow(self.settings)
        self.demo.exit_requested.connect(self._end_demo)
        self.demo.showFullScreen()
        self.hide()
        return self.demo

    def _end_demo(self) -> None:
        self.demo.close()
        self.demo.deleteLater()
        self.show()

    def open_demo_code(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        code, ok = QInputDialog.getText(self, "Open demo code", "Code the visitor was given:")
        if ok and code.strip():
            self.open_code(code)

    def open_code(self, code: str) -> bool:
        from configurator.ui.demo import demo_folder, open_demo_code

        if not self.maybe_save():
            return False
        try:
            path = open_demo_code(code, demo_folder(self.settings))
        except (ValueError, FileNotFoundError) as exc:
            self.show_error("Cannot open demo code", str(exc))
            return False
        return self.open_path(path)

    def preferences(self) -> None:
        from configurator.ui.preferences import PreferencesDialog

        if PreferencesDialog(self.settings, self).exec():
            self.set_unit(self.settings.get("units"))

    def about(self) -> None:
        QMessageBox.about(self, APP_NAME, f"<b>{APP_NAME}</b> {__version__}<br>Which GPUs, how many, in which "
                          "chassis, for the fine-tuning runs you plan.<br>GB = 10<sup>9</sup> bytes.")  # fmt: skip
