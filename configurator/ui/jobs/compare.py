"""Compare with…: the current build beside another (a file, or the same build with another card), the
same jobs on both, differences highlighted. Live: edits to the current build update both sides."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.errors import FileError
from configurator.catalog.richtext import escape_rich
from configurator.engine import Build, BuildResult, evaluate
from configurator.engine.buildfile import load_build
from configurator.engine.compare import Difference, compare
from configurator.engine.editing import EditRefused, swap_cards
from configurator.engine.resolver import ModelResolver
from configurator.ui.charts import HeadroomChart
from configurator.ui.shell import BuildDocument

BETTER = QColor(46, 125, 50, 70)


class CompareDialog(QDialog):
    def __init__(self, document: BuildDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self.setWindowTitle("Compare builds")
        self.resize(1200, 760)
        self.other_path: Path | None = None
        self.other: Build | None = None
        self.other_result: BuildResult | None = None
        self.rows: list[Difference] = []

        layout = QVBoxLayout(self)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Compare with this build using"))
        self.from_card = QComboBox()
        self.to_card = QComboBox()
        for card in document.catalog.cards.values():
            self.to_card.addItem(card.name, card.id)
        bar.addWidget(self.from_card)
        bar.addWidget(QLabel("replaced by"))
        bar.addWidget(self.to_card)
        self.open_button = QPushButton("…or open another build…")
        bar.addWidget(self.open_button)
        bar.addStretch(1)
        layout.addLayout(bar)

        split = QSplitter(Qt.Orientation.Horizontal)
        self.left_title, self.right_title = QLabel(), QLabel()
        self.left_chart, self.right_chart = HeadroomChart(), HeadroomChart()
        for title, chart in ((self.left_title, self.left_chart), (self.right_title, self.right_chart)):
            pane = QWidget()
            col = QVBoxLayout(pane)
            col.setContentsMargins(0, 0, 0, 0)
            title.setWordWrap(True)
            col.addWidget(title)
            col.addWidget(chart, 1)
            split.addWidget(pane)
        layout.addWidget(split, 3)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Job", "Figure", "This build", "Other build"])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setAccessibleName("Differences")
        layout.addWidget(self.table, 2)

        self.to_card.activated.connect(self._swap_chosen)
        self.from_card.activated.connect(self._swap_chosen)
        self.open_button.clicked.connect(self.open_dialog)
        document.changed.connect(self._refresh)
        self._fill_from_cards()
        default = "rtx-pro-6000-ws" if self.from_card.currentData() != "rtx-pro-6000-ws" else "h200-nvl"
        self.to_card.setCurrentIndex(max(self.to_card.findData(default), 0))
        self._refresh(document.build, document.result)

    def _fill_from_cards(self) -> None:
        current = self.from_card.currentData()
        ids = list(dict.fromkeys(c.card for c in self.doc.build.cards))
        self.from_card.blockSignals(True)
        self.from_card.clear()
        for card_id in ids:
            card = self.doc.catalog.cards.get(card_id)
            self.from_card.addItem(card.name if card else card_id, card_id)
        self.from_card.setCurrentIndex(max(self.from_card.findData(current), 0))
        self.from_card.blockSignals(False)

    def use_swap(self, from_card: str, to_card: str) -> None:
        """Compare with this build where every ``from_card`` is a ``to_card`` (e.g. H200 NVL vs RTX PRO 6000)."""
        self.other_path = None
        self.from_card.setCurrentIndex(max(self.from_card.findData(from_card), 0))
        self.to_card.setCurrentIndex(max(self.to_card.findData(to_card), 0))
        self._refresh(self.doc.build, self.doc.result)

    def _swap_chosen(self, *_: object) -> None:
        self.other_path = None
        self._refresh(self.doc.build, self.doc.result)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Compare with build", "", "Build files (*.yaml *.yml)")
        if path:
            self.use_file(Path(path))

    def use_file(self, path: Path) -> bool:
        try:
            self.other = load_build(path, self.doc.catalog)
        except FileError as exc:
            QMessageBox.critical(self, "Cannot open build", str(exc))
            return False
        self.other_path = path
        self._refresh(self.doc.build, self.doc.result)
        return True

    def _refresh(self, build: Build, result: BuildResult) -> None:
        self._fill_from_cards()
        if self.other_path is None:
            src, dst = self.from_card.currentData(), self.to_card.currentData()
            try:
                self.other = swap_cards(build, self.doc.catalog, src, dst) if src else build
            except EditRefused:
                self.other = build
        assert self.other is not None
        # a swapped copy of this build resolves its models from this build's folder; another file from its own
        models = ModelResolver(self.doc.catalog, self.other_path.parent) if self.other_path else self.doc.models
        self.other_result = evaluate(self.other, self.doc.catalog, models=models)
        self.left_title.setText(f"<b>This build:</b> {escape_rich(build.name)}")  # names are user text
        self.right_title.setText(
            f"<b>Other:</b> {escape_rich(self.other.name)}"
            + (f" ({escape_rich(self.other_path.name)})" if self.other_path else "")
        )
        self.left_chart.update_result(result)
        self.right_chart.update_result(self.other_result)
        self.rows = compare(result, self.other_result)
        self.table.setRowCount(len(self.rows))
        for i, row in enumerate(self.rows):
            cells = [row.job or "(build)", row.what, row.left, row.right]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if (j == 2 and row.better == "left") or (j == 3 and row.better == "right"):
                    item.setBackground(QBrush(BETTER))
                    item.setToolTip("better")
                self.table.setItem(i, j, item)

    def cell(self, row: int, col: int) -> str:
        item = self.table.item(row, col)
        return item.text() if item else ""
