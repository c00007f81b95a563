"""The checks list: user text in its tooltips stays text, and the engineer's detail sits in the tooltip."""

from __future__ import annotations

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
