"""A node of a ranked fleet as a build file: the candidate a user opens in the build editor.

The node's cards sit in its slots with the fleet's MIG layout on the first ``mig_cards_per_node`` cards; the
classes routed to this node type are placed as jobs on its devices (MIG instances, whole cards, groups of
whole cards), one job per device, as the routing gives them, until the node's devices run out.
"""

from __future__ import annotations

from pathlib import Path

from configurator.catalog.loader import Catalog, default_catalog
from configurator.engine.model.build import Build
from configurator.engine.planner.matrix import _assumptions, _job
from configurator.engine.planner.measurements import measured_nodes
from configurator.engine.planner.nodes import resolve_nodes
from configurator.engine.planner.plan import Plan
from configurator.engine.planner.result import FleetResult


def node_build(
    plan: Plan, fleet: FleetResult, node: str, catalog: Catalog | None = None, base_dir: str | Path | None = None
) -> Build:
    """One node of ``fleet`` (by node-type name) as a Build; ValueError when the fleet has no such node."""
    catalog = catalog or default_catalog()
    base = Path(base_dir) if base_dir else None
    resolved, _problems = resolve_nodes(plan, catalog, base)
    resolved, _applied = measured_nodes(plan, resolved, base, [])
    spec = next((n for n in resolved if n.name == node), None)
    count = next((c for c in fleet.nodes if c.node == node), None)
    if spec is None or count is None:
        raise ValueError(f"fleet #{fleet.rank} has no node type {node!r}")
    k = count.mig_cards_per_node if count.mig_layout else 0
    cards: list[dict[str, object]] = []
    free_instances: dict[str, list[tuple[int, int]]] = {}
    for i, slot in enumerate(spec.slots):
        if i < k:
            cards.append({"slot": slot, "card": spec.card.id, "mig": list(count.mig_layout)})
            for j, profile in enumerate(count.mig_layout):
                free_instances.setdefault(profile, []).append((slot, j))
        else:
            cards.append({"slot": slot, "card": spec.card.id})
    free_whole = list(spec.slots[k:])
    classes = {c.name: c for c in plan.classes}
    jobs = []
    numbered: dict[str, int] = {}  # a class routed to several device kinds keeps one numbering (names are unique)
    prefix = f"{node} / "
    for route in fleet.routes:
        if not route.device.startswith(prefix) or route.job_class not in classes:
            continue
        cls = classes[route.job_class]
        what = route.device.removeprefix(prefix)
        for _ in range(route.devices):
            numbered[cls.name] = numbered.get(cls.name, 0) + 1
            name = f"{cls.name} #{numbered[cls.name]}"
            if what == "whole card":
                if not free_whole:
                    break
                jobs.append({**_job(cls, [free_whole.pop(0)], "single", 1), "name": name})
            elif what.endswith(" cards"):
                g = int(what.split()[0])
                if len(free_whole) < g:
                    break
                group, free_whole = free_whole[:g], free_whole[g:]
                jobs.append({**_job(cls, group, cls.multi_card_parallelism, g), "name": name})
            else:
                pool = free_instances.get(what, [])
                if not pool:
                    break
                slot, j = pool.pop(0)
                jobs.append({**_job(cls, [{"slot": slot, "instance": j}], "single", 1), "name": name})
    bridges = [{"slots": list(b)} for b in spec.bridges]
    return Build.model_validate({"name": f"{plan.name}: {node} (fleet #{fleet.rank})", "chassis": spec.chassis.id,
                                 "cards": cards, "bridges": bridges, "assumptions": _assumptions(plan, spec),
                                 "jobs": jobs})  # fmt: skip
