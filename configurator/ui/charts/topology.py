"""Topology grid: which cards reach which, over which link."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.cards import short_card_name
from configurator.catalog.loader import Catalog
from configurator.engine import Build, BuildResult
from configurator.ui.charts.common import (
    TOPO_COLOURS,
    _font,
    _shorten,
)


def topo_colour(label: str) -> str:
    if label.startswith("NV"):
        return TOPO_COLOURS["NV"]
    return TOPO_COLOURS.get(label, "#E0E0E0")


class _DomainDelegate(QStyledItemDelegate):
    """Paints the cell, then a thick border around each NVLink domain's block."""

    def __init__(self, grid: TopologyGrid) -> None:
        super().__init__(grid.table)
        self.grid = grid

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:  # type: ignore[no-untyped-def]
        super().paint(painter, option, index)
        dom = self.grid.domain_of
        r, c = index.row(), index.column()
        d = dom.get(r)
        if d is None or dom.get(c) != d:
            return

        def inside(rr: int, cc: int) -> bool:
            return dom.get(rr) == d and dom.get(cc) == d

        rect: QRect = option.rect  # lines drawn just inside the cell, so no neighbour paints over them
        left, top, right, bottom = rect.left(), rect.top(), rect.right(), rect.bottom()
        painter.save()
        painter.setPen(QPen(QColor(self.grid.outline), 3))
        if not inside(r - 1, c):
            painter.drawLine(left, top + 1, right, top + 1)
        if not inside(r + 1, c):
            painter.drawLine(left, bottom - 1, right, bottom - 1)
        if not inside(r, c - 1):
            painter.drawLine(left + 1, top, left + 1, bottom)
        if not inside(r, c + 1):
            painter.drawLine(right - 1, top, right - 1, bottom)
        painter.restore()


