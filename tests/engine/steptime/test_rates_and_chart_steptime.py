"""The RTX PRO 6000 Server's rate shown by default, labelled estimated (issue 24, item 3); no unknown step time in
the default view for any catalog card; the step-time chart's split by op class (item 1)."""

from __future__ import annotations

from collections.abc import Callable

from configurator.catalog.loader import Catalog
from configurator.engine.model.build import Assumptions
from configurator.engine.model.result import JobResult
from configurator.ui.charts.step_time import StepTimeChart

JOB = {"model": "llama-3.1-8b", "method": "qlora", "sequence_length": 2048}


def test_default_view_shows_the_estimate_labelled(one_job: Callable[..., JobResult]) -> None:
    assert Assumptions().compute_rates == "estimated"
    r = one_job("rtx-pro-6000-server", JOB)
    assert r.step_seconds is not None and r.compute is not None
    assert r.compute.bf16_rate_estimated and r.compute.estimated_cards == [r.cards[0].card_name]
    assert any("estimate" in n for n in r.compute.notes)


def test_published_rates_only_stays_a_choice(one_job: Callable[..., JobResult]) -> None:
    r = one_job("rtx-pro-6000-server", JOB, compute_rates="published")
    assert r.step_seconds is None
    ws = one_job("rtx-pro-6000-ws", JOB, compute_rates="published")
    assert ws.step_seconds is not None and ws.compute and not ws.compute.bf16_rate_estimated


def test_no_unknown_step_time_for_any_catalog_card(catalog: Catalog, one_job: Callable[..., JobResult]) -> None:
    for card in catalog.cards.values():
        chassis = "hgx-8" if card.form_factor.kind == "sxm" else "generic-workstation-4"
        r = one_job(card.id, JOB, chassis=chassis)
        assert r.step_seconds is not None and r.step_seconds > 0, card.id
        assert r.compute and r.compute.step_model == "per-op", card.id


def test_utilization_model_is_still_selectable(one_job: Callable[..., JobResult]) -> None:
    r = one_job("h100-sxm", JOB, chassis="hgx-8", step_model="utilization")
    assert r.compute and r.compute.step_model == "utilization" and not r.compute.ops


def test_chart_splits_compute_by_op_class(qtbot, one_job: Callable[..., JobResult]) -> None:  # type: ignore[no-untyped-def]
    from configurator.engine.model.result import BuildResult

    job = one_job("rtx-pro-6000-server", JOB)
    chart = StepTimeChart()
    qtbot.addWidget(chart)
    chart.update_result(BuildResult(name="t", chassis=None, link_rates="measured", utilization=0.4, jobs=[job]))
    tips = [s.text for s in chart.segments[0]]
    assert any("<b>mlp</b>" in t and "compute-bound" in t for t in tips)
    assert any("<b>dequant</b>" in t and "memory-bound" in t for t in tips)
    assert all("ESTIMATED" in t for t in tips)  # the Server's rate is an estimate: every segment says so
    assert chart.bar_totals()[0] == __import__("pytest").approx(job.step_seconds)
    assert "(estimated rate)" in chart.labels[0].textItem.toPlainText()
