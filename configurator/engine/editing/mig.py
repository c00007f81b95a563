"""MIG edits: a card's layout, and the jobs that follow their instances when it changes."""

from __future__ import annotations

from configurator.catalog.cards import MigSpec
from configurator.catalog.loader import Catalog
from configurator.engine.editing.base import EditRefused
from configurator.engine.mig.layout import MigRequest, place_layout
from configurator.engine.model.build import Build, InstanceRef, MigInstanceRequest


def set_mig_layout(build: Build, catalog: Catalog, slot: int, profiles: list[tuple[str, int | None]] | None) -> Build:
    """Give the card in ``slot`` a MIG layout (profile, start) list, or None to leave MIG mode.

    Leaving MIG mode puts the jobs that ran in the card's instances on the whole card (what running without MIG
    means; jobs that shared the card then share it whole, and the CARD_SHARED check says so). A new layout keeps
    each job on an instance of the profile it had: the same index where the profile is unchanged, else the first
    unclaimed instance of that profile (``instance_mapping``); jobs whose profile is gone leave the card
    (``lost_placements`` names them). An invalid layout is refused with the placement reason.
    """
    placement = build.card_in(slot)
    old = [r.profile for r in placement.mig or []] if placement is not None else []
    new = [p for p, _ in profiles] if profiles is not None else []
    return _place_layout(build, catalog, slot, profiles, instance_mapping(old, new))


def instance_mapping(old: list[str], new: list[str]) -> dict[int, int]:
    """Old instance index -> new index for a card's layout ``old`` (profiles in order) replaced by ``new``: an
    instance keeps its index where the profile there is unchanged, the others go to the first unclaimed instance
    of their profile, in order; an old instance left out of the dict has no instance of its profile left."""
    mapping = {i: i for i, p in enumerate(old) if i < len(new) and new[i] == p}
    free = [k for k in range(len(new)) if k not in mapping.values()]
    for i, p in enumerate(old):
        if i in mapping:
            continue
        k = next((k for k in free if new[k] == p), None)
        if k is not None:
            mapping[i] = k
            free.remove(k)
    return mapping


def _place_layout(build: Build, catalog: Catalog, slot: int, profiles: list[tuple[str, int | None]] | None,
                  mapping: dict[int, int]) -> Build:  # fmt: skip
    """The card in ``slot`` with layout ``profiles`` (None: MIG off), jobs' instances moved by ``mapping``."""
    placement = build.card_in(slot)
    if placement is None:
        raise EditRefused(f"slot {slot} holds no card")
    card = catalog.cards.get(placement.card)
    if card is None or card.mig is None:
        raise EditRefused(f"{card.name if card else placement.card} does not support MIG")
    requests = None
    if profiles is not None:
        reason = check_mig_layout(card.mig, profiles)
        if reason:
            raise EditRefused(reason)
        requests = [MigInstanceRequest(profile=p, start=s) for p, s in profiles]
    cards = [c.model_copy(update={"mig": requests}) if c.slot == slot else c for c in build.cards]

    def moved(ref: int | InstanceRef) -> int | InstanceRef | None:
        if isinstance(ref, int):  # a whole card: kept unless the card is now split (no instance to run it in)
            return ref if ref != slot or requests is None else None
        if ref.slot != slot:
            return ref
        if requests is None:  # MIG off: the instance's job runs on the whole card
            return slot
        k = mapping.get(ref.instance)
        return None if k is None else InstanceRef(slot=slot, instance=k)

    jobs = []
    for j in build.jobs:
        refs: list[int | InstanceRef] = []
        for ref in j.cards:
            m = moved(ref)
            if m is not None and m not in refs:  # two instances of one card become one whole card
                refs.append(m)
        jobs.append(j if refs == j.cards else j.model_copy(update={"cards": refs}))
    return build.model_copy(update={"cards": cards, "jobs": jobs})


def lost_placements(before: Build, after: Build, slot: int) -> list[str]:
    """The jobs that ran on the card in ``slot`` (whole or an instance) in ``before`` and run nowhere on it in
    ``after``: what a layout change took away, for the window to say."""

    def on(build: Build) -> set[str]:
        return {j.name for j in build.jobs if any((r if isinstance(r, int) else r.slot) == slot for r in j.cards)}

    kept = on(after)
    return [j.name for j in before.jobs if j.name in on(before) - kept]


def remove_mig_instance(build: Build, catalog: Catalog, slot: int, layout: list[tuple[str, int | None]],
                        index: int) -> Build:  # fmt: skip
    """Take instance ``index`` out of ``layout`` (the card's (profile, start) list as placed now, so the
    others keep their starts). Jobs in later instances follow their instance (its index drops by one);
    jobs in the removed one leave the card."""
    if not 0 <= index < len(layout):
        raise EditRefused(f"slot {slot} has no MIG instance {index}")
    mapping = {i: i - (i > index) for i in range(len(layout)) if i != index}
    rest = layout[:index] + layout[index + 1 :]
    return _place_layout(build, catalog, slot, rest, mapping)


def snap_start(spec: MigSpec, profile: str, unit: int) -> tuple[int, int]:
    """(start, size): the legal start of ``profile`` whose span covers grid ``unit`` (drops snap to it),
    else ``unit`` itself."""
    try:
        p = spec.profile(profile)
    except KeyError:
        return unit, 1
    size = p.placement.size
    for s in p.placement.starts:
        if s <= unit < s + size:
            return s, size
    return unit, size


def check_mig_layout(spec: MigSpec, layout: list[tuple[str, int | None]]) -> str | None:
    """Why ``layout`` ((profile, start) pairs) cannot be placed on the card (None when it can)."""
    check = place_layout(spec, [MigRequest(p, s) for p, s in layout])
    return None if check.valid else (check.problems[0] if check.problems else "invalid MIG layout")
