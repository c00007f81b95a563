"""Compare with…: the same jobs on two builds side by side, differences read from the widgets."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths

from configurator.engine import evaluate
from configurator.engine.compare import compare
from configurator.engine.editing import swap_cards, update_job
from tests.gui_helpers import make_window
from tests.test_report import BUILDS


def test_compare_h200_nvl_with_rtx_pro_6000(qtbot, tmp_path: Path) -> None:
    """Seed A's question, live: H200 NVL against RTX PRO 6000 WS for the same jobs, better cells marked."""
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    dialog.use_swap("h200-nvl", "rtx-pro-6000-ws")
    other = swap_cards(window.doc.build, window.doc.catalog, "h200-nvl", "rtx-pro-6000-ws")
    expected = compare(window.doc.result, evaluate(other))
    assert [(dialog.cell(i, 2), dialog.cell(i, 3)) for i in range(len(expected))] == [
        (r.left, r.right) for r in expected
    ]
    head = next(i for i, r in enumerate(dialog.rows) if r.what.startswith("headroom"))
    assert dialog.table.item(head, 2).toolTip() == "better"  # 150.8 GB cards beat 102.6 GB ones
    assert len(dialog.left_chart.rows) == len(dialog.right_chart.rows)
    # live: an edit to the build updates both sides
    window.doc.edit("longer", lambda b: update_job(b, 0, sequence_length=8192))
    assert dialog.other.jobs[0].sequence_length == 8192
    dialog.grab().save(str(tmp_path / "compare.png"))
    out = Path(__file__).resolve().parent.parent / "out" / "screens"
    out.mkdir(parents=True, exist_ok=True)
    dialog.resize(1280, 800)
    dialog.grab().save(str(out / "compare-1280x800.png"))


def test_compare_with_another_file(qtbot, tmp_path: Path) -> None:
    """Another build file can be the other side; its jobs are matched by name."""
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    assert dialog.use_file(BUILDS / "seed-mig-four-tenants.yaml")
    names = {dialog.cell(i, 0) for i in range(dialog.table.rowCount())}
    assert {"tenant A", window.doc.build.jobs[0].name, "(build)"} <= names


def test_compare_titles_show_a_markup_name_as_text(qtbot, tmp_path: Path) -> None:
    """Issue 13: a build named like HTML aborted the window on Compare; the title must show it as typed."""
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    hostile = "<img src='/dev/zero'>"
    window.doc.edit("rename", lambda b: b.model_copy(update={"name": hostile}))
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    dialog.use_swap("h200-nvl", "rtx-pro-6000-ws")
    assert hostile not in dialog.left_title.text()
    assert "&lt;img" in dialog.left_title.text()
