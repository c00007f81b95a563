"""MIG layout enumeration: every placeable profile multiset of a card, and the dead ends among arrangements
(engine/mig/layout.py re-exports both functions).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from configurator.catalog.cards import MigProfile, MigSpec
from configurator.engine.mig.placement import _mask, _size_key, is_base_profile


def _considered(spec: MigSpec, include_variants: bool) -> list[MigProfile]:
    return sorted((p for p in spec.profiles if include_variants or is_base_profile(p)), key=_size_key)


def _walk(spec: MigSpec, profiles: Sequence[MigProfile], visit: Callable[[list[int], int], None]) -> None:
    """Call ``visit(counts, occupied)`` for every arrangement of ``profiles`` that respects the rules.

    Each arrangement is a set of distinct (profile, start) placements; as two instances never share a
    start without overlapping, walking placements in a fixed order visits each arrangement once.
    """
    options = [(k, s, _mask(s, p.placement.size)) for k, p in enumerate(profiles) for s in p.placement.starts]
    caps = [p.max_count for p in profiles]
    counts = [0] * len(profiles)

    def go(j: int, occ: int, total: int) -> None:
        visit(counts, occ)
        if total == spec.max_instances:
            return
        for jj in range(j, len(options)):
            k, _, m = options[jj]
            if occ & m or counts[k] == caps[k]:
                continue
            counts[k] += 1
            go(jj + 1, occ | m, total + 1)
            counts[k] -= 1

    go(0, 0, 0)


def _as_names(profiles: Sequence[MigProfile], counts: Sequence[int]) -> tuple[str, ...]:
    return tuple(p.name for p, c in zip(profiles, counts, strict=True) for _ in range(c))


def _layout_key(profiles: Sequence[MigProfile]) -> Callable[[tuple[str, ...]], tuple[Any, ...]]:
    by_name = {p.name: p for p in profiles}

    def key(names: tuple[str, ...]) -> tuple[Any, ...]:
        ps = [by_name[n] for n in names]
        return (
            -sum(p.compute_slices for p in ps),
            -sum(p.placement.size for p in ps),
            [_size_key(p) for p in ps],
        )

    return key


def enumerate_layouts(
    spec: MigSpec, *, maximal_only: bool = True, include_variants: bool = False
) -> list[tuple[str, ...]]:
    """Distinct placeable profile multisets (names sorted largest first), biggest layouts first.

    ``maximal_only``: keep a multiset only when adding one more instance of any considered profile gives
    a multiset that cannot be placed in any arrangement. (hardware-facts §2.3 counts "maximal" per
    arrangement instead; see :func:`dead_end_layouts`.) The empty layout is never listed.
    ``include_variants=False`` considers base profiles only (no +me / +gfx / -me variants).
    """
    profiles = _considered(spec, include_variants)
    found: set[tuple[int, ...]] = set()
    _walk(spec, profiles, lambda counts, _occ: found.add(tuple(counts)))
    found.discard((0,) * len(profiles))
    if maximal_only:

        def grows(c: tuple[int, ...]) -> bool:
            return any((*c[:k], c[k] + 1, *c[k + 1 :]) in found for k in range(len(c)))

        found = {c for c in found if not grows(c)}
    return sorted((_as_names(profiles, c) for c in found), key=_layout_key(profiles))


def dead_end_layouts(spec: MigSpec, *, include_variants: bool = False) -> list[tuple[str, ...]]:
    """Multisets with at least one arrangement that leaves no room for any further instance.

    This is how hardware-facts §2.3 counts "maximal" (38 for the 8-slot base profiles). It includes
    fragmented layouts such as 3g@0 + 2g@4 + 1g@6, where slice 7 is stranded although 3g+2g+1g+1g is
    placeable in another arrangement; :func:`enumerate_layouts` leaves those out.
    """
    profiles = _considered(spec, include_variants)
    options = [(k, _mask(s, p.placement.size)) for k, p in enumerate(profiles) for s in p.placement.starts]
    found: set[tuple[int, ...]] = set()

    def visit(counts: list[int], occ: int) -> None:
        if not any(counts):
            return
        full = sum(counts) >= spec.max_instances
        if full or all(occ & m or counts[k] >= profiles[k].max_count for k, m in options):
            found.add(tuple(counts))

    _walk(spec, profiles, visit)
    return sorted((_as_names(profiles, c) for c in found), key=_layout_key(profiles))
