"""The Jobs form accepts the training stack and shows which precision recipes the job's cards run."""

from __future__ import annotations

from pathlib import Path

from configurator.engine import Build
from configurator.engine.editing import update_job
from tests.gui_helpers import make_window


def _put(window, build: Build) -> None:  # type: ignore[no-untyped-def]
    window.doc.edit("test build", lambda _b: build)


def test_stack_fields_edit_the_job(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    panel = window.jobs_panel
    panel.select_job(0)
    box = panel.framework_box
    box.setCurrentIndex(box.findData("torchtune"))
    assert window.doc.build.jobs[0].framework == "torchtune"
    version = panel.fsdp_version_box
    version.setCurrentIndex(version.findData("1"))
    assert window.doc.build.jobs[0].fsdp_version == 1
    assert window.doc.result.jobs[0].framework == "torchtune"
    window.doc.undo_stack.undo()
    assert window.doc.build.jobs[0].fsdp_version == 2


def test_precision_picker_disables_what_the_cards_cannot_run(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Seed A: MXFP8 and NVFP4 are no option on the H200 NVL; the tooltip gives the rule and its source."""
    window = make_window(qtbot, tmp_path)
    panel = window.jobs_panel
    panel.select_job(0)  # the default build's 70B LoRA on two H200 NVL
    window.doc.edit("poke", lambda b: update_job(b, 0, sequence_length=4096))  # refill the form
    box = panel.precision_box
    model = box.model()
    enabled = {box.itemData(i): model.item(i).isEnabled() for i in range(box.count())}
    assert enabled["fp8-delayed"] and enabled["mixed-bf16"]
    assert not enabled["mxfp8"] and not enabled["nvfp4"]
    tip = box.itemData(box.findData("mxfp8"), 3)  # Qt.ToolTipRole
    assert "H200 NVL" in tip and "9.0" in tip
