"""The main window's shell at real screen sizes (issue 15): keyboard focus stays on what is shown, nothing
is clipped at 1024x700, the window sizes itself to the screen or to where it was left, no dead space or
duplicated titles, and no Qt warnings on start-up."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, QSize, QStandardPaths, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from tests.gui_helpers import clipped, on_screen, rect_in

pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture(autouse=True)
def _isolated_paths() -> None:
    QStandardPaths.setTestModeEnabled(True)


def test_tab_never_reaches_the_jobs_form_behind_the_cards_tab(window) -> None:  # type: ignore[no-untyped-def]
    """With the Cards tab shown, Tab cycles through what is on screen only: before, it walked into the Jobs
    form Qt had parked off-screen, where two Down presses changed the LoRA rank unseen."""
    window.cards_dock.raise_()
    window.activateWindow()
    window.card_palette.setFocus()
    QApplication.processEvents()
    rank = window.jobs_panel.rank_spin.value()
    for key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
        focused = tab_round(window, key, 60)
        hidden = [w for w in focused if not on_screen(w, window) or window.jobs_panel.isAncestorOf(w)]
        assert not hidden, [f"{type(w).__name__} {w.objectName() or w.accessibleName()}" for w in hidden]
        assert window.chassis_view in focused and window.checks in focused  # Tab still goes round the window
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Down)
    assert window.jobs_panel.rank_spin.value() == rank

    # The Jobs tab chosen: Tab reaches its form, and no longer the palette behind it
    window.jobs_dock.raise_()
    window.jobs_panel.job_list.setFocus()
    QApplication.processEvents()
    focused = tab_round(window, Qt.Key.Key_Tab, 80)
    assert window.jobs_panel.rank_spin in focused
    assert not [w for w in focused if window.card_palette.isAncestorOf(w) or w is window.card_palette]


def tab_round(window, key: Qt.Key, presses: int) -> list[QWidget]:  # type: ignore[no-untyped-def]
    """The widgets that held the focus over ``presses`` presses of ``key``, starting where it is."""
    focused: list[QWidget] = []
    for _ in range(presses):
        widget = QApplication.focusWidget()
        assert widget is not None
        focused.append(widget)
        QTest.keyClick(widget, key)
    return focused


@pytest.mark.parametrize("tab", ["cards", "jobs"])
def test_nothing_clipped_at_1024x700(window, qtbot, tab: str) -> None:  # type: ignore[no-untyped-def]
    """At 1024x700 the window keeps its size (it grew to 1048 px: the summary strip's one row set the
    minimum) and every widget and label fits in it; the analysis pages scroll sideways instead of being cut."""
    (window.cards_dock if tab == "cards" else window.jobs_dock).raise_()
    window.resize(1024, 700)
    qtbot.wait(20)
    assert (window.width(), window.height()) == (1024, 700)
    hint = window.minimumSizeHint()
    assert hint.width() <= window.minimumWidth() and hint.height() <= window.minimumHeight()
    for i in range(window.analysis.count()):
        window.analysis.setCurrentIndex(i)
        QApplication.processEvents()
        assert not clipped(window), window.analysis.tabText(i)
        # the pages are never narrower than they need: the scroll area scrolls what does not fit
        scroll = window.analysis_scroll
        page = window.analysis.currentWidget()
        assert page.width() >= page.minimumSizeHint().width()
        assert window.analysis.width() <= scroll.viewport().width() + scroll.horizontalScrollBar().maximum()
    assert on_screen(window.statusBar(), window) and rect_in(window.statusBar(), window).right() < 1024


def bare_window(qtbot, tmp_path: Path, settings_file: str = "settings.ini"):  # type: ignore[no-untyped-def]
    """A window as the app makes it: no resize after construction (make_window sets 1280x800)."""
    from configurator.cli import default_build_path
    from configurator.engine.model.buildfile import load_build
    from configurator.ui.base.document import BuildDocument
    from configurator.ui.base.settings import Settings
    from configurator.ui.shell.main_window import MainWindow

    settings = Settings(QSettings(str(tmp_path / settings_file), QSettings.Format.IniFormat))
    window = MainWindow(BuildDocument(load_build(default_build_path())), settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    return window


def test_first_start_fills_most_of_the_screen() -> None:
    from configurator.ui.base.windows import MIN_WINDOW
    from configurator.ui.shell.layout import default_geometry

    full_hd = QRect(0, 0, 1920, 1040)  # 1920x1080 less a 40 px panel
    rect = default_geometry(full_hd, MIN_WINDOW)
    assert (rect.width(), rect.height()) == (1728, 936)  # was a fixed 1440x900
    assert rect.center() == full_hd.center()
    small = default_geometry(QRect(0, 24, 1024, 744), MIN_WINDOW)  # 1024x768 under a 24 px top bar
    assert small == QRect(0, 24, 1024, 744)  # a small screen, all of it: at 90 % the tab strip did not fit
    assert default_geometry(QRect(0, 0, 1280, 800), MIN_WINDOW).size() == QSize(1280, 800)
    tiny = default_geometry(QRect(0, 0, 800, 600), MIN_WINDOW)
    assert tiny.topLeft() == QPoint(0, 0) and tiny.size() == MIN_WINDOW  # title bar kept on screen


def test_window_opens_at_its_screen_or_where_it_was_left(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.shell.layout import default_geometry

    first = bare_window(qtbot, tmp_path)
    available = first.screen().availableGeometry()
    assert first.geometry() == default_geometry(available, first.minimumSize())
    first.show()
    qtbot.waitExposed(first)
    # a place inside the screen (Qt's restoreGeometry moves and shrinks a window onto its screen)
    left = QRect(available.left(), available.top() + 30, first.minimumWidth(), first.minimumHeight() + 10)
    assert left.size() != first.size()
    first.setGeometry(left)
    qtbot.wait(10)
    first.close()  # closing remembers the geometry in the settings

    again = bare_window(qtbot, tmp_path)
    assert again.geometry().size() == left.size()
    assert (again.geometry().topLeft() - left.topLeft()).manhattanLength() <= 4  # the frame, offscreen


def test_tabbed_docks_show_no_title_of_their_own(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The tab under the Cards and Jobs docks names them; a title bar above repeated "Cards". Floated, a
    dock gets its title bar back (it is how one moves the window); docked again, it goes."""
    for dock in (window.cards_dock, window.jobs_dock):
        assert dock.titleBarWidget() is not None and dock.titleBarWidget().height() == 0
    palette_top = window.card_palette.mapTo(window, QPoint(0, 0)).y()
    assert palette_top - window.menuBar().geometry().bottom() <= 4
    titles = [w for w in window.findChildren(QLabel) if w.isVisible() and w.text() in ("Cards", "Jobs")]
    assert not titles
    window.jobs_dock.setFloating(True)
    qtbot.wait(10)
    assert window.jobs_dock.titleBarWidget() is None
    window.jobs_dock.setFloating(False)
    qtbot.wait(10)
    assert window.jobs_dock.titleBarWidget() is not None


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_chassis_drawn_from_the_top_of_its_view(window, qtbot, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The chassis fits its view's width; the height left over went above it as well as below (109 px of
    nothing at 1024x700, 143 px at 1920x1080). Now the drawing starts at the top."""
    window.resize(*size)
    qtbot.wait(20)
    view = window.chassis_view
    view.fit()
    drawn = view.mapFromScene(view.scene().sceneRect()).boundingRect()
    assert drawn.top() <= 4, drawn.getRect()
    assert drawn.width() >= view.viewport().width() - 8  # still as wide as the view allows


def test_no_qt_warnings_on_start_up_and_show(qtbot, tmp_path: Path, qtlog) -> None:  # type: ignore[no-untyped-def]
    """No "propagateSizeHints" (the layout set a new window minimum on each relayout after the window was
    created) and no "Ambiguous shortcut overload" while the window starts, shows, switches tabs and resizes."""
    window = bare_window(qtbot, tmp_path)
    window.show()
    qtbot.waitExposed(window)
    window.jobs_dock.raise_()
    window.resize(1024, 700)
    window.cards_dock.raise_()
    for i in range(window.analysis.count()):
        window.analysis.setCurrentIndex(i)
        qtbot.wait(5)
    window.resize(1920, 1080)
    qtbot.wait(20)
    noise = [r.message for r in qtlog.records if "propagateSizeHints" in r.message or "Ambiguous" in r.message]
    assert not noise
    # every action's keys once in the window (the same key twice is the ambiguous overload)
    from PySide6.QtGui import QAction

    window_wide = [a for a in window.findChildren(QAction) if a.shortcutContext() != Qt.ShortcutContext.WidgetShortcut]
    keys = [k.toString() for a in window_wide for k in a.shortcuts()]
    assert len(keys) == len(set(keys)), sorted(keys)


NOISE_PROBE = """
import sys, tempfile
from PySide6.QtCore import QSettings, QStandardPaths, Qt, qInstallMessageHandler
from PySide6.QtGui import QUndoCommand
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
messages = []
qInstallMessageHandler(lambda mode, context, text: messages.append(text))
app = QApplication(sys.argv[:1])
QStandardPaths.setTestModeEnabled(True)
from configurator.cli import default_build_path
from configurator.engine.model.buildfile import load_build
from configurator.ui.shell import files
from configurator.ui.base.document import BuildDocument
from configurator.ui.shell.main_window import MainWindow
from configurator.ui.base.settings import Settings
folder = tempfile.mkdtemp()
files.autosave_folder = lambda: __import__("pathlib").Path(folder) / "autosave"
settings = Settings(QSettings(folder + "/settings.ini", QSettings.Format.IniFormat))
window = MainWindow(BuildDocument(load_build(default_build_path())), settings)
window.show()
QTest.qWaitForWindowExposed(window)
shift_z = (Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
# one window per process: without a window manager Xvfb gives the keyboard to the first window activated only
top = window.open_planner() if sys.argv[1] == "planner" else window
top.show()
QTest.qWaitForWindowExposed(top)
top.activateWindow()
QTest.qWaitForWindowActive(top, 5000)
top.doc.undo_stack.push(QUndoCommand("probe"))
top.doc.undo_stack.undo()
QTest.keyClick(QApplication.focusWidget() or top, *shift_z)
app.processEvents()
print("redid" if top.doc.undo_stack.canUndo() else "not redone", type(top).__name__)
top.doc.undo_stack.setClean()
for text in messages:
    print("QT:", text)
"""


@pytest.mark.skipif(__import__("shutil").which("xvfb-run") is None, reason="xvfb-run not installed")
def test_no_ambiguous_redo_on_x11(tmp_path: Path) -> None:
    """On X11 the platform's Redo key is Ctrl+Shift+Z, so the planner's [Ctrl+Shift+Z, StandardKey.Redo]
    held it twice: Qt logged "Ambiguous shortcut overload: Ctrl+Shift+Z" and did not redo. A real xcb
    window on a virtual X server, the keys pressed in the main window and the planner."""
    import os
    import shlex
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["QT_QPA_PLATFORM"] = "xcb"
    probe = " ".join(shlex.quote(part) for part in (sys.executable, "-c", NOISE_PROBE))
    both = f"{probe} main && {probe} planner"
    command = ["xvfb-run", "-a", "-s", "-screen 0 1920x1080x24", "sh", "-c", both]
    root = Path(__file__).parents[2]
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180, cwd=root)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "redid MainWindow" in run.stdout and "redid PlannerWindow" in run.stdout, run.stdout
    noise = [line for line in run.stdout.splitlines() if "Ambiguous" in line or "propagateSizeHints" in line]
    assert not noise


def test_docks_sized_for_the_window_they_open_in(window) -> None:  # type: ignore[no-untyped-def]
    """The Cards/Jobs docks open at a share of the window (281 px at 1280), not squeezed to the palette's
    230 px minimum; the jobs form (about 300 px) gets room."""
    from configurator.ui.shell.layout import left_dock_width

    assert left_dock_width(1024) == 230 and left_dock_width(1920) == 340
    assert abs(window.cards_dock.width() - left_dock_width(1280)) <= 2
