"""User text is never interpreted as markup: a build, job, class, node or seller named like HTML is shown as
the characters typed in every widget, tooltip, chart label (pyqtgraph draws titles, notes, axis titles and
legends as HTML), dialog, the compare dialog, the planner and the build sheet. A job named
``<img src='/dev/zero'>`` made Qt read /dev/zero for ever (std::bad_alloc) once the Fit frontier or
Roofline tab was shown: that reproducer runs in a fresh process (an abort is the risk)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QGraphicsTextItem, QGraphicsView, QLabel, QWidget

from tests.reliability.hostile import DEFAULT_BUILD, ROOT, SEED_B, run_fresh

# harmless if it were rendered (no such file), and unmistakable when found unescaped in a rich-text sink
HOSTILE = "<img src='/nonexistent/probe.png'><b>x</b>"
RAW = "<img"


def _raw_rich(text: object) -> bool:
    return isinstance(text, str) and RAW in text and Qt.mightBeRichText(text)


def _item_tips(view: QAbstractItemView) -> list[str]:
    model, out = view.model(), []
    if model is None:
        return out

    def walk(parent: QModelIndex, depth: int) -> None:
        try:
            columns = model.columnCount(parent)
        except TypeError:  # a list model takes no parent here
            columns = 1
        for r in range(model.rowCount(parent)):
            for c in range(max(columns, 1)):
                index = model.index(r, c, parent)
                tip = model.data(index, Qt.ItemDataRole.ToolTipRole)
                if _raw_rich(tip):
                    out.append(f"{type(view).__name__} item tooltip: {tip[:80]}")
                if c == 0 and depth < 3 and model.rowCount(index):
                    walk(index, depth + 1)

    walk(QModelIndex(), 0)
    return out


def rich_sinks_with_markup(root: QWidget) -> list[str]:
    """Every place under ``root`` where hostile text would be rendered as HTML: widget and item tooltips,
    labels not set to plain text, graphics text items (pyqtgraph's labels) and graphics item tooltips."""
    found: list[str] = []
    for w in [root, *root.findChildren(QWidget)]:
        if _raw_rich(w.toolTip()):
            found.append(f"{type(w).__name__} {w.objectName()!r} tooltip: {w.toolTip()[:80]}")
        if isinstance(w, QLabel) and w.textFormat() != Qt.TextFormat.PlainText and _raw_rich(w.text()):
            found.append(f"QLabel {w.objectName()!r}: {w.text()[:80]}")
        if isinstance(w, QAbstractItemView):
            found += _item_tips(w)
        if isinstance(w, QGraphicsView) and w.scene() is not None:
            for item in w.scene().items():
                if isinstance(item, QGraphicsTextItem) and RAW in item.toHtml():
                    found.append(f"{type(item).__name__}: {item.toPlainText()[:80]}")
                if _raw_rich(item.toolTip()):
                    found.append(f"{type(item).__name__} tooltip: {item.toolTip()[:80]}")
    return found


def test_dev_zero_as_every_name_never_aborts(home: Path) -> None:
    """The issue's reproducer, as a user meets it: every tab, every job, the compare dialog and the sheet."""
    proc = run_fresh([str(ROOT / "tests" / "reliability" / "markup_probe.py"), str(home)], home, timeout=90)
    assert proc.returncode == 0 and "drawn" in proc.stdout, proc.stderr[-2000:]


@pytest.fixture
def hostile_window(qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings

    from configurator.engine.buildfile import load_build
    from configurator.ui.shell import BuildDocument, MainWindow, Settings

    build = load_build(DEFAULT_BUILD)
    jobs = [j.model_copy(update={"name": f"{HOSTILE}{i}"}) for i, j in enumerate(build.jobs)]
    build = build.model_copy(update={"jobs": jobs, "name": HOSTILE})
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    settings.set("seller_name", HOSTILE)
    w = MainWindow(BuildDocument(build), settings)
    qtbot.addWidget(w, before_close_func=lambda x: x.doc.undo_stack.setClean())
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.doc.undo_stack.setClean()


def test_every_tab_job_and_dialog_shows_names_as_typed(hostile_window, qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.jobs import CompareDialog

    w = hostile_window
    found: list[str] = []
    for j in range(len(w.doc.build.jobs)):
        w.view.set_job(j)
        for i in range(w.analysis.count()):
            w.analysis.setCurrentIndex(i)
            qtbot.wait(1)
            found += [f"tab {w.analysis.tabText(i)}, job {j}: {f}" for f in rich_sinks_with_markup(w)]
    dialog = CompareDialog(w.doc, w)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.use_swap("h200-nvl", "rtx-pro-6000-server")
    found += [f"compare: {f}" for f in rich_sinks_with_markup(dialog)]
    shown: list[str] = []
    from PySide6.QtWidgets import QMessageBox

    def record(parent, title, text, *a, **k):  # type: ignore[no-untyped-def]
        shown.append(text)
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "critical", record)
    monkeypatch.setattr(QMessageBox, "warning", record)
    w.show_error(HOSTILE, f"a message naming {HOSTILE}")
    found += [f"message box: {t[:80]}" for t in shown if _raw_rich(t)]
    assert not found, "\n".join(dict.fromkeys(found))


def test_chart_hover_tips_are_plain_text(hostile_window) -> None:  # type: ignore[no-untyped-def]
    from configurator.catalog.richtext import plain_tooltip

    tip = plain_tooltip(f"{HOSTILE}: 12.0 GB\nsecond line")
    assert RAW not in tip and "&lt;img" in tip and "second line" in tip
    assert plain_tooltip("no markup") == "no markup"


def test_the_planner_shows_class_and_node_names_as_typed(qtbot) -> None:  # type: ignore[no-untyped-def]
    from configurator.engine.planner import load_plan
    from configurator.ui.planner.document import PlanDocument
    from configurator.ui.planner.window import PlannerWindow

    plan = load_plan(SEED_B)
    plan = plan.model_copy(update={
        "name": HOSTILE,
        "classes": [c.model_copy(update={"name": f"{HOSTILE}{i}"}) for i, c in enumerate(plan.classes)],
        "nodes": [n.model_copy(update={"name": f"{HOSTILE}n{i}"}) for i, n in enumerate(plan.nodes)],
    })  # fmt: skip
    window = PlannerWindow(PlanDocument(plan, None), lambda build: None)
    qtbot.addWidget(window, before_close_func=lambda x: x.doc.undo_stack.setClean())
    window.resize(1600, 1000)
    window.show()
    window.wait_for_plan()
    assert not rich_sinks_with_markup(window)
    window.doc.undo_stack.setClean()


def test_the_sheet_prints_names_as_typed(hostile_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QPdfWriter

    from configurator.report.pdf import BuildSheet

    w = hostile_window
    sheet = BuildSheet(w.doc.build, w.doc.result, None, w.sheet_options())
    doc, _ = sheet.prepare(QPdfWriter(str(tmp_path / "s.pdf")))
    html = doc.toHtml()
    assert "/nonexistent/probe.png" in doc.toPlainText()  # the name is printed, as typed
    assert "<img src=\"/nonexistent" not in html and "<img src='/nonexistent" not in html
