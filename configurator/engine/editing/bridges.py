"""NVLink bridge edits: which cards a bridge can join, adding and removing one."""

from __future__ import annotations

from configurator.catalog.cards import CardSpec
from configurator.catalog.loader import Catalog
from configurator.engine.editing.base import EditRefused, _drop_bridges_with
from configurator.engine.model.build import Bridge, Build
from configurator.engine.topology.physical import bridge_problem


def check_bridge(build: Build, catalog: Catalog, slots: list[int]) -> str | None:
    """Why these slots cannot share an NVLink bridge (None when they can)."""
    slots = sorted(set(slots))
    if len(slots) < 2:
        return "select two or four cards to bridge"
    chassis = catalog.chassis.get(build.chassis)
    if chassis is None:
        return "unknown chassis"
    cards = {c.slot: catalog.cards[c.card] for c in build.cards if c.slot in slots and c.card in catalog.cards}
    problem = bridge_problem(slots, cards, chassis)
    if problem is None and any(set(b.slots) & set(slots) for b in build.bridges):
        return "a selected card already has a bridge: remove it first"
    if problem is None:
        return None
    return _explain_bridge(problem, cards.get(slots[0]), len(slots))


EMPTY_SLOT = "a bridge joins cards: every selected slot needs one"


def _explain_bridge(problem: str, card: CardSpec | None, n: int) -> str:
    """physical.bridge_problem's code in words for the person making the bridge."""
    if problem == "BRIDGE_EMPTY_SLOT" or card is None:
        return EMPTY_SLOT
    if problem == "BRIDGE_SIZE":
        assert card.nvlink is not None
        sizes = " or ".join(f"{k}" for k in card.nvlink.bridge_sizes)
        return f"{card.name} bridges join {sizes} cards, not {n}"
    return {
        "BRIDGE_MIXED_CARDS": "an NVLink bridge joins identical cards",
        "BRIDGE_ON_SXM": f"{card.name} has no NVLink bridge connector (SXM modules use the NVSwitch baseboard)",
        "BRIDGE_NO_NVLINK": f"{card.name} has no NVLink bridge connector: it talks over PCIe only",
        "BRIDGE_NOT_ADJACENT": "bridged cards must sit side by side in adjacent slots",
    }.get(problem, f"no NVLink bridge here ({problem})")


def bridge_group_for(build: Build, catalog: Catalog, slot: int, size: int) -> tuple[list[int] | None, str | None]:
    """The ``size`` cards an NVLink bridge dropped on ``slot`` would join: runs of neighbouring positions that
    include ``slot``, the one starting there first. Returns (slots, None), or (None, why not) when no run
    can take a bridge (the reason of the first run tried, or why the slot itself cannot)."""
    chassis = catalog.chassis.get(build.chassis)
    if chassis is None:
        return None, "unknown chassis"
    if build.card_in(slot) is None:
        return None, "drop the bridge onto a card"
    card = catalog.cards.get(build.card_in(slot).card)  # type: ignore[union-attr]
    if card is not None:  # a card that takes no bridge of this size, wherever it sits
        problem = bridge_problem([slot] * size, {slot: card}, chassis)
        if problem in ("BRIDGE_ON_SXM", "BRIDGE_NO_NVLINK", "BRIDGE_SIZE"):
            return None, _explain_bridge(problem, card, size)
    order = [p.slot for p in sorted(chassis.positions, key=lambda p: p.x)]
    if slot not in order:
        return None, f"no slot {slot} in {chassis.name}"
    at = order.index(slot)
    starts = sorted(range(max(0, at - size + 1), min(at, len(order) - size) + 1), key=lambda i: abs(i - at))
    first_reason: str | None = None
    for start in starts:
        group = order[start : start + size]
        reason = check_bridge(build, catalog, group)
        if reason is None:
            return sorted(group), None
        first_reason = first_reason or reason
    if first_reason == EMPTY_SLOT:  # nothing was selected: say what the dropped bridge is missing
        beside = "no card" if size == 2 else f"fewer than {size - 1} cards"
        first_reason = f"a {size}-way bridge joins {size} cards side by side; slot {slot} has {beside} next to it"
    return None, first_reason or f"{chassis.name} has no {size} positions side by side here"


def add_bridge(build: Build, catalog: Catalog, slots: list[int]) -> Build:
    reason = check_bridge(build, catalog, slots)
    if reason:
        raise EditRefused(reason)
    return build.model_copy(update={"bridges": [*build.bridges, Bridge(slots=sorted(set(slots)))]})


def remove_bridge(build: Build, slot: int) -> Build:
    bridges = _drop_bridges_with(build, {slot})
    if len(bridges) == len(build.bridges):
        raise EditRefused(f"slot {slot} has no bridge")
    return build.model_copy(update={"bridges": bridges})
