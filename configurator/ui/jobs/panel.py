"""The jobs panel: the build's jobs in a list and an editor for every field of the selected job.

The list adds, duplicates, removes and renames jobs (F2 or double-click) and is a drag source: a dragged
job carries ``job_mime(index, name)`` so the chassis view and the MIG editor can put it on a card. The
editor below it changes one field at a time, each change one undoable ``BuildDocument.edit`` with a
readable text. A value the engine refuses (``update_job`` raises) leaves the document unchanged and is
shown on the field itself: red border, the reason in its tooltip. Spin box ranges come from the pydantic
``Field`` bounds so they never drift from the build file's rules.

This module composes the rooms' parts: ``listing`` (the list), ``form_kit`` (the shared edit machinery),
``model_rows``, ``lora_rows``, ``rl_rows``, ``training_rows``, ``sequence_row``, ``image_rows``, ``cards_rows``,
``info_line`` and ``trace_action`` (Trace exactly: the job's step traced in a subprocess, shown beside the estimate).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QScrollArea,
    QSlider,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from configurator.engine import Build, BuildResult
from configurator.ui.base import BuildDocument, ViewState, hidden_in_shown_window, is_dark
from configurator.ui.jobs.cards_rows import CardsRows
from configurator.ui.jobs.fields import CardCheck, _WheelGuard, blocked
from configurator.ui.jobs.form_kit import FormKit
from configurator.ui.jobs.image_rows import ImageRows
from configurator.ui.jobs.info_line import NO_JOB, info_label, info_text
from configurator.ui.jobs.listing import JobListSection
from configurator.ui.jobs.lora_rows import LoraRows
from configurator.ui.jobs.model_rows import ModelRows
from configurator.ui.jobs.rl_rows import RLRows
from configurator.ui.jobs.sequence_row import SequenceRow
from configurator.ui.jobs.trace_action import TraceRow
from configurator.ui.jobs.training_rows import StackRows, StepRows


class JobsPanel(QWidget):
    """The selected job is ``view.job`` (a name): picking a row writes it, and the list and form follow it
    wherever it is set (the checks list, the headroom chart's menu). Without a ``view`` (a panel on its own)
    the panel makes one that follows its document."""

    def __init__(self, document: BuildDocument, view: ViewState | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        if view is None:
            view = ViewState(parent=self)
            view.track(document)
        self.view = view
        self._fill_pending = False  # the form missed an edit while its dock tab was hidden
        self._rows_for_job: bool | None = None  # whether the form's rows are shown for a job (set when it changes)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        split = self.splitter = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        outer.addWidget(split)
        self.editor = QWidget()
        self.form = self._form_layout(self.editor)
        self.kit = FormKit(document, self.form, view)
        self.listing = JobListSection(self.kit, self.select_job)
        split.addWidget(self.listing)
        self.form_scroll = QScrollArea()
        self.form_scroll.setWidgetResizable(True)
        self.form_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.form_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.form_scroll.setWidget(self.editor)
        split.addWidget(self.form_scroll)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 4)
        split.setSizes([110, 620])
        self._list_rows_fitted: int | None = None  # the job count the list's height was last fitted to
        self._split_by_user = False  # the user dragged the split: a resize keeps it (a new job count refits)
        split.splitterMoved.connect(self._split_moved)
        self._build_editor()
        self._expose()
        self.kit.live = True
        self.job_list.currentRowChanged.connect(self._row_changed)
        view.job_changed.connect(self._job_changed)
        document.changed.connect(self._on_changed)
        document.path_changed.connect(self._document_replaced)
        self._on_changed(document.build, document.result)

    # ---- construction ----------------------------------------------------------------------------------

    @staticmethod
    def _form_layout(editor: QWidget) -> QFormLayout:
        form = QFormLayout(editor)
        form.setContentsMargins(2, 2, 8, 2)
        form.setHorizontalSpacing(8)
        form.setVerticalSpacing(5)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return form

    def _build_editor(self) -> None:
        self.info = info_label()
        self.form.addRow(self.info)
        self.trace_row = TraceRow(self.doc)
        self.form.addRow(self.trace_row)
        self.form.addRow(self.trace_row.label)
        kit = self.kit
        # "Runs on" first: putting a job on another card is the form's most common edit (it sat under ~25 fields)
        self.cards_rows = CardsRows(kit)
        self.model_rows = ModelRows(kit, self)
        self.lora_rows = LoraRows(kit)
        self.rl_rows = RLRows(kit)
        self.stack_rows = StackRows(kit)
        self.sequence = SequenceRow(kit, self)
        self.rl_rows.sequence_row = self.sequence.spin.parentWidget()
        self.image_rows = ImageRows(kit)  # shown only for a vision-language model
        self.step_rows = StepRows(kit)
        guard = _WheelGuard(self.form_scroll)
        for w in kit.inputs:
            if isinstance(w, QComboBox):  # narrow panels: combos do not grow to their longest item
                w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                w.setMinimumContentsLength(min(w.minimumContentsLength() or 6, 6))  # the list shows whole labels
            if isinstance(w, QAbstractSpinBox | QComboBox) and w is not self.sequence.spin:
                w.setMinimumWidth(60)
            if isinstance(w, QComboBox | QAbstractSpinBox | QSlider):
                w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
                w.installEventFilter(guard)

    def _expose(self) -> None:
        """The parts' widgets under the names tests and the main window reach them by."""
        ls, mr, lr, sr, st = self.listing, self.model_rows, self.lora_rows, self.stack_rows, self.step_rows
        self.job_list, self.add_button = ls.job_list, ls.add_button
        self.duplicate_button, self.remove_button = ls.duplicate_button, ls.remove_button
        self.model_box, self.import_button, self.adapter_spin = mr.box, mr.import_button, mr.adapter_spin
        self.method_box, self.rank_spin, self.alpha_spin = lr.method_box, lr.rank_spin, lr.alpha_spin
        self.targets_box, self.targets_edit = lr.targets_box, lr.targets_edit
        self.dropout_spin, self.quant_box = lr.dropout_spin, lr.quant_box
        self.optimizer_box, self.precision_box, self.base_box = sr.optimizer_box, sr.precision_box, sr.base_box
        self.parallelism_box, self.framework_box = sr.parallelism_box, sr.framework_box
        self.fsdp_version_box, self.offload_box, self.tp_spin = sr.fsdp_version_box, sr.offload_box, sr.tp_spin
        self.seq_slider, self.seq_spin = self.sequence.slider, self.sequence.spin
        self.micro_spin, self.accum_spin = st.micro_spin, st.accum_spin
        self.checkpointing_check = st.checkpointing_check
        self.loss_box, self.attention_box, self.padded_check = st.loss_box, st.attention_box, st.padded_check
        self.budget_check, self.budget_spin = st.budget_check, st.budget_spin
        self.checkpoints_spin = st.checkpoints_spin
        self.cards_group = self.cards_rows.group
        ir = self.image_rows
        self.images_spin, self.image_resolution_spin = ir.images_spin, ir.resolution_spin
        self.train_vision_tower_check = ir.tower_check

    @property
    def card_checks(self) -> dict[tuple[int, int | None], CardCheck]:
        return self.cards_rows.checks

    def trace_job(self, name: str) -> bool:
        """Select the job called ``name`` and start its trace (the headroom chart's menu asks so)."""
        if self.doc.build.job_index(name) is None:
            return False
        self.view.set_job(name)
        if self._fill_pending:
            self._fill(self.doc.build, self.doc.result)
        return self.trace_row.start()

    def refusal(self, widget: QWidget) -> str | None:
        """The reason shown on ``widget`` when its last value was refused, else None."""
        return self.kit.refusal(widget)

    # ---- selection -------------------------------------------------------------------------------------

    @property
    def index(self) -> int:
        return self.kit.index

    def select_job(self, index: int) -> None:
        """Select the job at ``index`` (a row of the list), as a click on it does."""
        if 0 <= index < self.job_list.count():
            self.job_list.setCurrentRow(index)

    def _row_changed(self, row: int) -> None:
        jobs = self.doc.build.jobs
        name = jobs[row].name if 0 <= row < len(jobs) else None
        if name == self.view.job:
            return
        self.sequence.flush()  # a slider value not pushed yet belongs to the job being left
        self.view.set_job(name)

    def _job_changed(self, _name: object) -> None:
        """The view state's selected job changed (here or anywhere): the list's row and the form follow."""
        row = self.kit.index
        if self.job_list.currentRow() != row:
            with blocked([self.job_list]):
                self.job_list.setCurrentRow(row)
        self.kit.clear_all()
        self._fill(self.doc.build, self.doc.result)

    def _document_replaced(self, *_: object) -> None:
        self.kit.clear_all()
        self._fill(self.doc.build, self.doc.result)

    # ---- refresh ---------------------------------------------------------------------------------------

    def _on_changed(self, build: Build, result: BuildResult) -> None:
        self.listing.refresh(build, result)
        if len(build.jobs) != self._list_rows_fitted:
            self.fit_list()
        if hidden_in_shown_window(self):
            self._fill_pending = True  # the form costs a few ms per edit; it is filled when shown
        else:
            self._fill(build, result)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.catch_up()

    def changeEvent(self, event: QEvent) -> None:
        """View › Dark theme: a model's missing-file reason takes the theme's error ink at once."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) and hasattr(
                self, "model_rows"):  # fmt: skip
            self.model_rows.recolour()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._split_by_user and event.size().height() != event.oldSize().height():
            self.fit_list()  # the panel's height is known only now (a split fitted at show time grew with it)

    def _split_moved(self, *_: object) -> None:
        self._split_by_user = True

    LIST_ROWS = 4  # the jobs the list shows without scrolling, where the panel is tall enough
    FORM_SHARE = 0.55  # the least of the panel's height the form keeps

    def fit_list(self) -> None:
        """Give the list the height of its jobs, up to LIST_ROWS of them (a build's four MIG tenants at 1366x768
        had ~55 px, two and a half rows: the fixed 110 px split counted the buttons in); the form keeps at least
        FORM_SHARE of the panel. Fitted when the job count changes, so a split the user drags stays."""
        split, lst = self.splitter, self.job_list
        total = sum(split.sizes())
        if total <= 0:
            return
        if self._list_rows_fitted != lst.count():
            self._split_by_user = False
        self._list_rows_fitted = lst.count()
        rows = min(max(lst.count(), 2), self.LIST_ROWS)
        row_h = lst.sizeHintForRow(0) if lst.count() else lst.fontMetrics().height() + 6
        frame = 2 * lst.frameWidth() + 2  # the rows' spacing is counted with each row below
        below = self.listing.height() - lst.height() if self.listing.height() > lst.height() else 34
        want = rows * (row_h + 2 * lst.spacing()) + frame + below
        want = min(want, round(total * (1 - self.FORM_SHARE)))
        split.setSizes([want, total - want])

    def catch_up(self, visible: bool = True) -> None:
        """Fill the form if an edit arrived while it was hidden (connected to its dock's visibilityChanged:
        a dock behind another dock's tab gets no show event when its tab is chosen)."""
        if visible and self._fill_pending:
            self._fill(self.doc.build, self.doc.result)

    def _fill(self, build: Build, result: BuildResult) -> None:
        self._fill_pending = False
        i = self.kit.index
        has_job = 0 <= i < len(build.jobs)
        self.editor.setEnabled(has_job)
        self.listing.enable(has_job)
        if has_job != self._rows_for_job:  # no job: no fields (File > New showed the old job's, greyed)
            # only when it changes: re-showing every row on each edit undid the rows the fills below hide (RL,
            # images) and relaid the form out twice per edit, about a third of a slider step's repaint
            self._rows_for_job = has_job
            for row in range(1, self.form.rowCount()):
                self.form.setRowVisible(row, has_job)
        self.trace_row.show_job(build, result, i)
        if not has_job:
            self.info.setText(NO_JOB)
            return
        job = build.jobs[i]
        jr = result.job(job.name)
        spec = self.kit.model_of(job)
        with blocked(self.kit.inputs):
            self.model_rows.fill(build, job, spec)
            self.lora_rows.fill(job, spec)
            self.rl_rows.fill(job, spec)
            self.stack_rows.fill(build, job)
            self.sequence.fill(job)
            self.image_rows.fill(job, spec)
            self.step_rows.fill(build, job, jr)
        self.lora_rows.fill_targets_tip(job, spec)
        self.cards_rows.fill(build, job)
        if jr is not None:
            self.info.setText(info_text(job, jr, is_dark(self.info)))
