"""The main window driven like a user drives it: real widgets, offscreen, synthetic drag-and-drop events.

Every assertion on a number reads it from the widget and compares it with the engine's own result.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths

from configurator.engine.model.buildfile import load_build
from configurator.ui.dnd.mime import card_mime, slot_mime
from configurator.ui.shell.checks_panel import CODE_ROLE
from tests.gui_helpers import drag_drop, drag_over, make_window

pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture(autouse=True)
def _isolated_paths() -> None:
    QStandardPaths.setTestModeEnabled(True)


def chart_weights(window) -> list[float]:  # type: ignore[no-untyped-def]
    return window.chart.heights("weights_gb")


def test_first_screen_shows_the_default_build(window) -> None:  # type: ignore[no-untyped-def]
    """The window opens with the preloaded build: cards drawn, one bar per job card, figures from the engine."""
    result = window.doc.result
    rows = [row for job in result.jobs for row in job.cards]
    assert sorted(window.chassis_view.card_items) == [1, 2, 3]
    assert chart_weights(window) == pytest.approx([r.weights_gb for r in rows])
    assert window.chart.labels[0].toPlainText() == f"{rows[0].headroom_gb:+.1f} GB"
    assert window.checks.item(0).text().startswith("✔")
    assert "3,500 W" in window.summary.power.text()
    assert window.windowTitle().startswith(result.name)


def test_drag_card_from_palette_into_slot(window) -> None:  # type: ignore[no-untyped-def]
    """Dropping a palette card on an empty slot places it, undoably, and the summary counts it."""
    assert drag_over(window.chassis_view, card_mime("h200-nvl"), 4)
    assert drag_drop(window.chassis_view, card_mime("h200-nvl"), 4)
    assert window.doc.build.card_in(4).card == "h200-nvl"
    assert 4 in window.chassis_view.card_items
    assert window.doc.undo_stack.undoText() == "Place NVIDIA H200 NVL in slot 4"
    assert "Cards</b> 4" in window.summary.cards.text()
    assert window.isWindowModified()


def test_refused_drop_says_why(window) -> None:  # type: ignore[no-untyped-def]
    """An SXM module dropped on a PCIe slot is refused, the slot is marked, and the status bar says why."""
    before = window.doc.build
    assert not drag_over(window.chassis_view, card_mime("h200-sxm"), 5)
    assert window.chassis_view.slot_items[5].brush().color().red() > 150  # highlighted red while hovering
    assert not drag_drop(window.chassis_view, card_mime("h200-sxm"), 5)
    assert window.doc.build == before
    assert "SXM" in window.statusBar().currentMessage()
    # an occupied slot is refused too
    assert not drag_drop(window.chassis_view, card_mime("l40s"), 1)
    assert "already holds" in window.statusBar().currentMessage()


def test_move_card_keeps_the_job_on_it(window) -> None:  # type: ignore[no-untyped-def]
    """Dragging a placed card to another slot moves it; the job follows and the chart label shows the new slot."""
    assert drag_drop(window.chassis_view, slot_mime(3, "rtx-pro-6000-server"), 5)
    build = window.doc.build
    assert build.card_in(3) is None and build.card_in(5).card == "rtx-pro-6000-server"
    assert build.jobs[1].cards == [5]
    assert window.chart.rows[-1][1].slot == 5
    assert window.doc.undo_stack.undoText().startswith("Move NVIDIA RTX PRO 6000")


def test_delete_removes_card_and_checks_report_the_orphan_job(window) -> None:  # type: ignore[no-untyped-def]
    """Select a card, press Delete: it goes, and the checks panel says its job has no card."""
    window.chassis_view.select_slot(3)
    window.chassis_view.remove_action.trigger()
    assert window.doc.build.card_in(3) is None
    assert "JOB_NO_CARDS" in window.checks.codes()
    assert len(chart_weights(window)) == 2


def test_bridge_two_h200_nvl_and_refuse_rtx(window) -> None:  # type: ignore[no-untyped-def]
    """Bridge two adjacent H200 NVL; an RTX PRO 6000 pair is refused with the reason."""
    view = window.chassis_view
    for slot in (5, 6):
        assert drag_drop(view, card_mime("h200-nvl"), slot)
    view.scene().clearSelection()
    view.card_items[5].setSelected(True)
    view.card_items[6].setSelected(True)
    window.menus.bridge_action.trigger()
    assert [b.slots for b in window.doc.build.bridges] == [[1, 2], [5, 6]]
    assert "Bridges</b> 2" in window.summary.bridges.text()
    assert window.doc.result.topology.nvlink_domains == [[1, 2], [5, 6]]
    for slot in (7, 8):
        assert drag_drop(view, card_mime("rtx-pro-6000-server"), slot)
    view.scene().clearSelection()
    view.card_items[7].setSelected(True)
    view.card_items[8].setSelected(True)
    window.menus.bridge_action.trigger()
    assert len(window.doc.build.bridges) == 2
    assert "no NVLink" in window.statusBar().currentMessage()


def test_undo_redo_whole_sequence(window) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+Z walks every edit back to the opened build; Ctrl+Shift+Z replays them to the same end state."""
    start = window.doc.build
    view = window.chassis_view
    drag_drop(view, card_mime("h200-nvl"), 5)
    drag_drop(view, card_mime("h200-nvl"), 6)
    view.scene().clearSelection()
    view.card_items[5].setSelected(True)
    view.card_items[6].setSelected(True)
    window.menus.bridge_action.trigger()
    drag_drop(view, slot_mime(3, "rtx-pro-6000-server"), 8)
    view.select_slot(1)
    view.remove_action.trigger()
    end = window.doc.build
    assert window.doc.undo_stack.count() == 5
    while window.doc.undo_stack.canUndo():
        window.menus.undo_action.trigger()
    assert window.doc.build == start
    assert not window.isWindowModified()
    assert chart_weights(window) == pytest.approx([r.weights_gb for j in window.doc.result.jobs for r in j.cards])
    while window.doc.undo_stack.canRedo():
        window.menus.redo_action.trigger()
    assert window.doc.build == end


