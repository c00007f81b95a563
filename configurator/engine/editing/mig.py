"""MIG edits: a card's layout, and the jobs that follow their instances when it changes."""

from __future__ import annotations

from configurator.catalog.cards import MigSpec
from configurator.catalog.loader import Catalog
from configurator.engine.editing.base import EditRefused
from configurator.engine.mig.layout import MigRequest, place_layout
from configurator.engine.model.build import Build, InstanceRef, MigInstanceRequest


def set_mig_layout(build: Build, catalog: Catalog, slot: int, profiles: list[tuple[str, int | None]] | None) -> Build:
    """Give the card in ``slot`` a MIG layout (profile, start) list, or None to leave MIG mode.

    Jobs that named instances beyond the new layout are taken off the card; an invalid layout is refused
    with the placement reason.
    """
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
    count = len(requests) if requests else 0

    def keep(ref: int | InstanceRef) -> bool:
        if isinstance(ref, int):
            return ref != slot or requests is None
        return ref.slot != slot or ref.instance < count

    jobs = [j.model_copy(update={"cards": [c for c in j.cards if keep(c)]}) for j in build.jobs]
    return build.model_copy(update={"cards": cards, "jobs": jobs})


def remove_mig_instance(build: Build, catalog: Catalog, slot: int, layout: list[tuple[str, int | None]],
                        index: int) -> Build:  # fmt: skip
    """Take instance ``index`` out of ``layout`` (the card's (profile, start) list as placed now, so the
    others keep their starts). Jobs in later instances follow their instance (its index drops by one);
    jobs in the removed one leave the card."""
    if not 0 <= index < len(layout):
        raise EditRefused(f"slot {slot} has no MIG instance {index}")
    jobs = []
    for j in build.jobs:
        refs: list[int | InstanceRef] = []
        for ref in j.cards:
            if isinstance(ref, InstanceRef) and ref.slot == slot:
                if ref.instance == index:
                    continue
                if ref.instance > index:
                    ref = InstanceRef(slot=slot, instance=ref.instance - 1)
            refs.append(ref)
        jobs.append(j.model_copy(update={"cards": refs}))
    rest = layout[:index] + layout[index + 1 :]
    return set_mig_layout(build.model_copy(update={"jobs": jobs}), catalog, slot, rest)


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
