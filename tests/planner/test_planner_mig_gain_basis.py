"""What a class's MIG gain rests on: the gain is the slice's jobs per card-day over the whole card's, so its basis
comes from both cells. A whole-card measurement scaled onto the slice cancels out of the ratio (still the engine's
estimate); a measured slice over the engine's whole card is a mix and says so; both measured is measured."""

from __future__ import annotations

import pytest

from configurator.engine.planner import Plan, plan_service
from configurator.engine.planner.plan import ClassMeasurement
from configurator.engine.planner.result import ClassInfo, PlanResult
from configurator.report.plan_text import class_line

RTX = "RTX"
SLICE = f"{RTX} / 1g.24gb"
WHOLE = f"{RTX} / whole card"
ESTIMATE = "That gain is an estimate: it comes from the whole card's matrix multiplies"


def _plan(*measured: ClassMeasurement) -> Plan:
    plan = Plan.model_validate({
        "name": "mig gain basis",
        "assumptions": {"compute_rates": "estimated"},
        "classes": [{"name": "7B LoRA", "model": "mistral-7b", "tokens_per_job": 20e6, "jobs_per_day": 40,
                     "measured": [m.model_dump() for m in measured]}],
        "nodes": [{"name": RTX, "chassis": "supermicro-sys-521ge-tnrt", "card": "rtx-pro-6000-server",
                   "mig_layouts": ["all-1g"], "max_nodes": 3}],
    })  # fmt: skip
    return plan


def _info(result: PlanResult) -> ClassInfo:
    info = next(c for c in result.classes if c.name == "7B LoRA")
    assert info.mig_gain is not None and info.mig_gain_device == SLICE
    return info


def _why(result: PlanResult) -> list[str]:
    assert result.recommendation is not None
    return result.recommendation.why


def test_a_whole_card_measurement_alone_leaves_the_engines_gain() -> None:
    """tokens/s on the whole card sets its time and, by the engine's slice-over-card ratio, the slice's: the
    measurement cancels out of the gain, which stays the engine's estimate and is tagged so everywhere."""
    engine = _info(plan_service(_plan()))
    result = plan_service(_plan(ClassMeasurement(node=RTX, tokens_per_second=5000, source="bench")))
    whole, piece = result.cell("7B LoRA", WHOLE), result.cell("7B LoRA", SLICE)
    assert whole.basis.startswith("measured 5000 tokens/s") and "engine's slice ratio" in piece.basis
    info = _info(result)
    assert info.mig_gain == pytest.approx(engine.mig_gain)  # the same ratio
    assert info.mig_gain_basis == "engine" and piece.mig_gain_basis == "engine"
    assert info.mig_gain_estimated and info.mig_gain_tag == "engine estimate"
    assert info.mig_gain_basis_words == engine.mig_gain_basis_words
    assert "(engine estimate)" in class_line(info)
    assert any(w.startswith(ESTIMATE) for w in _why(result))


def test_both_cells_measured_is_a_measured_gain() -> None:
    """tokens/s on the slice and on the whole card: the gain is theirs (four 1g.24gb per card), tagged with both."""
    result = plan_service(_plan(ClassMeasurement(node=RTX, tokens_per_second=5000, source="bench"),
                                ClassMeasurement(node=RTX, device="1g.24gb", tokens_per_second=1500,
                                                 source="slice bench")))  # fmt: skip
    info = _info(result)
    assert info.mig_gain == pytest.approx(4 * 1500 / 5000)
    tag = "slice measured 1500 tokens/s (slice bench); whole card measured 5000 tokens/s (bench)"
    assert info.mig_gain_basis == tag and result.cell("7B LoRA", SLICE).mig_gain_basis == tag
    assert not info.mig_gain_estimated and info.mig_gain_tag == tag and info.mig_gain_basis_words == tag
    assert f"({tag})" in class_line(info)
    assert not any(w.startswith(ESTIMATE) for w in _why(result))
    dumped = result.model_dump(mode="json")
    dumped_class = next(c for c in dumped["classes"] if c["name"] == "7B LoRA")
    assert dumped_class["mig_gain_basis"] == tag and dumped_class["mig_gain_estimated"] is False
    assert result.cell("7B LoRA", SLICE).mig_gain_estimated is False and not result.cell("7B LoRA", SLICE).estimated


def test_a_measured_slice_over_the_engines_whole_card_is_a_mix() -> None:
    """tokens/s on the slice alone: the gain divides a measurement by the engine's whole card, and says which
    part is which; it still rests on the estimate."""
    result = plan_service(_plan(ClassMeasurement(node=RTX, device="1g.24gb", tokens_per_second=1500,
                                                 source="slice bench")))  # fmt: skip
    assert result.cell("7B LoRA", WHOLE).basis == "engine"
    info = _info(result)
    tag = "slice measured 1500 tokens/s (slice bench), whole card engine estimate"
    assert info.mig_gain_basis == tag and info.mig_gain_tag == tag and info.mig_gain_basis_words == tag
    assert info.mig_gain_estimated and result.cell("7B LoRA", SLICE).estimated
    assert f"({tag})" in class_line(info)
    assert any(tag in w for w in _why(result))
