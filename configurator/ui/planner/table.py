"""The class x device table: for every job class (column) on every device (row: a whole card, a MIG
profile, a group of cards), whether it fits, the service time of one job and the jobs per day per card at
the plan's utilisation target and hours of operation."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from configurator.engine.planner import PlanResult
from configurator.engine.planner.result import FitCell
from configurator.present.colours import status_ink

WORD = {"fits": "fits", "tight": "tight", "does-not-fit": "no fit", "unknown": "unknown"}
NOT_PLANNED = "too tight to plan"
NOT_PLANNED_WHY = ("tight: the peak leaves less than the engine's safety margin on this device, so the planner "
                   "routes no job of this class to it")  # fmt: skip
# the text of a cell without a figure ("—"), 4.5:1 or more on the light and the dark table
NO_CELL_INK, NO_CELL_INK_DARK = "#6B6B6B", "#9E9E9E"
CELL_PAD_PX = 8  # above and below a cell's lines together: two lines filled the row and touched its borders


def cell_text(c: FitCell) -> str:
    """Two lines: the verdict (and its memory, to 0.1 GB as the build editor shows it), then service time and jobs
    per day per card."""
    mem = f"{c.peak_gb:.1f}/{c.capacity_gb:.1f} GB" if c.peak_gb is not None and c.capacity_gb else ""
    first = f"{WORD[c.status]} {mem}".strip()
    if c.status == "tight" and not c.fits:
        first += f"\n{NOT_PLANNED}"
    if not c.fits:
        return first
    if c.service_hours is None:
        return f"{first}\nno compute rate"
    est = "*" if c.estimated_rate else ""
    per_day = f" · {c.jobs_per_day_per_card:.1f}/day/card" if c.jobs_per_day_per_card is not None else ""
    return f"{first}\n{c.service_hours:.2f} h{est}{per_day}"


def cell_tooltip(c: FitCell) -> str:
    rows = [f"<b>{escape(c.job_class)}</b> on {escape(c.device)}", f"memory verdict: {escape(c.status)}"]
    if c.status == "tight" and not c.fits:
        rows.append(escape(NOT_PLANNED_WHY))
    if c.peak_gb is not None and c.capacity_gb is not None:
        rows.append(f"peak reserved {c.peak_gb:.1f} GB of {c.capacity_gb:.1f} GB per card (GB = 10^9 B)")
    if c.step_seconds is not None:
        rows.append(f"step {c.step_seconds:.3f} s")
    if c.service_hours is not None:
        rows.append(f"one job {c.service_hours:.2f} h")
    if c.jobs_per_day_per_device is not None:
        rows.append(f"{c.jobs_per_day_per_device:.1f} jobs/day per device × {c.devices_per_card:g} per card")
    if c.devices_needed is not None:
        wait = ""
        if c.mean_wait_hours is not None and c.wait_p95_hours is not None:
            wait = f"; wait at the peak hour: mean {c.mean_wait_hours:.2f} h, p95 {c.wait_p95_hours:.2f} h"
        rows.append(f"{c.devices_needed} devices needed for the sizing month{wait}")
    if c.mig_gain is not None:
        tag = escape(c.mig_gain_tag or "")
        rows.append(f"MIG gain {c.mig_gain:.2f}x jobs per card-day against the whole card ({tag})")
    if c.basis != "engine":
        rows.append(f"service time: {escape(c.basis)}")
    if c.estimated_rate:
        rows.append("* compute time uses the catalog's UNCONFIRMED rate estimate")
    if c.note:
        rows.append(escape(c.note))
    return "<br>".join(rows)


class _PaddedRows(QStyledItemDelegate):
    """A cell's size with CELL_PAD_PX more height, so its lines keep clear of the row's borders."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        return QSize(size.width(), size.height() + CELL_PAD_PX)


class MatrixTable(QTableWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setItemDelegate(_PaddedRows(self))
        self.cells: dict[tuple[str, str], FitCell] = {}
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setWordWrap(True)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.horizontalHeader().setMinimumSectionSize(150)
        self.setAccessibleName("Job classes by devices")
        self.classes: list[str] = []
        self.devices: list[str] = []

    def update_result(self, result: PlanResult) -> None:
        classes = [c.name for c in result.classes]
        nodes: list[str] = []
        for d in result.devices:
            if d.node not in nodes:
                nodes.append(d.node)
        # a node type's devices together: whole card, MIG profiles, then its group of cards
        devices = [d.id for d in sorted(result.devices, key=lambda d: nodes.index(d.node))]
        cells = {(c.job_class, c.device): c for c in result.matrix}
        if classes != self.classes or devices != self.devices:
            self.classes, self.devices = classes, devices
            self.clear()
            self.setColumnCount(len(classes))
            self.setRowCount(len(devices))
            self.setHorizontalHeaderLabels(classes)
            self.setVerticalHeaderLabels(devices)
        for r, dev in enumerate(devices):
            for col, name in enumerate(classes):
                c = cells.get((name, dev))
                item = self.item(r, col)
                if item is None:
                    item = QTableWidgetItem()
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                    self.setItem(r, col, item)
                if c is None:  # a group device exists only for the classes that need one
                    item.setText("—")
                    item.setToolTip("not evaluated: a whole card holds this class, or it needs no group")
                    continue
                item.setText(cell_text(c))
                item.setToolTip(cell_tooltip(c))
        self.cells = cells
        self._recolour()

    def _recolour(self) -> None:
        """Each cell's text in its status colour, as text on this theme's table (4.5:1 or more: the fills read
        ~3:1 on the dark one)."""
        dark = self.palette().base().color().lightness() < 128  # the table's own ground, which its text is on
        for r, dev in enumerate(self.devices):
            for col, name in enumerate(self.classes):
                item = self.item(r, col)
                if item is None:
                    continue
                c = self.cells.get((name, dev))
                colour = ((NO_CELL_INK_DARK if dark else NO_CELL_INK) if c is None
                          else status_ink("fits" if c.fits else c.status, dark))  # fmt: skip
                item.setForeground(QBrush(QColor(colour)))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # View > Dark theme while the planner is open
            self._recolour()

    def text_at(self, job_class: str, device: str) -> str:
        item = self.item(self.devices.index(device), self.classes.index(job_class))
        return item.text() if item is not None else ""
