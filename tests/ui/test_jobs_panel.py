"""The jobs panel driven like a user drives it: every field set through its widget, one undo step per change,
refusals shown on the field with the document unchanged, and undo all the way back to the loaded build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QLineEdit, QMessageBox

from configurator.engine.model.build import InstanceRef, Job, LoraSettings, ParamsOnlyModel
from configurator.ui.dnd.mime import read_job
from configurator.ui.jobs import STATUS_ROLE, pos_from_seq, seq_from_pos
from tests.gui_helpers import choose, last_text, open_panel, undo_all

pytestmark = pytest.mark.usefixtures("qapp")

ROOT = Path(__file__).resolve().parents[2]
BUILDS = ROOT / "resources" / "builds"
HF = ROOT / "tests" / "fixtures" / "hf_configs"
SHOTS = ROOT / "out" / "screens"


def test_add_a_job_and_edit_every_field(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc, panel = open_panel(qtbot)
    original = doc.build
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    assert [j.name for j in doc.build.jobs][-1] == "8B LoRA"  # named for its model and method (issue 15)
    assert last_text(doc) == "Add job 8B LoRA"
    i = panel.index
    assert i == 2 and panel.job_list.currentRow() == 2

    def job() -> Job:
        return doc.build.jobs[i]

    steps = doc.undo_stack.count()

    # model: picked from the list, typed as a parameter count, typed by name
    box = panel.model_box
    choose(box, "qwen3-8b")
    box.activated.emit(box.currentIndex())
    assert job().model == "qwen3-8b"
    assert last_text(doc) == "Set model of 8B LoRA to Qwen3-8B"  # another 8B: the name stands
    box.setEditText("30B")
    box.lineEdit().editingFinished.emit()
    assert job().model == ParamsOnlyModel(parameters=30e9)
    assert job().name == "30B LoRA" and panel.job_list.item(i).text() == "30B LoRA"  # the generated name follows
    assert panel.form.isRowVisible(panel.adapter_spin)
    panel.adapter_spin.setValue(1.0)
    assert isinstance(job().model, ParamsOnlyModel) and job().model.adapter_fraction == pytest.approx(0.01)
    box.setEditText("Llama 3.1 8B")
    box.lineEdit().editingFinished.emit()
    assert job().model == "llama-3.1-8b" and job().name == "8B LoRA"
    assert not panel.form.isRowVisible(panel.adapter_spin)

    # method and its dependants
    assert not panel.form.isRowVisible(panel.quant_box)  # LoRA: no quantization row (it was greyed)
    choose(panel.method_box, "qlora")
    assert job().method == "qlora" and panel.form.isRowVisible(panel.quant_box) and panel.quant_box.isEnabled()
    assert last_text(doc) == "Set method of 8B LoRA to QLoRA (now 8B QLoRA)"
    choose(panel.quant_box, "nf4")
    assert job().quantization == "nf4"

    # LoRA
    panel.rank_spin.setValue(32)
    assert job().lora.rank == 32
    panel.alpha_spin.setValue(64)
    assert job().lora.alpha == 64
    choose(panel.targets_box, "attention")
    assert job().lora.targets == "attention"
    panel.targets_edit.setText("q_proj, v_proj, o_proj")
    panel.targets_edit.editingFinished.emit()
    assert job().lora.targets == ["q_proj", "v_proj", "o_proj"]
    assert panel.targets_box.currentData() == "custom"
    choose(panel.targets_box, "qv")
    assert job().lora.targets == "qv" and panel.targets_edit.text() == ""
    panel.dropout_spin.setValue(0.05)
    assert job().lora.dropout == pytest.approx(0.05)

    # training
    choose(panel.optimizer_box, "paged-adamw-8bit")
    assert job().optimizer == "paged-adamw-8bit"
    choose(panel.precision_box, "pure-bf16")
    assert job().precision == "pure-bf16"
    assert not panel.tp_spin.isEnabled()
    choose(panel.parallelism_box, "tp")
    assert job().parallelism == "tp" and panel.tp_spin.isEnabled()
    panel.tp_spin.setValue(2)
    assert job().tensor_parallel == 2
    panel.seq_spin.setValue(4096)
    assert job().sequence_length == 4096
    assert panel.seq_slider.value() == pos_from_seq(4096)
    assert last_text(doc) == "Set sequence length of 8B QLoRA to 4,096"
    panel.micro_spin.setValue(4)
    assert job().micro_batch_size == 4
    panel.accum_spin.setValue(8)
    assert job().gradient_accumulation_steps == 8
    panel.checkpointing_check.setChecked(False)
    assert job().gradient_checkpointing is False
    choose(panel.loss_box, "chunked")
    assert job().loss == "chunked"
    choose(panel.attention_box, "flash")
    assert job().attention == "flash"
    panel.padded_check.setChecked(True)
    assert job().padded_batches is True and last_text(doc) == "Pad the batches of 8B QLoRA"
    panel.padded_check.setChecked(False)
    assert job().padded_batches is False

    # activation budget: estimate <-> fixed
    assert not panel.budget_spin.isEnabled()
    panel.budget_check.setChecked(True)
    assert job().activation_memory_gb == pytest.approx(panel.budget_spin.value())
    panel.budget_spin.setValue(12.5)
    assert job().activation_memory_gb == pytest.approx(12.5)
    panel.budget_check.setChecked(False)
    assert job().activation_memory_gb is None

    # cards: the new job starts on slot 1; add slot 2 (keeps tp), drop slot 1 (one card: single)
    assert job().cards == [1]
    assert panel.card_checks[(1, None)].isChecked()
    panel.card_checks[(2, None)].setChecked(True)
    assert job().cards == [1, 2] and job().parallelism == "tp"
    assert last_text(doc).startswith("Run 8B QLoRA on slot 2")
    panel.card_checks[(1, None)].setChecked(False)
    assert job().cards == [2] and job().parallelism == "single"
    panel.card_checks[(3, None)].setChecked(True)
    assert job().cards == [2, 3] and job().parallelism == "fsdp"

    # the list: rename in place, duplicate, remove
    panel.job_list.item(i).setText("Renamed")
    assert job().name == "Renamed"
    assert last_text(doc) == "Rename job 8B QLoRA to Renamed"
    qtbot.mouseClick(panel.duplicate_button, Qt.MouseButton.LeftButton)
    assert [j.name for j in doc.build.jobs][-1] == "Renamed copy" and panel.index == 3
    assert doc.build.jobs[3].model_dump(exclude={"name"}) == doc.build.jobs[2].model_dump(exclude={"name"})
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    assert len(doc.build.jobs) == 3 and last_text(doc) == "Remove job Renamed copy"

    # each change was its own undo step
    assert doc.undo_stack.count() - steps >= 30
    undo_all(doc)
    assert doc.build == original
    assert panel.job_list.count() == 2


def test_spin_ranges_come_from_the_build_schema(qtbot) -> None:  # type: ignore[no-untyped-def]
    _, panel = open_panel(qtbot)
    assert (panel.rank_spin.minimum(), panel.rank_spin.maximum()) == (1, 4096)
    assert (panel.seq_spin.minimum(), panel.seq_spin.maximum()) == (1, 2_097_152)
    assert (panel.micro_spin.minimum(), panel.micro_spin.maximum()) == (1, 4096)
    assert (panel.accum_spin.minimum(), panel.accum_spin.maximum()) == (1, 65536)
    assert (panel.tp_spin.minimum(), panel.tp_spin.maximum()) == (1, 64)
    assert panel.dropout_spin.minimum() == 0 and panel.dropout_spin.maximum() < 1
    assert panel.budget_spin.maximum() == Job.model_fields["activation_memory_gb"].metadata[1].le
    assert LoraSettings.model_fields["rank"].metadata[1].le == panel.rank_spin.maximum()
    # typing past the maximum cannot produce a value the schema refuses
    spin = panel.rank_spin
    spin.selectAll()
    qtbot.keyClicks(spin, "99999")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert spin.value() <= 4096


def test_slider_drag_is_one_undo_step_and_debounced(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc, panel = open_panel(qtbot)
    panel.select_job(1)
    pushed: list[int] = []

    def on_changed(build, result) -> None:  # type: ignore[no-untyped-def]
        pushed.append(build.jobs[1].sequence_length)

    doc.changed.connect(on_changed)
    steps = doc.undo_stack.index()
    slider = panel.seq_slider
    slider.setSliderDown(True)
    for pos in range(slider.value() + 1, slider.value() + 7):
        slider.setValue(pos)
    final = seq_from_pos(slider.value())
    assert panel.seq_spin.value() == final  # the spin follows the pointer at once
    slider.setSliderDown(False)  # emits sliderReleased
    assert doc.build.jobs[1].sequence_length == final
    assert len(pushed) == 2  # the first move at once, the rest on release (all within one debounce interval)
    assert doc.undo_stack.index() == steps + 1
    assert last_text(doc) == f"Set sequence length of 70B QLoRA to {final:,}"

    # a slow drag pushes along the way but is still one undo step
    doc.undo_stack.undo()
    assert doc.build.jobs[1].sequence_length == 2048
    pushed.clear()
    steps = doc.undo_stack.index()
    slider.setSliderDown(True)
    for pos in (10, 11, 12, 13):
        slider.setValue(pos)
        qtbot.wait(80)
    slider.setSliderDown(False)
    assert 2 <= len(pushed) <= 5 and pushed[-1] == seq_from_pos(13)
    assert doc.undo_stack.index() == steps + 1
    doc.undo_stack.undo()
    assert doc.build.jobs[1].sequence_length == 2048


def test_import_config_json(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    doc, panel = open_panel(qtbot)
    original = doc.build
    path = tmp_path / "Qwen2.5-0.5B" / "config.json"
    path.parent.mkdir()
    shutil.copy(HF / "qwen2.5-0.5b.json", path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    panel.select_job(1)
    qtbot.mouseClick(panel.import_button, Qt.MouseButton.LeftButton)
    job = doc.build.jobs[1]
    assert Path(job.model) == path.resolve()  # type: ignore[arg-type]
    assert doc.result.jobs[1].params_total == 494_032_768
    assert "Qwen2.5-0.5B" in panel.model_box.currentText()
    assert str(path.resolve()) in panel.model_box.toolTip()
    assert "q_proj" in panel.targets_edit.toolTip()  # the imported model's modules
    assert last_text(doc) == "Set model of 70B QLoRA to Qwen2.5-0.5B (now 0.5B QLoRA)"
    undo_all(doc)
    assert doc.build == original


@pytest.mark.parametrize(
    "content", ['{"model_type": "qwen2", "hidden_size": }', '{"model_type": "qwen2", "hidden_size": 896}']
)
def test_broken_config_json_leaves_the_job_unchanged(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     content: str) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    doc, panel = open_panel(qtbot)
    before, steps = doc.build, doc.undo_stack.count()
    path = tmp_path / "broken" / "config.json"
    path.parent.mkdir()
    path.write_text(content, encoding="utf-8")
    shown: list[str] = []

    def critical(parent, title, text, *rest):  # type: ignore[no-untyped-def]
        shown.append(text)
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    monkeypatch.setattr(QMessageBox, "critical", critical)
    qtbot.mouseClick(panel.import_button, Qt.MouseButton.LeftButton)
    assert len(shown) == 1 and str(path) in shown[0]
    assert doc.build == before and doc.undo_stack.count() == steps


def test_refused_values_are_shown_on_the_field(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc, panel = open_panel(qtbot)
    before, steps = doc.build, doc.undo_stack.count()
    edit = panel.targets_edit
    assert "gate_proj" in edit.toolTip()  # the model's modules
    edit.setText("q_proj, foo_proj")
    edit.editingFinished.emit()
    assert doc.build == before and doc.undo_stack.count() == steps
    assert "foo_proj" in edit.toolTip() and edit.toolTip().startswith("Refused:")
    assert "border" in edit.styleSheet()
    assert "foo_proj" in (panel.refusal(edit) or "")
    edit.setText("q_proj, v_proj")
    edit.editingFinished.emit()
    assert doc.build.jobs[0].lora.targets == ["q_proj", "v_proj"]
    assert panel.refusal(edit) is None and edit.styleSheet() == "" and not edit.toolTip().startswith("Refused")

    # a model name that names nothing, and a parameter count the schema refuses
    box = panel.model_box
    box.setEditText("no-such-model")
    box.lineEdit().editingFinished.emit()
    assert "unknown model" in (panel.refusal(box) or "")
    box.setEditText("0B")
    box.lineEdit().editingFinished.emit()
    assert "greater than or equal to 1" in (panel.refusal(box) or "")  # a whole model: at least 1 parameter
    assert doc.build.jobs[0].model == "llama-3.3-70b"

    # q and v alone on a model with a fused qkv_proj
    choose(box, "phi-3-mini")
    box.activated.emit(box.currentIndex())
    assert doc.build.jobs[0].model == "phi-3-mini"
    assert "qkv_proj" in panel.targets_edit.toolTip()
    targets = doc.build.jobs[0].lora.targets
    choose(panel.targets_box, "qv")
    assert doc.build.jobs[0].lora.targets == targets
    assert "fused" in (panel.refusal(panel.targets_box) or "")

    # a name another job has
    panel.job_list.item(0).setText(doc.build.jobs[1].name)
    assert doc.build.jobs[0].name == before.jobs[0].name
    assert panel.job_list.item(0).text() == before.jobs[0].name
    assert "already called" in (panel.refusal(panel.job_list) or "")

    # switching jobs clears the marks
    panel.select_job(1)
    assert panel.refusal(panel.targets_box) is None
    undo_all(doc)
    assert doc.build == before


def test_mig_instances_are_exclusive(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc, panel = open_panel(qtbot, "seed-mig-four-tenants.yaml")
    original = doc.build
    assert sorted(panel.card_checks) == [(1, 0), (1, 1), (1, 2), (1, 3)]
    assert panel.card_checks[(1, 0)].label == "slot 1 · 1g.24gb #0"
    assert panel.card_checks[(1, 0)].isChecked() and not panel.card_checks[(1, 1)].isChecked()
    assert "tenant B" in panel.card_checks[(1, 1)].toolTip()
    panel.card_checks[(1, 2)].setChecked(True)
    assert doc.build.jobs[0].cards == [InstanceRef(slot=1, instance=2)]
    assert not panel.card_checks[(1, 0)].isChecked()
    assert last_text(doc) == "Run tenant A on slot 1 · 1g.24gb #2"
    panel.card_checks[(1, 2)].setChecked(False)
    assert doc.build.jobs[0].cards == []
    panel.select_job(3)
    assert panel.card_checks[(1, 3)].isChecked()
    panel.card_checks[(1, 0)].setChecked(True)
    assert doc.build.jobs[3].cards == [InstanceRef(slot=1, instance=0)]
    undo_all(doc)
    assert doc.build == original


def test_list_shows_status_drags_and_selects(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc, panel = open_panel(qtbot)
    lst = panel.job_list
    assert [lst.item(k).text() for k in range(lst.count())] == [j.name for j in doc.build.jobs]
    assert [lst.item(k).data(STATUS_ROLE) for k in range(lst.count())] == [j.status for j in doc.result.jobs]
    mime = lst.mime_for(1)
    assert read_job(mime) == doc.build.jobs[1].name and mime.text() == doc.build.jobs[1].name
    assert lst.dragEnabled()
    with qtbot.waitSignal(panel.view.job_changed) as blocker:
        panel.select_job(1)
    assert blocker.args == [doc.build.jobs[1].name] and panel.index == 1  # selected by name
    # a job that no longer fits turns red in the list
    panel.micro_spin.setValue(256)
    panel.seq_spin.setValue(131072)
    assert doc.result.jobs[1].status == "does-not-fit"
    assert lst.item(1).data(STATUS_ROLE) == "does-not-fit"
    assert "does not fit" in lst.item(1).toolTip()
    # F2 renames in place
    lst.setFocus()
    qtbot.keyClick(lst, Qt.Key.Key_F2)
    editor = lst.findChild(QLineEdit)
    assert editor is not None
    editor.setText("QLoRA tenant")
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # the delegate commits on the next event loop turn
    qtbot.waitUntil(lambda: doc.build.jobs[1].name == "QLoRA tenant")
    assert last_text(doc) == "Rename job 70B QLoRA to QLoRA tenant"
    # undoing the add removes the selection cleanly
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    assert panel.index == 2
    doc.undo_stack.undo()
    assert panel.index == 1 and lst.currentRow() == 1


def test_refresh_keeps_what_the_user_is_typing(qtbot) -> None:  # type: ignore[no-untyped-def]
    doc, panel = open_panel(qtbot)
    panel.activateWindow()
    edit = panel.targets_edit
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    qtbot.keyClicks(edit, "q_pr")
    cursor = edit.cursorPosition()
    panel.micro_spin.setValue(2)  # another change refreshes the panel
    assert doc.build.jobs[0].micro_batch_size == 2
    assert edit.text() == "q_pr" and edit.cursorPosition() == cursor and edit.hasFocus()


def test_screenshot(qtbot) -> None:  # type: ignore[no-untyped-def]
    _, panel = open_panel(qtbot)
    panel.resize(340, 780)
    qtbot.wait(50)
    SHOTS.mkdir(parents=True, exist_ok=True)
    image = panel.grab().toImage()
    image.save(str(SHOTS / "jobs-panel.png"))
    assert (image.width(), image.height()) == (340, 780)
    # the form fits the width: no field runs past the scroll area's viewport
    assert panel.editor.minimumSizeHint().width() <= panel.form_scroll.viewport().width()


def test_rows_that_do_not_apply_are_hidden_not_greyed(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A plain-LoRA job showed a greyed "Quantization: NF4 + double quant" as if it used it, and a full fine-tune
    greyed LoRA rows: each row shows where the engine's form_fields says its setting applies."""
    from configurator.engine.checks.rl import form_fields

    doc, panel = open_panel(qtbot)
    lora_rows = (panel.rank_spin, panel.alpha_spin, panel.targets_box, panel.targets_edit, panel.dropout_spin)
    for method, quant, lora in (("lora", False, True), ("qlora", True, True), ("full", False, False)):
        choose(panel.method_box, method)
        job = doc.build.jobs[panel.index]
        assert job.method == method
        assert panel.form.isRowVisible(panel.quant_box) is quant
        assert quant == ("quantization" in form_fields(job, None))
        assert all(panel.form.isRowVisible(w) is lora for w in lora_rows), method


def test_the_info_line_says_parameters_in_the_reports_words(qtbot) -> None:  # type: ignore[no-untyped-def]
    """'8.03 B params · 41.9 M trained' read as jargon: the line says the text report's '8.03 B parameters, 41.9 M
    trainable' (present/job_words.parameters_words), a full fine-tune 'All 8.03 B parameters trained'."""
    from configurator.present.job_words import parameters_words

    doc, panel = open_panel(qtbot)
    jr = doc.result.jobs[panel.index]
    text = panel.info.text()
    assert parameters_words(jr.params_total, jr.params_trainable)[1:] in text and "M trained" not in text, text
