"""What every row of the Jobs form shares: the form layout, the selected job, one undoable edit per change,
and refusals shown on the field (red border, the reason in its tooltip) with the document unchanged.

The row modules (``model_rows``, ``lora_rows``, ``training_rows``, ``sequence_row``, ``cards_rows``) build
their widgets through a ``FormKit`` and change the job only through ``FormKit.apply``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from pydantic import BaseModel
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QDoubleSpinBox, QFormLayout, QLabel, QSpinBox, QWidget

from configurator.catalog.models import ModelSpec
from configurator.catalog.richtext import escape_rich
from configurator.engine import Build, editing
from configurator.engine.model.build import Job
from configurator.ui.base import BuildDocument, ViewState
from configurator.ui.jobs.fields import (
    DEFAULT,
    FIELD_NAMES,
    LABELS,
    REFUSED,
    SHORT,
    SHORT_ROLE,
    ChoiceBox,
    choices,
    reason,
)


class FormKit:
    """The Jobs form's layout and its edit machinery, shared by the row modules."""

    def __init__(self, document: BuildDocument, form: QFormLayout, view: ViewState) -> None:
        self.doc = document
        self.form = form
        self.view = view  # the selected job is the view state's (by name); the form keeps no copy
        self.live = False  # False while the rows are built: a box filled then must not edit the job
        self.tips: dict[QWidget, str] = {}
        self.base_tips: dict[QWidget, str] = {}  # tooltips before a note on the build's stack: defaults
        self.invalid: set[QWidget] = set()
        self.inputs: list[QObject] = []
        self.choice_boxes: dict[str, ChoiceBox] = {}
        # field -> the edit a choice makes (parallelism has its own rule; others set the field)
        self.choice_edits: dict[str, Callable[..., Build]] = {}

    @property
    def index(self) -> int:
        """The selected job's place in the build, -1 for none."""
        name = self.view.job
        found = self.doc.build.job_index(name) if name is not None and self.live else None
        return -1 if found is None else found

    # ---- building rows -----------------------------------------------------------------------------------

    def label(self, text: str, buddy: QWidget) -> QLabel:
        label = QLabel(text)
        label.setBuddy(buddy)
        return label

    def register(self, widget: QWidget, name: str, tip: str, accessible: str | None = None) -> None:
        widget.setObjectName(name)
        widget.setToolTip(tip)
        widget.setAccessibleName(accessible or name)
        self.tips[widget] = tip
        self.inputs.append(widget)
        if isinstance(widget, QAbstractSpinBox):
            widget.setKeyboardTracking(False)  # typed digits are one edit, on Enter or leaving the field

    def add_row(self, label: str, widget: QWidget, name: str, tip: str) -> None:
        self.register(widget, name, tip, label)
        self.form.addRow(self.label(label, widget), widget)

    def choice_box(self, field: str, model: type[BaseModel], label: str, name: str, tip: str) -> ChoiceBox:
        """A combo box of the words a ``Literal`` field allows, each shown by its readable label."""
        box = ChoiceBox(field)
        for word in choices(model, field):
            box.addItem(LABELS.get(field, {}).get(word, word), word)
            if short := SHORT.get(field, {}).get(word):
                box.setItemData(box.count() - 1, short, SHORT_ROLE)
        self.add_row(label, box, name, tip)
        self.choice_boxes[field] = box
        box.chosen.connect(self.choice_changed)
        return box

    # ---- showing values ----------------------------------------------------------------------------------

    def set_value(self, spin: QSpinBox | QDoubleSpinBox, value: float | int | None) -> None:
        if value is None or spin in self.invalid:
            return
        if spin.value() != value:
            spin.setValue(value)  # type: ignore[arg-type]

    def set_choice(self, box: QComboBox, word: object) -> None:
        i = box.findData(word)
        if i >= 0 and box.currentIndex() != i and box not in self.invalid:
            box.setCurrentIndex(i)

    def note_build_default(self, box: QComboBox, field: str, build: Build) -> None:
        """Say in ``box``'s tooltip what the build's ``stack:`` sets for ``field`` (a new job starts with it)."""
        base = self.base_tips.setdefault(box, self.tips[box])
        default = getattr(build.stack, field, None) if build.stack is not None else None
        word = LABELS.get(field, {}).get(str(default), str(default))
        tip = base if default is None else f"{base}. The build's stack: sets {word} for jobs that name none"
        self.tips[box] = tip
        if box not in self.invalid:
            box.setToolTip(tip)

    # ---- refusals in place -------------------------------------------------------------------------------

    def mark_invalid(self, widget: QWidget, message: str) -> None:
        self.invalid.add(widget)
        name = widget.objectName()
        widget.setStyleSheet(f"#{name} {{ border: 2px solid {REFUSED}; border-radius: 3px; }}")
        widget.setToolTip(f"Refused: {escape_rich(message, 600)}")

    def clear_invalid(self, widget: QWidget) -> None:
        if widget in self.invalid:
            self.invalid.discard(widget)
            widget.setStyleSheet("")
            widget.setToolTip(self.tips.get(widget, ""))

    def clear_all(self) -> None:
        for w in list(self.invalid):
            self.clear_invalid(w)

    def refusal(self, widget: QWidget) -> str | None:
        """The reason shown on ``widget`` when its last value was refused, else None."""
        return widget.toolTip().removeprefix("Refused: ") if widget in self.invalid else None

    # ---- edits -------------------------------------------------------------------------------------------

    def job(self) -> Job | None:
        jobs = self.doc.build.jobs
        return jobs[self.index] if 0 <= self.index < len(jobs) else None

    def model_of(self, job: Job) -> ModelSpec | None:
        return self.doc.models.find(job.model)

    def apply(self, widget: QWidget, field: str, value_text: str, changes: dict[str, Any], merge: bool = False,
              check_targets: bool = False, text: str | None = None,
              make: Callable[[Build], Build] | None = None) -> bool:  # fmt: skip
        """One undoable change of the selected job (``changes`` to its fields, or the edit ``make``); a refusal
        is shown on ``widget``, nothing changes."""
        i, job = self.index, self.job()
        if job is None:
            return False
        build = self.doc.build
        make = make or (lambda b: editing.update_job(b, i, **changes))
        try:
            after = make(build)
            if check_targets:
                spec = self.model_of(after.jobs[i])
                if spec is not None and not spec.is_params_only:
                    spec.lora_modules(after.jobs[i].lora.targets)
        except ValueError as exc:  # EditRefused and pydantic's ValidationError are ValueErrors
            self.mark_invalid(widget, reason(exc))
            return False
        self.clear_invalid(widget)
        label = text or f"Set {FIELD_NAMES.get(field, field)} of {job.name} to {value_text}"
        if after.jobs[i].name != job.name:  # a generated name followed the model or method
            label += f" (now {after.jobs[i].name})"
        # the merge key names the job, not its place in the list: a slider drag merges only on one job
        return self.doc.edit(label, lambda b: after if b is build else make(b),
                             merge_key=f"job:{job.name}.{field}" if merge else None)  # fmt: skip

    def titled(self, build: Build, index: int, **changes: Any) -> Build:
        """``update_job`` where a generated job name follows the new model or method (engine rule)."""
        return editing.update_job_titled(build, index, self.doc.models, **changes)

    def choice_changed(self, field: str, index: int) -> None:
        box = self.choice_boxes[field]
        if index < 0 or self.job() is None:
            return
        word = box.itemData(index)
        if field == "fsdp_version":  # the only integer choice: Literal[1, 2]
            word = int(word)
        elif word == DEFAULT:  # "the framework's default" (loss: None)
            word = None
        edit = self.choice_edits.get(field)
        make = partial(edit, index=self.index, **{field: word}) if edit is not None else None
        self.apply(box, field, box.itemText(index), {field: word}, make=make)
