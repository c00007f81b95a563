"""What one evaluation shares between its jobs, and what one job's evaluation gives back.

``evaluate`` builds one ``EvalContext`` (the build, the catalog and model resolver, the card at each slot, the MIG
layouts, the links between the slots and the calibrated link rates) and passes it to ``evaluate_job``, which
returns a ``JobEvaluation``: its result, the checks it raised and the peak it puts on each card it uses. Nothing
is passed in to be filled.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.catalog.cards import CardSpec
from configurator.catalog.loader import Catalog
from configurator.engine.checks.job import Key
from configurator.engine.mig.layout import LayoutCheck
from configurator.engine.model.build import Assumptions, Build
from configurator.engine.model.resolver import ModelResolver
from configurator.engine.model.result import Check, JobResult
from configurator.engine.topology.links import TopologyModel

CardUse = dict[Key, list[tuple[str, float]]]  # (slot, instance) -> (job name, peak reserved bytes) per job on it


@dataclass(frozen=True)
class EvalContext:
    build: Build
    catalog: Catalog
    models: ModelResolver
    cards: dict[int, CardSpec]  # the card spec in each slot the chassis has
    layouts: dict[int, LayoutCheck]  # the placed MIG layout of each MIG card
    topo: TopologyModel
    calib: dict[str, float]  # measured bus bandwidth by link kind (assumptions.calibration)

    @property
    def assumptions(self) -> Assumptions:
        return self.build.assumptions

    @property
    def power_limits(self) -> dict[int, float | None]:
        """The build's power limit of each placed card (None: its default)."""
        return {c.slot: c.power_limit_w for c in self.build.cards}


@dataclass(frozen=True)
class JobEvaluation:
    result: JobResult
    checks: tuple[Check, ...] = ()  # in the order the job's steps found them
    uses: tuple[tuple[Key, float], ...] = ()  # (card or instance, the job's peak reserved bytes on it)
