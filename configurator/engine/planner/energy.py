"""Power a node draws idle and busy: the card's measured idle draw (resources/plans/idle-power.yaml, or the
plan's ``idle_power``), its default power limit while a job runs, and the chassis platform throughout."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import yaml
from pydantic import ValidationError

from configurator.catalog.errors import FileError
from configurator.catalog.yamlio import read_text
from configurator.engine.planner.nodes import ResolvedNode
from configurator.engine.planner.plan import IdleDraw, Plan
from configurator.paths import resource


@functools.cache
def shipped_idle_draws() -> dict[str, IdleDraw]:
    """The shipped table of measured idle draw per card id (empty if the file is missing or malformed: the
    planner then takes every card at its power limit and says so)."""
    try:
        data = yaml.safe_load(read_text(resource("plans", "idle-power.yaml")))
    except (OSError, FileError, yaml.YAMLError):
        return {}
    out: dict[str, IdleDraw] = {}
    if not isinstance(data, dict):
        return out
    for card, entry in data.items():
        try:
            out[str(card)] = IdleDraw.model_validate(entry)
        except ValidationError:
            continue
    return out


def idle_draws(plan: Plan) -> dict[str, IdleDraw]:
    return {**shipped_idle_draws(), **plan.idle_power}


@dataclass(frozen=True)
class NodePower:
    full_kw: float  # platform + every card at its default power limit
    idle_kw: float | None  # platform + every card at its measured idle draw; None when the card has none
    busy_kw_per_card: float  # limit - idle: what a card adds while it runs a job (0 without an idle figure)
    idle_source: str | None


def node_power(node: ResolvedNode, idle: dict[str, IdleDraw]) -> NodePower:
    platform = node.chassis.platform_power_w.value or 0.0
    tdp = node.card.power.tdp_w.value or 0.0
    cpn = node.cards_per_node
    full = (platform + cpn * tdp) / 1000
    draw = idle.get(node.card.id)
    if draw is None:
        return NodePower(full, None, 0.0, None)
    watts = min(draw.watts, tdp) if tdp else draw.watts
    return NodePower(full, (platform + cpn * watts) / 1000, max(0.0, tdp - watts) / 1000, draw.source)
