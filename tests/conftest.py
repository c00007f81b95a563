"""Shared fixtures. Tests run headless: Qt uses the offscreen platform, no GPU, no network."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Hypothesis profiles. Each property test names its full example count through tests/test_properties.examples();
# "quick", the default, runs a fifth of it (at least 20) to keep `make test` short (on two cores ~65 s with the
# bundle kept, ~88 s when it is rebuilt); "full" runs all of them (5,040 in test_reliability_properties alone):
# `make test-full`, HYPOTHESIS_PROFILE=full or pytest --hypothesis-profile=full. Both print the blob that replays
# a failure (@reproduce_failure).
# deadline=None: hypothesis' default 200 ms deadline per example is a wall-clock assertion, and fails on a busy
# machine like any other (timings live in benchmarks/; tests/reliability/test_rel_no_timing.py checks this)
settings.register_profile("quick", print_blob=True, deadline=None)
settings.register_profile("full", print_blob=True, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))


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

    for name in ("critical", "warning", "information", "question", "about", "exec"):
        monkeypatch.setattr(QMessageBox, name, refuse)
    for name in ("getOpenFileName", "getSaveFileName", "getExistingDirectory"):
        monkeypatch.setattr(QFileDialog, name, refuse)
    monkeypatch.setattr(QInputDialog, "getText", refuse)


@pytest.fixture(autouse=True)
def _delete_test_windows() -> Iterator[None]:
    """Delete the top-level widgets a test leaves behind (pytest-qt only closes them).

    Closed windows stay alive until the interpreter exits: after tests/ui/test_gui.py alone a worker held 2,019
    top-level widgets and 17,440 widgets in all, every one of them still in the application's widget list, and
    their destruction at the worker's exit took seconds at the end of `make test`. Deleting them here also
    proves that every window of ours can be deleted while the application runs. Windows that existed before the
    test (a module-scoped fixture's window, set up first because fixtures set up by scope) are kept.
    """
    try:
        from PySide6.QtCore import QCoreApplication, QEvent
        from PySide6.QtWidgets import QApplication, QDialog, QMainWindow
    except ImportError:  # engine-only environments
        yield
        return
    app = QApplication.instance()
    before = set(app.topLevelWidgets()) if isinstance(app, QApplication) else set()
    yield
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    for widget in app.topLevelWidgets():
        # Only windows: a parentless popup belongs to an object that is not a widget (pyqtgraph's ViewBox holds
        # its QMenu so), and deleting it under that owner segfaulted when the owner's scene went next.
        if widget not in before and isinstance(widget, (QMainWindow, QDialog)):
            widget.close()
            widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(autouse=True)
def _private_autosave(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test gets its own autosave folder, so no test sees another's (or the user's) autosaves."""
    try:
        import configurator.ui.shell.files as files
    except ImportError:
        return
    folder = tmp_path_factory.mktemp("autosave")
    monkeypatch.setattr(files, "autosave_folder", lambda: folder)


@pytest.fixture(autouse=True)
def _private_trace_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test gets its own trace cache folder (configurator/trace/cache.py), so no test reads the user's
    traced results, or another test's, into a window, a sheet or the command line."""
    monkeypatch.setenv("CONFIGURATOR_TRACE_CACHE", str(tmp_path_factory.mktemp("traces")))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files with a ``slow`` test (the bundle and wheel builds: a minute of CPU between them on a fresh clone,
    seconds when tests/build_cache.py kept them from an earlier run on the same tree) first, then the
    others by their number of tests, as xdist orders them, so that `make test` (--no-loadscope-reorder) starts
    the builds beside the rest instead of leaving them for last; the order inside a file is kept."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    count: dict[object, int] = {}
    for item in items:
        count[item.path] = count.get(item.path, 0) + 1
    items.sort(key=lambda item: (item.path not in slow, -count[item.path]))


@pytest.fixture
def window(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    """The main window on the preloaded build, 1280x800, shown, with private settings and Qt's test-mode folders;
    left clean so that closing it asks nothing. The one window fixture of the suite (tests/gui_helpers.py)."""
    from PySide6.QtCore import QStandardPaths

    from tests.gui_helpers import make_window

    QStandardPaths.setTestModeEnabled(True)
    made = make_window(qtbot, tmp_path)
    yield made
    made.doc.undo_stack.setClean()


@pytest.fixture
def active_window(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    """``window``, activated: key events reach the focused widget only in the active window."""
    from tests.gui_helpers import make_active_window

    made = make_active_window(qtbot, tmp_path)
    yield made
    made.doc.undo_stack.setClean()
