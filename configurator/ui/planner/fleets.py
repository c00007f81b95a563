"""The ranked fleets, and "Open as build": a candidate fleet's node as a Build for the build editor."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from configurator.engine.planner import PlanResult
from configurator.engine.planner.result import FleetResult

HEADERS = ["#", "Fleet", "Cards", "IT kW", "Cost / job", "kWh / job", "Stops fitting", "Out of capacity"]
FLEET = 1  # the one column of words: the others are figures, right-aligned and as wide as they need
MIN_FLEET_WIDTH = 160  # px: below it the label is cut in the middle (the tooltip has it whole)


def _month(m: int | None, months: int) -> str:
    return f"month {m}" if m is not None else f"not in {months} months"


class FleetsPanel(QWidget):
    open_requested = Signal(int, str)  # (fleet rank, node type name)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: PlanResult | None = None
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        # the figures' columns as wide as their header or widest figure, the Fleet column as wide as its longest
        # label where the view has room, cut in the middle where not: stretched, it took 70 % of a 1920 px window and
        # pushed the figures against the right edge (review 2 finding 25)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)  # widths set here (fit_columns)
        head.setStretchLastSection(False)
        # a label longer than its column wraps (the row as tall as it needs): cut, the mixed fleets all read
        # "8 × RTX PR…× HGX H100"; the tooltip has it whole
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setAccessibleName("Ranked fleets")
        col.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("Node:"))
        self.node_box = QComboBox()
        self.node_box.setMinimumContentsLength(18)
        row.addWidget(self.node_box)
        self.open_button = QPushButton("Open as build")
        self.open_button.setToolTip("Open one node of the selected fleet in the build editor, its jobs placed")
        self.open_button.clicked.connect(self._open)
        row.addWidget(self.open_button)
        row.addStretch(1)
        col.addLayout(row)
        self.table.itemSelectionChanged.connect(self._selected)

    def update_result(self, result: PlanResult) -> None:
        keep = self.selected_rank()
        self.result = result
        t = self.table
        t.setRowCount(len(result.fleets))
        cur = result.currency or ""
        for r, f in enumerate(result.fleets):
            tot = f.totals
            cost = f"{tot.cost_per_job:,.2f} {cur}".strip() if tot.cost_per_job is not None else "unknown"
            kwh = f"{tot.kwh_per_job:.2f}" if tot.kwh_per_job is not None else "—"
            label = f.label + ("" if f.feasible else "  (does not serve: " + ", ".join(f.unserved) + ")")
            values = [
                str(f.rank),
                label,
                str(tot.cards),
                f"{tot.power_kw:.1f}",
                cost,
                kwh,
                _month(f.stops_fitting_month, result.months),
                _month(f.out_of_capacity_month, result.months),
            ]
            for c, v in enumerate(values):
                item = t.item(r, c)
                if item is None:
                    item = QTableWidgetItem()
                    t.setItem(r, c, item)
                item.setText(v)
                item.setToolTip(escape(v))  # a tooltip may be read as rich text: node names are user text
                if c != FLEET:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.fit_columns()
        rank = keep if keep is not None and keep <= len(result.fleets) else (1 if result.fleets else None)
        if rank is not None:
            t.selectRow(rank - 1)
        self._selected()

    def fit_columns(self) -> None:
        """The Fleet column: its labels' width, or what the figures' columns leave of the view, whichever is less."""
        t = self.table
        head = t.horizontalHeader()
        for c in range(t.columnCount()):
            if c != FLEET:
                t.setColumnWidth(c, max(t.sizeHintForColumn(c), head.sectionSizeHint(c)) + 6)
        others = sum(t.columnWidth(c) for c in range(t.columnCount()) if c != FLEET)
        content = max(t.sizeHintForColumn(FLEET), head.sectionSizeHint(FLEET)) + 12
        room = t.viewport().width() - others
        t.setColumnWidth(FLEET, max(MIN_FLEET_WIDTH, min(content, room)))
        t.resizeRowsToContents()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)  # a plan that came while another tab was shown was fitted to a hidden view
        self.fit_columns()

    def selected_rank(self) -> int | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return rows[0].row() + 1 if rows else None

    def fleet(self) -> FleetResult | None:
        rank = self.selected_rank()
        if self.result is None or rank is None or rank > len(self.result.fleets):
            return None
        return self.result.fleets[rank - 1]

    def _selected(self) -> None:
        f = self.fleet()
        names = [n.node for n in f.nodes] if f else []
        if names != [self.node_box.itemText(i) for i in range(self.node_box.count())]:
            self.node_box.clear()
            self.node_box.addItems(names)
        self.open_button.setEnabled(bool(names))

    def _open(self) -> None:
        f = self.fleet()
        if f is not None and self.node_box.currentText():
            self.open_requested.emit(f.rank, self.node_box.currentText())
