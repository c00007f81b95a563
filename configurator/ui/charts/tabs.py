"""The analysis tabs: fit frontier, step time, roofline and topology in one QTabWidget."""

from __future__ import annotations

import time
from typing import TypeVar

from PySide6.QtCore import QSize
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QTabWidget, QWidget

from configurator.engine import Build, BuildResult
from configurator.ui.base import BuildDocument, ViewState
from configurator.ui.charts.fit_frontier import FitFrontierChart
from configurator.ui.charts.roofline import RooflineChart
from configurator.ui.charts.step_time import StepTimeChart
from configurator.ui.charts.topology import TopologyGrid

# The pages in tab order: (attribute, tab text, tooltip). Each chart is made when its tab is first shown or
# the attribute is first read: making all four and drawing them took ~130 ms of every window's start-up,
# behind the Headroom tab the main window shows first (measured with cProfile, 2 cores).
PAGES = (
    ("frontier", "Fit frontier", "Headroom against sequence length for the selected job, per micro-batch"),
    ("step_time", "Step time", "Compute and communication per optimizer step, per job"),
    ("roofline", "Roofline", "Where the selected job's operations sit against the cards' peak rates"),
    ("topology", "Topology", "How the placed cards connect: NVLink, PCIe switch, CPU root, across CPUs"),
)
Page = FitFrontierChart | StepTimeChart | RooflineChart | TopologyGrid
P = TypeVar("P", FitFrontierChart, StepTimeChart, RooflineChart, TopologyGrid)
MAKERS: dict[str, type[Page]] = {
    "frontier": FitFrontierChart,
    "step_time": StepTimeChart,
    "roofline": RooflineChart,
    "topology": TopologyGrid,
}


