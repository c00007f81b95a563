"""One source of view state: ViewState holds the selected job (by name) and slot, the unit and the theme; the
views subscribe to it and write the selection a user makes into it, and nothing else keeps a copy."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from configurator.cli import default_build_path
from configurator.engine import editing
from configurator.engine.model.buildfile import load_build
from configurator.ui.base import BuildDocument, ViewState
from configurator.ui.charts import HeadroomChart
from tests.gui_helpers import make_window


def _tracked() -> tuple[BuildDocument, ViewState]:
    doc = BuildDocument(load_build(default_build_path()))
    view = ViewState()
    view.track(doc)
    return doc, view


def test_the_selected_job_is_a_name_that_follows_renames_and_removals(qapp) -> None:  # type: ignore[no-untyped-def]
    doc, view = _tracked()
    names = [job.name for job in doc.build.jobs]
    assert len(names) >= 2 and view.job == names[0]  # the first job until one is picked
    view.set_job(names[1])
    doc.edit("rename", partial(editing.rename_job, index=1, name="Renamed job"))
    assert view.job == "Renamed job"  # the same job, under its new name
    doc.undo_stack.undo()
    assert view.job == names[1]
    doc.edit("add", partial(editing.add_job, models=doc.models))
    assert view.job == names[1]  # an edit elsewhere leaves the selection where it was
    doc.edit("remove", partial(editing.remove_job, index=1))
    assert view.job == doc.build.jobs[1].name  # the job now at its place
    while doc.build.jobs:
        doc.edit("remove", partial(editing.remove_job, index=0))
    assert view.job is None


def test_the_selected_slot_is_cleared_when_its_card_goes(qapp) -> None:  # type: ignore[no-untyped-def]
    doc, view = _tracked()
    slot = doc.build.cards[0].slot
    view.set_slot(slot)
    doc.edit("remove", partial(editing.remove_cards, slots=[slot]))
    assert view.slot is None


def test_a_chart_follows_the_view_state_itself(qapp) -> None:  # type: ignore[no-untyped-def]
    """No window relays unit or theme: the chart subscribes."""
    doc, view = _tracked()
    chart = HeadroomChart()
    chart.follow(view)
    chart.update_result(doc.result)
    view.set_unit("GiB")
    view.set_dark(True)
    assert chart.unit == "GiB" and chart.dark
    assert chart.plot.getAxis("left").labelText == "Memory (GiB)"


def test_the_window_keeps_one_selection(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    jobs = window.doc.build.jobs
    window.checks.job_clicked.emit(jobs[1].name)  # a check about the second job, clicked
    assert window.view.job == jobs[1].name
    assert window.jobs_panel.job_list.currentRow() == 1 and window.jobs_panel.index == 1
    assert window.analysis.job_index == 1
    window.jobs_panel.select_job(0)  # a row picked in the list
    assert window.view.job == jobs[0].name and window.analysis.job_index == 0
    slot = window.doc.build.cards[-1].slot
    window.checks.slot_clicked.emit(slot)  # a check about a card
    assert window.view.slot == slot and window.chassis_view.selected_slots() == [slot]
