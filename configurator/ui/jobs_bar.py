"""A compact job bar: pick a job, change its model or method (each an undoable edit)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from configurator.engine import Build, BuildResult
from configurator.engine.editing import update_job
from configurator.ui.document import BuildDocument

METHODS = [("full", "Full fine-tune"), ("lora", "LoRA"), ("qlora", "QLoRA")]


class JobsBar(QWidget):
    def __init__(self, document: BuildDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.addWidget(QLabel("<b>Job</b>"))
        self.job_box = QComboBox()
        self.job_box.setAccessibleName("Job")
        self.job_box.setMinimumContentsLength(14)
        self.job_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        layout.addWidget(self.job_box)
        layout.addWidget(QLabel("Model"))
        self.model_box = QComboBox()
        self.model_box.setAccessibleName("Model")
        self.model_box.setMinimumContentsLength(14)
        self.model_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        for m in document.catalog.models.values():
            self.model_box.addItem(m.name, m.id)
        layout.addWidget(self.model_box)
        layout.addWidget(QLabel("Method"))
        self.method_box = QComboBox()
        self.method_box.setAccessibleName("Method")
        for key, label in METHODS:
            self.method_box.addItem(label, key)
        layout.addWidget(self.method_box)
        self.info = QLabel()
        self.info.setMinimumWidth(10)
        self.info.setWordWrap(True)
        layout.addWidget(self.info, 1)
        self.job_box.currentIndexChanged.connect(self._job_changed)
        self.model_box.activated.connect(self._model_chosen)
        self.method_box.activated.connect(self._method_chosen)
        document.changed.connect(self._show)
        self._show(document.build, document.result)

    def select_job(self, name: str) -> None:
        i = self.job_box.findText(name)
        if i >= 0:
            self.job_box.setCurrentIndex(i)

    def _job_changed(self, *_: object) -> None:
        self._show(self.doc.build, self.doc.result)

    def _show(self, build: Build, result: BuildResult) -> None:
        current = self.job_box.currentIndex()
        names = [j.name for j in build.jobs]
        if [self.job_box.itemText(i) for i in range(self.job_box.count())] != names:
            self.job_box.blockSignals(True)
            self.job_box.clear()
            self.job_box.addItems(names)
            self.job_box.setCurrentIndex(min(max(current, 0), len(names) - 1))
            self.job_box.blockSignals(False)
        i = self.job_box.currentIndex()
        enabled = 0 <= i < len(build.jobs)
        for w in (self.model_box, self.method_box):
            w.setEnabled(enabled)
        if not enabled:
            self.info.setText("No jobs in this build")
            return
        job = build.jobs[i]
        m = self.model_box.findData(job.model if isinstance(job.model, str) else None)
        self.model_box.setCurrentIndex(m)
        self.method_box.setCurrentIndex(self.method_box.findData(job.method))
        jr = result.jobs[i] if i < len(result.jobs) else None
        if jr is not None:
            step = f" · step {jr.step_seconds:.2f} s" if jr.step_seconds else ""
            self.info.setText(f"{jr.params_total / 1e9:.2f} B params, {jr.params_trainable / 1e6:,.1f} M trained · "
                              f"{job.parallelism} on {len(job.cards)} card(s) · {jr.status}{step}")  # fmt: skip

    def _model_chosen(self, index: int) -> None:
        i = self.job_box.currentIndex()
        model_id = self.model_box.itemData(index)
        if i >= 0:
            self.doc.edit(f"Set model of {self.doc.build.jobs[i].name} to {self.model_box.itemText(index)}",
                          lambda b: update_job(b, i, model=model_id))  # fmt: skip

    def _method_chosen(self, index: int) -> None:
        i = self.job_box.currentIndex()
        method = self.method_box.itemData(index)
        if i >= 0:
            self.doc.edit(f"Set method of {self.doc.build.jobs[i].name} to {self.method_box.itemText(index)}",
                          lambda b: update_job(b, i, method=method))  # fmt: skip