class AnalysisTabs(QTabWidget):
    """Fit frontier, step time, roofline and topology of the document's build, updated on every change.

    A page's chart is made on first need (its tab shown, or its attribute read) and drawn then; while editing,
    only the shown page is redrawn and the others catch up when they are shown. The selected job, the unit and
    the theme are the view state's (``view``; without one the tabs make their own, following the document)."""

    def __init__(self, document: BuildDocument, view: ViewState | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        if view is None:
            view = ViewState(parent=self)
            view.track(document)
        self.view = view
        self.last_update_ms = 0.0
        self._charts: dict[str, Page] = {}
        self._pages: dict[str, QWidget] = {}  # what each tab holds: an empty placeholder, then the chart
        for name, text, tip in PAGES:
            self._pages[name] = QWidget()
            self.setTabToolTip(self.addTab(self._pages[name], text), tip)
        document.changed.connect(self._changed)
        self._stale: set[str] = set()
        self.currentChanged.connect(self._tab_changed)
        self.currentChanged.connect(self.updateGeometry)  # the minimum follows the page shown
        view.job_changed.connect(self._job_changed)
        view.unit_changed.connect(self._unit_changed)
        view.theme_changed.connect(self._theme_changed)

    def showEvent(self, event: QShowEvent) -> None:
        """The shown page is made (or caught up) when the tabs first appear, not when they are constructed:
        the main window puts its Headroom page first after constructing them."""
        super().showEvent(event)
        self._tab_changed()

    @property
    def frontier(self) -> FitFrontierChart:
        return self._typed("frontier", FitFrontierChart)

    @property
    def step_time(self) -> StepTimeChart:
        return self._typed("step_time", StepTimeChart)

    @property
    def roofline(self) -> RooflineChart:
        return self._typed("roofline", RooflineChart)

    @property
    def topology(self) -> TopologyGrid:
        return self._typed("topology", TopologyGrid)

    def built(self) -> list[str]:
        """The pages whose chart exists (tests: a hidden page is not made)."""
        return list(self._charts)

    def _typed(self, name: str, kind: type[P]) -> P:
        chart = self._chart(name)
        assert isinstance(chart, kind)
        return chart

    def _chart(self, name: str) -> Page:
        """``name``'s chart, made, themed and drawn on first need."""
        chart = self._charts.get(name)
        if chart is None:
            chart = MAKERS[name]()
            self._charts[name] = chart
            if self.view.dark:
                chart.set_dark(True)
            if isinstance(chart, FitFrontierChart) and self.view.unit != "GB":
                chart.set_unit(self.view.unit)
            self._replace_page(name, chart)
            self._update(name)
        return chart

    def _replace_page(self, name: str, chart: QWidget) -> None:
        """Put ``chart`` in its placeholder's tab, keeping the tab shown (no currentChanged: nothing changed)."""
        placeholder = self._pages[name]
        index, current = self.indexOf(placeholder), self.currentIndex()
        text, tip = self.tabText(index), self.tabToolTip(index)
        blocked = self.blockSignals(True)
        try:
            self.removeTab(index)
            self.insertTab(index, chart, text)
            self.setTabToolTip(index, tip)
            self.setCurrentIndex(current)
        finally:
            self.blockSignals(blocked)
        self._pages[name] = chart
        placeholder.deleteLater()
        self.updateGeometry()

    def _shown(self) -> str | None:
        current = self.currentWidget()
        return next((name for name, page in self._pages.items() if page is current), None)

    def minimumSizeHint(self) -> QSize:
        """The shown page's minimum, not the widest page's (QTabWidget's own): the topology grid and the MIG
        editor need ~580 px, which would otherwise take that much from the chassis beside every chart. Where
        the shown page needs more than there is, the window's scroll area scrolls it sideways."""
        bar = self.tabBar().minimumSizeHint()
        page = self.currentWidget()
        inner = page.minimumSizeHint().expandedTo(page.minimumSize()) if page is not None else QSize(0, 0)
        return QSize(max(bar.width(), inner.width()) + 4, bar.height() + inner.height() + 4)

    @property
    def job_index(self) -> int:
        """The view state's selected job's place in the build (the first job when none is selected)."""
        name = self.view.job
        found = self.doc.build.job_index(name) if name is not None else None
        return found or 0

    def set_job(self, index: int) -> None:
        """Select the job at ``index`` (clamped to the jobs there are) in the view state."""
        jobs = self.doc.build.jobs
        if jobs:
            self.view.set_job(jobs[min(max(int(index), 0), len(jobs) - 1)].name)

    def _job_changed(self, _name: object) -> None:
        self._refresh_pages(("frontier", "roofline"), only_visible=True)

    def _changed(self, build: Build, result: BuildResult) -> None:
        self.refresh(only_visible=True)

    def _tab_changed(self, *_: object) -> None:
        shown = self._shown()
        if shown is None:
            return
        if shown not in self._charts:
            self._chart(shown)  # made and drawn
        elif shown in self._stale:
            self._refresh_pages((shown,), only_visible=True)

    def refresh(self, only_visible: bool = False) -> None:
        """Update the tabs from the document. While editing, only the visible tab is redrawn (the fit
        frontier's sweep alone is a few ms); the others catch up when they are shown."""
        t0 = time.perf_counter()
        self._refresh_pages(tuple(self._pages), only_visible)
        self.last_update_ms = (time.perf_counter() - t0) * 1000

    def _refresh_pages(self, names: tuple[str, ...], only_visible: bool) -> None:
        shown = self._shown()
        for name in names:
            if name == shown and name not in self._charts:
                self._chart(name)  # made and drawn
            elif name not in self._charts:
                continue  # drawn when it is made
            elif only_visible and name != shown:
                self._stale.add(name)
            else:
                self._update(name)

    def _update(self, name: str) -> None:
        build, result, catalog, chart = self.doc.build, self.doc.result, self.doc.catalog, self._charts[name]
        self._stale.discard(name)
        if isinstance(chart, FitFrontierChart):
            chart.update_document(build, catalog, self.job_index, self.doc.models)
        elif isinstance(chart, StepTimeChart):
            chart.update_result(result)
        elif isinstance(chart, RooflineChart):
            chart.update_document(build, result, catalog, self.job_index)
        else:
            chart.update_document(build, result, catalog)

    def _unit_changed(self, unit: str) -> None:
        """The display unit: the fit frontier's headroom (the other tabs show no memory)."""
        if "frontier" in self._charts:
            self.frontier.set_unit(unit)

    def _theme_changed(self, dark: bool) -> None:
        for chart in self._charts.values():
            chart.set_dark(dark)
