"""User text is never interpreted as markup: a build, job, class, node or seller named like HTML is shown as
the characters typed in every widget, tooltip, chart label (pyqtgraph draws titles, notes, axis titles and
legends as HTML), dialog, the compare dialog, the planner and the build sheet. A job named
``<img src='/dev/zero'>`` made Qt read /dev/zero for ever (std::bad_alloc) once the Fit frontier or
Roofline tab was shown: that reproducer runs in a fresh process (an abort is the risk)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import Qt as QtGuiNs  # mightBeRichText lives in QtGui's Qt namespace
from PySide6.QtWidgets import QAbstractItemView, QGraphicsTextItem, QGraphicsView, QLabel, QWidget

from tests.reliability.hostile import DEFAULT_BUILD, ROOT, SEED_B, run_fresh

# harmless if it were rendered (no such file), and unmistakable when found unescaped in a rich-text sink
HOSTILE = "<img src='/nonexistent/probe.png'><b>x</b>"
RAW = "<img"


def _raw_rich(text: object) -> bool:
    return isinstance(text, str) and RAW in text and QtGuiNs.mightBeRichText(text)


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

    from configurator.engine.model.buildfile import load_build
    from configurator.ui.base import BuildDocument, Settings
    from configurator.ui.shell import MainWindow

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
    for j, job in enumerate(w.doc.build.jobs):
        w.view.set_job(job.name)
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
    w.files.show_error(HOSTILE, f"a message naming {HOSTILE}")
    found += [f"message box: {t[:80]}" for t in shown if _raw_rich(t)]
    assert not found, "\n".join(dict.fromkeys(found))


def test_chart_hover_tips_are_plain_text(hostile_window) -> None:  # type: ignore[no-untyped-def]
    from configurator.catalog.richtext import plain_tooltip

    tip = plain_tooltip(f"{HOSTILE}: 12.0 GB\nsecond line")
    assert RAW not in tip and "&lt;img" in tip and "second line" in tip
    assert plain_tooltip("no markup") == "no markup"


def test_the_planner_shows_class_and_node_names_as_typed(qtbot) -> None:  # type: ignore[no-untyped-def]
    from configurator.engine.planner import load_plan
    from configurator.ui.base.plan_document import PlanDocument
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
    sheet = BuildSheet(w.doc.build, w.doc.result, None, w.sheet.options())
    doc, _ = sheet.prepare(QPdfWriter(str(tmp_path / "s.pdf")))
    html = doc.toHtml()
    assert "/nonexistent/probe.png" in doc.toPlainText()  # the name is printed, as typed
    assert "<img src=\"/nonexistent" not in html and "<img src='/nonexistent" not in html


# ---- the windows beyond the main window: kiosk, preferences, MIG editor, trace row, verify, help ---------------


def _hostile_demo(folder: Path) -> Path:
    """The shipped demo scenarios with every title, build, job, class and server named like HTML (a shop's own
    scenarios file is user text): the copy's scenarios.yaml."""
    import json
    import re
    import shutil

    demo, plans = folder / "demo", folder / "plans"
    shutil.copytree(ROOT / "resources" / "demo", demo)
    shutil.copytree(ROOT / "resources" / "plans", plans)
    quoted = lambda m: f"{m[1]}{json.dumps(HOSTILE + ' ' + m[2].strip(chr(34)))}"  # noqa: E731
    for build in demo.glob("[0-9]*.yaml"):  # the build's name and its jobs' (block and flow style)
        text = re.sub(r"^(name: |  - name: )(.+)$", quoted, build.read_text(), flags=re.M)
        text = text.replace('name: "30B model"', f"name: {json.dumps(HOSTILE + ' 30B model')}")  # a model
        build.write_text(re.sub(r"(\{name: )(Tenant \w)", quoted, text))
    plan = plans / "seed-b-service.yaml"
    text = plan.read_text()
    names = re.findall(r"^  - name: (.+)$", text, flags=re.M)
    scenarios = demo / "scenarios.yaml"
    listing = re.sub(r"^(  - title: )(.+)$", quoted, scenarios.read_text(), flags=re.M)
    for name in names:  # the classes and servers, and the scenario's references to them
        pattern = rf"(?<=[ \[]){re.escape(name)}(?=[,\]\n])"
        text = re.sub(pattern, lambda m: json.dumps(f"{HOSTILE} {m[0]}"), text)
        listing = re.sub(pattern, lambda m: json.dumps(f"{HOSTILE} {m[0]}"), listing)
    plan.write_text(re.sub(r"^(name: )(.+)$", quoted, text, flags=re.M))
    scenarios.write_text(listing)
    return scenarios


