"""Shared fixtures of the acceptance tests: the 8 x H200 NVL build the recorded outputs were written for, its
prediction, and the folder of recorded outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine import Build, BuildResult, evaluate
from configurator.engine.acceptance import AcceptancePrediction, predict
from configurator.engine.model.buildfile import load_build
from configurator.paths import resource

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "acceptance"
EIGHT_GPU = "seed-70b-lora-8x-h200-nvl.yaml"


def evaluated(name: str) -> tuple[Build, BuildResult]:
    path = resource("builds", name)
    build = load_build(path)
    return build, evaluate(build, base_dir=path.parent)


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def eight_gpu() -> tuple[Build, BuildResult, AcceptancePrediction]:
    build, result = evaluated(EIGHT_GPU)
    return build, result, predict(build, result, default_catalog())


@pytest.fixture(scope="session")
def default_build() -> tuple[Build, BuildResult, AcceptancePrediction]:
    build, result = evaluated("default.yaml")
    return build, result, predict(build, result, default_catalog())


@pytest.fixture(scope="session")
def evaluate_shipped():  # type: ignore[no-untyped-def]
    """evaluated(name): a shipped build (resources/builds/NAME) and its result."""
    return evaluated
