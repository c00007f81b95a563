"""The Jobs form's image rows, shown only for a vision-language model (one with a vision tower): images per
sample, their resolution, and whether the vision tower trains (engine/vision.py sizes what they add)."""

from __future__ import annotations

from PySide6.QtWidgets import QSpinBox

from configurator.catalog.models import ModelSpec
from configurator.engine.model.build import Job
from configurator.ui.jobs.fields import FittingCheck, int_range, shown
from configurator.ui.jobs.form_kit import FormKit


class ImageRows:
    def __init__(self, kit: FormKit) -> None:
        self.kit = kit
        self.images_spin = QSpinBox()
        self.images_spin.setRange(*int_range(Job, "images_per_sample"))
        kit.add_row("Images", self.images_spin, "imagesSpin",
                    "Images per training sample: each adds its image tokens to the sequence")  # fmt: skip
        self.images_spin.valueChanged.connect(self._images_changed)
        self.resolution_spin = QSpinBox()
        self.resolution_spin.setRange(*int_range(Job, "image_resolution"))
        self.resolution_spin.setSingleStep(28)
        self.resolution_spin.setSuffix(" px")
        self.resolution_spin.setGroupSeparatorShown(True)
        kit.add_row("Resolution", self.resolution_spin, "imageResolutionSpin",
                    "Side of a square image as given to the processor, in pixels")  # fmt: skip
        self.resolution_spin.valueChanged.connect(self._resolution_changed)
        self.tower_check = FittingCheck("Train the vision tower", "Train vision tower", "Vision tower")
        kit.register(self.tower_check, "trainVisionTowerCheck",
                     "Full fine-tune: the whole tower trains; LoRA: adapters on its linears. Off: frozen")  # fmt: skip
        kit.form.addRow("", self.tower_check)
        self.tower_check.toggled.connect(self._tower_toggled)

    def fill(self, job: Job, spec: ModelSpec | None) -> None:
        """The rows appear only for a model with a vision tower."""
        vlm = spec is not None and spec.vision is not None
        for w in (self.images_spin, self.resolution_spin, self.tower_check):
            self.kit.form.setRowVisible(w, vlm)
        self.kit.set_value(self.images_spin, job.images_per_sample)
        self.kit.set_value(self.resolution_spin, job.image_resolution)
        self.tower_check.setChecked(job.train_vision_tower)
        self.resolution_spin.setEnabled(job.images_per_sample > 0)
        self.tower_check.setEnabled(job.images_per_sample > 0)

    def _images_changed(self, value: int) -> None:
        job = self.kit.job()
        if job is not None:
            changes: dict[str, object] = {"images_per_sample": value}
            if value == 0:  # no image: nothing reaches the tower, so it cannot train
                changes["train_vision_tower"] = False
            self.kit.apply(self.images_spin, "images_per_sample", shown(value), changes, merge=True)

    def _resolution_changed(self, value: int) -> None:
        if self.kit.job() is not None:
            self.kit.apply(self.resolution_spin, "image_resolution", f"{value:,} px", {"image_resolution": value},
                           merge=True)  # fmt: skip

    def _tower_toggled(self, checked: bool) -> None:
        job = self.kit.job()
        if job is not None:
            text = f"{'Train' if checked else 'Freeze'} the vision tower of {job.name}"
            self.kit.apply(self.tower_check, "train_vision_tower", shown(checked), {"train_vision_tower": checked},
                           text=text)  # fmt: skip
