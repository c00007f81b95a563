"""Drop-to-repaint latency of the main window on a full 8-card build (target: one frame, 16 ms).

Measures what the user waits for after a drop: the undo command, the engine run, every view's update
and a synchronous repaint of the window.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QApplication

from benchmarks.test_bench_engine import BIG
from configurator.engine.model.buildfile import save_build
from configurator.ui.dnd.mime import card_mime
from tests.gui_helpers import drag_drop, make_window


def test_drop_to_repaint(benchmark, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    QStandardPaths.setTestModeEnabled(True)
    path = tmp_path / "big.yaml"
    build = BIG.model_copy(update={"cards": [c for c in BIG.cards if c.slot != 7]})
    save_build(build, path)
    window = make_window(qtbot, tmp_path, path)
    window.resize(1920, 1080)
    QApplication.processEvents()

    def drop_and_repaint() -> None:
        # the event loop paints once after the drop, as in the running app
        assert drag_drop(window.chassis_view, card_mime("h200-nvl"), 7)
        QApplication.processEvents()
        window.doc.undo_stack.undo()  # back to 7 cards for the next round
        QApplication.processEvents()

    benchmark(drop_and_repaint)
    # two edits and two repaints per round: one drop-to-repaint is half the round
    assert benchmark.stats.stats.median / 2 < 0.016


def test_sequence_slider_to_repaint(benchmark, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Moving the sequence-length slider of an 8-card, 4-job build: edit, engine, every view, one paint."""
    from configurator.engine.editing import update_job

    QStandardPaths.setTestModeEnabled(True)
    path = tmp_path / "big.yaml"
    save_build(BIG, path)
    window = make_window(qtbot, tmp_path, path)
    window.resize(1920, 1080)
    window.analysis.setCurrentIndex(1)  # the fit-frontier tab, the one that moves with the slider
    window.jobs_dock.raise_()  # the slider lives in the jobs panel, so its form is on screen and redrawn
    QApplication.processEvents()
    lengths = iter([1024 + 64 * i for i in range(100000)])

    def slide_and_repaint() -> None:
        s = next(lengths)
        window.doc.edit("seq", lambda b: update_job(b, 0, sequence_length=s), merge_key="bench.seq")
        QApplication.processEvents()

    benchmark(slide_and_repaint)
    assert benchmark.stats.stats.median < 0.016
