"""The Jobs form's method and LoRA rows: method, rank, alpha, target modules (a preset or a typed list),
dropout, and QLoRA's quantization."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox

from configurator.catalog.models import ModelSpec
from configurator.engine.checks.rl import form_fields
from configurator.engine.model.build import Job, LoraSettings
from configurator.ui.jobs.fields import CUSTOM, LABELS, choices, float_range, int_range, shown
from configurator.ui.jobs.form_kit import FormKit


class LoraRows:
    def __init__(self, kit: FormKit) -> None:
        self.kit = kit
        self.method_box = kit.choice_box("method", Job, "Method", "methodBox", "How the model is fine-tuned")
        kit.choice_edits.update(method=kit.titled)  # a generated name follows the method ('70B LoRA' -> '70B QLoRA')
        self.rank_spin = QSpinBox()
        self.rank_spin.setRange(*int_range(LoraSettings, "rank"))
        kit.add_row("LoRA rank", self.rank_spin, "rankSpin", "LoRA rank r: adapter width")
        self.rank_spin.valueChanged.connect(self._rank_changed)
        self.alpha_spin = QDoubleSpinBox()
        self.alpha_spin.setDecimals(1)
        self.alpha_spin.setRange(0, 65536)
        self.alpha_spin.setSpecialValueText("auto")
        kit.add_row("LoRA alpha", self.alpha_spin, "alphaSpin", "LoRA scaling alpha (auto: the trainer's default)")
        self.alpha_spin.valueChanged.connect(self._alpha_changed)
        self.targets_box = QComboBox()
        for word in choices(LoraSettings, "targets"):
            self.targets_box.addItem(LABELS["targets"].get(word, word), word)
        self.targets_box.addItem("Custom list", CUSTOM)
        kit.add_row("LoRA targets", self.targets_box, "targetsBox", "Which linear layers get adapters")
        self.targets_box.currentIndexChanged.connect(self._targets_preset)
        self.targets_edit = QLineEdit()
        self.targets_edit.setPlaceholderText("q_proj, v_proj")
        kit.add_row("Modules", self.targets_edit, "targetsEdit", "Comma-separated module names")
        self.targets_edit.editingFinished.connect(self._targets_typed)
        self.dropout_spin = QDoubleSpinBox()
        self.dropout_spin.setDecimals(2)
        self.dropout_spin.setSingleStep(0.05)
        self.dropout_spin.setRange(*float_range(LoraSettings, "dropout", 2))
        kit.add_row("LoRA dropout", self.dropout_spin, "dropoutSpin", "Dropout on the LoRA path")
        self.dropout_spin.valueChanged.connect(self._dropout_changed)
        self.quant_box = kit.choice_box("quantization", Job, "Quantization", "quantBox",
                                        "4-bit base weights for QLoRA")  # fmt: skip

    # ---- refresh -----------------------------------------------------------------------------------------

    def fill(self, job: Job, spec: ModelSpec | None) -> None:
        kit = self.kit
        kit.set_choice(self.method_box, job.method)
        kit.set_value(self.rank_spin, job.lora.rank)
        kit.set_value(self.alpha_spin, job.lora.alpha or 0.0)
        targets = job.lora.targets
        kit.set_choice(self.targets_box, targets if isinstance(targets, str) else CUSTOM)
        typing_now = self.targets_edit.hasFocus() and self.targets_edit.isModified()
        if self.targets_edit not in kit.invalid and not typing_now:
            text = ", ".join(targets) if isinstance(targets, list) else ""
            if self.targets_edit.text() != text:
                self.targets_edit.setText(text)
        kit.set_value(self.dropout_spin, job.lora.dropout)
        kit.set_choice(self.quant_box, job.quantization)
        # a row shows where the engine says its setting applies (form_fields), not greyed where it does not
        applies = form_fields(job, spec)
        for w in (self.rank_spin, self.alpha_spin, self.targets_box, self.targets_edit, self.dropout_spin):
            kit.form.setRowVisible(w, "lora" in applies)
        kit.form.setRowVisible(self.quant_box, "quantization" in applies)

    def fill_targets_tip(self, job: Job, spec: ModelSpec | None) -> None:
        """The model's own module names in the targets' tooltips, and the preset's modules as the placeholder."""
        kit = self.kit
        if spec is None or spec.is_params_only:
            tip = "Comma-separated module names (the model's modules are unknown: parameter count only)"
            modules: list[str] = []
        else:
            modules = list(dict.fromkeys(spec.module_names))
            tip = f"Comma-separated module names. {spec.name} has: {', '.join(modules)}"
        kit.tips[self.targets_edit] = tip
        kit.tips[self.targets_box] = f"Which linear layers get adapters. {spec.name if spec else 'The model'} " + (
            f"has: {', '.join(modules)}" if modules else "has no module list"
        )
        for w in (self.targets_edit, self.targets_box):
            if w not in kit.invalid:
                w.setToolTip(kit.tips[w])
        if spec is not None and not spec.is_params_only and isinstance(job.lora.targets, str):
            try:
                names = [m.name for m in spec.lora_modules(job.lora.targets)]
                self.targets_edit.setPlaceholderText(", ".join(dict.fromkeys(names)))
            except ValueError:
                self.targets_edit.setPlaceholderText("q_proj, v_proj")

    # ---- edits -------------------------------------------------------------------------------------------

    def _lora(self, **changes: Any) -> dict[str, Any]:
        job = self.kit.job()
        assert job is not None
        return {"lora": {**job.lora.model_dump(), **changes}}

    def _rank_changed(self, value: int) -> None:
        if self.kit.job() is not None:
            self.kit.apply(self.rank_spin, "rank", shown(value), self._lora(rank=value), merge=True)

    def _alpha_changed(self, value: float) -> None:
        if self.kit.job() is not None:
            alpha = value or None
            self.kit.apply(self.alpha_spin, "alpha", "auto" if alpha is None else f"{value:g}",
                           self._lora(alpha=alpha), merge=True)  # fmt: skip

    def _dropout_changed(self, value: float) -> None:
        if self.kit.job() is not None:
            self.kit.apply(self.dropout_spin, "dropout", f"{value:g}", self._lora(dropout=value), merge=True)

    def _targets_preset(self, index: int) -> None:
        kit = self.kit
        if kit.job() is None or index < 0:
            return
        word = self.targets_box.itemData(index)
        if word == CUSTOM:
            names = [n.strip() for n in self.targets_edit.text().split(",") if n.strip()]
            if not names:
                names = [n.strip() for n in self.targets_edit.placeholderText().split(",") if n.strip()]
            if not names:
                self.targets_edit.setFocus()
                return
            kit.apply(self.targets_box, "targets", ", ".join(names), self._lora(targets=names), check_targets=True)
            return
        kit.clear_invalid(self.targets_edit)
        kit.apply(self.targets_box, "targets", self.targets_box.itemText(index), self._lora(targets=word),
                  check_targets=True)  # fmt: skip

    def _targets_typed(self) -> None:
        kit = self.kit
        job = kit.job()
        if job is None:
            return
        self.targets_edit.setModified(False)
        names = list(dict.fromkeys(n.strip() for n in self.targets_edit.text().split(",") if n.strip()))
        if not names:
            if isinstance(job.lora.targets, list):
                kit.mark_invalid(self.targets_edit, "name at least one module, or pick a preset")
            else:
                kit.clear_invalid(self.targets_edit)
            return
        kit.apply(self.targets_edit, "targets", ", ".join(names), self._lora(targets=names), check_targets=True)
