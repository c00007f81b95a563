"""A job on a slot whose card the catalog lacks (a typo in the build file, opened as it is): the check says so and
names the card, where it read "names slot 1, which holds no card" about a slot the chassis view draws a card in."""

from __future__ import annotations

from configurator.engine import evaluate
from configurator.engine.model.buildfile import load_build
from tests.paths import ROOT

BROKEN = ROOT / "tests" / "ui" / "data" / "broken"


def test_a_job_on_an_unknown_card_names_the_card() -> None:
    result = evaluate(load_build(BROKEN / "unknown_card.yaml", keep_unknown=True))
    codes = {c.code for c in result.checks}
    assert "JOB_SLOT_EMPTY" not in codes and {"CARD_UNKNOWN", "JOB_CARD_UNKNOWN"} <= codes
    check = next(c for c in result.checks if c.code == "JOB_CARD_UNKNOWN")
    assert check.severity == "error" and check.slot == 1 and check.job == "30B LoRA"
    assert "whose card 'h100-sxm-typo' is not in the catalog" in check.message


def test_an_empty_slot_is_still_empty() -> None:
    result = evaluate(load_build(BROKEN / "job_empty_slot.yaml", keep_unknown=True))
    assert "JOB_SLOT_EMPTY" in {c.code for c in result.checks}
    assert "JOB_CARD_UNKNOWN" not in {c.code for c in result.checks}
