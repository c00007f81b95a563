"""Shared fixtures of the step-time tests: the catalog, and a one-job build evaluated on one card or instance."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from configurator.catalog.loader import Catalog, default_catalog
from configurator.engine.evaluate import evaluate
from configurator.engine.model.build import Build
from configurator.engine.model.result import JobResult


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return default_catalog()


@pytest.fixture
def one_job(catalog: Catalog) -> Callable[..., JobResult]:
    """Evaluate ``job`` (a dict) on ``card`` (whole, or with ``mig`` profiles and ``instance``) in a workstation."""

    def run(card: str, job: dict[str, Any], *, mig: list[str] | None = None, instance: int | None = None,
            chassis: str = "generic-workstation-4", slots: int = 1, **assumptions: Any) -> JobResult:  # fmt: skip
        cards: list[dict[str, Any]] = [{"slot": s, "card": card} for s in range(1, slots + 1)]
        if mig:
            cards[0]["mig"] = mig
        refs: list[Any] = [{"slot": 1, "instance": instance}] if instance is not None else list(range(1, slots + 1))
        build = Build.model_validate({"name": "t", "chassis": chassis, "cards": cards, "assumptions": assumptions,
                                      "jobs": [{"name": "j", "cards": refs, **job}]})  # fmt: skip
        return evaluate(build, catalog).jobs[0]

    return run
