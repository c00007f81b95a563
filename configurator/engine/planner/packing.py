"""MIG-aware packing: the fewest cards whose valid MIG layouts hold a demand of instances per profile.

Validity is the catalog's placement grid, checked by :func:`configurator.engine.mig.layout.place_layout` (starts,
overlaps, per-profile and per-card limits), never a sum of slices. First-fit-decreasing (largest instance
first, each into the first card whose layout stays placeable: Johnson 1973, bin packing, "FFD") gives a
packing; when it uses more cards than a lower bound, a memoised exact search over the card's placeable
layouts looks for a smaller one (demands here are a few dozen instances, and a card has at most a few dozen
maximal layouts). Free compute slices a card's layout leaves are "free" when another instance could still be
placed there, and "stranded" when none can.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from configurator.catalog.cards import MigSpec
from configurator.engine.mig.layout import (
    MigRequest,
    enumerate_layouts,
    is_base_profile,
    place_layout,
    total_compute_slices,
)

EXACT_LIMIT = 40  # instances up to which the exact search runs when FFD misses the lower bound


class PackedCard(BaseModel):
    model_config = ConfigDict(frozen=True)

    profiles: list[str]  # the instances on this card, largest first
    used_compute_slices: int
    free_compute_slices: int  # left unused by this layout
    stranded_compute_slices: int  # free slices no further instance can use (the grid has no room)
    free_grid_units: int


class Packing(BaseModel):
    model_config = ConfigDict(frozen=True)

    card: str  # the catalog id
    demand: dict[str, int]
    cards: list[PackedCard]
    lower_bound: int
    method: str  # "first-fit-decreasing" or "exact search"
    stranded_compute_slices: int
    problems: list[str] = []
    card_name: str = ""  # the card's display name (the catalog's), for the words every view prints
    node_cards: int | None = None  # that node type's cards in the fleet
    node_mig_cards: int | None = None  # those of them the fleet sets up as MIG (the rest run whole)


def _key(names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(names))


@functools.lru_cache(maxsize=65536)
def _placeable_cached(spec_id: int, names: tuple[str, ...]) -> bool:
    spec = _SPECS[spec_id]
    return place_layout(spec, [MigRequest(n) for n in names]).valid


_SPECS: dict[int, MigSpec] = {}


def placeable(spec: MigSpec, names: tuple[str, ...] | list[str]) -> bool:
    """True when these instances have a valid placement together on one card."""
    _SPECS.setdefault(id(spec), spec)
    return _placeable_cached(id(spec), _key(tuple(names)))


def _card(spec: MigSpec, names: list[str]) -> PackedCard:
    by = {p.name: p for p in spec.profiles}
    order = sorted(names, key=lambda n: (-by[n].placement.size, -by[n].compute_slices, n))
    used = sum(by[n].compute_slices for n in names)
    total = total_compute_slices(spec)
    free = max(0, total - used)
    room = any(placeable(spec, [*names, p.name]) for p in spec.profiles if is_base_profile(p))
    grid = spec.grid_units - sum(by[n].placement.size for n in names)
    return PackedCard(
        profiles=order,
        used_compute_slices=used,
        free_compute_slices=free,
        stranded_compute_slices=0 if room else free,
        free_grid_units=grid,
    )


def lower_bound(spec: MigSpec, demand: Mapping[str, int]) -> int:
    """Cards no packing can beat: grid units, compute slices, instance count and per-profile limits."""
    by = {p.name: p for p in spec.profiles}
    items = [(by[n], c) for n, c in demand.items() if c > 0]
    if not items:
        return 0
    bounds = [
        math.ceil(sum(p.placement.size * c for p, c in items) / spec.grid_units),
        math.ceil(sum(p.compute_slices * c for p, c in items) / total_compute_slices(spec)),
        math.ceil(sum(c for _, c in items) / spec.max_instances),
        *(math.ceil(c / p.max_count) for p, c in items),
    ]
    return max(bounds)


def _ffd(spec: MigSpec, demand: Mapping[str, int]) -> list[list[str]]:
    by = {p.name: p for p in spec.profiles}
    items = sorted(
        (n for n, c in demand.items() for _ in range(c)),
        key=lambda n: (-by[n].placement.size, -by[n].compute_slices, n),
    )
    cards: list[list[str]] = []
    for name in items:
        for card in cards:
            if placeable(spec, [*card, name]):
                card.append(name)
                break
        else:
            cards.append([name])
    return cards


def _exact(spec: MigSpec, demand: Mapping[str, int], best: int) -> list[list[str]] | None:
    """Fewest cards covering ``demand`` with placeable layouts, if fewer than ``best``; else None."""
    names = sorted(n for n, c in demand.items() if c > 0)
    variants = any(not is_base_profile(spec.profile(n)) for n in names)
    counted = [Counter(layout) for layout in enumerate_layouts(spec, include_variants=variants)]
    layouts = [{n: lay.get(n, 0) for n in names} for lay in counted]
    layouts = [lay for lay in layouts if any(lay.values())]

    @functools.cache
    def go(rest: tuple[int, ...], budget: int) -> tuple[tuple[int, ...], ...] | None:
        if not any(rest):
            return ()
        if budget == 0:
            return None
        first = next(i for i, r in enumerate(rest) if r)
        for lay in layouts:
            vec = tuple(lay[n] for n in names)
            if vec[first] == 0:  # every solution holds the first unmet profile on some card: branch on it
                continue
            take = tuple(min(r, v) for r, v in zip(rest, vec, strict=True))
            sub = go(tuple(r - t for r, t in zip(rest, take, strict=True)), budget - 1)
            if sub is not None:
                return (take, *sub)
        return None

    for budget in range(lower_bound(spec, demand), best):
        found = go(tuple(demand[n] for n in names), budget)
        if found is not None:
            return [[n for n, k in zip(names, take, strict=True) for _ in range(k)] for take in found]
    return None


def pack(spec: MigSpec, card_id: str, demand: Mapping[str, int]) -> Packing:
    """Pack ``demand`` (profile name -> instances) onto the fewest cards of this MIG spec."""
    by = {p.name: p for p in spec.profiles}
    problems = [f"unknown MIG profile {n!r}" for n in demand if n not in by]
    wanted = {n: int(c) for n, c in demand.items() if n in by and c > 0}
    unplaceable = [n for n in wanted if not placeable(spec, [n])]
    problems += [f"{n} cannot be placed on this card" for n in unplaceable]
    for n in unplaceable:
        wanted.pop(n)
    cards = _ffd(spec, wanted)
    bound = lower_bound(spec, wanted)
    method = "first-fit-decreasing"
    if len(cards) > bound and sum(wanted.values()) <= EXACT_LIMIT:
        better = _exact(spec, wanted, len(cards))
        if better is not None:
            cards, method = better, "exact search"
    packed = [_card(spec, c) for c in cards]
    return Packing(
        card=card_id,
        demand=wanted,
        cards=packed,
        lower_bound=bound,
        method=method,
        stranded_compute_slices=sum(c.stranded_compute_slices for c in packed),
        problems=problems,
    )
