"""One sentence for "the FSDP set-up pool sets the reserved figure": the text report, the build sheet and the
headroom tooltip print the same words from present/memory_words.py (they were three wordings before)."""

from __future__ import annotations

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine import Build, evaluate
from configurator.present.memory_words import reserved_basis_note
from configurator.report import text
from configurator.report.sheet import SheetOptions, build_html

# Answer.AI's QLoRA at 512 tokens over two cards: the set-up pool binds (tests/engine/test_calibration.py).
SETUP_BOUND = {
    "chassis": "generic-server-8",
    "cards": [{"card": "h200-nvl", "slot": 1}, {"card": "h200-nvl", "slot": 2}],
    "bridges": [{"slots": [1, 2]}],
    "jobs": [{"name": "t", "model": "llama-2-7b", "method": "qlora", "parallelism": "fsdp", "fsdp_version": 1,
              "sequence_length": 512, "cards": [1, 2]}],
}  # fmt: skip


@pytest.fixture(scope="module")
def setup_bound() -> tuple[Build, object]:
    build = Build.model_validate(SETUP_BOUND)
    result = evaluate(build)
    assert result.jobs[0].cards[0].reserved_set_by == "fsdp-setup"
    return build, result


def test_the_note_is_only_for_a_setup_bound_card() -> None:
    assert reserved_basis_note("step", 12.0) is None
    assert reserved_basis_note("fsdp-setup", 86.3) == (
        "allocator reserved is set by the pool FSDP set-up leaves (86.3 GB), not by the step"
    )
    assert "80.37 GiB" in (reserved_basis_note("fsdp-setup", 86.3, "GiB", digits=2) or "")


def test_report_and_sheet_say_it_in_the_same_words(setup_bound) -> None:
    build, result = setup_bound
    card = result.jobs[0].cards[0]
    note = reserved_basis_note(card.reserved_set_by, card.fsdp_setup_pool_gb)
    assert note and note in text.render(result)
    assert note in build_html(build, result, default_catalog(), SheetOptions())


def test_headroom_tooltip_says_it_in_the_same_words(qtbot, setup_bound) -> None:
    from configurator.ui.charts.headroom import HeadroomChart

    _, result = setup_bound
    chart = HeadroomChart()
    qtbot.addWidget(chart)
    chart.update_result(result)
    card = result.jobs[0].cards[0]
    note = reserved_basis_note(card.reserved_set_by, card.fsdp_setup_pool_gb, "GB", digits=2) or ""
    assert note[1:] in chart.tooltip_for(0)


def test_report_and_sheet_say_why_the_parts_do_not_add_up_to_the_peak(setup_bound) -> None:
    """The parts (weights … overhead) peak in different phases: their sum is not Peak, and both tables say why."""
    from configurator.present.memory_words import parts_note

    build, result = setup_bound
    c = result.jobs[0].cards[0]
    parts = sum((c.weights_gb, c.adapters_gb, c.gradients_gb, c.optimizer_gb, c.activations_gb, c.transient_gb,
                 c.overhead_gb))  # fmt: skip
    assert abs(parts - c.peak_reserved_gb) > 0.1  # the case the note is for
    note = parts_note(c.peak_phase)
    assert "need not add up to the peak" in note and c.peak_phase in note
    assert note in text.render(result)
    sheet = build_html(build, result, default_catalog(), SheetOptions())
    assert note[:1].upper() + note[1:] in sheet
