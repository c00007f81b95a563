"""The view state: one unit, one theme and one selection that every view follows, and settings that are
declared once, validated, and never stop the window when a stored value is bad."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction

from configurator.ui.base.settings import OPTIONS, Settings
from configurator.ui.base.view_state import ViewState
from tests.gui_helpers import make_window

ROOT = Path(__file__).resolve().parents[2]


def ini(tmp_path: Path, **values: object) -> Settings:
    q = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    for key, value in values.items():
        q.setValue(key.replace("__", "/"), value)
    q.sync()
    return Settings(q)


def test_a_bad_stored_value_falls_back_to_its_default_with_a_warning(tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    s = ini(tmp_path, units="MB", theme="purple", autosave_seconds="soon", page="a3", demo__pin="12ab",
            demo__idle_minutes="-2")  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="configurator.ui.base.settings"):
        assert s.get("units") == "GB" and s.get("theme") == "light" and s.get("autosave_seconds") == 30
        assert s.get("page") == "" and s.get("demo/pin") == "2468" and s.get("demo/idle_minutes") == 3.0
    warned = caplog.text
    for key in ("units", "theme", "autosave_seconds", "page", "demo/pin", "demo/idle_minutes"):
        assert f"setting {key}=" in warned, key


def test_units_mb_does_not_stop_the_window(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """units=MB in the settings file: the window opens in GB (before, 'MB' reached the View > Units menu's
    action lookup and raised KeyError)."""
    ini(tmp_path, units="MB")
    window = make_window(qtbot, tmp_path)  # the same settings.ini
    assert window.unit == "GB" and window.view.unit == "GB"


def test_undeclared_settings_are_refused(tmp_path: Path) -> None:
    s = ini(tmp_path)
    with pytest.raises(KeyError):
        s.get("no/such/key")
    with pytest.raises(KeyError):
        s.set("no/such/key", 1)


def test_no_raw_qsettings_keys_outside_the_settings_module() -> None:
    offenders = []
    for path in sorted((ROOT / "configurator").rglob("*.py")):
        if path.name == "settings.py":
            continue
        text = path.read_text(encoding="utf-8")
        for needle in (".q.value(", ".q.setValue("):
            if needle in text:
                offenders.append(f"{path.relative_to(ROOT)}: {needle}")
    assert not offenders, offenders
    assert {"units", "theme", "window/geometry", "demo/pin", "demo/idle_minutes", "demo/folder"} <= set(OPTIONS)


def test_view_state_emits_once_per_change() -> None:
    view = ViewState()
    seen: list[object] = []
    view.unit_changed.connect(seen.append)
    view.theme_changed.connect(seen.append)
    view.set_unit("GiB")
    view.set_unit("GiB")
    view.set_dark(True)
    assert seen == ["GiB", True]
    with pytest.raises(ValueError, match="unknown display unit"):
        view.set_unit("MB")


def test_view_units_reach_the_fit_frontier(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """View > Units > GiB: the headroom chart and the fit frontier's axis, curves and title follow."""
    window = make_window(qtbot, tmp_path)
    window.analysis.setCurrentWidget(window.analysis.frontier)
    frontier = window.analysis.frontier
    before = frontier.curves[0].getOriginalDataset()[1].copy()
    units = {a.data(): a for a in window.findChildren(QAction) if a.data() in ("GB", "GiB")}
    units["GiB"].trigger()
    assert frontier.plot.getAxis("left").labelText == "Headroom (GiB)"
    after = frontier.curves[0].getOriginalDataset()[1]
    assert after == pytest.approx(before * 1e9 / 2**30)
    assert frontier.title_text.endswith("GiB)")
    assert window.chart.unit == "GiB"


def test_demo_figures_and_labels_follow_the_unit(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.kiosk import DemoWindow

    settings = ini(tmp_path, units="GiB")
    settings.set("demo/folder", str(tmp_path / "take-home"))
    demo = DemoWindow(settings)
    qtbot.addWidget(demo)
    demo.resize(1920, 1080)
    demo.show()
    qtbot.waitExposed(demo)
    key = demo.key_figure()
    if demo.scenario.key.unit == "GB":
        assert key.number.endswith(" GiB"), key
    assert demo.chart.unit == "GiB"
    assert all("GB" not in label.textItem.toPlainText() for label in demo.chart.labels if label.isVisible())


def test_clicking_a_mig_card_in_the_chassis_shows_it_in_the_mig_editor(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The chassis' slot_selected was emitted and never connected; now the view state carries it."""
    from PySide6.QtCore import Qt

    from tests.gui_helpers import slot_point
    from tests.paths import BUILDS

    window = make_window(qtbot, tmp_path, BUILDS / "seed-mig-four-tenants.yaml")
    window.doc.open(BUILDS / "seed-mig-four-tenants.yaml")
    qtbot.mouseClick(window.chassis_view.viewport(), Qt.MouseButton.LeftButton,
                     pos=slot_point(window.chassis_view, 1))  # fmt: skip
    assert window.view.slot == 1
    assert window.mig_editor.current_slot() == 1
