"""The Jobs form accepts the training stack and shows which precision recipes the job's cards run."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.engine import Build
from configurator.engine.editing import rename_job, update_job
from configurator.ui.base.lazy import hidden_in_shown_window
from tests.gui_helpers import make_window

SHOTS = Path(__file__).resolve().parents[2] / "out" / "screens"


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


def _stack_build() -> Build:
    from configurator.engine.model.buildfile import build_to_yaml, load_build, parse_build
    from tests.paths import BUILDS

    text = build_to_yaml(load_build(BUILDS / "default.yaml"))
    return parse_build(text + "stack: {framework: torchtune, fsdp_version: 1, offload: cpu}\n", "stack.yaml")


def test_a_job_added_in_the_form_shows_the_build_stack(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Issue 12: Add in a build whose `stack:` names torchtune, FSDP1 and CPU offload gives a job that runs them,
    and the form shows them, the tooltips saying where they come from (the old Add gave hf-trainer, FSDP2)."""
    from PySide6.QtCore import Qt

    from configurator.ui.base.document import BuildDocument
    from configurator.ui.jobs import JobsPanel

    doc = BuildDocument(_stack_build())
    panel = JobsPanel(doc)
    qtbot.addWidget(panel)
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    job, result = doc.build.jobs[-1], doc.result.jobs[-1]
    assert (job.framework, job.fsdp_version, job.offload) == ("torchtune", 1, "cpu")
    assert result.framework == "torchtune"
    assert panel.framework_box.currentData() == "torchtune"
    assert panel.fsdp_version_box.currentData() == "1" and panel.offload_box.currentData() == "cpu"
    assert "stack: sets torchtune" in panel.framework_box.toolTip()
    assert "stack: sets FSDP1" in panel.fsdp_version_box.toolTip()
    # the loss is the framework's default: the box says which one (torchtune: chunked), not "Standard"
    assert panel.loss_box.currentIndex() == 0 and panel.loss_box.currentText() == "Chunked (framework default)"
    assert "Stack: torchtune" in panel.info.text()


def test_the_loss_box_shows_and_sets_the_framework_default(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A job with no loss of its own runs its framework's; the box shows that (the old box kept whatever it showed
    last) and choosing the default item clears the job's loss again."""
    window = make_window(qtbot, tmp_path)
    panel = window.jobs_panel
    panel.select_job(0)
    panel.catch_up(True)
    box = panel.loss_box
    assert window.doc.build.jobs[0].loss is None
    assert box.currentText() == "Standard (fp32 logits) (framework default)"
    box.setCurrentIndex(box.findData("chunked"))
    assert window.doc.build.jobs[0].loss == "chunked"
    panel.framework_box.setCurrentIndex(panel.framework_box.findData("torchtune"))
    box.setCurrentIndex(0)
    assert window.doc.build.jobs[0].loss is None and window.doc.result.jobs[0].loss == "chunked"
    panel.catch_up(True)  # the form fills when its dock tab shows
    assert box.currentText() == "Chunked (framework default)"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_jobs_tab_screens(qtbot, tmp_path: Path, theme: str) -> None:  # type: ignore[no-untyped-def]
    """The Jobs tab at 1280x800 in both themes, for review: the form fits the dock's width, the info line names
    the stack, and the model list's group titles are not choices."""
    from PySide6.QtCore import QStandardPaths

    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    window.set_dark(theme == "dark")
    window.jobs_dock.raise_()
    panel = window.jobs_panel
    panel.select_job(1)
    qtbot.wait(50)
    panel.catch_up(True)
    image = window.grab().toImage()
    SHOTS.mkdir(parents=True, exist_ok=True)
    image.save(str(SHOTS / f"jobs-tab-1280x800-{theme}.png"))
    assert (image.width(), image.height()) == (1280, 800)
    assert not hidden_in_shown_window(panel)
    assert panel.editor.minimumSizeHint().width() <= panel.form_scroll.viewport().width()
    assert "Stack: " in panel.info.text()
    window.set_dark(False)
