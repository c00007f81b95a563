"""The Jobs form's model rows: the model box (a catalog model, a parameter count typed as "30B", or an imported
config.json), the import button, and the adapter share of a parameter-count-only model."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QCompleter, QDoubleSpinBox, QFileDialog, QMessageBox, QPushButton, QWidget

from configurator.catalog.errors import FileError
from configurator.catalog.hf_config import load_hf_config
from configurator.catalog.models import ModelSpec
from configurator.engine.build import Job, ParamsOnlyModel
from configurator.ui.jobs.fields import _PARAMS, _SCALE, float_range, reason
from configurator.ui.jobs.form_kit import FormKit


class ModelRows:
    def __init__(self, kit: FormKit, parent: QWidget) -> None:
        self.kit = kit
        self.parent = parent
        catalog = kit.doc.catalog
        box = self.box = QComboBox()
        box.setEditable(True)
        box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        box.setMinimumContentsLength(8)
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.catalog_models = list(catalog.models.values())
        for m in self.catalog_models:
            box.addItem(m.name, m.id)
        completer = QCompleter(box.model(), box)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        box.setCompleter(completer)
        tip = "A catalog model (type to search), a parameter count such as 30B, or import a config.json"
        kit.add_row("Model", box, "modelBox", tip)
        box.activated.connect(self._chosen)
        box.lineEdit().editingFinished.connect(self._typed)
        self.import_button = QPushButton("Import config.json…")
        self.import_button.setObjectName("importButton")
        self.import_button.setToolTip("Use a Hugging Face config.json as this job's model")
        self.import_button.clicked.connect(self._import_config)
        kit.form.addRow("", self.import_button)
        spin = self.adapter_spin = QDoubleSpinBox()
        spin.setDecimals(2)
        spin.setRange(*float_range(ParamsOnlyModel, "adapter_fraction", 2, scale=100))
        spin.setSuffix(" %")
        spin.setSingleStep(0.1)
        kit.add_row("Adapter share", spin, "adapterSpin", "LoRA's trainable share of a parameter-count-only model")
        spin.valueChanged.connect(self._adapter_changed)

    # ---- refresh -----------------------------------------------------------------------------------------

    def text_of(self, job: Job, spec: ModelSpec | None) -> str:
        if isinstance(job.model, ParamsOnlyModel):
            return job.model.name or f"{job.model.parameters / 1e9:g}B (parameter count only)"
        if job.model in self.kit.doc.catalog.models:
            return self.kit.doc.catalog.models[job.model].name
        return f"{spec.name} ({Path(job.model).name})" if spec else job.model

    def fill(self, job: Job, spec: ModelSpec | None) -> None:
        kit, box = self.kit, self.box
        n = len(self.catalog_models)
        extra = None if isinstance(job.model, str) and job.model in kit.doc.catalog.models else job.model
        text = self.text_of(job, spec)
        if box.count() > n and (extra is None or box.itemData(n) != extra or box.itemText(n) != text):
            box.removeItem(n)  # one extra item: the job's imported or parameter-count-only model
        if extra is not None and box.count() == n:
            box.addItem(text, extra)
        index = n if extra is not None else box.findData(job.model)
        if box not in kit.invalid:
            editing = box.lineEdit().hasFocus() and box.lineEdit().isModified()
            if not editing and (box.currentIndex() != index or box.currentText() != box.itemText(index)):
                box.setCurrentIndex(index)
                box.setEditText(box.itemText(index))
        tip = kit.tips[box]
        if isinstance(job.model, str) and job.model not in kit.doc.catalog.models:
            tip = f"Imported from {job.model}"
        if box not in kit.invalid:
            box.setToolTip(tip)
        if isinstance(job.model, ParamsOnlyModel):
            kit.set_value(self.adapter_spin, job.model.adapter_fraction * 100)
        kit.form.setRowVisible(self.adapter_spin, isinstance(job.model, ParamsOnlyModel))

    # ---- edits -------------------------------------------------------------------------------------------

    def model_ref(self, text: str) -> str | ParamsOnlyModel:
        """What the user typed into the model box, as a job.model value (ValueError if it names nothing)."""
        text = text.strip()
        if not text:
            raise ValueError("choose a model")
        for k in range(self.box.count()):
            if self.box.itemText(k).casefold() == text.casefold():
                return self.box.itemData(k)  # type: ignore[no-any-return]
        if text in self.kit.doc.catalog.models:
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

    def set_model(self, ref: str | ParamsOnlyModel, label: str) -> None:
        if self.kit.job() is None:
            return
        value = ref.model_dump() if isinstance(ref, ParamsOnlyModel) else ref
        self.kit.apply(self.box, "model", label, {"model": value})

    def _chosen(self, index: int) -> None:
        if index >= 0:
            self.set_model(self.box.itemData(index), self.box.itemText(index))

    def _typed(self) -> None:
        if self.kit.job() is None:
            return
        text = self.box.currentText()
        self.box.lineEdit().setModified(False)
        try:
            ref = self.model_ref(text)
        except ValueError as exc:
            self.kit.mark_invalid(self.box, reason(exc))
            return
        self.set_model(ref, text.strip())

    def _import_config(self) -> None:
        doc = self.kit.doc
        if self.kit.job() is None:
            return
        start = str(doc.path.parent) if doc.path else ""
        path, _ = QFileDialog.getOpenFileName(self.parent, "Import a Hugging Face config.json", start,
                                              "Model config (*.json);;All files (*)")  # fmt: skip
        if not path:
            return
        try:
            spec = load_hf_config(path)
        except FileError as exc:
            QMessageBox.critical(self.parent, "Cannot import the model", str(exc))
            return
        self.set_model(str(Path(path).resolve()), spec.name)

    def _adapter_changed(self, percent: float) -> None:
        job = self.kit.job()
        if job is None or not isinstance(job.model, ParamsOnlyModel):
            return
        model = {**job.model.model_dump(), "adapter_fraction": percent / 100}
        self.kit.apply(self.adapter_spin, "adapter_fraction", f"{percent:g} %", {"model": model}, merge=True)
