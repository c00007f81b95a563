"""A build whose model is ``./config.json`` beside the build file: the document's one resolver reaches every
place that reads the model (evaluate, the fit-frontier sweep, the other charts, the compare dialog, the demo).

Before the resolver, the sweep resolved the model without the build's folder, swallowed the exception and
the frontier said "No memory sweep" and blamed a parameter-count-only model.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QStandardPaths

from configurator.engine.sweep import fit_frontier
from configurator.ui.kiosk import FigureSpec, read_figure
from tests.gui_helpers import make_window

ROOT = Path(__file__).resolve().parents[2]
LLAMA = ROOT / "tests" / "fixtures" / "hf_configs" / "llama-3.1-8b.json"  # Meta's config.json, as published

BUILD = """\
schema_version: 1
name: 8B LoRA from a config.json beside this file
chassis: generic-server-8
cards:
  - {slot: 1, card: h200-nvl}
  - {slot: 2, card: h200-nvl}
bridges:
  - {slots: [1, 2]}
jobs:
  - {name: own config, model: ./config.json, method: lora, cards: [1, 2], parallelism: fsdp}
"""


def write_build(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(LLAMA, folder / "config.json")
    path = folder / "build.yaml"
    path.write_text(BUILD, encoding="utf-8")
    return path


def test_every_chart_draws_for_a_relative_config_json(qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = write_build(tmp_path / "build")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # ./config.json does not exist here: only the build's folder has it
    window = make_window(qtbot, tmp_path)
    assert window.files.open_path(path)  # File > Open
    doc = window.doc
    assert not [c for c in doc.result.checks if c.code == "JOB_MODEL_UNKNOWN"], doc.result.checks
    assert doc.result.jobs[0].model_name and doc.result.jobs[0].cards
    tabs = window.analysis
    for i in range(tabs.count()):  # every tab, as a user clicks through them (hidden tabs catch up when shown)
        tabs.setCurrentIndex(i)
        tabs.grab()
    assert not tabs.frontier.is_empty(), tabs.frontier.empty_text()
    assert tabs.frontier.frontier is not None and tabs.frontier.frontier.curves
    assert tabs.frontier.point_of_no_fit() is not None
    assert not tabs.step_time.is_empty() and tabs.step_time.bar_totals()
    assert not tabs.roofline.is_empty() and tabs.roofline.points()
    assert not tabs.topology.is_empty()
    assert window.chart.rows and all(r.capacity_gb > 0 for _, r in window.chart.rows)
    # the compare dialog's swapped copy resolves the model from the same folder
    QStandardPaths.setTestModeEnabled(True)
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    dialog.use_swap("h200-nvl", "rtx-pro-6000-server")
    assert dialog.other_result is not None
    assert not [c for c in dialog.other_result.checks if c.code == "JOB_MODEL_UNKNOWN"]
    assert dialog.other_result.jobs[0].cards
    # the demo's "on another card" figures use the scenario document's resolver too
    spec = FigureSpec(field="headroom_gb", label="left on the {card}", variant={"card": "h100-nvl"})
    figure = read_figure(spec, doc.build, doc.result, doc.catalog, doc.models)
    assert figure.value is not None, figure


def test_the_sweep_without_the_build_folder_finds_nothing(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The old call (no folder) cannot see the file: the resolver is what makes the frontier draw."""
    from configurator.catalog.loader import default_catalog
    from configurator.engine.model.buildfile import load_build
    from configurator.engine.model.resolver import ModelResolver

    path = write_build(tmp_path / "build")
    monkeypatch.chdir(tmp_path)
    build, catalog = load_build(path), default_catalog()
    assert fit_frontier(build, 0, catalog) is None
    frontier = fit_frontier(build, 0, catalog, models=ModelResolver(catalog, path.parent))
    assert frontier is not None and frontier.curves