def test_change_model_updates_chart(window) -> None:  # type: ignore[no-untyped-def]
    """Choosing Llama 3.1 8B for the first job shrinks its weight bars to the engine's figure."""
    window.jobs_panel.select_job(0)
    box = window.jobs_panel.model_box
    box.setCurrentIndex(box.findData("llama-3.1-8b"))
    box.activated.emit(box.currentIndex())
    assert window.doc.build.jobs[0].model == "llama-3.1-8b"
    rows = window.doc.result.jobs[0].cards
    assert chart_weights(window)[:2] == pytest.approx([r.weights_gb for r in rows])
    assert rows[0].weights_gb == pytest.approx(8.03e9 * 2 / 2 / 1e9, abs=0.01)  # bf16, sharded over 2
    assert "Set model" in window.doc.undo_stack.undoText()


def test_summary_strip_says_which_compute_rates_are_used(window) -> None:  # type: ignore[no-untyped-def]
    # issue 24: the default includes the labelled estimates; "published rates only" is the View choice
    # in words that say what is estimated and what else there is ('Compute incl. estimates' said neither)
    text = window.summary.compute.text()
    assert "Compute rates</b> published" in text and "+ estimated" in text
    assert window.doc.result.compute_rates == "estimated"
    window.menus.compute_rate_actions["published"].trigger()
    assert "published only" in window.summary.compute.text()
    assert window.doc.result.compute_rates == "published"


def test_link_rate_switch_changes_step_time(window) -> None:  # type: ignore[no-untyped-def]
    """View > Link rates > Nominal re-runs the engine: the FSDP job's communication gets faster."""
    measured = window.doc.result.jobs[0].communication.seconds_per_step
    # the catalog's rates are typical published runs, never a measurement of this machine: the words say so
    assert "typical" in window.summary.links.text() and "published" in window.summary.links.toolTip()
    assert window.menus.rate_actions["measured"].text().startswith("Typical measured")
    window.menus.rate_actions["nominal"].trigger()
    nominal = window.doc.result.jobs[0].communication.seconds_per_step
    assert window.doc.build.assumptions.link_rates == "nominal"
    assert nominal < measured
    assert "nominal" in window.summary.links.text()