class TopologyGrid(QWidget):
    """The nvidia-smi ``topo -m`` matrix of the placed cards as a coloured grid, NVLink domains outlined."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.outline = "#111111"
        self.domain_of: dict[int, int] = {}  # row/column index -> NVLink domain index
        self._matrix: list[list[str]] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.title = QLabel()
        self.title.setFont(_font(10, bold=True))
        layout.addWidget(self.title)
        self.table = QTableWidget()
        self.table.setAccessibleName("Topology grid")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setShowGrid(True)
        self.table.setItemDelegate(_DomainDelegate(self))
        for header in (self.table.horizontalHeader(), self.table.verticalHeader()):
            header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
            header.setMinimumSectionSize(18)
        layout.addWidget(self.table, 0, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.legend)
        self.empty = QLabel()
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet("color: #8a8a8a; font-size: 11pt;")
        layout.addWidget(self.empty, 1)
        self.empty.setVisible(False)
        layout.addStretch(0)
        self._legend_html = ""

    def cell_text(self, row: int, col: int) -> str:
        item = self.table.item(row, col)
        return item.text() if item is not None else ""

    def is_empty(self) -> bool:
        return not self.table.isVisibleTo(self)

    def empty_text(self) -> str:
        return self.empty.text() if self.is_empty() else ""

    def update_document(self, build: Build, result: BuildResult, catalog: Catalog) -> None:
        topo = result.topology
        if topo is None or not topo.slots:
            self.table.setVisible(False)
            self.legend.setVisible(False)
            self.title.setText("Topology")
            self.empty.setText("Place cards in a chassis to see how they connect")
            self.empty.setVisible(True)
            self._matrix = []
            return
        self.table.setVisible(True)
        self.legend.setVisible(True)
        self.empty.setVisible(False)
        slots, matrix = topo.slots, topo.matrix
        n = len(slots)
        self._matrix = matrix
        if self.table.rowCount() != n:
            self.table.setRowCount(n)
            self.table.setColumnCount(n)
        names = []
        for s in slots:
            placement = build.card_in(s)
            card = catalog.cards.get(placement.card) if placement else None
            names.append(short_card_name(card.name) if card else (placement.card if placement else "empty"))
        for i, s in enumerate(slots):
            h = self.table.horizontalHeaderItem(i) or QTableWidgetItem()
            h.setText(f"Slot {s}")
            h.setToolTip(f"Slot {s}: {names[i]}")
            self.table.setHorizontalHeaderItem(i, h)
            v = self.table.verticalHeaderItem(i) or QTableWidgetItem()
            v.setText(f"Slot {s} · {_shorten(names[i], 20)}")
            v.setToolTip(f"Slot {s}: {names[i]}")
            self.table.setVerticalHeaderItem(i, v)
        index = {s: i for i, s in enumerate(slots)}
        self.domain_of = {index[s]: d for d, dom in enumerate(topo.nvlink_domains) for s in dom if s in index}
        bold = _font(9.5, bold=True)
        for r in range(n):
            for c in range(n):
                label = matrix[r][c]
                item = self.table.item(r, c)
                if item is None:
                    item = QTableWidgetItem()
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                    item.setFont(bold)
                    item.setForeground(QColor("#111111"))
                    self.table.setItem(r, c, item)
                item.setText(label)
                item.setBackground(QColor(topo_colour(label)))
                item.setToolTip(self._explain(label, slots[r], slots[c], topo.legend))
        self.title.setText(f"Link topology — {n} card{'s' if n != 1 else ''} (nvidia-smi topo -m)")
        self._set_legend_html(topo.legend, topo.nvlink_domains, {m for row in matrix for m in row}, n)
        self._fit_sections()
        self.table.viewport().update()

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._fit_sections()

    def _fit_sections(self) -> None:
        """Square-ish cells that fill the tab up to a comfortable size (one card is not a 600 px cell)."""
        n = self.table.rowCount()
        if n == 0 or not self.table.isVisibleTo(self):
            return
        vh, hh = self.table.verticalHeader(), self.table.horizontalHeader()
        frame = 2 * self.table.frameWidth()
        column = self.layout()
        assert column is not None  # made in __init__
        margins = column.contentsMargins()
        room_w = self.width() - margins.left() - margins.right()
        legend_h = self.legend.heightForWidth(room_w) if self.legend.isVisibleTo(self) else 0
        spacing = column.spacing()
        room_h = (self.height() - margins.top() - margins.bottom() - self.title.sizeHint().height()
                  - max(legend_h, 0) - 3 * spacing)  # fmt: skip
        head_w, head_h = vh.sizeHint().width(), hh.sizeHint().height()
        cw = int(max(40, min((room_w - head_w - frame) / n, 120)))
        rh = int(max(20, min((room_h - head_h - frame) / n, 46)))
        hh.setDefaultSectionSize(cw)
        vh.setDefaultSectionSize(rh)
        w = min(head_w + cw * n + frame, room_w)
        h = min(head_h + rh * n + frame, max(room_h, 60))
        self.table.setFixedSize(w, h)

    @staticmethod
    def _explain(label: str, a: int, b: int, legend: dict[str, str]) -> str:
        if label == "X":
            return f"Slot {a}: {legend.get('X', 'self')}"
        key = "NV#" if label.startswith("NV") else label
        text = legend.get(key, label)
        if label.startswith("NV"):
            text = text.replace("#", label[2:])
        return f"Slot {a} ↔ slot {b}: <b>{label}</b> — {text}"

    def _set_legend_html(self, legend: dict[str, str], domains: list[list[int]], present: set[str], n: int) -> None:
        order = ["NV#", "PIX", "PXB", "NODE", "SYS", "X"]
        parts = []
        for key in order:
            if key == "NV#":
                shown = any(p.startswith("NV") for p in present)
                colour = TOPO_COLOURS["NV"]
            else:
                shown = key in present
                colour = TOPO_COLOURS[key]
            if not shown:
                continue
            parts.append(f"<span style='background:{colour}; color:#111;'>&nbsp;{key}&nbsp;</span>&nbsp;"
                         f"{legend.get(key, '')}")  # fmt: skip
        if domains:
            doms = " · ".join(
                f"slots {d[0]}–{d[-1]}" if d == list(range(d[0], d[-1] + 1)) else "slots " + ", ".join(map(str, d))
                for d in domains
            )
            parts.append(f"<b>NVLink domains (outlined): {doms}</b>")
        elif n > 1:
            parts.append("<b>No NVLink domains:</b> every pair talks over PCIe")
        else:
            parts.append("One card: no links between cards")
        text = "&nbsp;&nbsp; ".join(parts[:-1]) + "<br>" + parts[-1] if len(parts) > 1 else parts[0]
        if text != self._legend_html:
            self._legend_html = text
            self.legend.setText(text)
            self.legend.setToolTip("<br>".join(f"<b>{k}</b>: {v}" for k, v in legend.items()))

    def set_dark(self, dark: bool) -> None:
        """The cells keep their light colours in both themes, so the dark outline reads on either."""
        self.outline = "#111111"
        self.table.viewport().update()


# ====================================================================================================
# The tabs
# ====================================================================================================
