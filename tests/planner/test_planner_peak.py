"""Waits at the peak hour (issue 24): a daily profile of arrivals, the Erlang-C tail's p95, wait targets on the
p95, and an unstable peak shown as such, never as a finite wait."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from configurator.engine.planner import Plan, plan_service
from configurator.engine.planner.plan import Service
from configurator.engine.planner.queueing import (
    devices_needed,
    erlang_c,
    mean_wait_hours,
    peak_load,
    wait_quantile_hours,
)
from configurator.report.plan_text import class_line, wait_words


def test_p95_is_the_erlang_c_tail_by_hand() -> None:
    """P(W > t) = C e^-(c - a) t / S, so t95 = S ln(C / 0.05) / (c - a); 0 when at most 5 % of jobs wait."""
    c, a, s = 4, 2.0, 1.0
    cw = erlang_c(c, a)
    assert cw == pytest.approx(4 / 23)
    t95 = wait_quantile_hours(c, a, s)
    assert t95 == pytest.approx(s * math.log(cw / 0.05) / (c - a))
    assert cw * math.exp(-(c - a) * t95 / s) == pytest.approx(0.05)  # the tail at t95 is 5 %
    assert wait_quantile_hours(10, 2.0, 1.0) == 0.0  # C(10, 2) < 0.05: 95 % start at once
    assert wait_quantile_hours(10, 2.0, 1.0) < mean_wait_hours(10, 2.0, 1.0)


def test_the_issues_unstable_peak_has_no_finite_wait() -> None:
    """Issue 24: 323 jobs a day arriving in 8 hours, 0.64 h each, put 26 erlangs on 13 cards: unstable."""
    load = peak_load(323, 0.64, 24, 1 / 8)
    assert load == pytest.approx(25.84)
    assert math.isinf(mean_wait_hours(13, load, 0.64)) and math.isinf(wait_quantile_hours(13, load, 0.64))
    # sized for that peak, the class gets more than 26 cards even without a wait target
    assert devices_needed(323, 0.64, 0.7, 24, None, 1 / 8) >= 26
    # the words never print a finite wait for an unstable peak
    words = wait_words(None, None, True)
    assert "UNSTABLE" in words and not any(ch.isdigit() for ch in words)


def test_daily_profile_sets_the_peak_share() -> None:
    flat = Service()
    assert flat.peak_share is None and flat.peak_factor == 1.0
    weights = [1.0] * 9 + [8.0] * 8 + [1.0] * 7
    svc = Service(hourly_arrivals=weights)
    assert svc.peak_share == pytest.approx(8 / 80) and svc.peak_factor == pytest.approx(2.4)
    assert Service(peak_hour_factor=3).peak_share == pytest.approx(3 / 24)
    with pytest.raises(ValidationError, match="not both"):
        Service(peak_hour_factor=2, hourly_arrivals=weights)
    with pytest.raises(ValidationError):
        Service(hourly_arrivals=[1.0] * 23)


def _plan(**service: object) -> Plan:
    return Plan.model_validate({
        "name": "peak",
        "assumptions": {"compute_rates": "estimated"},
        "service": {"utilisation_target": 0.7, "hours_per_day": 24, **service},
        "classes": [{"name": "7B LoRA", "model": "mistral-7b", "tokens_per_job": 20e6, "jobs_per_day": 120,
                     "wait_target_hours": 1}],
        "nodes": [{"name": "RTX", "chassis": "supermicro-sys-521ge-tnrt", "card": "rtx-pro-6000-server",
                   "max_nodes": 6}],
    })  # fmt: skip


def test_a_peak_needs_more_cards_and_targets_apply_to_the_p95() -> None:
    flat = plan_service(_plan())
    peaky = plan_service(_plan(peak_hour_factor=3))
    cell_flat = flat.cell("7B LoRA", "RTX / whole card")
    cell_peak = peaky.cell("7B LoRA", "RTX / whole card")
    assert cell_peak.devices_needed > cell_flat.devices_needed  # type: ignore[operator]
    for result in (flat, peaky):
        info = result.classes[0]
        assert info.wait_p95_h is not None and info.wait_p95_h <= 1 + 1e-9 and info.wait_target_met
        assert info.wait_mean_h is not None and not info.peak_unstable
        assert "p95 target 1 h: met" in class_line(info)
    assert peaky.peak_factor == pytest.approx(3.0)


def test_a_wait_target_beyond_a_million_devices_sizes_as_infeasible_not_a_crash() -> None:
    """A peak just under MAX_SERVERS erlangs whose wait target needs more devices than that: the count says no
    fleet serves it (MAX_SERVERS + 1) instead of raising from inside the fleet search (hypothesis found a plan,
    a 70B QLoRA of 2e13 tokens at 554,590 jobs a day, that crashed the planner this way)."""
    from configurator.engine.planner.queueing import MAX_SERVERS, devices_needed, peak_load

    jobs, hours, day, share = 1.0, 32058717.007450055, 21.843184305846115, 999628.5417090934 / 32058717.007450055
    assert peak_load(jobs, hours, day, share) < MAX_SERVERS  # under the bound, so the wait target is sized
    assert devices_needed(jobs, hours, 0.3, day, 2.6609636523882467, share) > MAX_SERVERS
