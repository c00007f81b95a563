"""Edits on a build, Qt-free: each returns a new Build (builds are immutable) or raises EditRefused.

``check_*`` functions return the reason an edit is refused, or None; the GUI asks them while the user
drags, to highlight slots and to say why a drop is refused. ``Document`` operations in the Qt layer
wrap these in undo commands.
"""

from __future__ import annotations

from typing import Any

from configurator.catalog.cards import CardSpec
from configurator.catalog.loader import Catalog
from configurator.engine.build import Bridge, Build, CardPlacement, InstanceRef, Job
from configurator.engine.physical import bridge_problem, card_span, fit_problems, slot_width


class EditRefused(ValueError):
    """An edit that would make the build physically impossible; the message says why."""


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
    problems = fit_problems(card, chassis, pos)
    if problems:
        return {
            "SXM_IN_PCIE_SLOT": f"{card.name} is an SXM module; slot {slot} is a PCIe slot "
            "(SXM needs an HGX baseboard)",
            "PCIE_IN_SXM_SOCKET": f"slot {slot} is an SXM socket; {card.name} is a PCIe card",
            "CARD_TOO_WIDE": f"{card.name} is {slot_width(card)} slots wide; slot {slot} takes up to {pos.max_width}",
            "CARD_TOO_LONG": f"{card.name} is {card.form_factor.length_mm.value or 0:.0f} mm long; this chassis "
            f"takes up to {chassis.max_card_length_mm.value or 0:.0f} mm",
        }[problems[0]]
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


def _job_cards(job: Job, mapping: dict[int, int | None]) -> list[int | InstanceRef]:
    """Re-point a job's slots: mapping old slot -> new slot (None drops it)."""
    out: list[int | InstanceRef] = []
    for ref in job.cards:
        slot = ref if isinstance(ref, int) else ref.slot
        new = mapping.get(slot, slot)
        if new is None:
            continue
        out.append(new if isinstance(ref, int) else InstanceRef(slot=new, instance=ref.instance))
    return out


def _drop_bridges_with(build: Build, slots: set[int]) -> list[Bridge]:
    return [b for b in build.bridges if not (set(b.slots) & slots)]


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


def _explain_bridge(problem: str, card: CardSpec | None, n: int) -> str:
    """physical.bridge_problem's code in words for the person making the bridge."""
    if problem == "BRIDGE_EMPTY_SLOT" or card is None:
        return "a bridge joins cards: every selected slot needs one"
    if problem == "BRIDGE_SIZE":
        assert card.nvlink is not None
        sizes = " or ".join(f"{k}" for k in card.nvlink.bridge_sizes)
        return f"{card.name} bridges join {sizes} cards, not {n}"
    return {
        "BRIDGE_MIXED_CARDS": "an NVLink bridge joins identical cards",
        "BRIDGE_ON_SXM": f"{card.name} has no NVLink bridge connector (SXM modules use the NVSwitch baseboard)",
        "BRIDGE_NO_NVLINK": f"{card.name} has no NVLink bridge connector: it talks over PCIe only",
        "BRIDGE_NOT_ADJACENT": "bridged cards must sit side by side in adjacent slots",
    }[problem]


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


def update_job(build: Build, index: int, **changes: Any) -> Build:
    """Change fields of one job, validated like a loaded file (pydantic raises on bad values)."""
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    job = Job.model_validate({**build.jobs[index].model_dump(), **changes})
    jobs = [*build.jobs[:index], job, *build.jobs[index + 1 :]]
    return build.model_copy(update={"jobs": jobs})


# ---- jobs ---------------------------------------------------------------------------------------------


def unique_job_name(build: Build, base: str) -> str:
    names = {j.name for j in build.jobs}
    if base not in names:
        return base
    n = 2
    while f"{base} ({n})" in names:
        n += 1
    return f"{base} ({n})"


def add_job(build: Build, job: Job | None = None) -> Build:
    """Append a job (a default 8B LoRA on the first card when none is given); names stay unique."""
    if job is None:
        first = [build.cards[0].slot] if build.cards else []
        job = Job(name="New job", model="llama-3.1-8b", method="lora", cards=first)
    job = job.model_copy(update={"name": unique_job_name(build, job.name)})
    return build.model_copy(update={"jobs": [*build.jobs, job]})


def remove_job(build: Build, index: int) -> Build:
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    return build.model_copy(update={"jobs": [j for i, j in enumerate(build.jobs) if i != index]})


