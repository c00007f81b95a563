"""Edit > Host memory and storage… and the Jobs form's Checkpoints kept, driven like a user: state the DIMMs and
drives, undo, redo, go back to the engine's pick; a part the chassis cannot take is refused on its row."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt

from configurator.engine import Build
from tests.gui_helpers import make_window
from tests.shots import save_shot


def _build() -> Build:
    return Build.model_validate({"chassis": "generic-server-8",
                                 "cards": [{"slot": s, "card": "h200-nvl"} for s in (1, 2)],
                                 "jobs": [{"name": "z3", "model": "llama-3.1-8b", "method": "full",
                                           "parallelism": "zero3", "offload": "cpu", "cards": [1, 2]}]})  # fmt: skip


def _window(qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    build = _build()
    window.doc.edit("test build", lambda _b: build)
    return window


def test_the_summary_host_click_opens_the_dialog_with_the_results_figures(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = _window(qtbot, tmp_path)
    label = window.summary.host
    qtbot.mouseClick(label, Qt.MouseButton.LeftButton, pos=QPoint(5, label.height() // 2))
    dialog = window.findChild(type(window.host_parts()), "hostDialog")  # the click opened it; the call raises it
    assert dialog is not None and dialog.isVisible()
    host = window.doc.result.host
    assert host is not None and host.picked_dimms is not None
    assert f"{host.ram_need_gb:,.0f} GB" in dialog.dimms.need.text()
    assert host.nvme_need_gb < 1000 and dialog.drives.need.text().startswith(f"{host.nvme_need_gb:,.0f} GB")
    assert f"{host.picked_dimms.count} × " in dialog.dimms.picked.text()
    assert not dialog.dimms.state.isChecked() and not dialog.dimms.count.isEnabled()  # pick for me
    assert "(picked)" in dialog.dimms.now.text()
    assert window.menus.host_action.text() == "&Host memory and storage…"


def test_state_dimms_undo_redo_and_pick_again(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = _window(qtbot, tmp_path)
    doc = window.doc
    dialog = window.host_parts()
    rows = dialog.dimms
    steps = doc.undo_stack.count()
    rows.state.click()  # state what is installed: the picked set, now the build's
    assert doc.build.host is not None and doc.build.host.dimms is not None
    picked = doc.result.host.picked_dimms
    assert (doc.build.host.dimms.count, doc.build.host.dimms.size_gb) == (picked.count, picked.size)
    assert picked.count != 12 and picked.size != 64
    rows.size_box.setCurrentIndex(rows.size_box.findData(64))
    rows.count.setValue(12)
    assert (doc.build.host.dimms.count, doc.build.host.dimms.size_gb) == (12, 64)
    assert doc.result.host.dimms.stated and "(installed)" in rows.now.text()
    assert doc.undo_stack.count() == steps + 3  # one step per change
    assert doc.undo_stack.undoText() == "Install 12 × 64 GB DIMMs"
    doc.undo_stack.undo()
    assert doc.build.host.dimms.count == picked.count and rows.count.value() == picked.count  # the dialog follows
    doc.undo_stack.redo()
    assert doc.build.host.dimms.count == 12 and rows.count.value() == 12
    rows.state.click()  # back to "pick for me"
    assert doc.build.host is None and not rows.count.isEnabled()
    doc.undo_stack.undo()
    assert rows.state.isChecked() and rows.count.isEnabled()


def test_more_dimms_than_slots_is_refused_on_the_row(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = _window(qtbot, tmp_path)
    doc = window.doc
    dialog = window.host_parts()
    rows = dialog.dimms
    rows.state.click()
    before, steps = doc.build, doc.undo_stack.count()
    rows.count.setValue(40)  # generic-server-8 has 32 slots
    assert doc.build == before and doc.undo_stack.count() == steps
    assert rows.refused is not None and "32 DIMM slots" in rows.refused
    assert rows.count.toolTip().startswith("Refused: 40 × ")
    assert dialog.drives.refused is None  # the refusal is where it was asked
    rows.count.setValue(32)  # a count that fits clears it
    assert rows.refused is None and doc.build.host.dimms.count == 32


def test_drives_stated_and_more_than_bays_refused(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = _window(qtbot, tmp_path)
    doc = window.doc
    rows = window.host_parts().drives
    rows.state.click()
    rows.size_box.setCurrentIndex(rows.size_box.findData(3.84))
    assert doc.build.host.drives.tb == 3.84
    rows.count.setValue(9)  # 8 bays
    assert rows.refused is not None and "8 drive bays" in rows.refused and doc.build.host.drives.count != 9


def test_checkpoints_kept_row_is_one_undo_step(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = _window(qtbot, tmp_path)
    doc = window.doc
    panel = window.jobs_panel
    window.select_job_named("z3")  # the Jobs tab raised: the form follows each edit
    spin = panel.checkpoints_spin
    assert spin.value() == 2 and spin.accessibleName() == "Checkpoints kept"
    nvme = doc.result.host.nvme_need_gb
    spin.setValue(4)
    assert doc.build.jobs[0].checkpoints_kept == 4 and doc.result.host.nvme_need_gb > nvme
    assert doc.undo_stack.undoText() == "Keep 4 checkpoints of z3"
    spin.setValue(5)
    doc.undo_stack.undo()
    assert doc.build.jobs[0].checkpoints_kept == 4
    qtbot.waitUntil(lambda: spin.value() == 4)  # the form refills after a short debounce
    doc.undo_stack.undo()
    assert doc.build.jobs[0].checkpoints_kept == 2
    qtbot.waitUntil(lambda: spin.value() == 2)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_host_dialog_screens(first_start, theme: str) -> None:  # type: ignore[no-untyped-def]
    """Fits a 1024x768 screen; a stated set that falls short shows the check, in either theme."""
    window = first_start((1024, 768), theme)
    build = _build()
    window.doc.edit("test build", lambda _b: build)
    dialog = window.host_parts()
    dialog.dimms.state.click()
    dialog.dimms.count.setValue(2)
    dialog.dimms.count.setValue(40)  # refused: shown on the row
    screen = dialog.screen().availableGeometry()
    assert dialog.width() <= screen.width() and dialog.height() <= screen.height()
    assert dialog.sizeHint().height() <= 768 - 32
    assert "HOST" not in dialog.checks.text() and "less than" in dialog.checks.text()
    save_shot(dialog, f"host-dialog-{theme}")


def test_keyboard_opens_it_and_sizes_the_chassis_cannot_take_are_marked(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = _window(qtbot, tmp_path)
    window.doc.edit("workstation", lambda b: b.model_copy(update={"chassis": "generic-workstation-4"}))
    window.menus.host_action.trigger()  # Edit > Host memory and storage… (Alt+E, H)
    dialog = window.findChild(type(window.host_parts()), "hostDialog")
    box = dialog.dimms.size_box
    big = box.findData(256)  # the workstation takes DIMMs of up to 128 GB
    assert not box.model().item(big).isEnabled() and "up to 128 GB" in box.itemData(big, Qt.ItemDataRole.ToolTipRole)
    assert box.model().item(box.findData(128)).isEnabled()
    dialog.dimms.state.setFocus()
    qtbot.keyClick(dialog.dimms.state, Qt.Key.Key_Space)  # the check box by keyboard states the picked set
    assert window.doc.build.host is not None and window.doc.build.host.dimms is not None
    dialog.close()
    qtbot.waitUntil(lambda: window.findChild(type(dialog), "hostDialog") is None)  # deleted on close
    window.set_dark(True)  # the view state's theme reaches no deleted dialog
    window.doc.undo_stack.undo()
    window.set_dark(False)


def test_the_dark_theme_greys_disabled_text() -> None:
    from PySide6.QtGui import QPalette

    from configurator.ui.base.style import dark_palette

    p = dark_palette()
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        active = p.color(QPalette.ColorGroup.Active, role)
        disabled = p.color(QPalette.ColorGroup.Disabled, role)
        assert disabled.lightness() < active.lightness() - 60


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_one_dimm_short_says_one_unit_a_sentence_and_the_dimms_to_install(qtbot, tmp_path: Path, theme) -> None:  # type: ignore[no-untyped-def]
    """Review 2 item 14: "less than the 1153 GB its jobs need … install at least 1074 GB (binary)" gave one need
    in two different GB. Now the need reads "N GB = M GiB" in one sentence and the fix names DIMMs to buy."""
    window = _window(qtbot, tmp_path)
    window.set_dark(theme == "dark")
    window.resize(1280, 800)
    dialog = window.host_parts()
    dialog.dimms.state.click()
    dialog.dimms.count.setValue(1)
    text = dialog.checks.text()
    need = window.doc.result.host.ram_need_gb
    assert f"{need:,.0f} GB = " in text and " GiB" in text
    assert "binary" not in text
    assert "Install at least " in text and " GB DIMMs" in text
    qtbot.wait(20)
    save_shot(dialog, f"host_dialog_1dimm_{theme}")
