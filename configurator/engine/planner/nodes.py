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
from configurator.engine.evaluate import evaluate
from configurator.engine.mig.layout import MigRequest, place_layout
from configurator.engine.model.build import Build, LinkCalibration
from configurator.engine.model.buildfile import load_build
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
    calibration: tuple[LinkCalibration, ...] = ()  # measured link rates of this node type (lspci -vv)

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


@dataclass(frozen=True)
class _Source:
    """What a node type names: chassis and card ids, and from a build file its slots, bridges and layout."""

    chassis_id: str
    card_id: str
    slots: tuple[int, ...] = ()
    bridges: tuple[tuple[int, ...], ...] = ()
    build_layout: tuple[str, ...] | None = None


def _from_build(
    build_file: str, where: str, catalog: Catalog, base_dir: Path | None, problems: list[Problem]
) -> _Source | None:
    """A node type given as a build file: its one card type, slots, bridges and first card's MIG layout."""
    path = Path(build_file).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    try:
        build = load_build(path, catalog)
    except FileError as exc:
        first = exc.problems[0] if exc.problems else Problem("", "cannot be read")
        problems.append(Problem(f"{where}.build", f"{path}: {first}"))
        return None
    if not build.cards:
        problems.append(Problem(f"{where}.build", f"{path} holds no cards"))
        return None
    ids = {c.card for c in build.cards}
    if len(ids) > 1:
        problems.append(
            Problem(
                f"{where}.build",
                f"{path} mixes cards ({', '.join(sorted(ids))}): a node "
                "type holds one card type; list each as its own node type",
            )
        )
        return None
    placements = sorted(build.cards, key=lambda c: c.slot)
    return _Source(
        chassis_id=build.chassis,
        card_id=build.cards[0].card,
        slots=tuple(c.slot for c in placements),
        bridges=tuple(tuple(b.slots) for b in build.bridges),
        build_layout=tuple(r.profile for r in placements[0].mig) if placements[0].mig else None,
    )


def _known(src: _Source, where: str, catalog: Catalog, problems: list[Problem]) -> bool:
    """Whether the chassis and the card are in the catalog (a problem with the nearest ids for each not)."""
    ok = True
    if src.chassis_id not in catalog.chassis:
        problems.append(
            Problem(
                f"{where}.chassis",
                f"unknown chassis '{src.chassis_id}'; {_near(src.chassis_id, list(catalog.chassis))}",
            )
        )
        ok = False
    if src.card_id not in catalog.cards:
        problems.append(
            Problem(f"{where}.card", f"unknown card '{src.card_id}'; {_near(src.card_id, list(catalog.cards))}")
        )
        ok = False
    return ok


def _slots(
    node: NodeType, chassis: ChassisSpec, slots: tuple[int, ...], where: str, problems: list[Problem]
) -> tuple[int, ...] | None:
    """The slots the node's cards take: the build's, or the chassis's first ``cards_per_node`` positions."""
    if not slots:
        positions = sorted(p.slot for p in chassis.positions)
        count = node.cards_per_node or len(positions)
        if count > len(positions):
            problems.append(
                Problem(f"{where}.cards_per_node", f"{chassis.name} has {len(positions)} GPU positions, not {count}")
            )
            return None
        return tuple(positions[:count])
    if node.cards_per_node is not None and node.cards_per_node != len(slots):
        problems.append(
            Problem(
                f"{where}.cards_per_node",
                f"the build holds {len(slots)} cards; leave cards_per_node out or make it match",
            )
        )
        return None
    return slots


def _resolve_node(
    i: int, node: NodeType, catalog: Catalog, base_dir: Path | None, problems: list[Problem]
) -> ResolvedNode | None:
    """One node type resolved, or None with its problems added."""
    where = f"nodes[{i}]"
    if node.build is not None:
        src = _from_build(node.build, where, catalog, base_dir, problems)
        if src is None:
            return None
    else:
        src = _Source(node.chassis or "", node.card or "")
    if not _known(src, where, catalog, problems):
        return None
    chassis, card = catalog.chassis[src.chassis_id], catalog.cards[src.card_id]
    slots = _slots(node, chassis, src.slots, where, problems)
    if slots is None:
        return None
    layouts = _layouts(node, card, where, problems)
    if src.build_layout and src.build_layout not in layouts:
        layouts.insert(0, src.build_layout)
    # The full node through the build engine: a chassis that cannot hold or power the cards is refused.
    full = Build(
        name=node.name,
        chassis=chassis.id,
        cards=[{"slot": s, "card": card.id} for s in slots],
        bridges=[{"slots": list(b)} for b in src.bridges],
    )
    result = evaluate(full, catalog)
    errors = [c.message for c in result.checks if c.severity == "error"]
    if errors:
        problems.append(
            Problem(where, f"{node.name}: {len(slots)} × {card.id} in {chassis.id} is not a valid build: {errors[0]}")
        )
        return None
    return ResolvedNode(
        index=i,
        name=node.name,
        chassis=chassis,
        card=card,
        slots=slots,
        bridges=src.bridges,
        layouts=tuple(layouts),
        max_nodes=node.max_nodes,
        price=node.price,
        checks=tuple(c.message for c in result.checks if c.severity == "warning"),
    )


def resolve_nodes(plan: Plan, catalog: Catalog, base_dir: Path | None) -> tuple[list[ResolvedNode], list[Problem]]:
    """The plan's node types against the catalog; problems carry the field path (``nodes[1].card``)."""
    problems: list[Problem] = []
    out: list[ResolvedNode] = []
    for i, node in enumerate(plan.nodes):
        resolved = _resolve_node(i, node, catalog, base_dir, problems)
        if resolved is not None:
            out.append(resolved)
    return out, problems
