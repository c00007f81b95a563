"""The sheet's wall-circuit paragraph prints the engine's figures (Power.wall) instead of working the draw out
again: the sheet and the WALL_CIRCUIT_OVERLOAD check cannot disagree."""

from __future__ import annotations

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine import Build, evaluate
from configurator.engine.model.wall import PSU_EFFICIENCY, SITE_PRESETS
from configurator.report.sheet import _wall_html

CAT = default_catalog()


def _desk(site: str | None) -> Build:
    data: dict[str, object] = {
        "name": "desk",
        "chassis": "generic-workstation-4",
        "cards": [{"slot": s, "card": "rtx-pro-6000-ws"} for s in (1, 2, 3, 4)],
        "jobs": [{"name": "8B LoRA", "model": "llama-3.1-8b", "method": "lora", "cards": [1]}],
    }
    if site is not None:
        data["site"] = site
    return Build.model_validate(data)


@pytest.mark.parametrize("site", ["us-120v-15a", "eu-230v-16a"])
def test_result_carries_the_wall_draw_the_sheet_prints(site: str) -> None:
    r = evaluate(_desk(site), CAT)
    assert r.power is not None and r.power.wall is not None
    w, preset = r.power.wall, SITE_PRESETS[site]
    assert w.circuit == preset.label and w.volts == preset.volts and w.breaker_amps == preset.amps
    assert w.sustained_w == pytest.approx(r.power.total_w / PSU_EFFICIENCY)
    assert w.continuous_w == pytest.approx(preset.volts * preset.amps * preset.continuous_fraction)
    assert w.overloaded == (w.sustained_w > w.continuous_w)
    overload = [c for c in r.checks if c.code == "WALL_CIRCUIT_OVERLOAD"]
    assert bool(overload) == w.overloaded
    html = _wall_html(r.power)
    assert f"{w.sustained_w:,.0f} W" in html and f"{w.continuous_w:,.0f} W</b> continuous" in html
    assert ("<b>over</b>" in html) == w.overloaded


def test_no_site_no_wall() -> None:
    r = evaluate(_desk(None), CAT)
    assert r.power is not None and r.power.wall is None
    assert "no site given" in _wall_html(r.power)
