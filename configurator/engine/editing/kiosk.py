"""The kiosk's edits (demo mode): what a visitor's drag, slider and buttons do to a build, and, in the
service-plan scenario, to the plan (which servers the fleet may buy, MIG on or off, the month it is sized for).

Each returns a new Build (or Plan) or raises EditRefused, like every edit; the demo window only calls them.
A plan edit goes through ``engine.planner.editing``, so it is validated like any plan edit.
"""

from __future__ import annotations

import contextlib

from configurator.catalog.cards import short_card_name
from configurator.catalog.loader import Catalog
from configurator.engine.editing.base import EditRefused
from configurator.engine.editing.bridges import add_bridge, check_bridge
from configurator.engine.editing.cards import check_place, place_card
from configurator.engine.editing.jobs import assign_job, set_job_cards, update_job, update_job_titled
from configurator.engine.mig.layout import MigRequest, place_layout
from configurator.engine.model.build import Build, CardPlacement, InstanceRef, MigInstanceRequest
from configurator.engine.model.resolver import ModelResolver
from configurator.engine.planner import Plan
from configurator.engine.planner import editing as plan_editing


def short_name(name: str) -> str:
    """'NVIDIA RTX PRO 6000 Blackwell Server Edition' -> 'RTX PRO 6000 Server'; 'H100 SXM 80GB' -> 'H100 SXM'."""
    return short_card_name(name, bare=True)


def variant_build(build: Build, variant: dict[str, str]) -> Build:
    """The same build with every card swapped (and the chassis, when given): for 'on an H100 it would...'."""
    card = variant.get("card")
    cards = [c.model_copy(update={"card": card, "mig": None}) if card else c for c in build.cards]
    jobs = [j.model_copy(update={"cards": [r if isinstance(r, int) else r.slot for r in j.cards]}) for j in build.jobs]
    return build.model_copy(update={"chassis": variant.get("chassis", build.chassis), "cards": cards, "bridges": [],
                                    "jobs": jobs})  # fmt: skip


def check_drop(build: Build, catalog: Catalog, slot: int, card_id: str) -> str | None:
    """Why ``card_id`` from the palette cannot go into ``slot`` (an occupied slot swaps its card)."""
    occupant = build.card_in(slot)
    if occupant is not None and occupant.card == card_id:
        name = catalog.cards[card_id].name if card_id in catalog.cards else card_id
        return f"slot {slot} already holds a {short_name(name)}"
    return check_place(build, catalog, slot, card_id, moving_from=slot if occupant is not None else None)


def _mig_for(card_id: str, catalog: Catalog, wanted: list[MigInstanceRequest]) -> list[MigInstanceRequest] | None:
    """The MIG layout for a swapped-in card: the same profiles if it has them, else as many instances of its
    largest profile that allows that many; None when the card cannot split that far."""
    spec = catalog.cards[card_id].mig
    if spec is None:
        return None
    names = [r.profile for r in wanted]
    if place_layout(spec, [MigRequest(n) for n in names]).valid:
        return [MigInstanceRequest(profile=n) for n in names]
    for p in sorted(spec.profiles, key=lambda p: -p.capacity_gb):
        if "+" in p.name:
            continue
        if place_layout(spec, [MigRequest(p.name)] * len(names)).valid:
            return [MigInstanceRequest(profile=p.name) for _ in names]
    return None


def _whole(ref: int | InstanceRef, slot: int) -> int | InstanceRef:
    """A MIG instance reference on ``slot`` as the whole card."""
    return ref.slot if isinstance(ref, InstanceRef) and ref.slot == slot else ref


def put_card(build: Build, catalog: Catalog, slot: int, card_id: str, grow_job: int | None = None) -> Build:
    """A palette card dropped on ``slot``: into an empty slot (joining job ``grow_job`` when given), or in
    place of the card there, keeping its jobs (and its MIG split where the new card can do it)."""
    reason = check_drop(build, catalog, slot, card_id)
    if reason:
        raise EditRefused(reason)
    occupant = build.card_in(slot)
    if occupant is None:
        new = place_card(build, catalog, slot, card_id)
        if grow_job is not None and 0 <= grow_job < len(new.jobs):
            new = assign_job(new, catalog, grow_job, slot, add=bool(new.jobs[grow_job].cards))
        return new
    mig = _mig_for(card_id, catalog, occupant.mig) if occupant.mig else None
    cards = [c.model_copy(update={"card": card_id, "mig": mig}) if c.slot == slot else c for c in build.cards]
    jobs = build.jobs
    if occupant.mig and mig is None:  # no split on the new card: the tenants share the whole card
        jobs = [j.model_copy(update={"cards": [_whole(r, slot) for r in j.cards]}) for j in build.jobs]
    new = build.model_copy(update={"cards": cards, "jobs": jobs, "bridges": []})
    bridges = [b for b in build.bridges if slot not in b.slots or check_bridge(new, catalog, b.slots) is None]
    return new.model_copy(update={"bridges": bridges})


def set_method(build: Build, method: str, models: ModelResolver | None = None) -> Build:
    """Every job to LoRA, QLoRA or a full fine-tune; with ``models``, a job whose name was generated follows
    the method ('70B LoRA' becomes '70B full fine-tune'), as in the editor (editing/jobs.update_job_titled)."""
    for i in range(len(build.jobs)):
        build = (
            update_job(build, i, method=method)
            if models is None
            else update_job_titled(build, i, models, method=method)
        )
    return build


