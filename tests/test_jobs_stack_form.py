"""The Jobs form accepts the training stack and shows which precision recipes the job's cards run."""

from __future__ import annotations

from pathlib import Path

from configurator.engine import Build
from configurator.engine.editing import rename_job, update_job
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
    panel.catch_up(True)
    box = panel.precision_box
    model = box.model()
    enabled = {box.itemData(i): model.item(i).isEnabled() for i in range(box.count())}
    assert enabled["fp8-delayed"] and enabled["mixed-bf16"]
    assert not enabled["mxfp8"] and not enabled["nvfp4"]
    tip = box.itemData(box.findData("mxfp8"), 3)  # Qt.ToolTipRole
    assert "H200 NVL" in tip and "9.0" in tip


def test_a_markup_job_name_is_shown_as_text(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Issue 13: names went unescaped into rich text (a name like <img src='/dev/zero'> aborted the window)."""
    window = make_window(qtbot, tmp_path)
    hostile = "<img src='/dev/zero'>"
    window.doc.edit("rename", lambda b: rename_job(b, 0, hostile))
    panel = window.jobs_panel
    panel.select_job(0)
    window.doc.edit("poke", lambda b: update_job(b, 0, sequence_length=4096))
    assert window.doc.build.jobs[0].name == hostile
    panel.catch_up(True)  # the form fills when shown
    assert hostile not in panel.info.text() and "&lt;img" in panel.info.text()
    assert hostile not in panel.job_list.item(0).toolTip()
