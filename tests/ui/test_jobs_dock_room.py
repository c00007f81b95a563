"""The Jobs and Checks docks at 1366x768: the list shows a build's four MIG tenants without scrolling (it had
~55 px, two and a half rows) and one "No problems found." line does not take ~100 px."""

from __future__ import annotations

from pathlib import Path

import pytest

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


@pytest.mark.parametrize("size", [(1024, 768), (1366, 768), (1920, 1080)])
def test_the_framework_box_writes_words_that_fit(first_start, qtbot, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """'Transformers Trainer / TRL + PEFT' was cut to '... TRL + PEI' even at 1920x1080: the closed box writes
    the label where it fits, else its short words; the list keeps the whole label."""
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

    window = first_start(size)
    window.jobs_dock.raise_()
    qtbot.wait(20)
    box = window.jobs_panel.framework_box
    assert box.currentData() == "hf-trainer"
    option = QStyleOptionComboBox()
    box.initStyleOption(option)
    room = box.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                      QStyle.SubControl.SC_ComboBoxEditField, box).width()  # fmt: skip
    shown = box.shown_text()
    assert box.fontMetrics().horizontalAdvance(shown) <= room
    assert "…" not in shown and shown in (box.currentText(), "HF Trainer / TRL")
    assert box.currentText() == "Transformers Trainer / TRL + PEFT"  # the list's words
