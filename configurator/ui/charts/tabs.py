"""The analysis tabs: fit frontier, step time, roofline and topology in one QTabWidget."""

from __future__ import annotations

import time

from PySide6.QtCore import QSize
from PySide6.QtWidgets import (
    QTabWidget,
    QWidget,
)

from configurator.engine import Build, BuildResult
from configurator.ui.charts.fit_frontier import FitFrontierChart
from configurator.ui.charts.roofline import RooflineChart
from configurator.ui.charts.step_time import StepTimeChart
from configurator.ui.charts.topology import TopologyGrid


class AnalysisTabs(QTabWidget):
    """Fit frontier, step time, roofline and topology of the document's build, updated on every change."""

    def __init__(self, document, parent: QWidget | None = None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(parent)
        self.doc = document
        self._job = 0
        self.last_update_ms = 0.0
        self.frontier = FitFrontierChart()
        self.step_time = StepTimeChart()
        self.roofline = RooflineChart()
        self.topology = TopologyGrid()
        self.addTab(self.frontier, "Fit frontier")
        self.addTab(self.step_time, "Step time")
        self.addTab(self.roofline, "Roofline")
        self.addTab(self.topology, "Topology")
        self.setTabToolTip(0, "Headroom against sequence length for the selected job, per micro-batch")
        self.setTabToolTip(1, "Compute and communication per optimizer step, per job")
        self.setTabToolTip(2, "Where the selected job's operations sit against the cards' peak rates")
        self.setTabToolTip(3, "How the placed cards connect: NVLink, PCIe switch, CPU root, across CPUs")
        document.changed.connect(self._changed)
        self._stale: set[QWidget] = set()
        self.currentChanged.connect(self._tab_changed)
        self.currentChanged.connect(self.updateGeometry)  # the minimum follows the page shown
        self.refresh()

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
        return self._job

    def set_job(self, index: int) -> None:
        """Show ``index``'s frontier and roofline (clamped to the jobs there are)."""
        n = len(self.doc.build.jobs)
        index = min(max(int(index), 0), max(n - 1, 0))
        if index == self._job:
            return
        self._job = index
        build, result = self.doc.build, self.doc.result
        self.frontier.update_document(build, self.doc.catalog, self._job, self.doc.models)
        self.roofline.update_document(build, result, self.doc.catalog, self._job)

    def _changed(self, build: Build, result: BuildResult) -> None:
        self.refresh(only_visible=True)

    def _tab_changed(self, *_: object) -> None:
        if self._stale:
            self.refresh(only_visible=True)

    def refresh(self, only_visible: bool = False) -> None:
        """Update the tabs from the document. While editing, only the visible tab is redrawn (the fit
        frontier's sweep alone is a few ms); the others catch up when they are shown."""
        t0 = time.perf_counter()
        build, result, catalog = self.doc.build, self.doc.result, self.doc.catalog
        self._job = min(max(self._job, 0), max(len(build.jobs) - 1, 0))
        current = self.currentWidget()
        updates = [
            (self.frontier, lambda: self.frontier.update_document(build, catalog, self._job, self.doc.models)),
            (self.step_time, lambda: self.step_time.update_result(result)),
            (self.roofline, lambda: self.roofline.update_document(build, result, catalog, self._job)),
            (self.topology, lambda: self.topology.update_document(build, result, catalog)),
        ]
        self._stale = set()
        for widget, update in updates:
            if only_visible and widget is not current:
                self._stale.add(widget)
            else:
                update()
        self.last_update_ms = (time.perf_counter() - t0) * 1000

    def set_unit(self, unit: str) -> None:
        """The view state's display unit: the fit frontier's headroom (the other tabs show no memory)."""
        self.frontier.set_unit(unit)

    def set_dark(self, dark: bool) -> None:
        self.frontier.set_dark(dark)
        self.step_time.set_dark(dark)
        self.roofline.set_dark(dark)
        self.topology.set_dark(dark)
