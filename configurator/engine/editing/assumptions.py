"""Edits of the build-wide assumptions (link rates, compute rates)."""

from __future__ import annotations

from typing import Any

from configurator.engine.model.build import Assumptions, Build


def set_assumption(build: Build, **changes: Any) -> Build:
    """Change build-wide assumptions, validated like a loaded file (pydantic raises on a bad value)."""
    assumptions = Assumptions.model_validate({**build.assumptions.model_dump(), **changes})
    return build.model_copy(update={"assumptions": assumptions})


def set_link_rates(build: Build, rates: str) -> Build:
    """'nominal' (datasheet) or 'measured' (nccl-tests busbw) link rates for the communication estimate."""
    return set_assumption(build, link_rates=rates)


def set_compute_rates(build: Build, rates: str) -> Build:
    """'published' only, or 'estimated': UNCONFIRMED catalog estimates stand in for missing rates."""
    return set_assumption(build, compute_rates=rates)
