"""The step-time chart's words (review of a6a1e7f): a segment's bound in full, not "(com.)" beside the communication
segments; the attention kernel named on the chart and its tooltip without brackets inside brackets."""

from __future__ import annotations

import pytest

from configurator.engine.model.buildfile import load_build
from configurator.ui.base.document import BuildDocument
from configurator.ui.charts import AnalysisTabs
from tests.paths import BUILDS

pytestmark = pytest.mark.usefixtures("qapp")


def step_tabs(qtbot, name: str) -> AnalysisTabs:  # type: ignore[no-untyped-def]
    tabs = AnalysisTabs(BuildDocument(load_build(BUILDS / name)))
    qtbot.addWidget(tabs)
    tabs.resize(1200, 600)
    tabs.setCurrentWidget(tabs.step_time)
    return tabs


def test_segments_say_their_bound_in_full(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = step_tabs(qtbot, "moe-gpt-oss-20b-lora-h100.yaml").step_time
    names = [text for _, _, _, text, _ in chart._seg_names]
    assert names and not any("(com.)" in n or "(mem.)" in n for n in names), names
    assert any("(compute)" in n for n in names) and any("(memory)" in n for n in names), names


def test_attention_kernel_is_named_on_the_chart_and_reads_cleanly(qtbot) -> None:  # type: ignore[no-untyped-def]
    tabs = step_tabs(qtbot, "moe-gpt-oss-20b-lora-h100.yaml")
    chart, job = tabs.step_time, tabs.doc.result.jobs[0]
    assert job.compute is not None and (job.compute.attention_kernel or "").startswith("eager")
    legend = [label.text for _, label in chart.legend.items]
    assert any("attention: eager kernel" in text for text in legend), legend
    ops = [op for op in job.compute.step_ops() if op.seconds > 0]
    y = sum(op.seconds for op in ops[: next(i for i, op in enumerate(ops) if op.name == "attention")])
    attention = next(op for op in ops if op.name == "attention")
    tip = chart.tooltip_for(0, y + attention.seconds / 2)
    assert tip is not None and "<b>attention</b>: eager kernel — s × s matmuls and softmax<br>" in tip, tip
    assert "((" not in tip and "))" not in tip
