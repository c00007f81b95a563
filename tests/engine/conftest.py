"""Fixtures of the engine tests shared by several modules."""

from __future__ import annotations

import pytest
import yaml

from configurator.catalog.models import ModelSpec, load_models_yaml
from tests.paths import SPECS


@pytest.fixture(scope="module")
def llama8b() -> ModelSpec:
    """Llama 3.1 8B as the shipped models.yaml declares it (read directly: no catalog overlay)."""
    data = yaml.safe_load((SPECS / "models.yaml").read_text(encoding="utf-8"))
    return next(m for m in load_models_yaml(data) if m.id == "llama-3.1-8b")
