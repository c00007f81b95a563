"""The compare dialog's recipe bar: one job under two recipes, a precision and a LoRA base format per side.

Only what each side's cards run can be picked: the others are disabled, the rule and its source in their
tooltip (engine/compare.py and engine/lowprecision/checks.py decide; this bar only shows).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QWidget

from configurator.catalog.loader import Catalog
from configurator.engine import Build
from configurator.engine.compare import RecipeChoice, base_weight_choices, job_cards
from configurator.engine.lowprecision.checks import precision_choices
from configurator.ui.jobs.fields import LABELS, blocked


class SideBoxes:
    """A precision box and a base-weights box for one side of the comparison."""

    def __init__(self, name: str) -> None:
        self.precision = QComboBox()
        self.precision.setObjectName(f"{name}PrecisionBox")
        self.precision.setAccessibleName(f"{name} side precision")
        self.base = QComboBox()
        self.base.setObjectName(f"{name}BaseBox")
        self.base.setAccessibleName(f"{name} side LoRA base")

    def fill(self, build: Build, job_name: str, catalog: Catalog, reset: bool) -> None:
        """The words the job's cards allow (others disabled, with why); ``reset`` shows the job's own recipe."""
        i = build.job_index(job_name)
        if i is None:
            for box in (self.precision, self.base):
                box.clear()
            return
        job = build.jobs[i]
        cards = job_cards(build, job, catalog.cards)
        _offer(self.precision, "precision", precision_choices(cards), job.precision if reset else None)
        _offer(self.base, "base_weights", base_weight_choices(job, cards), job.base_weights if reset else None)

    def choice(self) -> RecipeChoice | None:
        p, b = self.precision.currentData(), self.base.currentData()
        return RecipeChoice(p, b) if p and b else None

    def set(self, choice: RecipeChoice) -> None:
        for box, word in ((self.precision, choice.precision), (self.base, choice.base_weights)):
            i = box.findData(word)
            if i >= 0:
                box.setCurrentIndex(i)


def _offer(box: QComboBox, field: str, allowed: dict[str, str | None], pick: str | None) -> None:
    """Fill ``box`` with ``allowed``'s words, refused ones disabled with the reason as their tooltip."""
    keep = pick or box.currentData()
    box.clear()
    for word, refused in allowed.items():
        box.addItem(LABELS.get(field, {}).get(word, word), word)
        k = box.count() - 1
        item = box.model().item(k)  # type: ignore[attr-defined]
        item.setEnabled(refused is None)
        box.setItemData(k, refused or "", Qt.ItemDataRole.ToolTipRole)
    i = box.findData(keep)
    box.setCurrentIndex(i if i >= 0 else 0)


class RecipeBar(QWidget):
    changed = Signal()

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.check = QCheckBox("Compare recipes of")
        self.check.setObjectName("recipeCheck")
        self.check.setToolTip("Run one job under a recipe of your choice on each side (a what-if: the build is "
                              "not changed)")  # fmt: skip
        self.job_box = QComboBox()
        self.job_box.setObjectName("recipeJobBox")
        self.job_box.setAccessibleName("Job whose recipes are compared")
        self.left, self.right = SideBoxes("this"), SideBoxes("other")
        self.note = QLabel()
        self.note.setObjectName("recipeNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)  # it names a job: user text
        self._filled_for: str | None = None  # the job the side boxes were last filled for
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.check)
        layout.addWidget(self.job_box, 1)
        for text, side in (("this build:", self.left), ("other:", self.right)):
            layout.addWidget(QLabel(text))
            layout.addWidget(side.precision, 1)
            layout.addWidget(side.base)
        layout.addWidget(self.note)
        self._widgets = [self.check, self.job_box, *self._boxes()]
        self.check.toggled.connect(self._toggled)
        self.job_box.activated.connect(self._emit)
        for box in self._boxes():
            box.activated.connect(self._emit)
        self._enable()

    def _boxes(self) -> list[QComboBox]:
        return [self.left.precision, self.left.base, self.right.precision, self.right.base]

    def fill(self, left: Build, right: Build, reset: bool = False) -> None:
        """The jobs of ``left`` and each side's options for the chosen one (signals held: no loop)."""
        with blocked(list(self._widgets)):
            current = self.job_box.currentText()
            names = [j.name for j in left.jobs]
            if [self.job_box.itemText(k) for k in range(self.job_box.count())] != names:
                self.job_box.clear()
                self.job_box.addItems(names)
                self.job_box.setCurrentIndex(max(self.job_box.findText(current), 0))
            name = self.job_name()
            reset = reset or name != self._filled_for  # another job: start from its own recipe on each side
            self._filled_for = name
            if name is not None:
                self.left.fill(left, name, self.catalog, reset)
                self.right.fill(right, name, self.catalog, reset)
            missing = name is not None and right.job_index(name) is None
        self.note.setText(f"the other build has no job called {name}" if missing else "")
        self._enable()

    def job_name(self) -> str | None:
        return self.job_box.currentText() or None

    def active(self) -> bool:
        return self.check.isChecked() and self.job_name() is not None

    def choices(self) -> tuple[RecipeChoice | None, RecipeChoice | None]:
        return self.left.choice(), self.right.choice()

    def use(self, job: str, left: RecipeChoice, right: RecipeChoice) -> None:
        """Compare ``job`` under ``left`` on this build and ``right`` on the other (as a user picks them)."""
        with blocked(list(self._widgets)):
            self.check.setChecked(True)
            self.job_box.setCurrentIndex(max(self.job_box.findText(job), 0))
        self.changed.emit()  # the dialog refills the options for this job, then the picks go in
        with blocked(list(self._widgets)):
            self.left.set(left)
            self.right.set(right)
        self._enable()
        self.changed.emit()

    def _enable(self) -> None:
        for box in [self.job_box, *self._boxes()]:
            box.setEnabled(self.check.isChecked())

    def _toggled(self, _: bool) -> None:
        self._enable()
        self.changed.emit()

    def _emit(self, _: int) -> None:
        self.changed.emit()
