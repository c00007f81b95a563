"""Card edits: place, move, remove, swap, and changing the chassis under them."""

from __future__ import annotations

from configurator.catalog.loader import Catalog
from configurator.engine.editing.base import EditRefused, _drop_bridges_with, _job_cards
from configurator.engine.editing.bridges import check_bridge
from configurator.engine.editing.mig import check_mig_layout
from configurator.engine.model.build import Build, CardPlacement, InstanceRef
from configurator.engine.topology.links import board_card
from configurator.engine.topology.physical import card_span, fit_problems, slot_width


def _spans(build: Build, catalog: Catalog, skip: int | None = None) -> dict[int, range]:
    chassis = catalog.chassis.get(build.chassis)
    out: dict[int, range] = {}
    if chassis is None:
        return out
    for c in build.cards:
        if c.slot == skip or c.card not in catalog.cards:
            continue
        try:
            out[c.slot] = card_span(catalog.cards[c.card], chassis.position(c.slot).x)
        except KeyError:
            continue
    return out


def check_place(build: Build, catalog: Catalog, slot: int, card_id: str, moving_from: int | None = None) -> str | None:
    """Why ``card_id`` cannot go into ``slot`` (None when it can)."""
    chassis = catalog.chassis.get(build.chassis)
    if chassis is None:
        return f"unknown chassis '{build.chassis}'"
    card = catalog.cards.get(card_id)
    if card is None:
        return f"unknown card '{card_id}'"
    try:
        pos = chassis.position(slot)
    except KeyError:
        return f"{chassis.name} has no slot {slot}"
    occupant = build.card_in(slot)
    if occupant is not None and slot != moving_from:
        held = catalog.cards[occupant.card].name if occupant.card in catalog.cards else occupant.card
        return f"slot {slot} already holds {held}"
    board = board_card({p.slot: catalog.cards[p.card] for p in build.cards
                        if p.card in catalog.cards and p.slot != moving_from}, chassis)  # fmt: skip
    if board is not None and pos.kind == "sxm" and card.form_factor.kind == "sxm" and card.id != board:
        held = catalog.cards[board].name
        return (
            f"this HGX board holds {held}: an HGX baseboard carries one GPU model, so all its modules must be "
            f"{held} (remove them first to build a {card.name} board)"
        )
    problems = fit_problems(card, chassis, pos)
    if problems:
        return {
            "SXM_IN_PCIE_SLOT": f"{card.name} is an SXM module; slot {slot} is a PCIe slot "
            "(SXM needs an HGX baseboard)",
            "PCIE_IN_SXM_SOCKET": f"slot {slot} is an SXM socket; {card.name} is a PCIe card",
            "CARD_TOO_WIDE": f"{card.name} is {slot_width(card)} slots wide; slot {slot} takes up to {pos.max_width}",
            "CARD_TOO_LONG": f"{card.name} is {card.form_factor.length_mm.value or 0:.0f} mm long; this chassis "
            f"takes up to {chassis.max_card_length_mm.value or 0:.0f} mm",
        }.get(problems[0], f"{card.name} does not fit slot {slot} ({problems[0]})")
    mine = card_span(card, pos.x)
    for other, span in _spans(build, catalog, skip=moving_from).items():
        if other == slot:
            continue
        if set(mine) & set(span):
            return (
                f"slot {slot} is blocked: the card in slot {other} covers it"
                if pos.x in span
                else (f"{card.name} is {len(mine)} slots wide and would cover the card in slot {other}")
            )
    return None


def place_card(build: Build, catalog: Catalog, slot: int, card_id: str) -> Build:
    reason = check_place(build, catalog, slot, card_id)
    if reason:
        raise EditRefused(reason)
    cards = sorted([*build.cards, CardPlacement(slot=slot, card=card_id)], key=lambda c: c.slot)
    return build.model_copy(update={"cards": cards})


def move_card(build: Build, catalog: Catalog, from_slot: int, to_slot: int) -> Build:
    placed = build.card_in(from_slot)
    if placed is None:
        raise EditRefused(f"slot {from_slot} holds no card")
    if from_slot == to_slot:
        return build
    reason = check_place(build, catalog, to_slot, placed.card, moving_from=from_slot)
    if reason:
        raise EditRefused(reason)
    cards = sorted([c for c in build.cards if c.slot != from_slot] + [placed.model_copy(update={"slot": to_slot})],
                   key=lambda c: c.slot)  # fmt: skip
    jobs = [j.model_copy(update={"cards": _job_cards(j, {from_slot: to_slot})}) for j in build.jobs]
    # A moved card leaves its bridge: the bridge is a physical part on the old neighbours.
    return build.model_copy(update={"cards": cards, "jobs": jobs, "bridges": _drop_bridges_with(build, {from_slot})})


