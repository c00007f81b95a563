"""Issue 15 in the Jobs form, driven as a user drives it: a generated name follows the model and method picked in
the form, a typed one stays; the model list is sorted by size, its groups titled."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from configurator.engine.editing import update_job
from configurator.engine.model.buildfile import load_build
from configurator.ui.base.document import BuildDocument
from configurator.ui.jobs import JobsPanel
from configurator.ui.jobs.model_rows import GROUP_BUILD, GROUP_CATALOG, GROUP_PARAMS_ONLY
from tests.gui_helpers import choose, last_text, open_panel, undo_all
from tests.paths import BUILDS

pytestmark = pytest.mark.usefixtures("qapp")


def pick_model(panel: JobsPanel, model_id: str) -> None:
    box = panel.model_box
    choose(box, model_id)
    box.activated.emit(box.currentIndex())


def test_a_generated_name_follows_the_form(qtbot) -> None:  # type: ignore[no-untyped-def]
    """'70B QLoRA' set to a full fine-tune of Llama 3.1 8B reads '8B full fine-tune' in the list; on the old code it
    kept '70B QLoRA'. The typed '70B LoRA, FSDP over the bridge' stays whatever it runs; undo restores both."""
    doc, panel = open_panel(qtbot)
    original = doc.build
    panel.select_job(1)
    pick_model(panel, "llama-3.1-8b")
    choose(panel.method_box, "full")
    assert doc.build.jobs[1].name == "8B full fine-tune"
    assert panel.job_list.item(1).text() == "8B full fine-tune"
    assert last_text(doc) == "Set method of 8B QLoRA to Full fine-tune (now 8B full fine-tune)"
    assert "8B full fine-tune" in panel.info.text() and doc.result.job("8B full fine-tune") is not None
    panel.select_job(0)
    typed = doc.build.jobs[0].name
    pick_model(panel, "qwen3-8b")
    choose(panel.method_box, "qlora")
    assert doc.build.jobs[0].name == typed == "70B LoRA, FSDP over the bridge"
    undo_all(doc)
    assert doc.build == original and panel.job_list.item(1).text() == "70B QLoRA"


def test_added_jobs_get_unique_generated_names(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc, panel = open_panel(qtbot)
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.duplicate_button, Qt.MouseButton.LeftButton)
    assert [j.name for j in doc.build.jobs[2:]] == ["8B LoRA", "8B LoRA (2)"]
    choose(panel.method_box, "qlora")  # the copy's name is generated too: it follows
    assert doc.build.jobs[3].name == "8B QLoRA"
    panel.select_job(2)
    choose(panel.method_box, "qlora")  # would meet the other: numbered, so the names stay unique
    assert doc.build.jobs[2].name == "8B QLoRA (2)"
    assert len({j.name for j in doc.build.jobs}) == len(doc.build.jobs)


def test_the_model_list_is_sorted_and_grouped(qtbot) -> None:  # type: ignore[no-untyped-def]
    """By family, within it by parameter count then name, parameter-count-only entries in their own group, and the
    build's imported or typed models in a titled group after the catalog (the old list was in catalog file
    order)."""
    doc = BuildDocument(load_build(BUILDS / "seed-30b-lora-h100-sxm.yaml"))
    panel = JobsPanel(doc)
    qtbot.addWidget(panel)
    box = panel.model_box
    items = [(box.itemText(k), box.itemData(k)) for k in range(box.count())]
    headers = [t for t, d in items if d is None]
    families = sorted({m.family for m in doc.catalog.models.values() if m.family}, key=str.casefold)
    assert headers == [*families, GROUP_CATALOG, GROUP_PARAMS_ONLY, GROUP_BUILD]
    assert not box.model().item(0).isEnabled()  # a title, not a choice
    starts = [items.index((h, None)) for h in headers]
    for head, start, stop in zip(headers[:-2], starts, starts[1:], strict=False):
        group = [doc.catalog.models[d] for _, d in items[start + 1 : stop]]
        assert group, head
        assert [m.total_params for m in group] == sorted(m.total_params for m in group)
        assert all((m.family or GROUP_CATALOG) == head for m in group)
    llama = [d for _, d in items[starts[headers.index("Llama 3")] + 1 : starts[headers.index("Llama 3") + 1]]]
    assert llama[0] == "llama-3.2-1b" and llama[-1] == "llama-3.3-70b"
    mid, end = starts[-2], starts[-1]
    assert all(doc.catalog.models[d].is_params_only for _, d in items[mid + 1 : end])
    assert [t for t, _ in items[end + 1 :]] == ["30B (parameter count only)"]
    assert box.currentIndex() == end + 1  # the job's own model is the one shown
    # a typed group title names no model
    box.setEditText(GROUP_CATALOG)
    box.lineEdit().editingFinished.emit()
    assert "unknown model" in (panel.refusal(box) or "")


def test_a_catalog_model_leaves_the_build_group(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc = BuildDocument(load_build(BUILDS / "seed-30b-lora-h100-sxm.yaml"))
    panel = JobsPanel(doc)
    qtbot.addWidget(panel)
    pick_model(panel, "qwen3-32b")
    assert doc.build.jobs[0].model == "qwen3-32b" and doc.build.jobs[0].name == "32B LoRA"
    box = panel.model_box
    assert GROUP_BUILD not in [box.itemText(k) for k in range(box.count())]
    doc.edit("back", lambda b: update_job(b, 0, model={"parameters": 30e9}))
    assert box.itemText(box.count() - 1) == "30B (parameter count only)"


def test_a_long_model_name_shows_from_its_start(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The Model box is editable: a name longer than a narrow dock's box showed its tail ('meter count only)' at
    1024x768) because the cursor sat at its end."""
    from tests.gui_helpers import make_window
    from tests.paths import BUILDS

    window = make_window(qtbot, tmp_path, BUILDS / "seed-30b-lora-rtx-pro-6000-server.yaml")
    window.jobs_dock.raise_()
    line = window.jobs_panel.model_rows.line
    assert line.text() == "30B (parameter count only)" and line.cursorPosition() == 0