def test_compute_rate_estimates_fill_the_unknown_step_time(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The default build's RTX PRO 6000 Server has no published dense BF16 rate: by default (issue 24) its step
    time uses the catalog's estimate, labelled on the bar; View > Compute rates > published rates only leaves it
    unknown; undo restores the estimate."""
    from PySide6.QtWidgets import QApplication

    qlora = window.doc.result.jobs[1]
    assert window.menus.compute_rate_actions["estimated"].isChecked()
    assert window.doc.build.assumptions.compute_rates == "estimated"
    assert qlora.compute.bf16_rate_estimated and qlora.compute.bf16_tflops == pytest.approx(503.8)
    assert qlora.step_seconds is not None and qlora.step_seconds > 0
    assert any("UNCONFIRMED estimate" in n for n in qlora.compute.notes)
    assert not window.doc.result.jobs[0].compute.bf16_rate_estimated  # the H200 NVL rate is published
    window.analysis.setCurrentWidget(window.analysis.step_time)
    QApplication.processEvents()
    assert "(estimated rate)" in window.analysis.step_time.labels[1].textItem.toPlainText()
    window.menus.compute_rate_actions["published"].trigger()
    assert window.doc.result.jobs[1].step_seconds is None
    window.doc.undo_stack.undo()
    assert window.doc.result.jobs[1].step_seconds is not None
    assert window.menus.compute_rate_actions["estimated"].isChecked()


def test_save_reopen_and_compare(window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Save writes the build atomically; reopening gives the same build; the title shows the file name."""
    drag_drop(window.chassis_view, card_mime("l40s"), 7)
    target = tmp_path / "mine.yaml"
    assert window.files.save_to(target)
    assert not window.isWindowModified()
    assert "mine.yaml" in window.windowTitle()
    assert load_build(target) == window.doc.build
    saved = window.doc.build
    window.doc.replace(load_build(window.doc.path), None)
    assert window.files.open_path(target)
    assert window.doc.build == saved
    assert window.settings.get("recent_files")[0] == str(target)


def test_broken_file_keeps_current_build(window, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A file that fails to load shows file, line and reason, and leaves the open build untouched."""
    shown: list[str] = []
    monkeypatch.setattr(window.files, "show_file_error", lambda title, exc, after="": shown.append(str(exc)))
    bad = tmp_path / "bad.yaml"  # a slot that is no number: a wrong schema (an unknown card id opens, with its check)
    bad.write_text("name: x\nchassis: generic-server-8\ncards:\n  - {slot: one, card: h200-nvl}\n")
    before = window.doc.build
    assert not window.files.open_path(bad)
    assert window.doc.build == before
    assert "bad.yaml" in shown[0] and ":4:" in shown[0] and "slot" in shown[0]
    bad.write_text("name: [unclosed\n")
    assert not window.files.open_path(bad)
    assert window.doc.build == before and "YAML" in shown[1]


def test_unwritable_save_keeps_build(window, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Saving into a path that cannot be written says so and changes nothing."""
    shown: list[str] = []
    monkeypatch.setattr(window.files, "show_error", lambda title, text: shown.append(text))
    (tmp_path / "afile").write_text("x")
    assert not window.files.save_to(tmp_path / "afile" / "b.yaml")
    assert shown and "cannot write" in shown[0]


def test_autosave_and_restore(window, qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Unsaved edits are autosaved per window; a live window's autosave is never offered (or deleted) by a
    second window; once that window is gone (a crash: its lock released, its file left), it is offered back."""
    from PySide6.QtWidgets import QMessageBox

    from configurator.ui.shell.files import autosave_folder

    drag_drop(window.chassis_view, card_mime("l40s"), 7)
    assert window.files.autosave()
    mine = window.files.autosave_slot.build_path
    assert mine.is_file()
    edited = window.doc.build
    asked: list[str] = []

    def yes(*a, **k):  # type: ignore[no-untyped-def]
        asked.append(str(a[2]))
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", yes)
    other = make_window(qtbot, tmp_path)
    assert not other.files.offer_restore() and not asked  # the first window is alive: not offered
    assert mine.is_file()  # nor deleted
    # the first window "crashes": its lock goes, its autosave stays
    window.files.autosave_slot._lock.close()
    window.files.autosave_slot = None
    third = make_window(qtbot, tmp_path)
    assert third.files.offer_restore() and asked
    assert third.doc.build == edited
    assert third.isWindowModified()
    assert not mine.exists()  # taken over by the restoring window's own slot
    assert list(autosave_folder().glob("autosave-*.yaml")) == [third.files.autosave_slot.build_path]
    third.doc.undo_stack.setClean()
    window.doc.undo_stack.setClean()


def test_chassis_change_keeps_cards_that_fit(window) -> None:  # type: ignore[no-untyped-def]
    """Choosing the 4-slot workstation keeps cards whose slots exist; the view redraws the new chassis."""
    window.card_palette.chassis_chosen.emit("generic-workstation-4")
    assert window.doc.build.chassis == "generic-workstation-4"
    assert sorted(window.chassis_view.slot_items) == [1, 2, 3, 4]
    assert "PASSIVE_CARD_NEEDS_SERVER_AIRFLOW" in window.checks.codes()
    window.menus.undo_action.trigger()
    assert window.doc.build.chassis == "generic-server-8"


def test_chassis_change_says_which_cards_it_removed(window) -> None:  # type: ignore[no-untyped-def]
    """A card in a slot the new chassis lacks is removed by the edit, and the status bar says which (it went unsaid);
    undo brings it back."""
    from functools import partial

    from configurator.engine import editing

    window.doc.edit("Place", partial(editing.place_card, catalog=window.doc.catalog, slot=6, card_id="h100-nvl"))
    window.card_palette.chassis_chosen.emit("generic-workstation-4")
    assert window.doc.build.card_in(6) is None
    message = window.statusBar().currentMessage()
    assert "does not take 1 of the cards: removed slot 6 (NVIDIA H100 NVL" in message and "Ctrl+Z" in message
    window.menus.undo_action.trigger()
    assert window.doc.build.card_in(6) is not None


def test_checks_click_selects_slot(window) -> None:  # type: ignore[no-untyped-def]
    """Clicking a check selects the card it concerns in the chassis view."""
    window.card_palette.chassis_chosen.emit("generic-workstation-4")
    row = next(i for i in range(window.checks.count()) if "PASSIVE" in str(window.checks.item(i).data(CODE_ROLE)))
    window.checks.itemClicked.emit(window.checks.item(row))
    assert window.chassis_view.selected_slots() == [window.doc.result.checks[row].slot]


def test_palette_filter(window) -> None:  # type: ignore[no-untyped-def]
    """Typing in the filter box narrows the palette."""
    window.card_palette.filter.setText("rtx")
    assert set(window.card_palette.visible_ids()) == {"rtx-pro-6000-ws", "rtx-pro-6000-maxq", "rtx-pro-6000-server"}
    # a name first: "nvl" is the NVL cards, not every card whose line says "NVLink" (the H200 SXM's did)
    window.card_palette.filter.setText("nvl")
    assert set(window.card_palette.visible_ids()) == {"h200-nvl", "h100-nvl"}
    # where no name holds the words, the card's whole text: its figures and bridge
    window.card_palette.filter.setText("nvlink")
    shown = set(window.card_palette.visible_ids())
    assert {"h200-nvl", "h200-sxm"} <= shown


def test_hover_tooltip_has_exact_figures(window) -> None:  # type: ignore[no-untyped-def]
    """Hovering a bar shows every component and the headroom, as the engine computed them."""
    text = window.chart.tooltip_for(0)
    row = window.doc.result.jobs[0].cards[0]
    assert f"{row.weights_gb:.2f} GB" in text and f"{row.headroom_gb:.2f} GB" in text


def test_units_preference_gib(window) -> None:  # type: ignore[no-untyped-def]
    """Switching to GiB converts the bars and is remembered in the settings."""
    from PySide6.QtGui import QAction

    gb = chart_weights(window)[0]
    units = {a.data(): a for a in window.findChildren(QAction) if a.data() in ("GB", "GiB")}
    assert units["GB"].isChecked() and not units["GiB"].isChecked()
    units["GiB"].trigger()  # View > Units > GiB
    assert window.unit == "GiB" and units["GiB"].isChecked()
    assert chart_weights(window)[0] == pytest.approx(gb * 1e9 / 2**30)
    assert window.settings.get("units") == "GiB"


def test_keyboard_placement(window) -> None:  # type: ignore[no-untyped-def]
    """Enter on a palette card places it in the first free slot that takes it (no mouse needed)."""
    palette = window.card_palette.cards
    item = next(palette.item(i) for i in range(palette.count()) if palette.item(i).data(256) == "l40s")
    palette.itemActivated.emit(item)
    assert window.doc.build.card_in(4).card == "l40s"
    window.card_palette.card_activated.emit("h200-sxm")  # no SXM socket in a PCIe chassis
    assert "No free slot" in window.statusBar().currentMessage()


def test_drag_tints_every_slot(window) -> None:  # type: ignore[no-untyped-def]
    """While an H200 NVL is dragged, free slots turn green and occupied ones red; leaving clears the tint."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent
    from PySide6.QtWidgets import QApplication

    view = window.chassis_view
    mime = card_mime("h200-nvl")  # the event holds a pointer only: keep the data alive
    enter = QDragEnterEvent(QPoint(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)  # fmt: skip
    QApplication.sendEvent(view.viewport(), enter)
    assert view.slot_items[5].brush().color().green() > view.slot_items[5].brush().color().red()
    assert view.slot_items[1].brush().color().red() > view.slot_items[1].brush().color().green()
    QApplication.sendEvent(view.viewport(), QDragLeaveEvent())
    assert view.slot_items[5].brush().color().alpha() < 30


def test_check_click_selects_job(window) -> None:  # type: ignore[no-untyped-def]
    """Clicking a job's check selects that job in the job bar."""
    window.chassis_view.select_slot(3)
    window.chassis_view.remove_action.trigger()  # the QLoRA job loses its card
    row = next(i for i in range(window.checks.count()) if "JOB_NO_CARDS" in str(window.checks.item(i).data(CODE_ROLE)))
    window.checks.itemClicked.emit(window.checks.item(row))
    assert window.jobs_panel.job_list.currentRow() == 1
    assert window.analysis.job_index == 1  # the charts follow the selected job


def test_drag_job_onto_card(window) -> None:  # type: ignore[no-untyped-def]
    """Dropping a job on a card runs it there; the chart's bar moves to that slot."""
    from configurator.ui.dnd.mime import job_mime

    assert drag_drop(window.chassis_view, card_mime("rtx-pro-6000-server"), 5)
    assert drag_drop(window.chassis_view, job_mime("70B QLoRA"), 5)
    assert window.doc.build.jobs[1].cards == [5]
    assert window.chart.rows[-1][1].slot == 5
    assert window.doc.undo_stack.undoText().startswith("Move job")


def test_drag_job_onto_bridge_runs_it_on_the_group(window) -> None:  # type: ignore[no-untyped-def]
    """Dropping a job on the NVLink bridge drawing puts it on every bridged card (FSDP)."""
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    from configurator.ui.dnd.mime import job_mime

    view = window.chassis_view
    bar = next(item for item in view.scene().items() if isinstance(item.data(0), list))
    point = view.mapFromScene(bar.sceneBoundingRect().center())
    mime = job_mime("70B QLoRA")
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view.viewport(), QDragEnterEvent(point, *args))
    QApplication.sendEvent(view.viewport(), QDragMoveEvent(point, *args))
    QApplication.sendEvent(view.viewport(), QDropEvent(QPointF(point), *args))
    job = window.doc.build.jobs[1]
    assert job.cards == [1, 2] and job.parallelism == "fsdp"
    assert "bridged slots 1, 2" in window.doc.undo_stack.undoText()


def test_hidden_views_catch_up_when_shown(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Views behind another tab skip the per-edit redraw (it costs frames while dragging) and show the
    document as it is the moment the user brings them forward."""
    from PySide6.QtWidgets import QApplication

    from configurator.engine.editing import set_mig_layout, update_job
    from configurator.ui.base.lazy import hidden_in_shown_window

    window.jobs_panel.select_job(0)
    window.analysis.setCurrentWidget(window.mig_editor)
    window.mig_editor.select_slot(3)
    window.cards_dock.raise_()
    window.analysis.setCurrentIndex(0)
    QApplication.processEvents()
    assert hidden_in_shown_window(window.jobs_panel) and hidden_in_shown_window(window.mig_editor)

    window.doc.edit("seq", lambda b: update_job(b, 0, sequence_length=4096))
    window.doc.edit("mig", lambda b: set_mig_layout(b, window.doc.catalog, 3, [("2g.48gb", None)]))
    assert window.jobs_panel.seq_spin.value() != 4096  # not redrawn while hidden
    assert window.mig_editor.view.blocks == {}

    # keyboard focus left inside the hidden form keeps it current: an arrow key must step from the real value
    window.jobs_panel.micro_spin.setFocus()
    QApplication.processEvents()
    window.doc.edit("mb", lambda b: update_job(b, 0, micro_batch_size=4))
    assert window.jobs_panel.micro_spin.value() == 4
    window.chassis_view.setFocus()

    window.jobs_dock.raise_()
    window.analysis.setCurrentWidget(window.mig_editor)
    QApplication.processEvents()
    assert not hidden_in_shown_window(window.jobs_panel)
    assert window.jobs_panel.seq_spin.value() == 4096
    assert window.mig_editor.current_slot() == 3
    assert len(window.mig_editor.view.blocks) == 1


def test_hovering_a_headroom_bar_shows_its_breakdown(window) -> None:  # type: ignore[no-untyped-def]
    """A real mouse move over the first bar shows the job, the card and the engine's peak for it."""
    from tests.gui_helpers import hover_tooltip

    row = window.doc.result.jobs[0].cards[0]
    tip = hover_tooltip(window.chart.view, window.chart.plot, 0.0, row.weights_gb / 2)
    assert window.doc.result.jobs[0].name in tip and f"{row.peak_reserved_gb:.2f} GB" in tip


def test_drag_a_bridge_from_the_palette_onto_a_card(window) -> None:  # type: ignore[no-untyped-def]
    """The palette's NVLink bridges drop onto a card: it joins that card and its identical neighbour, one
    undo step; a card without a bridge connector refuses the drop and the status bar says why."""
    from configurator.ui.dnd.mime import bridge_mime

    palette = window.card_palette.bridges
    assert [palette.item(i).text() for i in range(palette.count())] == ["NVLink bridge, 2-way", "NVLink bridge, 4-way"]
    assert drag_drop(window.chassis_view, card_mime("h200-nvl"), 4)
    assert drag_drop(window.chassis_view, card_mime("h200-nvl"), 5)
    before = list(window.doc.build.bridges)

    assert drag_over(window.chassis_view, bridge_mime(2), 4)
    lit = [s for s, item in window.chassis_view.slot_items.items() if item.brush().color().alpha() > 0]
    assert {4, 5} <= set(lit)
    assert drag_drop(window.chassis_view, bridge_mime(2), 4)
    assert [b.slots for b in window.doc.build.bridges] == [*(b.slots for b in before), [4, 5]]
    assert window.doc.undo_stack.undoText() == "Bridge slots 4, 5"
    topo = window.doc.result.topology
    assert topo.matrix[topo.slots.index(4)][topo.slots.index(5)].startswith("NV")
    assert [4, 5] in topo.nvlink_domains

    assert not drag_drop(window.chassis_view, bridge_mime(2), 3)  # RTX PRO 6000 Server: PCIe only
    assert "no NVLink bridge connector" in window.statusBar().currentMessage()
    assert not drag_drop(window.chassis_view, bridge_mime(4), 4)  # 4-way needs four cards side by side
    window.doc.undo_stack.undo()
    assert list(window.doc.build.bridges) == before

    # from the keyboard: select the two cards, then Enter on the palette's 2-way bridge
    palette.setCurrentRow(0)
    window.chassis_view.card_items[4].setSelected(True)
    palette.itemActivated.emit(palette.item(0))  # what Enter on the focused item emits
    assert "Select the 2 cards" in window.statusBar().currentMessage()
    window.chassis_view.card_items[5].setSelected(True)
    palette.itemActivated.emit(palette.item(0))
    assert [4, 5] in [b.slots for b in window.doc.build.bridges]
