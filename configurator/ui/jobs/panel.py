"""The jobs panel: the build's jobs in a list and an editor for every field of the selected job.

The list adds, duplicates, removes and renames jobs (F2 or double-click) and is a drag source: a dragged
job carries ``job_mime(index, name)`` so the chassis view and the MIG editor can put it on a card. The
editor below it changes one field at a time, each change one undoable ``BuildDocument.edit`` with a
readable text. A value the engine refuses (``update_job`` raises) leaves the document unchanged and is
shown on the field itself: red border, the reason in its tooltip. Spin box ranges come from the pydantic
``Field`` bounds so they never drift from the build file's rules.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSlider,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.cards import short_card_name
from configurator.catalog.errors import FileError
from configurator.catalog.hf_config import load_hf_config
from configurator.catalog.models import ModelSpec
from configurator.catalog.richtext import escape_rich
from configurator.engine import Build, BuildResult, editing
from configurator.engine.build import Job, LoraSettings, ParamsOnlyModel
from configurator.engine.lowprecision import precision_choices
from configurator.ui.jobs.fields import (
    _PARAMS,
    _SCALE,
    CUSTOM,
    DEBOUNCE_MS,
    FIELD_NAMES,
    LABELS,
    REFUSED,
    SEQ_MAX_EXP,
    SEQ_MIN_EXP,
    STATUS_ROLE,
    STATUS_TEXT,
    CardCheck,
    ChoiceBox,
    JobList,
    _WheelGuard,
    blocked,
    choices,
    float_range,
    int_range,
    pos_from_seq,
    reason,
    seq_from_pos,
    shown,
)
from configurator.ui.shell import FIT_COLOUR, BuildDocument, hidden_in_shown_window


class JobsPanel(QWidget):
    job_selected = Signal(int)

    def __init__(self, document: BuildDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self._index = -1
        self._tips: dict[QWidget, str] = {}
        self._invalid: set[QWidget] = set()
        self._cards_key: tuple = ()  # type: ignore[type-arg]
        self.card_checks: dict[tuple[int, int | None], CardCheck] = {}
        self._seq_pending: tuple[int, int] | None = None  # (job index, tokens) not yet pushed
        self._fill_pending = False  # the form missed an edit while its dock tab was hidden

        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        outer.addWidget(split)

        # -- list --
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.setSpacing(4)
        self.job_list = JobList()
        self.job_list.setAccessibleName("Jobs")
        self.job_list.setToolTip(
            "Jobs in this build. F2 or double-click renames; drag a job onto a card to run it there."
        )
        self.job_list.setMinimumHeight(60)
        self.job_list.setObjectName("jobList")
        self._tips[self.job_list] = self.job_list.toolTip()
        tl.addWidget(self.job_list, 1)
        buttons = QHBoxLayout()
        buttons.setSpacing(4)
        self.add_button = QPushButton("Add")
        self.add_button.setToolTip("Add a job (an 8B LoRA on the first card)")
        self.duplicate_button = QPushButton("Duplicate")
        self.duplicate_button.setToolTip("Add a copy of the selected job")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected job (Delete)")
        for b in (self.add_button, self.duplicate_button, self.remove_button):
            buttons.addWidget(b)
        tl.addLayout(buttons)
        split.addWidget(top)
        remove_action = QAction("Remove job", self.job_list)
        remove_action.setShortcut(Qt.Key.Key_Delete)
        remove_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        remove_action.triggered.connect(self._remove)
        self.job_list.addAction(remove_action)

        # -- editor --
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.editor = QWidget()
        self.scroll.setWidget(self.editor)
        split.addWidget(self.scroll)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 4)
        split.setSizes([110, 620])
        self.splitter = split
        self._build_editor()

        self.add_button.clicked.connect(self._add)
        self.duplicate_button.clicked.connect(self._duplicate)
        self.remove_button.clicked.connect(self._remove)
        self.job_list.currentRowChanged.connect(self._row_changed)
        self.job_list.itemChanged.connect(self._item_renamed)
        document.changed.connect(self._on_changed)
        document.path_changed.connect(self._document_replaced)
        self._on_changed(document.build, document.result)

    # ---- construction ----------------------------------------------------------------------------------

    def _build_editor(self) -> None:
        form = QFormLayout(self.editor)
        form.setContentsMargins(2, 2, 8, 2)
        form.setHorizontalSpacing(8)
        form.setVerticalSpacing(5)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.form = form
        self._inputs: list[QObject] = []
        self._choice_boxes: dict[str, ChoiceBox] = {}

        self.info = QLabel()
        self.info.setTextFormat(Qt.TextFormat.RichText)
        self.info.setWordWrap(True)
        self.info.setObjectName("jobInfo")
        form.addRow(self.info)

        # model
        self.model_box = QComboBox()
        self.model_box.setEditable(True)
        self.model_box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_box.setMinimumContentsLength(8)
        self.model_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self._catalog_models = list(self.doc.catalog.models.values())
        for m in self._catalog_models:
            self.model_box.addItem(m.name, m.id)
        completer = QCompleter(self.model_box.model(), self.model_box)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.model_box.setCompleter(completer)
        tip = "A catalog model (type to search), a parameter count such as 30B, or import a config.json"
        self._add_row("Model", self.model_box, "modelBox", tip)
        self.model_box.activated.connect(self._model_chosen)
        self.model_box.lineEdit().editingFinished.connect(self._model_typed)
        self.import_button = QPushButton("Import config.json…")
        self.import_button.setObjectName("importButton")
        self.import_button.setToolTip("Use a Hugging Face config.json as this job's model")
        self.import_button.clicked.connect(self._import_config)
        form.addRow("", self.import_button)
        self.adapter_spin = QDoubleSpinBox()
        self.adapter_spin.setDecimals(2)
        self.adapter_spin.setRange(*float_range(ParamsOnlyModel, "adapter_fraction", 2, scale=100))
        self.adapter_spin.setSuffix(" %")
        self.adapter_spin.setSingleStep(0.1)
        self._add_row("Adapter share", self.adapter_spin, "adapterSpin",
                      "LoRA's trainable share of a parameter-count-only model")  # fmt: skip
        self.adapter_spin.valueChanged.connect(self._adapter_changed)

        # method and LoRA
        self.method_box = self._choice_box("method", Job, "Method", "methodBox", "How the model is fine-tuned")
        self.rank_spin = QSpinBox()
        self.rank_spin.setRange(*int_range(LoraSettings, "rank"))
        self._add_row("LoRA rank", self.rank_spin, "rankSpin", "LoRA rank r: adapter width")
        self.rank_spin.valueChanged.connect(self._rank_changed)
        self.alpha_spin = QDoubleSpinBox()
        self.alpha_spin.setDecimals(1)
        self.alpha_spin.setRange(0, 65536)
        self.alpha_spin.setSpecialValueText("auto")
        self._add_row("LoRA alpha", self.alpha_spin, "alphaSpin", "LoRA scaling alpha (auto: the trainer's default)")
        self.alpha_spin.valueChanged.connect(self._alpha_changed)
        self.targets_box = QComboBox()
        for word in choices(LoraSettings, "targets"):
            self.targets_box.addItem(LABELS["targets"].get(word, word), word)
        self.targets_box.addItem("Custom list", CUSTOM)
        self._add_row("LoRA targets", self.targets_box, "targetsBox", "Which linear layers get adapters")
        self.targets_box.currentIndexChanged.connect(self._targets_preset)
        self.targets_edit = QLineEdit()
        self.targets_edit.setPlaceholderText("q_proj, v_proj")
        self._add_row("Modules", self.targets_edit, "targetsEdit", "Comma-separated module names")
        self.targets_edit.editingFinished.connect(self._targets_typed)
        self.dropout_spin = QDoubleSpinBox()
        self.dropout_spin.setDecimals(2)
        self.dropout_spin.setSingleStep(0.05)
        self.dropout_spin.setRange(*float_range(LoraSettings, "dropout", 2))
        self._add_row("LoRA dropout", self.dropout_spin, "dropoutSpin", "Dropout on the LoRA path")
        self.dropout_spin.valueChanged.connect(self._dropout_changed)
        self.quant_box = self._choice_box("quantization", Job, "Quantization", "quantBox",
                                          "4-bit base weights for QLoRA")  # fmt: skip

        # training
        self.optimizer_box = self._choice_box("optimizer", Job, "Optimizer", "optimizerBox", "Optimizer states kept")
        self.precision_box = self._choice_box("precision", Job, "Precision", "precisionBox",
                                              "Mixed BF16 keeps FP32 master weights; pure BF16 does not")  # fmt: skip
        self.base_box = self._choice_box("base_weights", Job, "LoRA base", "baseWeightsBox",
                                         "How a LoRA job stores its frozen base: BF16, or FP8")  # fmt: skip
        self.parallelism_box = self._choice_box("parallelism", Job, "Parallelism", "parallelismBox",
                                                "How a job spreads over several cards")  # fmt: skip
        self.framework_box = self._choice_box("framework", Job, "Framework", "frameworkBox",
                                              "The training software: it decides the loss path, QLoRA preparation "
                                              "and optimizer temporaries (engine/stack.py cites each)")  # fmt: skip
        self.fsdp_version_box = self._choice_box("fsdp_version", Job, "FSDP version", "fsdpVersionBox",
                                                 "FSDP1 flat parameters or FSDP2 per-parameter sharding")  # fmt: skip
        self.offload_box = self._choice_box("offload", Job, "Offload", "offloadBox",
                                            "Model states on the host (CPU) or NVMe, with FSDP or ZeRO")  # fmt: skip
        self.tp_spin = QSpinBox()
        self.tp_spin.setRange(*int_range(Job, "tensor_parallel"))
        self._add_row("TP degree", self.tp_spin, "tpSpin", "Tensor-parallel degree (with Tensor parallel)")
        self.tp_spin.valueChanged.connect(self._tp_changed)

        self.seq_slider = QSlider(Qt.Orientation.Horizontal)
        self.seq_slider.setObjectName("seqSlider")
        self.seq_slider.setRange(0, 2 * (SEQ_MAX_EXP - SEQ_MIN_EXP))
        self.seq_slider.setPageStep(2)
        self.seq_slider.setAccessibleName("Sequence length slider")
        self.seq_slider.setToolTip("Sequence length, 128 to 131,072 tokens (log scale)")
        self.seq_spin = QSpinBox()
        self.seq_spin.setRange(*int_range(Job, "sequence_length"))
        self.seq_spin.setGroupSeparatorShown(True)
        self.seq_spin.setMinimumWidth(82)
        self.seq_slider.setMinimumWidth(50)
        seq_row = QWidget()
        sl = QHBoxLayout(seq_row)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.setSpacing(4)
        sl.addWidget(self.seq_slider, 1)
        sl.addWidget(self.seq_spin)
        self._register(self.seq_spin, "seqSpin", "Sequence length in tokens", "Sequence length")
        self._inputs.append(self.seq_slider)
        self.form.addRow(self._label("Sequence", self.seq_spin), seq_row)
        self._seq_timer = QTimer(self)
        self._seq_timer.setSingleShot(True)
        self._seq_timer.setInterval(DEBOUNCE_MS)
        self._seq_timer.timeout.connect(self._seq_tick)
        self.seq_slider.valueChanged.connect(self._seq_slid)
        self.seq_slider.sliderReleased.connect(self._seq_released)
        self.seq_spin.valueChanged.connect(self._seq_typed)

        self.micro_spin = QSpinBox()
        self.micro_spin.setRange(*int_range(Job, "micro_batch_size"))
        self._add_row("Micro-batch", self.micro_spin, "microSpin", "Sequences per card per step")
        self.micro_spin.valueChanged.connect(self._micro_changed)
        self.accum_spin = QSpinBox()
        self.accum_spin.setRange(*int_range(Job, "gradient_accumulation_steps"))
        self._add_row("Grad. accum.", self.accum_spin, "accumSpin", "Gradient accumulation steps")
        self.accum_spin.valueChanged.connect(self._accum_changed)
        self.checkpointing_check = QCheckBox("Gradient checkpointing")
        self._register(self.checkpointing_check, "checkpointingCheck",
                       "Recompute activations in the backward pass: far less activation memory")  # fmt: skip
        form.addRow("", self.checkpointing_check)
        self.checkpointing_check.toggled.connect(self._checkpointing_changed)
        self.loss_box = self._choice_box("loss", Job, "Loss", "lossBox", "Chunked loss avoids the full logits tensor")
        self.attention_box = self._choice_box("attention", Job, "Attention", "attentionBox", "Attention kernel")

        self.budget_check = QCheckBox("fixed")
        self.budget_spin = QDoubleSpinBox()
        self.budget_spin.setDecimals(1)
        self.budget_spin.setRange(*float_range(Job, "activation_memory_gb", 1))
        self.budget_spin.setSuffix(" GB")
        self.budget_spin.setSingleStep(1.0)
        budget_row = QWidget()
        bl = QHBoxLayout(budget_row)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.setSpacing(4)
        bl.addWidget(self.budget_check)
        bl.addWidget(self.budget_spin, 1)
        self._register(self.budget_check, "budgetCheck", "Fixed budget: use this activation memory instead of "
                       "the estimate (from a measured run)", "Fixed activation budget")  # fmt: skip
        self._register(self.budget_spin, "budgetSpin", "Activation memory per card", "Activation budget")
        form.addRow(self._label("Activations", self.budget_spin), budget_row)
        self.budget_check.toggled.connect(self._budget_toggled)
        self.budget_spin.valueChanged.connect(self._budget_changed)

        self.cards_group = QGroupBox("Runs on")
        self.cards_group.setObjectName("cardsGroup")
        self.cards_layout = QVBoxLayout(self.cards_group)
        self.cards_layout.setContentsMargins(6, 4, 6, 4)
        self.cards_layout.setSpacing(2)
        self.no_cards = QLabel("No cards placed: drag a card into the chassis first.")
        self.no_cards.setWordWrap(True)
        self.cards_layout.addWidget(self.no_cards)
        form.addRow(self.cards_group)

        guard = _WheelGuard(self.scroll)
        for w in self._inputs:
            if isinstance(w, QComboBox):  # narrow panels: combos do not grow to their longest item
                w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                w.setMinimumContentsLength(min(w.minimumContentsLength() or 8, 8))
            if isinstance(w, QAbstractSpinBox | QComboBox) and w is not self.seq_spin:
                w.setMinimumWidth(60)
            if isinstance(w, QComboBox | QAbstractSpinBox | QSlider):
                w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
                w.installEventFilter(guard)

    def _label(self, text: str, buddy: QWidget) -> QLabel:
        label = QLabel(text)
        label.setBuddy(buddy)
        return label

    def _register(self, widget: QWidget, name: str, tip: str, accessible: str | None = None) -> None:
        widget.setObjectName(name)
        widget.setToolTip(tip)
        widget.setAccessibleName(accessible or name)
        self._tips[widget] = tip
        self._inputs.append(widget)
        if isinstance(widget, QAbstractSpinBox):
            widget.setKeyboardTracking(False)  # typed digits are one edit, on Enter or leaving the field

    def _add_row(self, label: str, widget: QWidget, name: str, tip: str) -> None:
        self._register(widget, name, tip, label)
        self.form.addRow(self._label(label, widget), widget)

    def _choice_box(self, field: str, model: type[BaseModel], label: str, name: str, tip: str) -> ChoiceBox:
        box = ChoiceBox(field)
        for word in choices(model, field):
            box.addItem(LABELS.get(field, {}).get(word, word), word)
        self._add_row(label, box, name, tip)
        self._choice_boxes[field] = box
        box.chosen.connect(self._choice_changed)
        return box

    def _mark_precisions(self, build: Build, job: Job) -> None:
        """Recipes the job's cards cannot run are disabled, the reason in their tooltip (engine rule)."""
        cards = []
        for slot, _ in job.card_keys:
            placed = build.card_in(slot)
            if placed is not None and placed.card in self.doc.catalog.cards:
                cards.append(self.doc.catalog.cards[placed.card])
        why = precision_choices(cards)
        model = self.precision_box.model()
        for i in range(self.precision_box.count()):
            word = self.precision_box.itemData(i)
            reason = why.get(word)
            item = model.item(i) if hasattr(model, "item") else None
            if item is not None:
                item.setEnabled(reason is None or word == job.precision)
            self.precision_box.setItemData(i, reason or "", Qt.ItemDataRole.ToolTipRole)

    # ---- selection -------------------------------------------------------------------------------------

    @property
    def index(self) -> int:
        return self._index

    def select_job(self, index: int) -> None:
        if 0 <= index < self.job_list.count():
            self.job_list.setCurrentRow(index)

    def _row_changed(self, row: int) -> None:
        if row == self._index:
            return
        self._flush_pending()
        self._index = row
        for w in list(self._invalid):
            self._clear_invalid(w)
        self._fill(self.doc.build, self.doc.result)
        self.job_selected.emit(row)

    def _document_replaced(self, *_: object) -> None:
        for w in list(self._invalid):
            self._clear_invalid(w)
        self._fill(self.doc.build, self.doc.result)

    # ---- refresh ---------------------------------------------------------------------------------------

    def _on_changed(self, build: Build, result: BuildResult) -> None:
        lst = self.job_list
        with blocked([lst]):
            if lst.count() != len(build.jobs):
                for w in list(self._invalid):  # marks belong to the job they were made on
                    self._clear_invalid(w)
                lst.clear()
                for _ in build.jobs:
                    item = QListWidgetItem()
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsDragEnabled)
                    lst.addItem(item)
            for i, job in enumerate(build.jobs):
                item = lst.item(i)
                jr = result.job(job.name)
                status = jr.status if jr is not None else "unknown"
                if item.text() != job.name and lst.state() != QAbstractItemView.State.EditingState:
                    item.setText(job.name)
                if item.data(STATUS_ROLE) != status:
                    item.setData(STATUS_ROLE, status)
                tip = f"{escape_rich(job.name)}: {STATUS_TEXT.get(status, status)}. F2 renames; drag onto a card."
                item.setToolTip(tip)
            row = self._index if 0 <= self._index < len(build.jobs) else min(max(self._index, 0), len(build.jobs) - 1)
            if lst.currentRow() != row:
                lst.setCurrentRow(row)
        lst.viewport().update()
        moved = row != self._index
        self._index = row
        if hidden_in_shown_window(self):
            self._fill_pending = True  # the form costs a few ms per edit; it is filled when shown
        else:
            self._fill(build, result)
        if moved:
            self.job_selected.emit(row)

    def _model_of(self, job: Job) -> ModelSpec | None:
        return self.doc.models.find(job.model)

    def _model_text(self, job: Job, spec: ModelSpec | None) -> str:
        if isinstance(job.model, ParamsOnlyModel):
            return job.model.name or f"{job.model.parameters / 1e9:g}B (parameter count only)"
        if job.model in self.doc.catalog.models:
            return self.doc.catalog.models[job.model].name
        return f"{spec.name} ({Path(job.model).name})" if spec else job.model

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.catch_up()

    def catch_up(self, visible: bool = True) -> None:
        """Fill the form if an edit arrived while it was hidden (connected to its dock's visibilityChanged:
        a dock behind another dock's tab gets no show event when its tab is chosen)."""
        if visible and self._fill_pending:
            self._fill(self.doc.build, self.doc.result)

    def _fill(self, build: Build, result: BuildResult) -> None:
        self._fill_pending = False
        i = self._index
        has_job = 0 <= i < len(build.jobs)
        self.editor.setEnabled(has_job)
        self.duplicate_button.setEnabled(has_job)
        self.remove_button.setEnabled(has_job)
        if not has_job:
            self.info.setText("No job selected. Add one to see whether it fits.")
            return
        job = build.jobs[i]
        jr = result.job(job.name)
        spec = self._model_of(job)
        with blocked(self._inputs):
            self._fill_model(job, spec)
            self._set_choice(self.method_box, job.method)
            self._set_value(self.rank_spin, job.lora.rank)
            self._set_value(self.alpha_spin, job.lora.alpha or 0.0)
            targets = job.lora.targets
            self._set_choice(self.targets_box, targets if isinstance(targets, str) else CUSTOM)
            typing_now = self.targets_edit.hasFocus() and self.targets_edit.isModified()
            if self.targets_edit not in self._invalid and not typing_now:
                text = ", ".join(targets) if isinstance(targets, list) else ""
                if self.targets_edit.text() != text:
                    self.targets_edit.setText(text)
            self._set_value(self.dropout_spin, job.lora.dropout)
            self._set_choice(self.quant_box, job.quantization)
            self._set_choice(self.optimizer_box, job.optimizer)
            self._set_choice(self.precision_box, job.precision)
            self._mark_precisions(build, job)
            self._set_choice(self.base_box, job.base_weights)
            self._set_choice(self.framework_box, job.framework)
            self._set_choice(self.fsdp_version_box, str(job.fsdp_version))
            self._set_choice(self.offload_box, job.offload)
            self._set_choice(self.parallelism_box, job.parallelism)
            self._set_value(self.tp_spin, job.tensor_parallel)
            if not self.seq_slider.isSliderDown():  # while dragged, the slider and spin show the pointer
                self._set_value(self.seq_spin, job.sequence_length)
                self.seq_slider.setValue(pos_from_seq(job.sequence_length))
            self._set_value(self.micro_spin, job.micro_batch_size)
            self._set_value(self.accum_spin, job.gradient_accumulation_steps)
            self.checkpointing_check.setChecked(job.gradient_checkpointing)
            self._set_choice(self.loss_box, job.loss)
            self._set_choice(self.attention_box, job.attention)
            fixed = job.activation_memory_gb is not None
            self.budget_check.setChecked(fixed)
            if fixed:
                self._set_value(self.budget_spin, job.activation_memory_gb)
            elif jr is not None and jr.cards:
                self._set_value(self.budget_spin, round(max(c.activations_gb for c in jr.cards), 1))
        lora = job.method != "full"
        for w in (self.rank_spin, self.alpha_spin, self.targets_box, self.targets_edit, self.dropout_spin):
            w.setEnabled(lora)
        self.quant_box.setEnabled(job.method == "qlora")
        self.tp_spin.setEnabled(job.parallelism == "tp")
        self.budget_spin.setEnabled(job.activation_memory_gb is not None)
        self.form.setRowVisible(self.adapter_spin, isinstance(job.model, ParamsOnlyModel))
        self._fill_targets_tip(job, spec)
        self._fill_cards(build, job)
        if jr is not None:
            status = STATUS_TEXT.get(jr.status, jr.status)
            colour = FIT_COLOUR.get(jr.status, "#777777")
            trained = f"{jr.params_trainable / 1e6:,.1f} M trained" if jr.params_trainable else "none trained"
            name = escape_rich(job.name)
            self.info.setText(f"<b>{name}</b> · <span style='color:{colour}'><b>{status}</b></span><br>"
                              f"{jr.params_total / 1e9:.2f} B params · {trained}")  # fmt: skip

    def _fill_model(self, job: Job, spec: ModelSpec | None) -> None:
        box = self.model_box
        n = len(self._catalog_models)
        extra = None if isinstance(job.model, str) and job.model in self.doc.catalog.models else job.model
        text = self._model_text(job, spec)
        if box.count() > n and (extra is None or box.itemData(n) != extra or box.itemText(n) != text):
            box.removeItem(n)  # one extra item: the job's imported or parameter-count-only model
        if extra is not None and box.count() == n:
            box.addItem(text, extra)
        index = n if extra is not None else box.findData(job.model)
        if box not in self._invalid:
            editing = box.lineEdit().hasFocus() and box.lineEdit().isModified()
            if not editing and (box.currentIndex() != index or box.currentText() != box.itemText(index)):
                box.setCurrentIndex(index)
                box.setEditText(box.itemText(index))
        tip = self._tips[box]
        if isinstance(job.model, str) and job.model not in self.doc.catalog.models:
            tip = f"Imported from {job.model}"
        if box not in self._invalid:
            box.setToolTip(tip)
        if isinstance(job.model, ParamsOnlyModel):
            self._set_value(self.adapter_spin, job.model.adapter_fraction * 100)

    def _fill_targets_tip(self, job: Job, spec: ModelSpec | None) -> None:
        if spec is None or spec.is_params_only:
            tip = "Comma-separated module names (the model's modules are unknown: parameter count only)"
            modules: list[str] = []
        else:
            modules = list(dict.fromkeys(spec.module_names))
            tip = f"Comma-separated module names. {spec.name} has: {', '.join(modules)}"
        self._tips[self.targets_edit] = tip
        self._tips[self.targets_box] = f"Which linear layers get adapters. {spec.name if spec else 'The model'} " + (
            f"has: {', '.join(modules)}" if modules else "has no module list"
        )
        for w in (self.targets_edit, self.targets_box):
            if w not in self._invalid:
                w.setToolTip(self._tips[w])
        if spec is not None and not spec.is_params_only and isinstance(job.lora.targets, str):
            try:
                names = [m.name for m in spec.lora_modules(job.lora.targets)]
                self.targets_edit.setPlaceholderText(", ".join(dict.fromkeys(names)))
            except ValueError:
                self.targets_edit.setPlaceholderText("q_proj, v_proj")

    def _fill_cards(self, build: Build, job: Job) -> None:
        key = tuple((c.slot, c.card, tuple(r.profile for r in c.mig) if c.mig else None) for c in build.cards)
        if key != self._cards_key:
            self._cards_key = key
            for check in self.card_checks.values():
                self.cards_layout.removeWidget(check)
                check.setParent(None)
                check.deleteLater()
            self.card_checks = {}
            for c in build.cards:
                card = self.doc.catalog.cards.get(c.card)
                full = card.name if card else c.card
                name = short_card_name(full, abbreviate=False)
                refs = [(k, f"slot {c.slot} · {r.profile} #{k}") for k, r in enumerate(c.mig)] if c.mig else [
                    (None, f"slot {c.slot} · {name}")]  # fmt: skip
                for instance, text in refs:
                    check = CardCheck(text, c.slot, instance)
                    check.setAccessibleName(f"{text} ({full})")
                    check.setObjectName(f"card{c.slot}" + ("" if instance is None else f"_{instance}"))
                    check.chosen.connect(self._card_toggled)
                    self.cards_layout.addWidget(check)
                    self.card_checks[(c.slot, instance)] = check
            self.no_cards.setVisible(not build.cards)
        mine = set(job.card_keys)
        others: dict[tuple[int, int | None], list[str]] = {}
        for k, other in enumerate(build.jobs):
            if k != self._index:
                for ref in other.card_keys:
                    others.setdefault(ref, []).append(other.name)
        for ref, check in self.card_checks.items():
            with blocked([check]):
                check.setChecked(ref in mine)
            shared = others.get(ref, [])
            what = "this MIG instance (a job runs in one instance only)" if ref[1] is not None else "this card"
            check.setToolTip(f"Run {escape_rich(job.name)} on {what}"
                            + (f"; also used by {escape_rich(', '.join(shared))}" if shared else ""))

    def _set_value(self, spin: QSpinBox | QDoubleSpinBox, value: float | int | None) -> None:
        if value is None or spin in self._invalid:
            return
        if spin.value() != value:
            spin.setValue(value)  # type: ignore[arg-type]

    def _set_choice(self, box: QComboBox, word: str) -> None:
        i = box.findData(word)
        if i >= 0 and box.currentIndex() != i and box not in self._invalid:
            box.setCurrentIndex(i)

    # ---- refusals in place -----------------------------------------------------------------------------

    def _mark_invalid(self, widget: QWidget, message: str) -> None:
        self._invalid.add(widget)
        name = widget.objectName()
        widget.setStyleSheet(f"#{name} {{ border: 2px solid {REFUSED}; border-radius: 3px; }}")
        widget.setToolTip(f"Refused: {escape_rich(message, 600)}")

    def _clear_invalid(self, widget: QWidget) -> None:
        if widget in self._invalid:
            self._invalid.discard(widget)
            widget.setStyleSheet("")
            widget.setToolTip(self._tips.get(widget, ""))

    def refusal(self, widget: QWidget) -> str | None:
        """The reason shown on ``widget`` when its last value was refused, else None."""
        return widget.toolTip().removeprefix("Refused: ") if widget in self._invalid else None

    # ---- edits -----------------------------------------------------------------------------------------

    def _job(self) -> Job | None:
        return self.doc.build.jobs[self._index] if 0 <= self._index < len(self.doc.build.jobs) else None

    def _apply(self, widget: QWidget, field: str, value_text: str, changes: dict[str, Any],
               merge: bool = False, check_targets: bool = False, text: str | None = None,
               make: Callable[[Build], Build] | None = None) -> bool:  # fmt: skip
        """One undoable change of the selected job (``changes`` to its fields, or the edit ``make``); a refusal
        is shown on ``widget``, nothing changes."""
        i, job = self._index, self._job()
        if job is None:
            return False
        build = self.doc.build
        make = make or partial(editing.update_job, index=i, **changes)
        try:
            after = make(build)
            if check_targets:
                spec = self._model_of(after.jobs[i])
                if spec is not None and not spec.is_params_only:
                    spec.lora_modules(after.jobs[i].lora.targets)
        except ValueError as exc:  # EditRefused and pydantic's ValidationError are ValueErrors
            self._mark_invalid(widget, reason(exc))
            return False
        self._clear_invalid(widget)
        label = text or f"Set {FIELD_NAMES.get(field, field)} of {job.name} to {value_text}"
        # the merge key names the job, not its place in the list: a slider drag merges only on one job
        return self.doc.edit(label, lambda b: after if b is build else make(b),
                             merge_key=f"job:{job.name}.{field}" if merge else None)  # fmt: skip

    def _lora(self, **changes: Any) -> dict[str, Any]:
        job = self._job()
        assert job is not None
        return {"lora": {**job.lora.model_dump(), **changes}}

    def _choice_changed(self, field: str, index: int) -> None:
        box = self._choice_boxes[field]
        if index < 0:
            return
        word = box.itemData(index)
        if field == "fsdp_version":  # the only integer choice: Literal[1, 2]
            word = int(word)
        job = self._job()
        if job is None:
            return
        make = partial(editing.set_parallelism, index=self._index, parallelism=word) if field == "parallelism" else None
        self._apply(box, field, box.itemText(index), {field: word}, make=make)

    # model
    def _model_ref(self, text: str) -> str | ParamsOnlyModel:
        """What the user typed into the model box, as a job.model value (ValueError if it names nothing)."""
        text = text.strip()
        if not text:
            raise ValueError("choose a model")
        for k in range(self.model_box.count()):
            if self.model_box.itemText(k).casefold() == text.casefold():
                return self.model_box.itemData(k)  # type: ignore[no-any-return]
        if text in self.doc.catalog.models:
            return text
        m = _PARAMS.match(text)
        if m:
            return ParamsOnlyModel(parameters=float(m.group(1)) * _SCALE[m.group(2).lower()])
        if text.endswith(".json") or "/" in text or "\\" in text:
            try:
                load_hf_config(text)
            except FileError as exc:
                raise ValueError(str(exc).splitlines()[-1].strip()) from None
            return str(Path(text).expanduser().resolve())
        raise ValueError(f"unknown model '{text}': pick one from the list, type a parameter count such as 30B, "
                         "or import a config.json")  # fmt: skip

    def _set_model(self, ref: str | ParamsOnlyModel, label: str) -> None:
        job = self._job()
        if job is None:
            return
        value = ref.model_dump() if isinstance(ref, ParamsOnlyModel) else ref
        self._apply(self.model_box, "model", label, {"model": value})

    def _model_chosen(self, index: int) -> None:
        if index >= 0:
            self._set_model(self.model_box.itemData(index), self.model_box.itemText(index))

    def _model_typed(self) -> None:
        job = self._job()
        if job is None:
            return
        text = self.model_box.currentText()
        self.model_box.lineEdit().setModified(False)
        try:
            ref = self._model_ref(text)
        except ValueError as exc:
            self._mark_invalid(self.model_box, reason(exc))
            return
        self._set_model(ref, text.strip())

    def _import_config(self) -> None:
        job = self._job()
        if job is None:
            return
        start = str(self.doc.path.parent) if self.doc.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Import a Hugging Face config.json", start,
                                              "Model config (*.json);;All files (*)")  # fmt: skip
        if not path:
            return
        try:
            spec = load_hf_config(path)
        except FileError as exc:
            QMessageBox.critical(self, "Cannot import the model", str(exc))
            return
        self._set_model(str(Path(path).resolve()), spec.name)

    def _adapter_changed(self, percent: float) -> None:
        job = self._job()
        if job is None or not isinstance(job.model, ParamsOnlyModel):
            return
        model = {**job.model.model_dump(), "adapter_fraction": percent / 100}
        self._apply(self.adapter_spin, "adapter_fraction", f"{percent:g} %", {"model": model}, merge=True)

    # LoRA
    def _rank_changed(self, value: int) -> None:
        if self._job() is not None:
            self._apply(self.rank_spin, "rank", shown(value), self._lora(rank=value), merge=True)

    def _alpha_changed(self, value: float) -> None:
        if self._job() is not None:
            alpha = value or None
            self._apply(self.alpha_spin, "alpha", "auto" if alpha is None else f"{value:g}",
                        self._lora(alpha=alpha), merge=True)  # fmt: skip

    def _dropout_changed(self, value: float) -> None:
        if self._job() is not None:
            self._apply(self.dropout_spin, "dropout", f"{value:g}", self._lora(dropout=value), merge=True)

    def _targets_preset(self, index: int) -> None:
        job = self._job()
        if job is None or index < 0:
            return
        word = self.targets_box.itemData(index)
        if word == CUSTOM:
            names = [n.strip() for n in self.targets_edit.text().split(",") if n.strip()]
            if not names:
                names = [n.strip() for n in self.targets_edit.placeholderText().split(",") if n.strip()]
            if not names:
                self.targets_edit.setFocus()
                return
            self._apply(self.targets_box, "targets", ", ".join(names), self._lora(targets=names), check_targets=True)
            return
        self._clear_invalid(self.targets_edit)
        self._apply(self.targets_box, "targets", self.targets_box.itemText(index), self._lora(targets=word),
                    check_targets=True)  # fmt: skip

    def _targets_typed(self) -> None:
        job = self._job()
        if job is None:
            return
        self.targets_edit.setModified(False)
        names = list(dict.fromkeys(n.strip() for n in self.targets_edit.text().split(",") if n.strip()))
        if not names:
            if isinstance(job.lora.targets, list):
                self._mark_invalid(self.targets_edit, "name at least one module, or pick a preset")
            else:
                self._clear_invalid(self.targets_edit)
            return
        self._apply(self.targets_edit, "targets", ", ".join(names), self._lora(targets=names), check_targets=True)

    # training
    def _tp_changed(self, value: int) -> None:
        if self._job() is not None:
            self._apply(self.tp_spin, "tensor_parallel", shown(value), {"tensor_parallel": value}, merge=True)

    def _micro_changed(self, value: int) -> None:
        if self._job() is not None:
            self._apply(self.micro_spin, "micro_batch_size", shown(value), {"micro_batch_size": value}, merge=True)

    def _accum_changed(self, value: int) -> None:
        if self._job() is not None:
            self._apply(self.accum_spin, "gradient_accumulation_steps", shown(value),
                        {"gradient_accumulation_steps": value}, merge=True)  # fmt: skip

    def _checkpointing_changed(self, checked: bool) -> None:
        job = self._job()
        if job is not None:
            text = f"{'Turn on' if checked else 'Turn off'} gradient checkpointing for {job.name}"
            self._apply(self.checkpointing_check, "gradient_checkpointing", shown(checked),
                        {"gradient_checkpointing": checked}, text=text)  # fmt: skip

    def _budget_toggled(self, checked: bool) -> None:
        job = self._job()
        if job is None:
            return
        self.budget_spin.setEnabled(checked)
        value = round(self.budget_spin.value(), 1) if checked else None
        text = (f"Fix activation budget of {job.name} at {value:g} GB" if value is not None
                else f"Estimate activations of {job.name}")  # fmt: skip
        self._apply(self.budget_check, "activation_memory_gb", "", {"activation_memory_gb": value}, text=text)

    def _budget_changed(self, value: float) -> None:
        job = self._job()
        if job is None or not self.budget_check.isChecked():
            return
        self._apply(self.budget_spin, "activation_memory_gb", f"{value:g} GB", {"activation_memory_gb": value},
                    merge=True)  # fmt: skip

    # sequence length: the slider pushes at most one edit per DEBOUNCE_MS while dragged, and always on release
    def _seq_slid(self, pos: int) -> None:
        tokens = seq_from_pos(pos)
        with blocked([self.seq_spin]):
            self.seq_spin.setValue(tokens)
        self._seq_pending = (self._index, tokens)
        if not self.seq_slider.isSliderDown():
            self._flush_pending()
        elif not self._seq_timer.isActive():
            self._flush_pending()
            self._seq_timer.start()

    def _seq_tick(self) -> None:
        if self._seq_pending is not None:
            self._flush_pending()
            self._seq_timer.start()

    def _seq_released(self) -> None:
        self._seq_timer.stop()
        self._flush_pending()

    def _flush_pending(self) -> None:
        pending, self._seq_pending = self._seq_pending, None
        if pending is None or pending[0] != self._index:
            return
        self._push_seq(pending[1], self.seq_slider)

    def _seq_typed(self, tokens: int) -> None:
        with blocked([self.seq_slider]):
            self.seq_slider.setValue(pos_from_seq(tokens))
        self._push_seq(tokens, self.seq_spin)

    def _push_seq(self, tokens: int, widget: QWidget) -> None:
        if self._job() is not None:
            self._apply(widget, "sequence_length", shown(tokens), {"sequence_length": tokens}, merge=True)

    # cards
    def _card_toggled(self, slot: int, instance: int, checked: bool) -> None:
        job = self._job()
        if job is None:
            return
        check = self.card_checks.get((slot, None if instance < 0 else instance))
        where = check.label if check else f"slot {slot}"
        make = partial(editing.toggle_job_card, index=self._index, slot=slot,
                       instance=None if instance < 0 else instance, on=checked)  # fmt: skip
        text = f"Run {job.name} on {where}" if checked else f"Take {job.name} off {where}"
        if check is not None and not self._apply(check, "cards", where, {}, text=text, make=make):
            with blocked([check]):
                check.setChecked(not checked)

    # ---- list edits ------------------------------------------------------------------------------------

    def _add(self) -> None:
        name = editing.add_job(self.doc.build).jobs[-1].name
        if self.doc.edit(f"Add job {name}", editing.add_job):
            self.select_job(len(self.doc.build.jobs) - 1)

    def _duplicate(self) -> None:
        i, job = self._index, self._job()
        if job is None:
            return
        if self.doc.edit(f"Duplicate job {job.name}", partial(editing.duplicate_job, index=i)):
            self.select_job(i + 1)

    def _remove(self) -> None:
        i, job = self._index, self._job()
        if job is None:
            return
        self.doc.edit(f"Remove job {job.name}", partial(editing.remove_job, index=i))

    def _item_renamed(self, item: QListWidgetItem) -> None:
        i = self.job_list.row(item)
        if not 0 <= i < len(self.doc.build.jobs):
            return
        old, new = self.doc.build.jobs[i].name, item.text().strip()
        if new == old:
            return
        try:
            editing.rename_job(self.doc.build, i, new)
        except ValueError as exc:
            self._mark_invalid(self.job_list, reason(exc))
            self.doc.refused.emit(reason(exc))
            with blocked([self.job_list]):
                item.setText(old)
            return
        self._clear_invalid(self.job_list)
        self.doc.edit(f"Rename job {old} to {new}", partial(editing.rename_job, index=i, name=new))
