"""The kiosk uses a larger screen: its chart and chassis grow from 1280x800 to 1920x1080 and 2560x1440, the chart's
legend stands beside the plot instead of taking three rows above it (the plot was 180 px high at 1920x1080, about
what it was at 1280x800), every slot stays in view, and the chassis's slot labels read at a stand's distance
(they were ~8-10 px at 1920x1080)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, QRect, QSettings

from tests.shots import save_shot

SIZES = [(1280, 800), (1920, 1080), (2560, 1440)]


def _measure(demo, qtbot) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The figures once the layout has settled: the chart's graphics layout settles on posted events and timers, so
    a fixed wait read it half done on a loaded machine; look until two looks 30 ms apart agree (bounded)."""
    last: dict[str, float] | None = None
    for _ in range(100):
        qtbot.wait(30)
        now = _look(demo)
        if now == last:
            return now
        last = now
    assert last is not None
    return last


def _look(demo) -> dict[str, float]:  # type: ignore[no-untyped-def]
    chart, chassis = demo.chart, demo.chassis
    shown = QRect(QPoint(0, 0), chassis.viewport().size()).adjusted(-1, -1, 1, 1)
    slots = [chassis.mapFromScene(item.sceneBoundingRect()).boundingRect() for item in chassis.slot_items.values()]
    legend = chart.legend.sceneBoundingRect()
    plot = chart.plot.vb.sceneBoundingRect()
    return {
        "chart_area": chart.width() * chart.height(),
        "plot_h": chart.plot_height(),
        "label_px": chassis.label_px(),
        "slots": len(slots),
        "slots_shown": sum(shown.contains(r) for r in slots),
        "legend_beside": legend.left() >= plot.right() - 1 and legend.top() < plot.bottom(),
    }


def test_kiosk_chart_and_chassis_grow_with_the_screen(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from configurator.ui.base.settings import Settings
    from configurator.ui.kiosk import DemoWindow

    demo = DemoWindow(Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), idle_ms=600_000)
    qtbot.addWidget(demo)
    demo.allow_close = True
    demo.show()
    qtbot.waitExposed(demo)
    seen: dict[tuple[int, int], list[dict[str, float]]] = {}
    for size in SIZES:
        demo.resize(*size)
        seen[size] = []
        for i in range(demo.scenario_count()):
            demo.show_scenario(i)
            seen[size].append(_measure(demo, qtbot))
        demo.show_scenario(0)
        save_shot(demo, f"kiosk-growth-{size[0]}x{size[1]}")
    small, large, huge = (seen[s] for s in SIZES)
    builds = [i for i, s in enumerate(demo.scenarios) if not s.is_plan]
    for i in range(demo.scenario_count()):
        for size in SIZES:
            m = seen[size][i]
            assert m["slots"] == 8 and m["slots_shown"] == 8, (size, i, m)  # every slot reachable
        # the chart widget takes the larger screen's room; its plot is never smaller than on the smaller screen
        assert large[i]["chart_area"] >= 1.3 * small[i]["chart_area"], (i, small[i], large[i])
        assert large[i]["plot_h"] >= small[i]["plot_h"] - 1, (i, small[i], large[i])
        assert huge[i]["plot_h"] >= 1.3 * large[i]["plot_h"], (i, large[i], huge[i])
        # slot labels scale with the screen
        assert small[i]["label_px"] < large[i]["label_px"] < huge[i]["label_px"], (i, small[i], large[i], huge[i])
    for i in builds:
        assert large[i]["legend_beside"], (i, large[i])
        assert large[i]["plot_h"] >= 220, (i, large[i])  # 180 px (scenario 1) with the legend above in 3 rows
        # readable at 1920x1080 (~8-10 px before larger type; 14.9 px in scenarios 2 and 3 while an empty message
        # line and the top row's layout margins took ~60 px from the views; 17.2-17.5 px then; 15.3-17.5 since the
        # chassis heading stands over the drawing in the body text's size)
        assert large[i]["label_px"] >= 15, (i, large[i])
    for i in range(demo.scenario_count()):
        if i not in builds:  # the plan scenario: a tall key card and two rows of buttons (11.7 px before, 14 then,
            # 12.4 under the heading)
            assert large[i]["label_px"] >= 12, (i, large[i])
