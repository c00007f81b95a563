"""The checks list: user text in its tooltips stays text, and the engineer's detail sits in the tooltip."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt

from configurator.engine import Build, evaluate
from configurator.ui.shell.checks_panel import CODE_ROLE, ChecksPanel

HOSTILE = "<img src='/dev/zero'>"


def _build(job_name: str) -> Build:
    return Build.model_validate({
        "chassis": "generic-server-8", "cards": [{"slot": 1, "card": "h200-nvl"}, {"slot": 2, "card": "h200-nvl"}],
        "bridges": [{"slots": [1, 2]}],
        "jobs": [{"name": job_name, "model": "llama-3.3-70b", "method": "lora", "parallelism": "fsdp",
                  "fsdp_version": 1, "framework": "fsdp-qlora", "cards": [1, 2]}],
    })  # fmt: skip


def test_job_names_in_tooltips_are_escaped(qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = ChecksPanel()
    qtbot.addWidget(panel)
    result = evaluate(_build(HOSTILE))
    assert any(HOSTILE in c.message for c in result.checks)
    panel.update_result(result)
    tips = [panel.item(i).toolTip() for i in range(panel.count())]
    assert tips and not any(HOSTILE in t for t in tips)
    assert any("&lt;img src=&#x27;/dev/zero&#x27;&gt;" in t for t in tips)


def test_detail_is_in_the_tooltip_not_the_line(qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = ChecksPanel()
    qtbot.addWidget(panel)
    result = evaluate(_build("70B LoRA"))
    detailed = [c for c in result.checks if c.detail]
    assert detailed, [c.code for c in result.checks]
    panel.update_result(result)
    for i in range(panel.count()):
        item = panel.item(i)
        check = next((c for c in detailed if c.code == item.data(CODE_ROLE)), None)
        if check is None:
            continue
        assert check.detail is not None
        assert check.detail not in item.text()
        assert "Details:" in item.toolTip()


@pytest.mark.parametrize("first", [None, (1920, 1080)])
def test_rows_hold_whole_lines(qtbot, tmp_path, first) -> None:  # type: ignore[no-untyped-def]
    """Review 2, 21: at 1024x768 the seed build's tight-job check wraps to two lines and its row was one line
    tall, the second line cut in half. Each row is as tall as its wrapped lines, and the dock shows them, on
    a first show at 1024x768 and after a full-HD window (one line) is made 1024x768."""
    from configurator.paths import resource
    from tests.gui_helpers import make_window

    window = make_window(qtbot, tmp_path, Path(resource("builds", "seed-30b-lora-h100-sxm.yaml")))
    if first is not None:
        window.resize(*first)
        qtbot.waitUntil(lambda: window.checks.viewport().width() > first[0] - 60)
        qtbot.wait(50)
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.checks.viewport().width() < 1024)
    qtbot.wait(50)
    checks = window.checks
    metrics = checks.fontMetrics()
    for i in range(checks.count()):
        item = checks.item(i)
        rect = checks.visualItemRect(item)
        width = rect.width() - 12  # the item's text margins
        needed = metrics.boundingRect(QRect(0, 0, width, 1 << 20), Qt.TextFlag.TextWordWrap, item.text()).height()
        assert rect.height() >= needed, (item.text(), rect.height(), needed)
    first = checks.visualItemRect(checks.item(0))
    assert checks.viewport().rect().contains(first), (first, checks.viewport().rect())  # shown whole
