"""Discoverability: a plain verdict line above the charts, Help > Quick start with pictures of the three core
tasks, and Help > Keyboard shortcuts read from the window's own actions."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication

from configurator.engine.model.buildfile import load_build
from tests.gui_helpers import make_window

BUILDS = Path(__file__).resolve().parents[2] / "resources" / "builds"


def test_verdict_line_says_fits_tight_or_does_not_fit(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    line = window.verdict_line
    text = line.text()
    assert line.isVisible() and "Verdict: " in text and ">fits<" in text and "All 2 jobs fit" in text
    # above the charts
    charts_top = window.analysis.mapTo(window, window.analysis.rect().topLeft()).y()
    assert line.mapTo(window, line.rect().bottomLeft()).y() <= charts_top
    window.doc.replace(load_build(BUILDS / "mixed-with-errors.yaml"), None)
    assert ">does not fit<" in line.text() and "not fit" in line.text().split("·")[1]
    window.files.new_build()
    assert "No job yet" in line.text()


def test_verdict_is_the_engines_status_in_words() -> None:
    """The line reads the engine's statuses; present/verdict.py only words them (no rule in the widget)."""
    from configurator.engine import evaluate
    from configurator.present.verdict import build_verdict

    result = evaluate(load_build(BUILDS / "mixed-with-errors.yaml"))
    statuses = {j.status for j in result.jobs}
    verdict = build_verdict(result)
    assert verdict.status in statuses and verdict.status == "does-not-fit"


def test_keyboard_shortcuts_come_from_the_actions(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.shell.help import shortcut_rows

    window = make_window(qtbot, tmp_path)
    dialog = window.keyboard_shortcuts()
    qtbot.addWidget(dialog)
    rows = shortcut_rows(window)
    commands = {command for _, command, _ in rows}
    firsts = {c.split(" ")[0] for c in commands}
    assert {"Undo", "Redo", "New"} <= firsts and "Quick start" in commands
    # every menu action with a key is listed with that key
    listed = {keys for _, _, keys in rows}
    for action in window.menuBar().findChildren(QAction):
        for key in action.shortcuts():
            text = key.toString(QKeySequence.SequenceFormat.NativeText)
            assert any(text in keys for keys in listed), (action.text(), text)
    assert dialog.table.rowCount() == len(rows) > 10


def test_quick_start_shows_three_tasks_with_pictures(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    assert window.menus.quick_start_action.text().replace("&", "") == "Quick start"
    dialog = window.quick_start()
    qtbot.addWidget(dialog)
    QApplication.processEvents()
    assert len(dialog.pictures) == 3
    for picture in dialog.pictures:
        assert picture.pixmap() is not None and not picture.pixmap().isNull() and picture.pixmap().width() > 200
    assert dialog.width() <= window.screen().availableGeometry().width()


def test_quick_start_pictures_render_from_the_app(tmp_path: Path, qapp) -> None:  # type: ignore[no-untyped-def]
    """The shipped pictures can be made again from an offscreen window
    (python -m configurator.ui.shell.help_pictures)."""
    from PySide6.QtGui import QImage

    from configurator.ui.shell.help import TASKS
    from configurator.ui.shell.help_pictures import render_pictures

    written = render_pictures(tmp_path)
    assert sorted(p.name for p in written) == sorted(name for name, _, _ in TASKS)
    for path in written:
        image = QImage(str(path))
        assert not image.isNull() and image.width() > 200 and image.height() > 200


def test_a_refused_edit_is_said_beside_the_verdict(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    window.doc.refused.emit("slot 1 already holds a card")
    assert "Refused: slot 1 already holds a card" in window.verdict_line.text()
    window.verdict_line._timer.timeout.emit()
    assert "Refused" not in window.verdict_line.text()
