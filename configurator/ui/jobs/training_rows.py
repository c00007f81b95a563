"""The Jobs form's training rows. ``StackRows``: optimizer, precision (recipes the job's cards cannot run
disabled, with the rule and its source), LoRA base, parallelism and the training stack (framework, FSDP
version, offload), tensor-parallel degree. ``StepRows``: micro-batch, accumulation, checkpointing, loss,
attention, the activation budget and the checkpoints kept (the host's NVMe need)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QHBoxLayout, QSpinBox, QWidget

from configurator.engine import Build, editing
from configurator.engine.lowprecision.checks import precision_choices
from configurator.engine.model.build import Job
from configurator.engine.model.result import JobResult
from configurator.engine.model.stack import stack_of
from configurator.ui.jobs.fields import (
    DEFAULT,
    LABELS,
    SHORT,
    SHORT_ROLE,
    FittingCheck,
    float_range,
    int_range,
    shown,
)
from configurator.ui.jobs.form_kit import FormKit


class StackRows:
    def __init__(self, kit: FormKit) -> None:
        self.kit = kit
        box = kit.choice_box
        self.optimizer_box = box("optimizer", Job, "Optimizer", "optimizerBox", "Optimizer states kept")
        self.precision_box = box("precision", Job, "Precision", "precisionBox",
                                 "Mixed BF16 keeps FP32 master weights; pure BF16 does not")  # fmt: skip
        self.base_box = box("base_weights", Job, "LoRA base", "baseWeightsBox",
                            "How a LoRA job stores its frozen base: BF16, or FP8")  # fmt: skip
        self.parallelism_box = box("parallelism", Job, "Parallelism", "parallelismBox",
                                   "How a job spreads over several cards")  # fmt: skip
        kit.choice_edits.update(parallelism=editing.set_parallelism)  # the engine's rule for the TP degree
        self.framework_box = box("framework", Job, "Framework", "frameworkBox",
                                 "The training software: it decides the loss path, QLoRA preparation "
                                 "and optimizer temporaries (engine/model/stack.py cites each)")  # fmt: skip
        self.fsdp_version_box = box("fsdp_version", Job, "FSDP version", "fsdpVersionBox",
                                    "FSDP1 flat parameters or FSDP2 per-parameter sharding")  # fmt: skip
        self.offload_box = box("offload", Job, "Offload", "offloadBox",
                               "Model states on the host (CPU) or NVMe, with FSDP or ZeRO")  # fmt: skip
        self.tp_spin = QSpinBox()
        self.tp_spin.setRange(*int_range(Job, "tensor_parallel"))
        kit.add_row("TP degree", self.tp_spin, "tpSpin", "Tensor-parallel degree (with Tensor parallel)")
        self.tp_spin.valueChanged.connect(self._tp_changed)

    def fill(self, build: Build, job: Job) -> None:
        kit = self.kit
        kit.set_choice(self.optimizer_box, job.optimizer)
        kit.set_choice(self.precision_box, job.precision)
        self.mark_precisions(build, job)
        kit.set_choice(self.base_box, job.base_weights)
        kit.set_choice(self.framework_box, job.framework)
        kit.set_choice(self.fsdp_version_box, str(job.fsdp_version))
        kit.set_choice(self.offload_box, job.offload)
        kit.set_choice(self.parallelism_box, job.parallelism)
        kit.set_value(self.tp_spin, job.tensor_parallel)
        self.tp_spin.setEnabled(job.parallelism == "tp")
        for field, b in (("framework", self.framework_box), ("fsdp_version", self.fsdp_version_box),
                         ("offload", self.offload_box)):  # fmt: skip
            kit.note_build_default(b, field, build)

    def mark_precisions(self, build: Build, job: Job) -> None:
        """Recipes the job's cards cannot run are disabled, the reason in their tooltip (engine rule)."""
        catalog = self.kit.doc.catalog
        cards = []
        for slot, _ in job.card_keys:
            placed = build.card_in(slot)
            if placed is not None and placed.card in catalog.cards:
                cards.append(catalog.cards[placed.card])
        why = precision_choices(cards)
        box = self.precision_box
        model = box.model()
        for i in range(box.count()):
            word = box.itemData(i)
            refused = why.get(word)
            item = model.item(i) if hasattr(model, "item") else None
            if item is not None:
                item.setEnabled(refused is None or word == job.precision)
            box.setItemData(i, refused or "", Qt.ItemDataRole.ToolTipRole)

    def _tp_changed(self, value: int) -> None:
        if self.kit.job() is not None:
            self.kit.apply(self.tp_spin, "tensor_parallel", shown(value), {"tensor_parallel": value}, merge=True)


