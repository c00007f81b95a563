"""The Jobs and Checks docks at 1366x768: the list shows a build's four MIG tenants without scrolling (it had
~55 px, two and a half rows) and one "No problems found." line does not take ~100 px."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "resources" / "builds" / "seed-mig-four-tenants.yaml"


def test_the_job_list_shows_four_tenants_without_scrolling(first_start, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = first_start((1366, 768), build=SEED)
    window.jobs_dock.raise_()
    qtbot.wait(20)
    lst = window.jobs_panel.job_list
    assert lst.count() == 4
    last = lst.visualItemRect(lst.item(3))
    assert last.bottom() <= lst.viewport().height(), (last, lst.viewport().height())
    assert lst.verticalScrollBar().maximum() == 0
    form = window.jobs_panel.form_scroll
    assert form.height() >= window.jobs_panel.height() * 0.5  # the form keeps most of the panel


def test_one_check_line_takes_one_line(first_start, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = first_start((1366, 768))
    assert window.checks.count() == 1  # the default build: "No problems found."
    row = window.checks.sizeHintForRow(0)
    assert window.checks.height() <= 2 * row + 12, (window.checks.height(), row)
    assert window.checks.visualItemRect(window.checks.item(0)).bottom() <= window.checks.viewport().height()
