"""The Jobs form's model rows: the model box (a catalog model, a parameter count typed as "30B", or an imported
config.json), the import button, and the adapter share of a parameter-count-only model."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QFileDialog,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QWidget,
)

from configurator.catalog.errors import FileError, typo_of
from configurator.catalog.hf_config import load_hf_config, names_file
from configurator.catalog.models import ModelSpec
from configurator.engine import Build
from configurator.engine.model.build import Job, ParamsOnlyModel
from configurator.trace.request import engine_models_family, read_config_json
from configurator.ui.base import WrapLabel, safe_message, severity_ink
from configurator.ui.jobs.fields import _PARAMS, _SCALE, FittingButton, float_range, reason
from configurator.ui.jobs.form_kit import FormKit

GROUP_CATALOG = "Catalog models, by size"  # the title of catalog models without a family
GROUP_PARAMS_ONLY = "Parameter count only"
GROUP_BUILD = "Imported or typed in this build"


def model_group(spec: ModelSpec) -> str:
    """The picker's group title of a catalog model: its family, else the catalog's or the params-only group."""
    if spec.is_params_only:
        return GROUP_PARAMS_ONLY
    return spec.family or GROUP_CATALOG


def model_order(spec: ModelSpec) -> tuple[bool, bool, str, int, str]:
    """Catalog models by family (A to Z; models without one after), within it by parameter count, then name;
    parameter-count-only entries after the real ones."""
    family = spec.family if not spec.is_params_only else None
    return spec.is_params_only, family is None, (family or "").casefold(), spec.total_params or 0, spec.name.casefold()


class ModelRows:
    @property
    def line(self) -> QLineEdit:
        """The model box's text field (the box is editable: it always has one)."""
        line = self.box.lineEdit()
        assert line is not None
        return line

    def __init__(self, kit: FormKit, parent: QWidget) -> None:
        self.kit = kit
        self.parent = parent
        catalog = kit.doc.catalog
        box = self.box = QComboBox()
        box.setEditable(True)
        box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        box.setMinimumContentsLength(8)
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.catalog_models = sorted(catalog.models.values(), key=model_order)
        for k, m in enumerate(self.catalog_models):
            if k == 0 or model_group(self.catalog_models[k - 1]) != model_group(m):
                self._header(model_group(m))
            box.addItem(m.name, m.id)
        self.fixed = box.count()  # the catalog's items; the build's own models follow in a group of their own
        self._widen_popup()
        completer = QCompleter(box.model(), box)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        box.setCompleter(completer)
        tip = "A catalog model (type to search), a parameter count such as 30B, or import a config.json"
        kit.add_row("Model", box, "modelBox", tip)
        box.activated.connect(self._chosen)
        self.line.editingFinished.connect(self._typed)
        self.import_button = FittingButton("Import config.json…", "Import…")  # 135 px: a narrow dock's whole field
        self.import_button.setObjectName("importButton")
        self.import_button.setToolTip("Use a Hugging Face config.json as this job's model")
        self.import_button.clicked.connect(self._import_config)
        kit.form.addRow("", self.import_button)
        # a job whose config.json cannot be read (moved, a folder, a FIFO, unreadable): the reason and a way
        # to point the job at the file again; the rest of the build works meanwhile
        self.missing_label = WrapLabel()  # as tall as its wrapped lines: a QLabel was cut to three of four
        self.missing_label.setObjectName("modelMissingLabel")
        self.missing_label.setTextFormat(Qt.TextFormat.PlainText)  # the reason quotes a path: never markup
        kit.form.addRow(self.missing_label)  # the whole width, as the trace row's note
        self.locate_button = FittingButton("Locate config.json…", "Locate…")
        self.locate_button.setObjectName("locateButton")
        self.locate_button.setToolTip("This job's model file cannot be read: choose where its config.json is now")
        self.locate_button.clicked.connect(self._locate_config)
        kit.form.addRow("", self.locate_button)
        # a model id the catalog lacks (a typo in a build file, a model a newer catalog had): no file to locate, the
        # closest catalog model to use instead (the engine's message names up to three)
        self.suggest_button = QPushButton()
        self.suggest_button.setObjectName("suggestButton")
        self.suggest_button.clicked.connect(self._use_suggestion)
        kit.form.addRow("", self.suggest_button)
        self.suggestion: str | None = None
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

    def _header(self, text: str) -> None:
        """A group title in the list: shown, not selectable."""
        self.box.addItem(text, None)
        item = self.box.model().item(self.box.count() - 1)  # type: ignore[attr-defined]
        item.setEnabled(False)
        font = item.font()
        font.setBold(True)
        item.setFont(font)

    def _fill_build_group(self, build: Build) -> None:
        """The models jobs of the build name outside the catalog (imported config.json files, parameter counts),
        in a group after the catalog's; rebuilt only when they change."""
        catalog = self.kit.doc.catalog.models
        own: dict[str, tuple[str, object]] = {}
        for job in build.jobs:
            if not (isinstance(job.model, str) and job.model in catalog):
                key = job.model if isinstance(job.model, str) else job.model.model_dump_json()
                own.setdefault(key, (self.text_of(job, self.kit.model_of(job)), job.model))
        wanted = list(own.values())
        box, n = self.box, self.fixed
        shown = [(box.itemText(k), box.itemData(k)) for k in range(n + 1, box.count())]
        if shown == wanted:
            return
        while box.count() > n:
            box.removeItem(n)
        if wanted:
            self._header(GROUP_BUILD)
            for text, ref in wanted:
                box.addItem(text, ref)
        self._widen_popup()

    def _widen_popup(self) -> None:
        """The list opens as wide as its longest entry (the box itself stays narrow in the dock)."""
        view = self.box.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + view.verticalScrollBar().sizeHint().width() + 8)

    def _index_of(self, job: Job) -> int:
        if isinstance(job.model, str) and job.model in self.kit.doc.catalog.models:
            return self.box.findData(job.model)
        return next((k for k in range(self.fixed, self.box.count()) if self.box.itemData(k) == job.model), -1)

    def fill(self, build: Build, job: Job, spec: ModelSpec | None) -> None:
        kit, box = self.kit, self.box
        self._fill_build_group(build)
        index = self._index_of(job)
        if box not in kit.invalid:
            editing = self.line.hasFocus() and self.line.isModified()
            if not editing and (box.currentIndex() != index or box.currentText() != box.itemText(index)):
                box.setCurrentIndex(index)
                box.setEditText(box.itemText(index))
                # from the name's start: a long name ('30B (parameter count only)') showed its tail in a narrow
                # dock ('meter count only)')
                self.line.setCursorPosition(0)
        tip = kit.tips[box]
        if isinstance(job.model, str) and job.model not in kit.doc.catalog.models:
            tip = f"Imported from {job.model}"
        if box not in kit.invalid:
            box.setToolTip(tip)
        if isinstance(job.model, ParamsOnlyModel):
            kit.set_value(self.adapter_spin, job.model.adapter_fraction * 100)
        kit.form.setRowVisible(self.adapter_spin, isinstance(job.model, ParamsOnlyModel))
        missing = self.missing_reason(job, spec)
        self.missing_label.setText(missing or "")
        self.recolour()
        kit.form.setRowVisible(self.missing_label, missing is not None)
        is_file = isinstance(job.model, str) and names_file(job.model)
        kit.form.setRowVisible(self.locate_button, missing is not None and is_file)
        self.suggestion = None
        if missing is not None and not is_file and isinstance(job.model, str):
            self.suggestion = typo_of(job.model, list(kit.doc.catalog.models))
        if self.suggestion is not None:
            name = kit.doc.catalog.models[self.suggestion].name
            self.suggest_button.setText(f"Use {name}")
            self.suggest_button.setToolTip(f"The catalog has no model '{job.model}': use {name} "
                                           f"({self.suggestion}), the closest id, or pick another from the list")
        kit.form.setRowVisible(self.suggest_button, self.suggestion is not None)

    def recolour(self) -> None:
        """The missing-file reason in the theme's error ink, read when shown and when the theme turns: a fixed
        #C62828 was 2.5:1 on dark."""
        if self.missing_label.text():  # the form's palette: turned before its children's when the theme turns
            self.missing_label.setStyleSheet(f"color: {severity_ink(self.parent, 'error')};")

    def missing_reason(self, job: Job, spec: ModelSpec | None) -> str | None:
        """Why the job's model file cannot be read (the engine's JOB_MODEL_UNKNOWN check on it), or None."""
        if spec is not None or not isinstance(job.model, str) or job.model in self.kit.doc.catalog.models:
            return None
        result = self.kit.doc.result
        found = next((c.message for c in result.checks if c.code == "JOB_MODEL_UNKNOWN" and c.job == job.name), None)
        return found or f"Cannot read {job.model}"

    # ---- edits -------------------------------------------------------------------------------------------

    def model_ref(self, text: str) -> str | ParamsOnlyModel:
        """What the user typed into the model box, as a job.model value (ValueError if it names nothing)."""
        text = text.strip()
        if not text:
            raise ValueError("choose a model")
        for k in range(self.box.count()):
            if self.box.itemData(k) is not None and self.box.itemText(k).casefold() == text.casefold():
                return self.box.itemData(k)  # type: ignore[no-any-return]
        if text in self.kit.doc.catalog.models:
            return text
        m = _PARAMS.match(text)
        if m:
            return ParamsOnlyModel(parameters=float(m.group(1)) * _SCALE[m.group(2).lower()])
        if names_file(text):
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
        make = partial(self.kit.titled, index=self.kit.index, model=value)
        self.kit.apply(self.box, "model", label, {"model": value}, make=make)

    def _chosen(self, index: int) -> None:
        if index >= 0 and self.box.itemData(index) is not None:
            self.set_model(self.box.itemData(index), self.box.itemText(index))

    def _typed(self) -> None:
        if self.kit.job() is None:
            return
        text = self.box.currentText()
        self.line.setModified(False)
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
            self._import_for_trace(path, exc)
            return
        self.set_model(str(Path(path).resolve()), spec.name)

    def _use_suggestion(self) -> None:
        if self.suggestion is not None:
            self.set_model(self.suggestion, self.kit.doc.catalog.models[self.suggestion].name)

    def _locate_config(self) -> None:
        """Point the job at its config.json again: the dialog opens where the file was (or the build's folder)."""
        job = self.kit.job()
        if job is None or not isinstance(job.model, str):
            return
        doc = self.kit.doc
        try:
            was = doc.models.path_of(job.model)
        except FileError:
            was = Path(job.model)
        folder = next((str(p) for p in (was.parent, doc.path.parent if doc.path else None) if p and p.is_dir()), "")
        path, _ = QFileDialog.getOpenFileName(self.parent, f"Locate {was.name} for job '{job.name}'", folder,
                                              "Model config (*.json);;All files (*)")  # fmt: skip
        if path:
            self.locate(path)

    def locate(self, path: str) -> bool:
        """Use ``path`` as the selected job's model file; a file that cannot be read says why (nothing changes)."""
        try:
            spec = load_hf_config(path)
        except FileError as exc:
            QMessageBox.critical(self.parent, "Cannot use this config.json", safe_message(str(exc)))
            return False
        self.set_model(str(Path(path).resolve()), spec.name)
        return True
    def _import_for_trace(self, path: str, exc: FileError) -> None:
        """A config the engine cannot size but Transformers may build (another family): offered for Trace
        exactly (issue 23, deliverable 5); a file that is no config at all is refused as before."""
        try:
            config = read_config_json(Path(path))
        except (FileError, OSError):
            config = None
        if config is None or engine_models_family(config):  # no config, or a family the engine reads: its error
            QMessageBox.critical(self.parent, "Cannot import the model", safe_message(str(exc)))
            return
        family = str(config.get("model_type"))
        answer = QMessageBox.question(
            self.parent, "The engine cannot size this model",
            f"{exc}\n\nThe sizing engine does not model '{family}'. Use it anyway? Trace exactly (Jobs tab) sizes it "
            "from Transformers' own code; it needs the trace extra: pip install 'gpu-build-configurator[trace]'.",
        )  # fmt: skip
        if answer == QMessageBox.StandardButton.Yes:
            name = config.get("_name_or_path") or Path(path).parent.name or Path(path).name
            self.set_model(str(Path(path).resolve()), str(name))

    def _adapter_changed(self, percent: float) -> None:
        job = self.kit.job()
        if job is None or not isinstance(job.model, ParamsOnlyModel):
            return
        model = {**job.model.model_dump(), "adapter_fraction": percent / 100}
        self.kit.apply(self.adapter_spin, "adapter_fraction", f"{percent:g} %", {"model": model}, merge=True)
