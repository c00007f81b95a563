"""The main window: palette, chassis view, headroom chart, checks and summary around one document.

Assembly only: the views and their wiring. The menus (``menus``, shell/menus.py), files and autosave
(``files``, shell/files.py), the build sheet (``sheet``, shell/sheet.py) and the verdict line (shell/verdict.py)
are objects the window holds, each with its own state.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QIcon, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDockWidget,
    QMainWindow,
    QMessageBox,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from configurator import __version__
from configurator.engine import Build, BuildResult, editing
from configurator.paths import resource
from configurator.present.words import free_slots, largest_card_w
from configurator.report.sheet import APP_NAME
from configurator.ui.base import MIN_WINDOW, BuildDocument, Settings, ViewState, apply_theme
from configurator.ui.charts import AnalysisTabs, HeadroomChart, free_cards
from configurator.ui.chassis import ChassisView, Palette
from configurator.ui.jobs import CompareDialog, JobsPanel
from configurator.ui.kiosk import DemoWindow
from configurator.ui.mig import MigEditor
from configurator.ui.planner import PlannerWindow, open_planner
from configurator.ui.shell import layout
from configurator.ui.shell.checks_panel import ChecksPanel
from configurator.ui.shell.files import BuildFiles
from configurator.ui.shell.help import QuickStartDialog, ShortcutsDialog
from configurator.ui.shell.host_dialog import HostDialog, open_host_dialog
from configurator.ui.shell.menus import Menus
from configurator.ui.shell.preferences import PreferencesDialog
from configurator.ui.shell.sheet import SheetExport
from configurator.ui.shell.summary import SummaryStrip
from configurator.ui.shell.verdict import VerdictLine
from configurator.ui.shell.verify_dialog import VerifyDialog, open_verify_dialog


class MainWindow(QMainWindow):
    def __init__(self, document: BuildDocument, settings: Settings | None = None) -> None:
        super().__init__()
        self.doc = document
        self.settings = settings or Settings()
        # how the build is looked at (unit, theme, selected job and slot): the views subscribe to it like to
        # the document and write the selection a user makes into it; it keeps the selected job one of the
        # build's, so it hears of each change before the views do (track before they connect)
        self.view = ViewState(self.settings.get("units"), self.settings.get("theme") == "dark", self)
        self.view.track(document)
        self.setWindowIcon(QIcon(str(resource("icons", "configurator.svg"))))

        self._build_views()
        self._build_docks()
        self._connect_views()
        self.files = BuildFiles(self, document, self.settings)
        self.sheet = SheetExport(self, document, self.settings)
        self.menus = Menus(self, self, document, self.settings, self.files, self.sheet, self.chassis_view,
                           self.chassis_view.remove_action, self.view.unit)  # fmt: skip
        app = QApplication.instance()
        if app is not None:  # quitting with a sheet still being written waits for it (closing does too)
            app.aboutToQuit.connect(self.sheet.wait)
        self.setMinimumSize(MIN_WINDOW)
        layout.place_window(self, self.settings.get("window/geometry"))
        self._docks_sized = False  # on the first show, for the size the window opens at
        self.remember_geometry = True  # False for a --screenshot: its size is not where the user left the window
        self._on_changed(document.build, document.result)
        self._apply_theme(self.view.dark)  # the light theme too: the platform's palette may be a dark one
        self._update_title()
        self.statusBar().showMessage("Drag a card from the palette into a slot", 10000)
        if self.settings.problem:  # a settings file that is a FIFO, a device, a folder or too large
            self.statusBar().showMessage(f"Settings not read or saved this session: {self.settings.problem}", 30000)

    def _build_views(self) -> None:
        """The views, the analysis tabs and the centre (chassis | analysis, then the summary)."""
        document, view = self.doc, self.view
        self.card_palette = Palette(document.catalog)
        self.jobs_panel = JobsPanel(document, view)
        self.chassis_view = ChassisView(document)
        self.chart = HeadroomChart()
        self.analysis = AnalysisTabs(document, view)
        self.mig_editor = MigEditor(document)
        self.checks = ChecksPanel()
        self.summary = SummaryStrip()
        for follower in (self.card_palette, self.chassis_view, self.chart, self.mig_editor, self.checks, self.summary):
            follower.follow(view)
        # One tab strip for every chart, with the MIG editor beside them: headroom first (the question the
        # user asks first), then fit frontier, step time, roofline, topology.
        self.analysis.insertTab(0, self.chart, "Headroom")
        self.analysis.addTab(self.mig_editor, "MIG")
        self.analysis.setCurrentIndex(0)

        self.centre, self.splitter, self.analysis_scroll = layout.centre(self.chassis_view, self.analysis, self.summary)
        self.verdict_line = VerdictLine(self.view)  # fits / tight / does not fit, above the charts
        column = self.centre.layout()
        assert isinstance(column, QVBoxLayout)  # layout.centre's: the summary under the splitter
        column.insertWidget(0, self.verdict_line)
        self.setCentralWidget(self.centre)

    def _build_docks(self) -> None:
        """The Cards and Jobs docks tabbed on the left, the checks list at the bottom."""
        docks = []
        for title, name, panel in (("Cards", "palette", self.card_palette), ("Jobs", "jobs", self.jobs_panel)):
            dock = QDockWidget(title, self)
            dock.setObjectName(name)
            dock.setWidget(panel)
            dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
            self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
            docks.append(dock)
        self.cards_dock, self.jobs_dock = docks
        layout.tab_docks(self, docks)  # the Jobs form hidden behind the Cards tab, no duplicated titles
        self.jobs_dock.visibilityChanged.connect(self.jobs_panel.catch_up)
        right = self.checks_dock = QDockWidget("Checks", self)
        right.setObjectName("checks")
        right.setWidget(self.checks)
        self.checks.setMinimumHeight(self.checks.fontMetrics().height() + 8)  # one line: fit_checks sizes the dock
        self._checks_fitted: int | None = None  # the height of the checks the dock was last fitted to
        self.card_palette.setMinimumWidth(230)
        right.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, right)

    def _connect_views(self) -> None:
        """Wiring: the views subscribe to the document and the view state (as they are made); what is left is
        the window's own: its title, status bar and docks."""
        document, view = self.doc, self.view

        document.changed.connect(self._on_changed)
        document.path_changed.connect(self._update_title)
        document.refused.connect(lambda reason: self.statusBar().showMessage(f"Refused: {reason}", 8000))
        document.refused.connect(self.verdict_line.show_refusal)
        document.undo_stack.cleanChanged.connect(self._update_title)
        self.chassis_view.status.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.checks.slot_clicked.connect(view.set_slot)
        self.checks.job_clicked.connect(self.select_job_named)
        self.chart.trace_requested.connect(self.trace_job_named)
        self.jobs_panel.trace_row.python = self._trace_python
        self.chart.trace_note = self.jobs_panel.trace_row.cached_line
        self.jobs_panel.trace_row.traced.connect(self._traced)
        view.theme_changed.connect(self._apply_theme)
        self.mig_editor.status.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.summary.host_clicked.connect(self.host_parts)
        self.checks.rows_resized.connect(self._refit_checks)
        self.card_palette.chassis_chosen.connect(self._choose_chassis)
        self.card_palette.card_activated.connect(self.place_in_first_free_slot)
        self.card_palette.bridge_activated.connect(self.bridge_from_palette)

    # ---- document updates ----
    def _on_changed(self, build: Build, result: BuildResult) -> None:
        free = free_cards(build, self.doc.catalog, result)
        self.chart.update_result(result, free=free, name_capacity=True)
        self.checks.update_result(result)
        self._refit_checks()
        catalog = self.doc.catalog
        self.summary.update_result(result, len(build.cards), len(build.bridges), largest_card_w(build, catalog),
                                   free_slots(build, catalog))  # fmt: skip
        self.card_palette.set_chassis(build.chassis)
        self.verdict_line.show_result(result)
        menus = getattr(self, "menus", None)  # None while the window is being assembled
        if menus is not None:
            menus.show_rates(build.assumptions.link_rates, build.assumptions.compute_rates)
        self._update_title()

    def _update_title(self, *_: object) -> None:
        name = self.doc.path.name if self.doc.path else "untitled"
        self.setWindowTitle(f"{self.doc.build.name} — {name}[*] — {APP_NAME}")
        self.setWindowModified(self.doc.modified)

    def _choose_chassis(self, chassis_id: str) -> None:
        if chassis_id == self.doc.build.chassis:
            return
        name = self.doc.catalog.chassis[chassis_id].name
        before = {p.slot: p.card for p in self.doc.build.cards}
        self.doc.edit(f"Change chassis to {name}", partial(editing.set_chassis, catalog=self.doc.catalog,
                                                           chassis_id=chassis_id))  # fmt: skip
        # set_chassis keeps the cards the new chassis takes: say which went (they went unsaid; Ctrl+Z brings them)
        kept = {p.slot for p in self.doc.build.cards}
        if self.doc.build.chassis == chassis_id and (gone := sorted(set(before) - kept)):
            cards = self.doc.catalog.cards
            words = ", ".join(f"slot {s} ({cards[before[s]].name if before[s] in cards else before[s]})" for s in gone)
            self.statusBar().showMessage(f"{name} does not take {len(gone)} of the cards: removed {words}. "
                                         "Ctrl+Z brings them back.", 12000)  # fmt: skip

    def select_job_named(self, name: str) -> None:
        """Select a job (the jobs panel and the charts follow the view state) and show the Jobs tab."""
        if self.doc.build.job_index(name) is not None:
            self.jobs_dock.raise_()
            self.view.set_job(name)

    def show_cards(self) -> None:
        """View › Cards palette (Ctrl+1): the Cards tab in front, the focus in its filter."""
        self.cards_dock.raise_()
        self.card_palette.filter.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def show_jobs(self) -> None:
        """View › Jobs (Ctrl+2): the Jobs tab in front, the focus in its job list (Tab goes on into the form)."""
        self.jobs_dock.raise_()
        self.jobs_panel.job_list.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _traced(self, name: str) -> None:
        self.statusBar().showMessage(f"Traced {name}: the figure is in the Jobs tab and the bar's tooltip", 8000)

    def _trace_python(self) -> str | None:
        """The Preferences' tracer Python, read when a trace starts (None: the environment's or this one)."""
        return self.settings.get("trace_python") or None

    def trace_job_named(self, name: str) -> None:
        """The headroom bar's "Trace exactly": show the job in the Jobs tab and trace it there."""
        self.jobs_dock.raise_()
        self.jobs_panel.trace_job(name)

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
        """The application palette (Fusion style); each view follows the view state's theme itself."""
        apply_theme(dark)  # Fusion, its check boxes outlined at 3:1 or more on either theme

    def set_compute_rates(self, key: str) -> None:
        if key != self.doc.build.assumptions.compute_rates:
            label = "estimated" if key == "estimated" else "published"
            self.doc.edit(f"Use {label} compute rates", partial(editing.set_compute_rates, rates=key))

    def set_link_rates(self, key: str) -> None:
        if key != self.doc.build.assumptions.link_rates:
            self.doc.edit(f"Use {key} link rates", partial(editing.set_link_rates, rates=key))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._docks_sized:
            self._docks_sized = True
            dock_width = layout.left_dock_width(self.width())
            self.resizeDocks([self.cards_dock], [dock_width], Qt.Orientation.Horizontal)
            self.fit_checks()
            QTimer.singleShot(0, self._first_split)  # once the docks have their width

    def _refit_checks(self) -> None:
        """Fit the Checks dock again when its checks want another height (more or fewer of them, or rows that
        wrap to more or fewer lines at a new width), not on every change: a height the user drags stays."""
        if getattr(self, "_docks_sized", False) and self.checks.wanted_height() != self._checks_fitted:
            self.fit_checks()

    def fit_checks(self) -> None:
        """The Checks dock as tall as its checks (up to ChecksPanel.ROWS of them, a third of the window at most);
        refitted when the height they want changes (_refit_checks)."""
        self._checks_fitted = self.checks.wanted_height()
        dock = self.checks_dock
        title = dock.height() - self.checks.height() if dock.height() > self.checks.height() else 0
        title = title or self.checks.fontMetrics().height() + 8
        height = min(self.checks.wanted_height() + title, self.height() // 3)
        self.resizeDocks([dock], [height], Qt.Orientation.Vertical)

    def _first_split(self) -> None:
        """The chassis | analysis split of a first show: the analysis wide enough for its whole tab strip."""
        tabs = self.analysis.tabBar().sizeHint().width()
        self.splitter.setSizes(list(layout.first_split(sum(self.splitter.sizes()), tabs)))
        self.fit_checks()  # again at the dock's width: a check's wrapped lines are known only now

    def tab_regions(self) -> list[QWidget]:
        """The window's parts in the order Tab visits them, left to right: the Cards/Jobs tab strip and the
        dock in front, the verdict line, the chassis, the analysis tabs, the summary strip, then the Checks."""
        strips = [bar for bar in self.findChildren(QTabBar) if bar.parentWidget() is self]  # the docks' tabs
        return [*strips, self.cards_dock, self.jobs_dock, self.verdict_line, self.chassis_view, self.analysis_scroll,
                self.summary, self.checks_dock]  # fmt: skip

    def focusNextPrevChild(self, next: bool) -> bool:
        """Tab left to right through the window (tab_regions), skipping the dock parked behind another dock's
        tab (layout.focus_next_shown)."""
        return layout.focus_next_shown(self, next, self.tab_regions()) or super().focusNextPrevChild(next)

    # ---- closing ----
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.files.maybe_save():
            event.ignore()
            return
        self.sheet.wait()
        if self.remember_geometry:
            self.settings.set("window/geometry", self.saveGeometry())
        self.files.release()
        event.accept()

    # ---- other windows ----
    def compare_dialog(self) -> CompareDialog:
        return CompareDialog(self.doc, self, prices=self.sheet.price_list())

    def compare_with(self) -> None:
        dialog = self.compare_dialog()
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()  # non-modal: keep editing, both sides update live

    def start_demo(self) -> DemoWindow:
        """Full-screen demo over the window; the PIN brings the window back."""
        self.demo = DemoWindow(self.settings)
        self.demo.exit_requested.connect(self._end_demo)
        self.demo.cover_screen()
        self.hide()
        return self.demo

    def _end_demo(self) -> None:
        self.demo.close()
        self.demo.deleteLater()
        self.show()

    def verify_build(self) -> VerifyDialog:
        """File > Verify build…: a built machine's burn-in results against the acceptance figures."""
        return open_verify_dialog(self)

    def host_parts(self) -> HostDialog:
        """Edit > Host memory and storage… (or a click on the summary's Host figures): need, pick and installed."""
        return open_host_dialog(self, self.doc, self.view)

    def preferences(self) -> None:
        if PreferencesDialog(self.settings, self).exec():
            self.set_unit(self.settings.get("units"))

    def open_planner(self) -> PlannerWindow:
        """The service planner window (configurator/ui/planner/); "Open as build" loads a node here."""
        def open_build(build: Build) -> bool:
            if not self.files.maybe_save():
                return False
            self.doc.replace(build, None)
            return True

        return open_planner(self, open_build)

    def quick_start(self) -> QDialog:
        """Help > Quick start: place cards, set a job, read the verdict (ui/shell/help.py)."""
        return self._show(QuickStartDialog(self))

    def keyboard_shortcuts(self) -> QDialog:
        """Help > Keyboard shortcuts, read from the window's actions."""
        return self._show(ShortcutsDialog(self))

    @staticmethod
    def _show(dialog: QDialog) -> QDialog:
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def about(self) -> None:
        QMessageBox.about(self, APP_NAME, f"<b>{APP_NAME}</b> {__version__}<br>Which GPUs, how many, in which "
                          "chassis, for the fine-tuning runs you plan.<br>GB = 10<sup>9</sup> bytes.")  # fmt: skip