def test_the_kiosk_shows_every_scenario_and_the_take_home_panel_as_typed(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings

    from configurator.ui.base.settings import Settings
    from configurator.ui.kiosk import DemoWindow

    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    settings.q.setValue("demo/folder", str(tmp_path / "take-home"))
    settings.set("seller_name", HOSTILE)
    window = DemoWindow(settings, idle_ms=600_000, scenarios_path=_hostile_demo(tmp_path))
    qtbot.addWidget(window)
    window.resize(1920, 1080)
    window.show()
    qtbot.waitExposed(window)
    assert any(s.is_plan for s in window.scenarios) and HOSTILE in window.scenarios[0].title
    found: list[str] = []
    for i, s in enumerate(window.scenarios):
        window.show_scenario(i)
        qtbot.wait(1)
        found += [f"scenario {i + 1}: {f}" for f in rich_sinks_with_markup(window)]
        if s.is_plan:
            for node in [None, *dict.fromkeys(n.name for n in s.plan.nodes)]:  # type: ignore[union-attr]
                window.set_plan_servers(node)
                found += [f"plan scenario, servers {node}: {f}" for f in rich_sinks_with_markup(window)]
    window.show_scenario(4)  # a model of the build's own: the take-home panel is named after it
    assert window.take_home() != "" and HOSTILE in window.take_home_flow.code_panel.title.text()
    found += [f"take home: {f}" for f in rich_sinks_with_markup(window)]
    window.take_home_flow.show_outcome(OSError(f"cannot write {HOSTILE}"))
    found += [f"take home failed: {f}" for f in rich_sinks_with_markup(window)]
    assert not found, "\n".join(dict.fromkeys(found))


def test_preferences_show_a_hostile_seller_and_price_list_as_typed(qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QMessageBox

    from configurator.ui.base.settings import Settings
    from configurator.ui.shell.preferences import PreferencesDialog

    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    settings.set("seller_name", HOSTILE)
    dialog = PreferencesDialog(settings)
    qtbot.addWidget(dialog)
    dialog.show()
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a, **k: shown.append(text))
    dialog.prices.setText(str(tmp_path / f"{HOSTILE}.csv"))  # a price list that is not there
    dialog.accept()
    assert shown and dialog.isVisible(), "the missing price list is refused"
    found = rich_sinks_with_markup(dialog) + [f"message box: {t[:80]}" for t in shown if _raw_rich(t)]
    assert not found, "\n".join(found)


def test_the_mig_editor_shows_a_hostile_job_on_an_instance_as_typed(qtbot) -> None:  # type: ignore[no-untyped-def]
    from configurator.engine.model.buildfile import load_build
    from configurator.ui.base.document import BuildDocument
    from configurator.ui.mig import MigEditor

    build = load_build(ROOT / "resources" / "builds" / "seed-mig-four-tenants.yaml")
    jobs = [j.model_copy(update={"name": f"{HOSTILE}{'abcd'[i]}"}) for i, j in enumerate(build.jobs)]
    doc = BuildDocument(build.model_copy(update={"jobs": jobs, "name": HOSTILE}))
    editor = MigEditor(doc)
    qtbot.addWidget(editor)
    editor.resize(900, 500)
    editor.show()
    qtbot.waitExposed(editor)
    assert editor.view.blocks, "the instances are drawn"
    assert not rich_sinks_with_markup(editor)


def test_the_trace_row_shows_hostile_ops_modules_and_messages_as_typed(hostile_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """A cached trace whose op, module, kernel and notes read like HTML (the worker reports what the model's
    own code names), a failure message and the progress words: as typed in the Jobs tab's Trace exactly row."""
    from configurator.trace.protocol import Breakdown, TraceResult

    w = hostile_window
    row = w.jobs_panel.trace_row
    w.view.set_job(w.doc.build.jobs[1].name)
    traced = TraceResult(ok=True, peak_allocated_bytes=48_123_000_000, phase="backward", op=HOSTILE,
                         module=HOSTILE, attention_kernel=HOSTILE, notes=[HOSTILE],
                         breakdown=Breakdown(parameters=40_000_000_000, activations=8_123_000_000),
                         versions={"torch": HOSTILE})  # fmt: skip
    found: list[str] = []
    row._show_result(traced)
    found += [f"traced: {f}" for f in rich_sinks_with_markup(w.jobs_panel)]
    row._show_error(f"the worker said {HOSTILE}")
    found += [f"failed: {f}" for f in rich_sinks_with_markup(w.jobs_panel)]
    row.task_job = w.doc.build.jobs[1].name
    row._progressed(0.5, HOSTILE)
    found += [f"progress: {f}" for f in rich_sinks_with_markup(w.jobs_panel)]
    row._set_idle("", enabled=False, tip=f"cannot trace {HOSTILE}")
    found += [f"refused: {f}" for f in rich_sinks_with_markup(w.jobs_panel)]
    assert not found, "\n".join(dict.fromkeys(found))


def test_the_verify_dialog_shows_hostile_names_and_files_as_typed(  # type: ignore[no-untyped-def]
    hostile_window, qtbot, tmp_path: Path, monkeypatch
) -> None:
    import shutil

    from configurator.ui.shell.verify_dialog import open_verify_dialog

    w = hostile_window
    results = tmp_path / HOSTILE.replace("/", "_")
    shutil.copytree(ROOT / "tests" / "fixtures" / "acceptance" / "gpu-x8", results)
    (results / f"{HOSTILE.replace('/', '_')}.txt").write_bytes(b"\x00\xff" * 50 + b"GPU0 GPU1\nGPU0 X ZZZ\n")
    dialog = open_verify_dialog(w)
    with qtbot.waitSignal(dialog.verified, timeout=30000):
        dialog.load([results, tmp_path / f"{HOSTILE.replace('/', '_')}-missing.txt"])
    found = [f"verify: {f}" for f in rich_sinks_with_markup(dialog)]
    monkeypatch.setattr("configurator.ui.shell.verify_dialog.data_folder", lambda: tmp_path / HOSTILE.replace("/", "_"))
    dialog.store()
    dialog.save_pdf(tmp_path / "no-such-folder" / f"{HOSTILE.replace('/', '_')}.pdf")
    found += [f"verify, kept and saved: {f}" for f in rich_sinks_with_markup(dialog)]
    found += [f"main window, marked: {f}" for f in rich_sinks_with_markup(w)]
    dialog.close()
    assert not found, "\n".join(dict.fromkeys(found))


def test_the_help_dialogs_show_hostile_recent_files_as_typed(hostile_window) -> None:  # type: ignore[no-untyped-def]
    w = hostile_window
    w.settings.set("recent_files", [f"/tmp/{HOSTILE}.yaml"])
    w.menus.fill_recent()
    found: list[str] = []
    for dialog in (w.quick_start(), w.keyboard_shortcuts()):
        found += [f"{dialog.windowTitle()}: {f}" for f in rich_sinks_with_markup(dialog)]
        dialog.close()
    assert not found, "\n".join(found)


def test_a_cached_hostile_trace_is_shown_as_typed_in_the_jobs_tab(hostile_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The same through the real cache (as after a restart): the row and the headroom chart's note."""
    from configurator.trace.cache import TraceCache
    from configurator.trace.protocol import Breakdown, TraceResult
    from configurator.trace.request import prepare_trace

    w = hostile_window
    w.doc._set_path(DEFAULT_BUILD)  # relative config.json paths from the build's folder
    name = w.doc.build.jobs[1].name
    prepared = prepare_trace(w.doc.build, name, w.doc.catalog, resolver=w.doc.models)
    traced = TraceResult(ok=True, peak_allocated_bytes=48_123_000_000, phase="backward", op=HOSTILE,
                         module=HOSTILE, breakdown=Breakdown(parameters=40_000_000_000, activations=8_123_000_000),
                         versions={"torch": HOSTILE})  # fmt: skip
    TraceCache().put(prepared.request, {"torch": HOSTILE}, traced)
    assert w.jobs_panel.trace_row.cached_line(name)
    w.jobs_panel.select_job(1)
    w.jobs_panel.trace_row.show_job(w.doc.build, w.doc.result, 1)
    assert "48.12 GB" in w.jobs_panel.trace_row.label.text(), "the cached result is shown"
    tip = w.chart.tooltip_for(1)  # the headroom bar's hover tip carries the cached line
    assert "&lt;img" in tip and RAW not in tip
    assert not rich_sinks_with_markup(w)
