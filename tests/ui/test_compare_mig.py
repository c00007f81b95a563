"""Review 2 #7, #8, #20, #22, #24: the Compare dialog on a MIG build and beside a build with other jobs."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths

from tests.gui_helpers import make_window
from tests.paths import BUILDS

SHOTS = Path(__file__).resolve().parents[2] / "out" / "screens"
MIG = BUILDS / "seed-mig-four-tenants.yaml"


def _dialog(qtbot, tmp_path: Path, build: Path | None = None):  # type: ignore[no-untyped-def]
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path, build)
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    return window, dialog


def test_default_compare_of_a_mig_build_carries_the_layout(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The default swap of the four-tenant Server keeps the four instances on the Workstation: the other chart has
    the four tenants' bars and the table figures on both sides, and the note says the layout was carried."""
    _window, dialog = _dialog(qtbot, tmp_path, MIG)
    assert dialog.to_card.currentData() == "rtx-pro-6000-ws"
    assert len(dialog.right_chart.rows) == len(dialog.left_chart.rows) == 4
    head = next(i for i, r in enumerate(dialog.rows) if r.job == "tenant A" and r.what.startswith("headroom"))
    assert dialog.cell(head, 3).endswith(" GB")
    assert dialog.swap_note.isVisibleTo(dialog) and "carried" in dialog.swap_note.text()
    # a card without those profiles: the tenants share the whole card, and the note says so
    dialog.use_swap("rtx-pro-6000-server", "h200-nvl")
    assert "whole card" in dialog.swap_note.text() and len(dialog.right_chart.rows) == 4
    assert any(c.code == "CARD_SHARED" for c in dialog.other_result.checks)


def test_the_other_builds_jobs_and_the_build_rows(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Beside a build with other jobs: the build-level rows lead the table and compare; the other build's job is
    listed with 'absent' on this side; the recipe note has its own row (not a column of single words)."""
    _window, dialog = _dialog(qtbot, tmp_path)
    dialog.resize(1024, 700)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.use_file(BUILDS / "seed-70b-lora-8x-h200-nvl.yaml")
    assert dialog.cell(0, 0) == "(build)" and dialog.cell(0, 1) == "cards" and dialog.cell(0, 3) == "8"
    other = [i for i in range(dialog.table.rowCount()) if dialog.cell(i, 0) == "70B LoRA, FSDP over all 8"]
    assert other and all(dialog.cell(i, 2) == "absent" for i in other)
    note = dialog.recipes.note
    qtbot.waitUntil(lambda: note.isVisible() and bool(note.text()))
    assert note.height() <= 3 * note.fontMetrics().lineSpacing()  # it was ~190 px: one word a line


def test_card_boxes_tell_server_from_workstation(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The card boxes cut long names in the middle at 1024 px: both ends of the name stay readable."""
    _window, dialog = _dialog(qtbot, tmp_path, MIG)
    dialog.resize(1024, 700)
    dialog.show()
    qtbot.waitExposed(dialog)
    left, right = dialog.from_card.shown_text(), dialog.to_card.shown_text()
    assert left.endswith("Server Edition") and right.endswith("Workstation Edition"), (left, right)


def test_mig_bar_ticks_do_not_run_into_each_other(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Four instance bars in half a 1024 px dialog: no tick line is wider than its bar."""
    _window, dialog = _dialog(qtbot, tmp_path, MIG)
    dialog.resize(1024, 700)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.wait(50)
    for chart in (dialog.left_chart, dialog.right_chart):
        axis = chart.plot.getAxis("bottom")
        fm = axis.fontMetrics() if hasattr(axis, "fontMetrics") else dialog.fontMetrics()
        bar_px = chart.plot.vb.width() / len(chart.rows)
        ticks = axis._tickLevels[0]  # what setTicks was given
        for _, text in ticks:
            assert all(fm.horizontalAdvance(line) < bar_px for line in text.split("\n")), (text, bar_px)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", [(1024, 768), (1920, 1080)])
def test_compare_mig_screens(qtbot, tmp_path: Path, theme: str, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The MIG build's default Compare and a Compare beside another file, for review."""
    window, dialog = _dialog(qtbot, tmp_path, MIG)
    window.set_dark(theme == "dark")
    qtbot.wait(50)
    dialog.resize(*size)
    dialog.show()
    qtbot.waitExposed(dialog)
    SHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SHOTS / f"compare-mig-{size[0]}-{theme}.png"))
    assert dialog.use_file(BUILDS / "seed-70b-lora-8x-h200-nvl.yaml")
    qtbot.wait(50)
    dialog.grab().save(str(SHOTS / f"compare-mig-file-{size[0]}-{theme}.png"))
    window.set_dark(False)
