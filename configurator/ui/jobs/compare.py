"""Compare with…: the current build beside another (a file, the same build with another card, or the same build
itself), the same jobs on both, differences highlighted; optionally one job under a recipe per side (issue 14).
Live: edits to the current build update both sides. Every figure comes from engine/compare.py."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from PySide6.QtCore import QEvent, Qt
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
from configurator.catalog.prices import PriceList
from configurator.catalog.richtext import escape_rich
from configurator.engine import Build, BuildResult, evaluate
from configurator.engine.compare import (
    Difference,
    RecipeChoice,
    compare,
    compare_recipes,
    price_row,
    with_recipe,
)
from configurator.engine.editing import EditRefused, default_swap_target, swap_cards, swap_note
from configurator.engine.model.bom import bill_of_materials
from configurator.engine.model.buildfile import load_build
from configurator.engine.model.resolver import ModelResolver
from configurator.ui.base import BuildDocument, MiddleElidedComboBox, fit_to_screen, safe_message, severity_ink
from configurator.ui.charts import HeadroomChart, palette_is_dark
from configurator.ui.jobs.recipe_bar import RecipeBar

BETTER = QColor(46, 125, 50, 70)
SAME_CARDS = ""  # the "replaced by" item that keeps the cards: the other side is this build itself
PREFERRED_TO = ["rtx-pro-6000-ws", "h200-nvl"]  # the default "replaced by" card, first that compares (seed A's)
COLUMNS = ["Job", "Figure", "This build", "Other build", "Difference"]


class CompareDialog(QDialog):
    def __init__(self, document: BuildDocument, parent: QWidget | None = None, prices: PriceList | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self.setWindowTitle("Compare builds")
        self.prices = prices  # the seller's price list, as the sheet uses it (Preferences); None without one
        fit_to_screen(self, 1200, 760)
        self.other_path: Path | None = None
        self.other: Build | None = None
        self.left_result: BuildResult | None = None
        self.other_result: BuildResult | None = None
        self.rows: list[Difference] = []
        layout = QVBoxLayout(self)
        layout.addLayout(self._card_bar())
        # what the card swap did to a MIG layout ("carried", or the jobs on the whole card), on its own row
        self.swap_note = QLabel()
        self.swap_note.setObjectName("swapNote")
        self.swap_note.setTextFormat(Qt.TextFormat.PlainText)
        self.swap_note.setWordWrap(True)
        self.swap_note.setVisible(False)
        layout.addWidget(self.swap_note)
        self.recipes = RecipeBar(document.catalog)
        for box in self.recipes.findChildren(QComboBox):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(8)
        layout.addWidget(self.recipes)
        # "the other build has no job called …" on a row of its own, the dialog's width: squeezed beside the recipe
        # boxes it wrapped one word a line, a column ~190 px tall that pushed the charts down (review 2 #20)
        note = self.recipes.note
        note.setParent(None)
        note.setWordWrap(True)
        layout.addWidget(note)
        layout.addWidget(self._charts(), 3)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setAccessibleName("Differences")
        layout.addWidget(self.table, 2)
        self.to_card.activated.connect(self._swap_chosen)
        self.from_card.activated.connect(self._swap_chosen)
        self.open_button.clicked.connect(self.open_dialog)
        self.recipes.changed.connect(self._recipes_changed)
        document.changed.connect(self._refresh)
        self._fill_from_cards()
        self.to_card.setCurrentIndex(max(self.to_card.findData(self._default_to()), 0))
        self._refresh(document.build, document.result)
        self._follow_theme()

    def _default_to(self) -> str:
        """Seed A's question (H200 NVL against RTX PRO 6000 WS) by default; for a MIG build, the first card that
        places the same layouts, so the same tenants run on both sides (a Workstation for a Server)."""
        src = self.from_card.currentData() or ""
        return default_swap_target(self.doc.build, self.doc.catalog, src, [*PREFERRED_TO, *self.doc.catalog.cards])

    def changeEvent(self, event: QEvent) -> None:
        """The charts follow the application's light or dark palette (the window's View > Dark theme)."""
        super().changeEvent(event)
        palette = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)
        if event.type() in palette and hasattr(self, "right_chart"):  # not while the dialog is being built
            self._follow_theme()

    def _follow_theme(self) -> None:
        dark = palette_is_dark(self)
        for chart in (self.left_chart, self.right_chart):
            if chart.dark != dark:
                chart.set_dark(dark)
        if hasattr(self, "_right_title"):  # the other side's errors, in the new ink (no evaluation again)
            self._say_other()

    def _card_bar(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Compare with this build using"))
        # 16 characters at least, as wide as the longest name where there is room (the dialog grew past the screen
        # when the minimum was the longest name), cut in the middle: "NVIDIA RTX…Server Edition" (review 2 #22)
        self.from_card = MiddleElidedComboBox(min_chars=16)
        self.to_card = MiddleElidedComboBox(min_chars=16)
        self.to_card.addItem("the same cards (compare recipes)", SAME_CARDS)
        for card in self.doc.catalog.cards.values():
            self.to_card.addItem(card.name, card.id)
        bar.addWidget(self.from_card)
        bar.addWidget(QLabel("replaced by"))
        bar.addWidget(self.to_card)
        self.open_button = QPushButton("…or open another build…")
        bar.addWidget(self.open_button)
        bar.addStretch(1)
        return bar

    def _charts(self) -> QSplitter:
        split = QSplitter(Qt.Orientation.Horizontal)
        self.left_title, self.right_title = QLabel(), QLabel()
        self.left_chart, self.right_chart = HeadroomChart(), HeadroomChart()
        for title, chart in ((self.left_title, self.left_chart), (self.right_title, self.right_chart)):
            pane = QWidget()
            col = QVBoxLayout(pane)
            col.setContentsMargins(0, 0, 0, 0)
            title.setWordWrap(True)
            # two lines for both titles, so the two charts start at one height when one name wraps
            title.setMinimumHeight(2 * title.fontMetrics().lineSpacing() + 2)
            title.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            col.addWidget(title)
            col.addWidget(chart, 1)
            split.addWidget(pane)
        return split

    def _fill_from_cards(self) -> None:
        if self.other_path is not None:  # another build's file is the other side: no swap to show
            self._show_swap()
            return
        current = self.from_card.currentData()
        ids = list(dict.fromkeys(c.card for c in self.doc.build.cards))
        self.from_card.blockSignals(True)
        self.from_card.clear()
        for card_id in ids:
            card = self.doc.catalog.cards.get(card_id)
            self.from_card.addItem(card.name if card else card_id, card_id)
        self.from_card.setCurrentIndex(max(self.from_card.findData(current), 0))
        self.from_card.blockSignals(False)

    # ---- choosing the other side ------------------------------------------------------------------------

    def use_swap(self, from_card: str, to_card: str) -> None:
        """Compare with this build where every ``from_card`` is a ``to_card`` (e.g. H200 NVL vs RTX PRO 6000);
        ``to_card`` SAME_CARDS compares the build with itself (for two recipes of one job)."""
        self.other_path = None
        self.from_card.setCurrentIndex(max(self.from_card.findData(from_card), 0))
        self.to_card.setCurrentIndex(max(self.to_card.findData(to_card), 0))
        self._refresh(self.doc.build, self.doc.result)

    def use_recipes(self, job: str, this: RecipeChoice, other: RecipeChoice) -> None:
        """Run ``job`` under ``this`` recipe on this build and ``other`` on the other side."""
        self.recipes.use(job, this, other)

    def _swap_chosen(self, *_: object) -> None:
        self.other_path = None
        if self.from_card.currentIndex() < 0:
            self._fill_from_cards()
        self._show_swap()
        self._refresh(self.doc.build, self.doc.result)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Compare with build", "", "Build files (*.yaml *.yml)")
        if path:
            self.use_file(Path(path))

    def use_file(self, path: Path) -> bool:
        try:
            self.other = load_build(path, self.doc.catalog, keep_unknown=True)  # as File › Open: the checks say where
        except FileError as exc:
            QMessageBox.critical(self, "Cannot open build", safe_message(str(exc)))
            return False
        self.other_path = path
        self._refresh(self.doc.build, self.doc.result)
        return True

    def _show_swap(self) -> None:
        """The card-swap boxes say the swap only while it is the other side: blank beside another build's file
        (they kept "H200 NVL replaced by RTX PRO 6000" after "open another build")."""
        if self.other_path is not None:
            for box in (self.from_card, self.to_card):
                box.blockSignals(True)
                box.setCurrentIndex(-1)
                box.setPlaceholderText("—")
                box.blockSignals(False)
        elif self.to_card.currentIndex() < 0:
            self.to_card.setCurrentIndex(max(self.to_card.findData(self._default_to()), 0))

    # ---- refresh ----------------------------------------------------------------------------------------

    def _recipes_changed(self) -> None:
        self._refresh(self.doc.build, self.doc.result)

    def _other_build(self, build: Build) -> Build:
        if self.other_path is not None and self.other is not None:
            return self.other
        src, dst = self.from_card.currentData(), self.to_card.currentData()
        if not src or dst == SAME_CARDS:
            return build
        try:
            return swap_cards(build, self.doc.catalog, src, dst)
        except EditRefused:
            return build

    def _refresh(self, build: Build, result: BuildResult) -> None:
        self._fill_from_cards()
        self.other = self._other_build(build)
        self._say_swap(build)
        self.recipes.fill(build, self.other)
        left, right = build, self.other
        job = self.recipes.job_name() if self.recipes.active() else None
        this, other = self.recipes.choices()
        if job is not None and this is not None and other is not None:
            left, right = with_recipe(build, job, this), with_recipe(self.other, job, other)
        # a swapped copy of this build resolves its models from this build's folder; another file from its own
        models = ModelResolver(self.doc.catalog, self.other_path.parent) if self.other_path else self.doc.models
        self.left_result = result if left is build else evaluate(left, self.doc.catalog, models=self.doc.models)
        self.other_result = evaluate(right, self.doc.catalog, models=models)
        self._titles(build, job, this, other)
        self.left_chart.update_result(self.left_result, name_capacity=True)
        self.right_chart.update_result(self.other_result, name_capacity=True)
        top = max(self.left_chart.highest, self.right_chart.highest)  # one value scale for both
        for chart in (self.left_chart, self.right_chart):
            chart.share_value_range(top)
        self.rows = compare(self.left_result, self.other_result)
        self.rows.append(price_row(self._bom(left, self.left_result), self._bom(right, self.other_result)))
        if job is not None and this is not None and other is not None:
            self.rows = compare_recipes(job, self.left_result, self.other_result, this, other) + self.rows
        self._fill_table()

    def _say_swap(self, build: Build) -> None:
        src, dst = self.from_card.currentData(), self.to_card.currentData()
        note = None
        if self.other_path is None and src and dst and dst != SAME_CARDS:
            note = swap_note(build, self.doc.catalog, src, dst)
        self.swap_note.setText(note or "")
        self.swap_note.setVisible(bool(note))

    def _bom(self, build: Build, result: BuildResult):  # type: ignore[no-untyped-def]
        """``build``'s bill of materials from the seller's price list (its host's DIMMs and drives included, as the
        sheet's); None without one."""
        if self.prices is None:
            return None
        return bill_of_materials(build, self.doc.catalog, self.prices, "", dt.date.today(), result.host)

    def _titles(self, build: Build, job: str | None, this: RecipeChoice | None, other: RecipeChoice | None) -> None:
        assert self.other is not None
        recipe_left = f" · {escape_rich(job)}: {this.label}" if job and this else ""
        recipe_right = f" · {escape_rich(job)}: {other.label}" if job and other else ""
        self.left_title.setText(f"<b>This build:</b> {escape_rich(build.name)}{recipe_left}")  # names are user text
        self._right_title = (
            f"<b>Other:</b> {escape_rich(self.other.name)}"
            + (f" ({escape_rich(self.other_path.name)})" if self.other_path else "")
            + recipe_right
        )
        self._say_other()

    def _say_other(self) -> None:
        """The other side's title, and its errors in the theme's error ink: a file naming what the catalog lacks
        opens (as File › Open does), and its errors are said where its side is (every one in the tooltip)."""
        errors = self.other_result.errors if self.other_result is not None else []
        said = (f" · <span style='color:{severity_ink(self.right_title, 'error')}'>{len(errors)} "
                f"error{'s' if len(errors) != 1 else ''}: {escape_rich(errors[0].message)}</span>") if errors else ""
        self.right_title.setText(self._right_title + said)
        self.right_title.setToolTip("\n".join(c.message for c in errors))

    def _fill_table(self) -> None:
        self.table.setRowCount(len(self.rows))
        for i, row in enumerate(self.rows):
            cells = [row.job or "(build)", row.what, row.left, row.right, row.delta]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if (j == 2 and row.better == "left") or (j == 3 and row.better == "right"):
                    item.setBackground(QBrush(BETTER))
                    item.setToolTip("better")
                elif j >= 2:  # a long source or card name, in full (engine text: the job column is user text)
                    item.setToolTip(text)
                self.table.setItem(i, j, item)

    def cell(self, row: int, col: int) -> str:
        item = self.table.item(row, col)
        return item.text() if item else ""