class StepRows:
    def __init__(self, kit: FormKit) -> None:
        self.kit = kit
        self.micro_spin = QSpinBox()
        self.micro_spin.setRange(*int_range(Job, "micro_batch_size"))
        kit.add_row("Micro-batch", self.micro_spin, "microSpin", "Sequences per card per step")
        self.micro_spin.valueChanged.connect(self._micro_changed)
        self.accum_spin = QSpinBox()
        self.accum_spin.setRange(*int_range(Job, "gradient_accumulation_steps"))
        kit.add_row("Grad. accum.", self.accum_spin, "accumSpin", "Gradient accumulation steps")
        self.accum_spin.valueChanged.connect(self._accum_changed)
        # "Checkpointing" where the whole words do not fit: they needed 165 px, 30 more than a 1024 px window's
        # dock leaves the field column, and set the form's width past the dock's right edge
        self.checkpointing_check = FittingCheck("Gradient checkpointing", "Checkpointing")
        tip = "Gradient checkpointing: recompute activations in the backward pass, far less activation memory"
        kit.register(self.checkpointing_check, "checkpointingCheck", tip, "Gradient checkpointing")
        kit.form.addRow("", self.checkpointing_check)
        self.checkpointing_check.toggled.connect(self._checkpointing_changed)
        self.loss_box = kit.choice_box("loss", Job, "Loss", "lossBox", "Chunked loss avoids the full logits tensor")
        self.loss_box.insertItem(0, "Framework default", DEFAULT)  # loss: None, what the job's framework runs
        self.attention_box = kit.choice_box("attention", Job, "Attention", "attentionBox", "Attention kernel")
        # padded batches take SDPA off its fused causal kernel (Job.padded_batches): the step time shows what it costs
        self.padded_check = FittingCheck("Padded batches (mask)", "Padded batches")
        kit.register(self.padded_check, "paddedCheck", "Padded batches: the sequences are padded and the padding "
                     "mask reaches the model (no packing, no padding-free collator). SDPA then runs its "
                     "memory-efficient kernel over every tile of the attention, several times slower than the fused "
                     "causal kernel; FlashAttention unpads instead", "Padded batches")  # fmt: skip
        kit.form.addRow("", self.padded_check)
        self.padded_check.toggled.connect(self._padded_changed)
        self._budget_row()
        self.checkpoints_spin = QSpinBox()
        self.checkpoints_spin.setRange(*int_range(Job, "checkpoints_kept"))
        # "Checkpoints": the form's labels are short (the dock is narrow); the accessible name says "kept"
        kit.register(self.checkpoints_spin, "checkpointsSpin",
                     "Checkpoints the run keeps on NVMe (the Trainer's save_total_limit); each holds the trained "
                     "weights and the optimizer's states. 0: none written", "Checkpoints kept")  # fmt: skip
        kit.form.addRow(kit.label("Checkpoints", self.checkpoints_spin), self.checkpoints_spin)
        self.checkpoints_spin.valueChanged.connect(self._checkpoints_changed)

    def _budget_row(self) -> None:
        kit = self.kit
        self.budget_check = QCheckBox("fixed")
        self.budget_spin = QDoubleSpinBox()
        self.budget_spin.setDecimals(1)
        self.budget_spin.setRange(*float_range(Job, "activation_memory_gb", 1))
        self.budget_spin.setSuffix(" GB")
        self.budget_spin.setSingleStep(1.0)
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.budget_check)
        layout.addWidget(self.budget_spin, 1)
        kit.register(self.budget_check, "budgetCheck", "Fixed budget: use this activation memory instead of "
                     "the estimate (from a measured run)", "Fixed activation budget")  # fmt: skip
        kit.register(self.budget_spin, "budgetSpin", "Activation memory per card", "Activation budget")
        kit.form.addRow(kit.label("Activations", self.budget_spin), row)
        self.budget_check.toggled.connect(self._budget_toggled)
        self.budget_spin.valueChanged.connect(self._budget_changed)

    def fill(self, build: Build, job: Job, result: JobResult | None) -> None:
        kit = self.kit
        kit.set_value(self.micro_spin, job.micro_batch_size)
        kit.set_value(self.accum_spin, job.gradient_accumulation_steps)
        self.checkpointing_check.setChecked(job.gradient_checkpointing)
        effective = result.loss if result is not None else stack_of(job).loss  # the loss the framework runs
        self.loss_box.setItemText(0, f"{LABELS['loss'].get(effective, effective)} (framework default)")
        short = SHORT["loss"].get(effective, LABELS["loss"].get(effective, effective))
        self.loss_box.setItemData(0, f"{short} (default)", SHORT_ROLE)
        kit.set_choice(self.loss_box, DEFAULT if job.loss is None else job.loss)
        kit.note_build_default(self.loss_box, "loss", build)
        kit.set_choice(self.attention_box, job.attention)
        self.padded_check.setChecked(job.padded_batches)
        fixed = job.activation_memory_gb is not None
        self.budget_check.setChecked(fixed)
        if fixed:
            kit.set_value(self.budget_spin, job.activation_memory_gb)
        elif result is not None and result.cards:
            kit.set_value(self.budget_spin, round(max(c.activations_gb for c in result.cards), 1))
        self.budget_spin.setEnabled(fixed)
        kit.set_value(self.checkpoints_spin, job.checkpoints_kept)

    def _micro_changed(self, value: int) -> None:
        if self.kit.job() is not None:
            self.kit.apply(self.micro_spin, "micro_batch_size", shown(value), {"micro_batch_size": value},
                           merge=True)  # fmt: skip

    def _accum_changed(self, value: int) -> None:
        if self.kit.job() is not None:
            self.kit.apply(self.accum_spin, "gradient_accumulation_steps", shown(value),
                           {"gradient_accumulation_steps": value}, merge=True)  # fmt: skip

    def _checkpointing_changed(self, checked: bool) -> None:
        job = self.kit.job()
        if job is not None:
            text = f"{'Turn on' if checked else 'Turn off'} gradient checkpointing for {job.name}"
            self.kit.apply(self.checkpointing_check, "gradient_checkpointing", shown(checked),
                           {"gradient_checkpointing": checked}, text=text)  # fmt: skip

    def _padded_changed(self, checked: bool) -> None:
        job = self.kit.job()
        if job is not None:
            text = f"{'Pad' if checked else 'Stop padding'} the batches of {job.name}"
            self.kit.apply(self.padded_check, "padded_batches", shown(checked), {"padded_batches": checked}, text=text)

    def _checkpoints_changed(self, value: int) -> None:
        job = self.kit.job()
        if job is not None:
            index = self.kit.index
            self.kit.apply(self.checkpoints_spin, "checkpoints_kept", shown(value), {"checkpoints_kept": value},
                           text=f"Keep {value} checkpoint{'s' if value != 1 else ''} of {job.name}",
                           make=lambda b: editing.set_checkpoints_kept(b, index, value))  # fmt: skip

    def _budget_toggled(self, checked: bool) -> None:
        job = self.kit.job()
        if job is None:
            return
        self.budget_spin.setEnabled(checked)
        value = round(self.budget_spin.value(), 1) if checked else None
        text = (f"Fix activation budget of {job.name} at {value:g} GB" if value is not None
                else f"Estimate activations of {job.name}")  # fmt: skip
        self.kit.apply(self.budget_check, "activation_memory_gb", "", {"activation_memory_gb": value}, text=text)

    def _budget_changed(self, value: float) -> None:
        job = self.kit.job()
        if job is None or not self.budget_check.isChecked():
            return
        self.kit.apply(self.budget_spin, "activation_memory_gb", f"{value:g} GB", {"activation_memory_gb": value},
                       merge=True)  # fmt: skip
