"""The sizing engine: pure Python, no Qt. ``evaluate(build)`` is the one entry point."""

from configurator.engine.build import Build, Job
from configurator.engine.evaluate import evaluate
from configurator.engine.result import BuildResult

__all__ = ["Build", "BuildResult", "Job", "evaluate"]
