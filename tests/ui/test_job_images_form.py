"""The Jobs form's image fields (issue 27, vision-language): shown only for a model with a vision tower; they edit
the job, and the engine sizes the images they ask for."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from configurator.engine.editing import update_job
from tests.gui_helpers import make_window
from tests.shots import save_shot


def test_image_fields_only_for_a_vision_language_model(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    window.jobs_dock.raise_()
    QApplication.processEvents()
    panel = window.jobs_panel
    panel.select_job(0)
    fields = (panel.images_spin, panel.image_resolution_spin, panel.train_vision_tower_check)
    assert panel.model_box.isVisible()
    assert not any(w.isVisible() for w in fields)  # the default build's job is a text model

    window.doc.edit("to a VLM", lambda b: update_job(b, 0, model="qwen2.5-vl-7b", method="lora"))
    panel.catch_up(True)
    QApplication.processEvents()
    assert all(w.isVisible() for w in fields)
    assert not panel.train_vision_tower_check.isEnabled()  # no image yet: the tower cannot train

    panel.images_spin.setValue(4)
    panel.image_resolution_spin.setValue(1024)
    job = window.doc.build.jobs[0]
    assert (job.images_per_sample, job.image_resolution) == (4, 1024)
    vision = window.doc.result.jobs[0].vision
    assert vision is not None and vision.tokens_per_image == 37 * 37 and vision.tower == "frozen"
    window.resize(1280, 900)
    QApplication.processEvents()
    panel.form_scroll.ensureWidgetVisible(panel.train_vision_tower_check)
    QApplication.processEvents()
    save_shot(window.jobs_dock, "jobs-form-images")  # for review: the image rows in the form
    panel.train_vision_tower_check.setChecked(True)
    assert window.doc.build.jobs[0].train_vision_tower
    assert window.doc.result.jobs[0].vision.tower == "LoRA"  # type: ignore[union-attr]
    panel.images_spin.setValue(0)  # no image: the tower is frozen again in the same edit
    assert not window.doc.build.jobs[0].train_vision_tower

    window.doc.edit("back to text", lambda b: update_job(b, 0, model="llama-3.1-8b"))
    panel.catch_up(True)
    QApplication.processEvents()
    assert not any(w.isVisible() for w in fields)