def remove_card(build: Build, slot: int) -> Build:
    if build.card_in(slot) is None:
        raise EditRefused(f"slot {slot} holds no card")
    cards = [c for c in build.cards if c.slot != slot]
    jobs = [j.model_copy(update={"cards": _job_cards(j, {slot: None})}) for j in build.jobs]
    return build.model_copy(update={"cards": cards, "jobs": jobs, "bridges": _drop_bridges_with(build, {slot})})


def set_chassis(build: Build, catalog: Catalog, chassis_id: str) -> Build:
    """Change chassis, keeping each card whose slot exists and still takes it; the rest are removed."""
    if chassis_id not in catalog.chassis:
        raise EditRefused(f"unknown chassis '{chassis_id}'")
    new = build.model_copy(update={"chassis": chassis_id, "cards": [], "bridges": []})
    dropped: list[int] = []
    for c in build.cards:
        if check_place(new, catalog, c.slot, c.card) is None:
            new = new.model_copy(update={"cards": [*new.cards, c]})
        else:
            dropped.append(c.slot)
    kept = {c.slot for c in new.cards}
    bridges = [b for b in build.bridges if set(b.slots) <= kept and check_bridge(new, catalog, b.slots) is None]
    jobs = [j.model_copy(update={"cards": _job_cards(j, dict.fromkeys(dropped))}) for j in build.jobs]
    return new.model_copy(update={"bridges": bridges, "jobs": jobs})


def swap_cards(build: Build, catalog: Catalog, old: str, new: str) -> Build:
    """Every ``old`` card becomes ``new`` (for comparing builds); bridges that no longer apply are dropped. A MIG
    layout the new card can place (the same profiles) is carried with its jobs; one it cannot leaves MIG off and
    its jobs run on the whole card, as set_mig_layout(None) puts them (``swap_note`` says which)."""
    if new not in catalog.cards:
        raise EditRefused(f"unknown card '{new}'")
    spec = catalog.cards[new].mig
    carried = {c.slot for c in build.cards if c.card == old and c.mig and spec is not None
               and check_mig_layout(spec, [(r.profile, r.start) for r in c.mig]) is None}  # fmt: skip
    cards = [c.model_copy(update={"card": new, "mig": c.mig if c.slot in carried else None}) if c.card == old else c
             for c in build.cards]  # fmt: skip
    swapped = build.model_copy(update={"cards": cards, "name": f"{build.name} ({catalog.cards[new].name})"})
    bridges = [b for b in swapped.bridges if check_bridge(swapped.model_copy(update={"bridges": []}), catalog, b.slots)
               is None]  # fmt: skip
    whole = {c.slot for c in build.cards if c.card == old and c.slot not in carried}

    def refs(job_cards: list[int | InstanceRef]) -> list[int | InstanceRef]:
        out: list[int | InstanceRef] = []
        for r in job_cards:
            r = r.slot if isinstance(r, InstanceRef) and r.slot in whole else r
            if r not in out:  # two instances of one card become the one whole card
                out.append(r)
        return out

    jobs = [j.model_copy(update={"cards": refs(j.cards)}) for j in swapped.jobs]
    return swapped.model_copy(update={"bridges": bridges, "jobs": jobs})


def swap_note(build: Build, catalog: Catalog, old: str, new: str) -> str | None:
    """What ``swap_cards`` did to the MIG layouts, in a sentence (None when the build has none on ``old``)."""
    split = [c for c in build.cards if c.card == old and c.mig]
    if not split or new not in catalog.cards:
        return None
    swapped = swap_cards(build, catalog, old, new)
    kept = {c.slot for c in swapped.cards if c.mig}
    lost = [c.slot for c in split if c.slot not in kept]
    name = catalog.cards[new].name
    if not lost:
        return f"MIG layouts carried to the {name} (the same profiles)"
    slots = ", ".join(str(s) for s in lost)
    why = "has no MIG" if catalog.cards[new].mig is None else "cannot place the same MIG profiles"
    return f"The {name} {why}: the jobs in slot {slots}'s instances run on the whole card"


def default_swap_target(build: Build, catalog: Catalog, old: str, preferred: list[str]) -> str:
    """The card to compare ``old`` with by default: the first of ``preferred`` that is another card and, where the
    build splits ``old`` with MIG, places the same layouts (so the same jobs run on both sides); else the first
    other card of ``preferred``."""
    others = [c for c in preferred if c != old and c in catalog.cards]
    layouts = [[(r.profile, r.start) for r in c.mig] for c in build.cards if c.card == old and c.mig]
    for card in others:
        spec = catalog.cards[card].mig
        if not layouts or (spec is not None and all(check_mig_layout(spec, lay) is None for lay in layouts)):
            return card
    return others[0] if others else old


def remove_cards(build: Build, slots: list[int]) -> Build:
    """Remove the cards in ``slots`` (a selection), with their bridges and their place in jobs."""
    for s in slots:
        build = remove_card(build, s)
    return build
