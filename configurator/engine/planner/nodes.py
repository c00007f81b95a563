"""Node types resolved against the catalog: chassis, card, slots, bridges and the MIG layouts to consider.

One function, :func:`resolve_nodes`, serves both the plan loader (which turns its problems into file, line
and field errors) and :func:`plan_service` (which reports them and plans with the node types that remain),
so a plan built in code never raises where a plan file would have been refused.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from configurator.catalog.cards import CardSpec
from configurator.catalog.chassis import ChassisSpec
from configurator.catalog.errors import FileError, Problem
from configurator.catalog.loader import Catalog
from configurator.engine.build import Build
from configurator.engine.evaluate import evaluate
from configurator.engine.mig import MigRequest, place_layout
from configurator.engine.planner.plan import NodeType, Plan


@dataclass(frozen=True)
class ResolvedNode:
    index: int  # position in plan.nodes
    name: str
    chassis: ChassisSpec
    card: CardSpec
    slots: tuple[int, ...]  # the slots the node's cards sit in, in order
    bridges: tuple[tuple[int, ...], ...]  # NVLink bridges of a node given as a build file
    layouts: tuple[tuple[str, ...], ...]  # MIG layouts the search may give the cards (profile names)
    max_nodes: int
    price: float | None  # explicit whole-node price
    checks: tuple[str, ...] = field(default=())  # warnings from evaluating the full node

    @property
    def cards_per_node(self) -> int:
        return len(self.slots)


def _near(word: str, known: list[str]) -> str:
    close = difflib.get_close_matches(word, known, n=3)
    return f"did you mean {', '.join(close)}?" if close else f"known: {', '.join(sorted(known))}"


def _layouts(node: NodeType, card: CardSpec, where: str, problems: list[Problem]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for j, entry in enumerate(node.mig_layouts):
        loc = f"{where}.mig_layouts[{j}]"
        if card.mig is None:
            problems.append(Problem(loc, f"{card.name} does not support MIG: remove mig_layouts"))
            break
        if isinstance(entry, str):
            if entry not in card.mig.presets:
                problems.append(
                    Problem(loc, f"unknown MIG preset {entry!r} for {card.id}; {_near(entry, list(card.mig.presets))}")
                )
                continue
            names = tuple(card.mig.presets[entry])
        else:
            names = tuple(entry)
        check = place_layout(card.mig, [MigRequest(n) for n in names])
        if not check.valid or not names:
            why = "; ".join(check.problems) or "a layout names at least one profile"
            problems.append(Problem(loc, f"not a valid MIG layout for {card.id}: {why}"))
            continue
        if names not in out:
            out.append(names)
    return out


def resolve_nodes(plan: Plan, catalog: Catalog, base_dir: Path | None) -> tuple[list[ResolvedNode], list[Problem]]:
    """The plan's node types against the catalog; problems carry the field path (``nodes[1].card``)."""
    problems: list[Problem] = []
    out: list[ResolvedNode] = []
    for i, node in enumerate(plan.nodes):
        where = f"nodes[{i}]"
        n_before = len(problems)
        bridges: tuple[tuple[int, ...], ...] = ()
        build_layout: tuple[str, ...] | None = None
        if node.build is not None:
            from configurator.engine.buildfile import load_build

            path = Path(node.build).expanduser()
            if not path.is_absolute() and base_dir is not None:
                path = base_dir / path
            try:
                build = load_build(path, catalog)
            except FileError as exc:
                first = exc.problems[0] if exc.problems else Problem("", "cannot be read")
                problems.append(Problem(f"{where}.build", f"{path}: {first}"))
                continue
            if not build.cards:
                problems.append(Problem(f"{where}.build", f"{path} holds no cards"))
                continue
            ids = {c.card for c in build.cards}
            if len(ids) > 1:
                problems.append(
                    Problem(
                        f"{where}.build",
                        f"{path} mixes cards ({', '.join(sorted(ids))}): a node "
                        "type holds one card type; list each as its own node type",
                    )
                )
                continue
            chassis_id, card_id = build.chassis, build.cards[0].card
            placements = sorted(build.cards, key=lambda c: c.slot)
            slots = tuple(c.slot for c in placements)
            bridges = tuple(tuple(b.slots) for b in build.bridges)
            if placements[0].mig:
                build_layout = tuple(r.profile for r in placements[0].mig)
        else:
            chassis_id, card_id = node.chassis or "", node.card or ""
            slots = ()
        if chassis_id not in catalog.chassis:
            problems.append(
                Problem(
                    f"{where}.chassis", f"unknown chassis '{chassis_id}'; {_near(chassis_id, list(catalog.chassis))}"
                )
            )
        if card_id not in catalog.cards:
            problems.append(
                Problem(f"{where}.card", f"unknown card '{card_id}'; {_near(card_id, list(catalog.cards))}")
            )
        if len(problems) > n_before:
            continue
        chassis, card = catalog.chassis[chassis_id], catalog.cards[card_id]
        if not slots:
            positions = sorted(p.slot for p in chassis.positions)
            count = node.cards_per_node or len(positions)
            if count > len(positions):
                problems.append(
                    Problem(
                        f"{where}.cards_per_node", f"{chassis.name} has {len(positions)} GPU positions, not {count}"
                    )
                )
                continue
            slots = tuple(positions[:count])
        elif node.cards_per_node is not None and node.cards_per_node != len(slots):
            problems.append(
                Problem(
                    f"{where}.cards_per_node",
                    f"the build holds {len(slots)} cards; leave cards_per_node out or make it match",
                )
            )
            continue
        layouts = _layouts(node, card, where, problems)
        if build_layout and build_layout not in layouts:
            layouts.insert(0, build_layout)
        # The full node through the build engine: a chassis that cannot hold or power the cards is refused.
        full = Build(
            name=node.name,
            chassis=chassis.id,
            cards=[{"slot": s, "card": card.id} for s in slots],
            bridges=[{"slots": list(b)} for b in bridges],
        )
        result = evaluate(full, catalog)
        errors = [c.message for c in result.checks if c.severity == "error"]
        if errors:
            problems.append(
                Problem(
                    where, f"{node.name}: {len(slots)} x {card.id} in {chassis.id} is not a valid build: {errors[0]}"
                )
            )
            continue
        warnings = tuple(c.message for c in result.checks if c.severity == "warning")
        out.append(
            ResolvedNode(
                index=i,
                name=node.name,
                chassis=chassis,
                card=card,
                slots=slots,
                bridges=bridges,
                layouts=tuple(layouts),
                max_nodes=node.max_nodes,
                price=node.price,
                checks=warnings,
            )
        )
    return out, problems