def duplicate_job(build: Build, index: int) -> Build:
    if not 0 <= index < len(build.jobs):
        raise EditRefused(f"no job {index + 1}")
    copy = build.jobs[index].model_copy(update={"name": unique_job_name(build, f"{build.jobs[index].name} copy")})
    jobs = [*build.jobs[: index + 1], copy, *build.jobs[index + 1 :]]
    return build.model_copy(update={"jobs": jobs})


def rename_job(build: Build, index: int, name: str) -> Build:
    name = name.strip()
    if not name:
        raise EditRefused("a job needs a name")
    if any(j.name == name for i, j in enumerate(build.jobs) if i != index):
        raise EditRefused(f"another job is already called '{name}'")
    return update_job(build, index, name=name)


def assign_job(build: Build, catalog: Catalog, index: int, slot: int, instance: int | None = None,
               add: bool = False) -> Build:  # fmt: skip
    """Put job ``index`` on a card (or one MIG instance of it); ``add`` keeps its other cards (multi-card jobs)."""
    if build.card_in(slot) is None:
        raise EditRefused(f"slot {slot} holds no card")
    placement = build.card_in(slot)
    assert placement is not None
    if instance is None and placement.mig:
        raise EditRefused(f"slot {slot} is split into MIG instances: drop the job on one of them")
    if instance is not None and (not placement.mig or instance >= len(placement.mig)):
        raise EditRefused(f"slot {slot} has no MIG instance {instance}")
    ref: int | InstanceRef = slot if instance is None else InstanceRef(slot=slot, instance=instance)
    job = build.jobs[index]
    if instance is not None:
        cards: list[int | InstanceRef] = [ref]  # NCCL does not run across MIG instances: one instance per job
    elif add:
        keep = [c for c in job.cards if isinstance(c, int) and c != slot]
        cards = sorted([*keep, slot])
    else:
        cards = [ref]
    changes: dict[str, Any] = {"cards": cards}
    if len(cards) > 1 and job.parallelism == "single":
        changes["parallelism"] = "fsdp"
    if len(cards) == 1 and job.parallelism != "single":
        changes["parallelism"] = "single"
    return update_job(build, index, **changes)


# ---- MIG ----------------------------------------------------------------------------------------------


def set_mig_layout(build: Build, catalog: Catalog, slot: int, profiles: list[tuple[str, int | None]] | None) -> Build:
    """Give the card in ``slot`` a MIG layout (profile, start) list, or None to leave MIG mode.

    Jobs that named instances beyond the new layout are taken off the card; an invalid layout is refused
    with the placement reason.
    """
    from configurator.engine.build import MigInstanceRequest
    from configurator.engine.mig import MigRequest, place_layout

    placement = build.card_in(slot)
    if placement is None:
        raise EditRefused(f"slot {slot} holds no card")
    card = catalog.cards.get(placement.card)
    if card is None or card.mig is None:
        raise EditRefused(f"{card.name if card else placement.card} does not support MIG")
    requests = None
    if profiles is not None:
        check = place_layout(card.mig, [MigRequest(p, s) for p, s in profiles])
        if not check.valid:
            raise EditRefused(check.problems[0] if check.problems else "invalid MIG layout")
        requests = [MigInstanceRequest(profile=p, start=s) for p, s in profiles]
    cards = [c.model_copy(update={"mig": requests}) if c.slot == slot else c for c in build.cards]
    count = len(requests) if requests else 0

    def keep(ref: int | InstanceRef) -> bool:
        if isinstance(ref, int):
            return ref != slot or requests is None
        return ref.slot != slot or ref.instance < count

    jobs = [j.model_copy(update={"cards": [c for c in j.cards if keep(c)]}) for j in build.jobs]
    return build.model_copy(update={"cards": cards, "jobs": jobs})


def swap_cards(build: Build, catalog: Catalog, old: str, new: str) -> Build:
    """Every ``old`` card becomes ``new`` (for comparing builds); bridges and MIG layouts that no longer
    apply are dropped."""
    if new not in catalog.cards:
        raise EditRefused(f"unknown card '{new}'")
    cards = [c.model_copy(update={"card": new, "mig": None if c.card == old else c.mig}) if c.card == old else c
             for c in build.cards]  # fmt: skip
    swapped = build.model_copy(update={"cards": cards, "name": f"{build.name} ({catalog.cards[new].name})"})
    bridges = [b for b in swapped.bridges if check_bridge(swapped.model_copy(update={"bridges": []}), catalog, b.slots)
               is None]  # fmt: skip
    moved = {c.slot for c in build.cards if c.card == old}
    jobs = [j.model_copy(update={"cards": [r for r in j.cards if isinstance(r, int) or r.slot not in moved]})
            for j in swapped.jobs]  # fmt: skip
    return swapped.model_copy(update={"bridges": bridges, "jobs": jobs})
