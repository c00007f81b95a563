"""The Jobs form fits its dock: at 1024x768 the form was 264 px wide in a 234 px viewport (the "Runs on" check
boxes elided to a fixed 210 px set its minimum), so the info line's fit status, the stack line, "slot 3 · RTX
PRO…0 Server Edition" and every combo box's right edge were cut off, with no horizontal scroll bar to reach them."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget


def _right_edge(widget: QWidget, viewport: QWidget) -> int:
    return widget.mapTo(viewport, widget.rect().topRight()).x()


@pytest.mark.parametrize("size", [(1024, 768), (1366, 768)])
def test_the_jobs_form_is_no_wider_than_its_viewport(first_start, qtbot, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    window = first_start(size)
    window.jobs_dock.raise_()
    qtbot.wait(20)
    panel = window.jobs_panel
    viewport = panel.form_scroll.viewport()
    assert panel.editor.width() <= viewport.width(), (panel.editor.width(), viewport.width())
    assert _right_edge(panel.info, viewport) < viewport.width()
    assert panel.card_checks, "the default build places cards"
    for check in panel.card_checks.values():
        assert check.isVisible()
        assert _right_edge(check, viewport) < viewport.width(), (check.text(), _right_edge(check, viewport))


BUILDS = Path(__file__).resolve().parents[2] / "resources" / "builds"


@pytest.mark.parametrize("build", ["rl-grpo-8b-lora-vllm-h100.yaml", "rl-dpo-8b-full-4x-h100.yaml",
                                   "vlm-qwen2.5-vl-7b-lora-rtx-pro-6000.yaml", "moe-gpt-oss-20b-lora-h100.yaml",
                                   "seed-30b-lora-h100-sxm.yaml"])  # fmt: skip
def test_every_jobs_rows_fit_a_1024_window(first_start, qtbot, build: str) -> None:  # type: ignore[no-untyped-def]
    """The rows only some jobs show: "Completion tokens" (113 px) widened the label column, "Trainer's default
    beta" and "Train the vision tower" (152 px) and "Import config.json…" (135 px) the field column, each past a
    1024 px window's dock (the form's minimum 228-283 px in a 234 px viewport)."""
    window = first_start((1024, 768), build=BUILDS / build)
    window.jobs_dock.raise_()
    qtbot.wait(20)
    panel = window.jobs_panel
    viewport = panel.form_scroll.viewport()
    for row in range(panel.job_list.count()):
        panel.select_job(row)
        qtbot.wait(10)
        assert panel.editor.minimumSizeHint().width() <= viewport.width(), (row, panel.editor.minimumSizeHint())
        assert panel.editor.width() <= viewport.width()


@pytest.mark.parametrize("kind", ["check", "button"])
def test_a_fitting_button_s_two_hints_are_its_words_one_s(qtbot, kind: str) -> None:  # type: ignore[no-untyped-def]
    """FittingCheck and FittingButton each spelt out both size hints (which words, at which height): _Words gives
    both, the whole words for the hint and the least for the minimum, at the style's height, wherever the words
    shown now stand."""
    from PySide6.QtWidgets import QCheckBox, QPushButton

    from configurator.ui.jobs.fields import FittingButton, FittingCheck

    cls, base = (FittingCheck, QCheckBox) if kind == "check" else (FittingButton, QPushButton)
    button = cls("Gradient checkpointing everywhere", "Checkpointing everything")
    qtbot.addWidget(button)
    button.resize(60, 30)  # its words cut: the hints stay the whole and the least words'
    natural = base.sizeHint(button)
    assert button.sizeHint() == button.fitting.size_hint(natural)
    assert button.minimumSizeHint() == button.fitting.minimum_size_hint(natural)
    metrics = button.fontMetrics()
    whole, least = metrics.horizontalAdvance("Gradient checkpointing everywhere"), metrics.horizontalAdvance(
        "Checkpointin…"
    )
    assert button.sizeHint().width() - button.minimumSizeHint().width() == whole - least
    assert button.sizeHint().height() == button.minimumSizeHint().height() == natural.height()
