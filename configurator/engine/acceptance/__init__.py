"""Acceptance: what the built machine must measure (``predict``), reading what the shop measured (``parse``),
and the comparison (``verify``); measured runs kept per machine (``measured_store``); the burn-in kit
(``kit``). Qt-free, like the rest of the engine."""

from __future__ import annotations

from configurator.engine.acceptance.collect import Measurements, collect
from configurator.engine.acceptance.predict import AcceptancePrediction, predict
from configurator.engine.acceptance.verify import VerifyCancelled, VerifyReport, verify

__all__ = ["AcceptancePrediction", "Measurements", "VerifyCancelled", "VerifyReport", "collect", "predict", "verify"]
