"""The application shell (issues 13, 15, 16): crash guard, edits validated, Open all or nothing, Open from
code, redo shortcuts, price list and demo PIN preferences, rich text escaped in error messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QKeySequence

from configurator.engine.model.buildcode import encode_build
from configurator.engine.model.buildfile import save_build
from configurator.ui.base import guard
from configurator.ui.dnd.mime import card_mime
from tests.gui_helpers import drag_drop

pytestmark = pytest.mark.usefixtures("qapp")


def test_exception_in_redo_keeps_window_and_build(window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A bug raising inside an undo command's redo() is reported; the window and its build survive."""
    assert drag_drop(window.chassis_view, card_mime("l40s"), 7)
    placed = window.doc.build
    window.doc.undo_stack.undo()
    before = window.doc.build

    def boom(*a, **k):  # type: ignore[no-untyped-def]
        raise RuntimeError("injected failure")

    monkeypatch.setattr(window.doc, "_set", boom)
    guard.reported.clear()
    window.doc.undo_stack.redo()  # would propagate out of Qt without the guard
    assert guard.reported and "injected failure" in guard.reported[-1]
    assert window.doc.build == before != placed
    assert window.isVisible() and window.doc.result is not None


def test_edit_that_raises_or_is_invalid_is_refused(window) -> None:  # type: ignore[no-untyped-def]
    refused: list[str] = []
    window.doc.refused.connect(refused.append)
    before, depth = window.doc.build, window.doc.undo_stack.count()

    def raises(build):  # type: ignore[no-untyped-def]
        raise KeyError("bug")

    assert not window.doc.edit("buggy", raises)
    # model_copy skips validation: an unknown card id must still not get in
    bad_card = before.cards[0].model_copy(update={"card": "no-such-card"})
    assert not window.doc.edit("invalid", lambda b: b.model_copy(update={"cards": [bad_card, *b.cards[1:]]}))
    assert not window.doc.edit("invalid chassis", lambda b: b.model_copy(update={"chassis": "nope"}))
    assert window.doc.build == before and window.doc.undo_stack.count() == depth
    assert len(refused) == 3 and "no-such-card" in refused[1] and "nope" in refused[2]


def test_open_is_all_or_nothing(window, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A build that cannot be loaded (here a slot that is no number) leaves the old build, path, history and
    title intact. (A job whose model file cannot be read, or an id the catalog lacks, no longer refuses the
    build: tests/reliability, tests/ui/test_open_broken.py.)"""
    assert drag_drop(window.chassis_view, card_mime("l40s"), 7)
    before, path, title, depth = window.doc.build, window.doc.path, window.windowTitle(), window.doc.undo_stack.count()
    bad = tmp_path / "bad.yaml"
    save_build(before.model_copy(update={"name": "Other"}), bad)
    bad.write_text(bad.read_text(encoding="utf-8").replace("slot: 7", "slot: seven"), encoding="utf-8")
    shown: list[str] = []
    monkeypatch.setattr(window.files, "show_file_error", lambda title, exc, after="": shown.append(str(exc)))
    assert not window.files.open_path(bad)
    assert shown
    assert window.doc.build == before and window.doc.path == path
    assert window.windowTitle() == title and window.doc.undo_stack.count() == depth


def test_open_from_code(window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    shown: list[str] = []
    monkeypatch.setattr(window.files, "show_error", lambda title, text: shown.append(text))
    other = window.doc.build.model_copy(update={"name": "From a sheet"})
    assert window.files.open_build_code(encode_build(other))
    assert window.doc.build.name == "From a sheet" and window.doc.path is None
    assert not window.files.open_build_code("GBC1:notacode")
    assert not window.files.open_build_code("hello")
    assert len(shown) == 2 and "build code" in shown[1]
    assert window.doc.build.name == "From a sheet"


def test_redo_shortcuts_once_each(window) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+Shift+Z was registered twice (an ambiguous overload that did nothing); now once, with Ctrl+Y."""
    keys = [k.toString() for k in window.menus.redo_action.shortcuts()]
    assert "Ctrl+Shift+Z" in keys and "Ctrl+Y" in keys
    assert len(keys) == len(set(keys))
    every = [k.toString() for a in window.findChildren(type(window.menus.redo_action)) for k in a.shortcuts()]
    assert every.count("Ctrl+Shift+Z") == 1 and every.count(QKeySequence("Ctrl+Y").toString()) == 1


def test_build_named_like_html_does_not_abort(window, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A build named <img src='/dev/zero'> shows as text in an error message, never as an image to load."""
    from PySide6.QtWidgets import QMessageBox

    from configurator.ui.base.windows import safe_message

    name = "<img src='/dev/zero'>"
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: shown.append(text))
    window.files.show_error("Cannot open build", f"{name}: broken")
    assert shown and "<img" not in shown[0] and "&lt;img" in shown[0]
    assert safe_message("plain text") == "plain text"
    window.doc.edit("rename", lambda b: b.model_copy(update={"name": name}))
    window.repaint()
    assert name in window.windowTitle()


def test_price_list_and_pin_preferences(window, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QMessageBox

    from configurator.ui.shell.preferences import PreferencesDialog

    warned: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warned.append(text))
    bad = tmp_path / "prices.yaml"
    bad.write_text("currency: EURO\nparts: {nosuchpart: 3}\n")
    dialog = PreferencesDialog(window.settings, window)
    assert dialog.pin.echoMode() == dialog.pin.EchoMode.Password
    dialog.prices.setText(str(bad))
    dialog.accept()
    assert warned and window.settings.get("price_list") == ""  # refused, nothing stored
    dialog.prices.setText("")
    dialog.pin.setText("97531")
    dialog.pin_again.setText("97531")
    dialog.accept()
    assert window.settings.get("demo/pin") == "97531"
    window.settings.set("price_list", str(bad))  # a file gone bad after it was chosen
    assert window.sheet.options().prices is None
    assert "Price list not used" in window.statusBar().currentMessage()


def test_command_line_bad_file_opens_with_message(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """``configurator FILE`` with a broken file: the window opens on the preloaded build with the reason."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    from configurator.ui.shell import app as app_module

    bad = tmp_path / "broken.yaml"
    bad.write_text("name: [unclosed\n")
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(box.text() + box.informativeText()) or 0)
    monkeypatch.setattr(QApplication, "exec", lambda self=None: 0)
    monkeypatch.setattr("sys.excepthook", __import__("sys").excepthook)  # restored after the test
    assert app_module.main([str(bad)]) == 0
    assert shown and "broken.yaml" in shown[0] and "preloaded" in shown[0]
    assert "Traceback" not in capsys.readouterr().err
    for w in QApplication.topLevelWidgets():
        if hasattr(w, "doc"):
            w.doc.undo_stack.setClean()
            w.close()
