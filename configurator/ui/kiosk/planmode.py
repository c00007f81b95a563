"""DemoWindow's service-plan scenario: the plan document, its buttons, and the planner's answer on screen.

The visitor's plan lives in a :class:`PlanDocument` (every change a ``plan_doc.edit`` of an
``engine.editing.kiosk`` plan edit). Each change is planned on the GUI thread through :class:`PlanResults`:
seed B's plan takes tens of milliseconds to plan (``plan_seconds`` keeps the last time; the tests measure it),
and a plan seen before is answered from the cache. The chassis and chart then show the first ranked fleet's
first node as a build (``shown_build``), which is also what "Take this build home" takes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.loader import Catalog
from configurator.engine import Build
from configurator.engine.editing.kiosk import plan_mig, plan_servers, set_plan_mig, set_plan_month, set_plan_servers
from configurator.engine.planner import Plan, PlanResult
from configurator.ui.base import PlanDocument
from configurator.ui.kiosk.planscene import PlanResults, read_plan_figure
from configurator.ui.kiosk.planspec import PlanFigureSpec
from configurator.ui.kiosk.scenarios import Figure, Scenario
from configurator.ui.kiosk.widgets import _font

ANY_MIX = "Any mix"


def _button(text: str, width: int = 150) -> QPushButton:
    b = QPushButton(text)
    b.setCheckable(True)
    b.setMinimumSize(width, 72)
    return b


class PlanMode(QObject):
    """The plan scenario's state, buttons and edits. ``current`` gives the scenario on screen; ``show_build``
    shows the planned node (None: no fleet serves the plan, the figures say so); ``say`` shows a refusal."""

    def __init__(self, scenarios: list[Scenario], catalog: Catalog, current: Callable[[], Scenario],
                 show_build: Callable[[Build | None], None], say: Callable[[str], None],
                 parent: QObject | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.scenarios = scenarios
        self.catalog = catalog
        self.unit = "GB"  # the window's unit (set by the window)
        self._current = current
        self._show_build = show_build
        self.plan_results = PlanResults.shared(catalog)
        self.plan_result: PlanResult | None = None
        self.plan_seconds = 0.0  # the last change's plan + build, in seconds (cached plans: the build only)
        first = next((s.plan for s in self.scenarios if s.plan is not None), None)
        self.plan_doc: PlanDocument | None = PlanDocument(first) if first is not None else None
        if self.plan_doc is not None:
            self.plan_doc.changed.connect(self._plan_changed)
            self.plan_doc.refused.connect(say)
        # planned once the event loop runs (the window is up first), so showing the scenario or the attract loop
        # does not wait for it; shown earlier, the scenario plans on demand through the same cache
        QTimer.singleShot(0, self, self._plan_shipped)
        self.box = self._plan_box()

    def _plan_shipped(self) -> None:
        for plan, s in self._plans():
            self.plan_results.planned(plan, s.plan_path.parent if s.plan_path else None)

    def _plans(self) -> list[tuple[Plan, Scenario]]:
        return [(s.plan, s) for s in self.scenarios if s.plan is not None]

    @property
    def scenario(self) -> Scenario:
        return self._current()

    def _plan_box(self) -> QWidget:
        """Which servers the fleet may buy; the month it is sized for; MIG on or off."""
        box = QWidget()
        rows = QVBoxLayout(box)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.setSpacing(10)
        names = list(dict.fromkeys(n.name for plan, _ in self._plans() for n in plan.nodes))
        months = sorted({m for plan, _ in self._plans() for m in (1, plan.roadmap.months)})
        self.server_group = QButtonGroup(self)
        self.server_buttons: dict[str | None, QPushButton] = {}
        self._server_ids: list[str | None] = [None, *names]
        servers = self._plan_row(rows, "Servers:")
        for i, node in enumerate(self._server_ids):
            b = _button(ANY_MIX if node is None else f"{node} only")
            self.server_group.addButton(b, i)
            self.server_buttons[node] = b
            servers.addWidget(b)
        self.server_group.idClicked.connect(self._servers_clicked)
        servers.addStretch(1)
        self.month_group = QButtonGroup(self)
        self.month_buttons: dict[int, QPushButton] = {}
        sizing = self._plan_row(rows, "Size for:")
        for m in months:
            b = _button("Today" if m == 1 else f"Month {m}")
            self.month_group.addButton(b, m)
            self.month_buttons[m] = b
            sizing.addWidget(b)
        self.month_group.idClicked.connect(self._month_clicked)
        sizing.addSpacing(24)
        self.mig_button = _button("MIG: split cards between tenants", 250)
        self.mig_button.clicked.connect(self._mig_clicked)
        sizing.addWidget(self.mig_button)
        sizing.addStretch(1)
        box.hide()
        return box

    def _plan_row(self, rows: QVBoxLayout, caption: str) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(10)
        label = QLabel(caption)
        label.setFont(_font(18, True))
        row.addWidget(label)
        rows.addLayout(row)
        return row

    # ---- the plan, planned ----
    def show_plan(self, s: Scenario) -> None:
        """Show the plan scenario ``s`` as shipped (the visitor's changes dropped)."""
        assert self.plan_doc is not None and s.plan is not None
        for node, b in self.server_buttons.items():
            b.setVisible("servers" in s.controls and (node is None or node in {n.name for n in s.plan.nodes}))
        for m, b in self.month_buttons.items():
            b.setVisible("roadmap" in s.controls and m in (1, s.plan.roadmap.months))
        self.mig_button.setVisible("mig" in s.controls and plan_mig(s.plan))
        self.plan_doc.replace(s.plan, s.plan_path)

    def _plan_changed(self, plan: Plan) -> None:
        """The visitor's plan changed (or a plan scenario was shown): plan it, show its first fleet's node (the
        last node stays on screen when no fleet serves it)."""
        if not self.scenario.is_plan:
            return
        t0 = time.perf_counter()
        base = self.scenario.plan_path.parent if self.scenario.plan_path else None
        self.plan_result, build = self.plan_results.planned(plan, base)
        self.plan_seconds = time.perf_counter() - t0
        self._show_build(build)

    def plan_figure(self, spec: PlanFigureSpec) -> Figure:
        if self.plan_doc is None or self.plan_result is None:
            return Figure(None, "—", "(the plan has not been planned yet)", "unknown")
        return read_plan_figure(spec, self.plan_doc.plan, self.plan_result, self.catalog, self.unit)

    def sync_controls(self) -> None:
        s = self.scenario
        if self.plan_doc is None or s.plan is None:
            return
        plan = self.plan_doc.plan
        only = plan_servers(plan, s.plan)
        for node, b in self.server_buttons.items():
            b.setChecked(node == only)
        month = plan.search.size_for_month or 1
        for m, b in self.month_buttons.items():
            b.setChecked(m == month)
        self.mig_button.setChecked(plan_mig(plan))

    # ---- visitor edits ----
    def _plan_edit(self, text: str, make: partial[Plan]) -> bool:
        assert self.plan_doc is not None
        ok = self.plan_doc.edit(text, make)
        self.sync_controls()
        return ok

    def set_plan_servers(self, node: str | None) -> bool:
        """Let the fleet buy every server kind of the plan (None), or only ``node``."""
        shipped = self.scenario.plan
        if shipped is None:
            return False
        return self._plan_edit(f"Servers: {node or ANY_MIX}", partial(set_plan_servers, shipped=shipped, node=node))

    def set_plan_mig(self, on: bool) -> bool:
        shipped = self.scenario.plan
        if shipped is None:
            return False
        return self._plan_edit("MIG " + ("on" if on else "off"), partial(set_plan_mig, shipped=shipped, on=on))

    def set_plan_month(self, month: int) -> bool:
        return self._plan_edit(f"Size for month {month}", partial(set_plan_month, month=month))

    def _servers_clicked(self, index: int) -> None:
        self.set_plan_servers(self._server_ids[index])

    def _month_clicked(self, month: int) -> None:
        self.set_plan_month(month)

    def _mig_clicked(self, checked: bool) -> None:
        self.set_plan_mig(checked)
