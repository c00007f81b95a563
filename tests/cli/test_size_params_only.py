"""A model given by its parameter count only (seed B's "30B") is timed by the engine as the service planner times
it: its dense FLOPs at the utilisation constant, attention left out, a lower bound that every view labels. `size`
used to print no step time for it and `compare` "unknown", beside the planner's 5.00 h a job."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.cli import main
from configurator.engine import evaluate
from configurator.engine.model.buildfile import load_build

BUILD = Path(__file__).resolve().parents[2] / "resources" / "builds" / "seed-30b-lora-rtx-pro-6000-server.yaml"


def test_size_labels_the_parameter_count_only_step_as_a_lower_bound(capsys: pytest.CaptureFixture[str]) -> None:
    job = evaluate(load_build(BUILD)).jobs[0]
    assert job.compute is not None and job.compute.lower_bound and job.step_seconds
    assert main(["size", str(BUILD)]) == 0
    out = capsys.readouterr().out
    assert f"step time: at least {job.step_seconds:.3f} s" in out
    assert "attention left out (its shapes are unknown): a lower bound at that utilisation" in out


def test_a_model_with_its_shapes_is_no_lower_bound() -> None:
    job = evaluate(load_build(BUILD.with_name("default.yaml"))).jobs[0]
    assert job.compute is not None and not job.compute.lower_bound
