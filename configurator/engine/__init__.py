"""The sizing engine: pure Python, no Qt. ``evaluate(build)`` is the one entry point."""

from configurator.engine.evaluate import evaluate
from configurator.engine.model.build import Build, Job
from configurator.engine.model.result import BuildResult

__all__ = ["Build", "BuildResult", "Job", "evaluate"]