def set_sequence_length(build: Build, tokens: int) -> Build:
    for i in range(len(build.jobs)):
        build = update_job(build, i, sequence_length=tokens)
    return build


def _bridge_groups(card_id: str, catalog: Catalog, slots: list[int]) -> list[list[int]]:
    """NVLink bridges over ``slots`` as they can be built: the largest bridge that divides them."""
    card = catalog.cards.get(card_id)
    sizes = sorted(card.nvlink.bridge_sizes, reverse=True) if card and card.nvlink else []
    for size in sizes:
        if size <= len(slots) and len(slots) % size == 0:
            return [slots[i : i + size] for i in range(0, len(slots), size)]
    return [slots]  # check_bridge says why not


def set_bridged(build: Build, catalog: Catalog, job: int, on: bool) -> Build:
    """NVLink bridges over the cards of ``job`` (on), or none at all (off)."""
    if not on:
        return build.model_copy(update={"bridges": []})
    if not 0 <= job < len(build.jobs):
        raise EditRefused("no job to bridge")
    slots = sorted({r for r in build.jobs[job].cards if isinstance(r, int)})
    if len(slots) < 2:
        raise EditRefused("a bridge joins two or more cards: add a card first")
    placed = build.card_in(slots[0])
    new = build.model_copy(update={"bridges": []})
    for group in _bridge_groups(placed.card if placed else "", catalog, slots):
        new = add_bridge(new, catalog, group)
    return new


def set_card_count(build: Build, catalog: Catalog, job: int, count: int) -> Build:
    """Put ``job`` on ``count`` cards like its first one, in the chassis' first slots; bridges follow."""
    if not 0 <= job < len(build.jobs) or not build.jobs[job].cards:
        raise EditRefused("the job has no card to copy: drag one into the chassis first")
    first = build.jobs[job].cards[0]
    placed = build.card_in(first if isinstance(first, int) else first.slot)
    chassis = catalog.chassis.get(build.chassis)
    if placed is None or chassis is None:
        raise EditRefused("the job has no card to copy")
    card = catalog.cards[placed.card]
    slots: list[int] = []
    trial = build.model_copy(update={"cards": [], "bridges": []})
    for pos in sorted(chassis.positions, key=lambda p: p.x):
        if len(slots) == count:
            break
        if check_place(trial, catalog, pos.slot, card.id) is None:
            trial = place_card(trial, catalog, pos.slot, card.id)
            slots.append(pos.slot)
    if len(slots) < count:
        raise EditRefused(f"{chassis.name} takes {len(slots)} {short_name(card.name)} cards, not {count}")
    cards = [CardPlacement(slot=s, card=card.id, power_limit_w=placed.power_limit_w) for s in slots]
    new = build.model_copy(update={"cards": cards, "bridges": []})
    new = set_job_cards(new, job, list(slots))
    if build.bridges and count > 1:
        with contextlib.suppress(EditRefused):  # a card without a bridge connector stays on PCIe
            new = set_bridged(new, catalog, job, True)
    return new


def fitting_status(fits: int, total: int) -> str:
    """The kiosk's status for 'how many jobs fit': all of them fits, none does not, some is tight."""
    if fits == total:
        return "fits"
    return "does-not-fit" if fits == 0 else "tight"


# ---- the service-plan scenario: edits on the plan ----------------------------------------------------------


def _node_index(plan: Plan, node: str) -> int:
    names = [n.name for n in plan.nodes]
    if node not in names:
        raise EditRefused(f"the plan has no node type {node!r} (it has {', '.join(names)})")
    return names.index(node)


def set_plan_servers(plan: Plan, shipped: Plan, node: str | None) -> Plan:
    """Let the fleet buy every node type (``node`` None) or only ``node``: each allowed one gets the shipped
    plan's ``max_nodes`` back, the others none (``max_nodes`` 0, so the search leaves them out)."""
    keep = None if node is None else _node_index(shipped, node)
    for i, n in enumerate(shipped.nodes):
        bound = n.max_nodes if keep is None or i == keep else 0
        plan = plan_editing.set_node(plan, _node_index(plan, n.name), max_nodes=bound)
    return plan


def plan_servers(plan: Plan, shipped: Plan) -> str | None:
    """The node type the plan is limited to (the inverse of :func:`set_plan_servers`); None: every one."""
    allowed = [n.name for n in plan.nodes if n.max_nodes > 0]
    return allowed[0] if len(allowed) == 1 and len(shipped.nodes) > 1 else None


def set_plan_mig(plan: Plan, shipped: Plan, on: bool) -> Plan:
    """MIG on: every node type may split its cards as the shipped plan lists (``mig_layouts``); off: whole
    cards only (no layouts, so the search considers no MIG fleet)."""
    for n in shipped.nodes:
        layouts = list(n.mig_layouts) if on else []
        plan = plan_editing.set_node(plan, _node_index(plan, n.name), mig_layouts=layouts)
    return plan


def plan_mig(plan: Plan) -> bool:
    """Whether any node type of the plan may split its cards with MIG."""
    return any(n.mig_layouts for n in plan.nodes)


def set_plan_month(plan: Plan, month: int) -> Plan:
    """Size the fleet for roadmap month ``month`` (1: today's demand; the roadmap's last month: its end)."""
    if not 1 <= month <= plan.roadmap.months:
        raise EditRefused(f"the roadmap runs from month 1 to month {plan.roadmap.months}, not {month}")
    return plan_editing.set_fields(plan, "search", size_for_month=month)
