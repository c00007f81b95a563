"""Shared fixtures. Tests run headless: Qt uses the offscreen platform, no GPU, no network."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def _no_modal_dialogs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A modal dialog nobody answers would hang an offscreen run: fail the test instead.

    Tests that expect a dialog patch it themselves (their monkeypatch wins, being applied later).
    """
    try:
        from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox
    except ImportError:  # engine-only environments
        return

    def refuse(*args: object, **kwargs: object) -> None:
        text = " | ".join(str(a) for a in args[1:3])
        raise AssertionError(f"unexpected modal dialog: {text}")

    for name in ("critical", "warning", "information", "question", "about"):
        monkeypatch.setattr(QMessageBox, name, refuse)
    for name in ("getOpenFileName", "getSaveFileName", "getExistingDirectory"):
        monkeypatch.setattr(QFileDialog, name, refuse)
    monkeypatch.setattr(QInputDialog, "getText", refuse)


@pytest.fixture(autouse=True)
def _private_autosave(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test gets its own autosave folder, so no test sees another's (or the user's) autosaves."""
    try:
        import configurator.ui.shell.files as files
    except ImportError:
        return
    folder = tmp_path_factory.mktemp("autosave")
    monkeypatch.setattr(files, "autosave_folder", lambda: folder)
