"""MIG layout validation and automatic placement (engine/mig/layout.py re-exports every public name here).

Model (hardware-facts §2.2, derived from `nvidia-smi mig -lgipp` [MIG-GS]): a GPU instance occupies the
grid units ``[start, start + size)`` of its profile's placement; a layout is valid only when every instance
sits on a legal start, no two overlap, each profile stays within its "Instances Total" and the card's
instance limit holds [MIG-PROF]. Validity is decided by placement, never by summing slices: on 8-slot cards
non-overlap on the memory axis already implies the 7-compute-slice limit (hardware-facts §2.2).

Grids are at most a few dozen units, so occupancy is an int bitmask (bit i = grid unit i).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from configurator.catalog.cards import MigProfile, MigSpec


@dataclass(frozen=True, slots=True)
class MigRequest:
    """One instance the user asks for."""

    profile: str  # profile name, e.g. "1g.24gb"
    start: int | None = None  # explicit placement start on the grid, or None = choose automatically


@dataclass(frozen=True, slots=True)
class PlacedInstance:
    """A request with its position on the grid."""

    index: int  # position in the user's request list (stable id for jobs: {slot, instance: index})
    profile: MigProfile
    start: int
    size: int

    @property
    def end(self) -> int:
        """First grid unit after the instance."""
        return self.start + self.size


@dataclass(frozen=True, slots=True)
class LayoutCheck:
    """Result of :func:`place_layout`."""

    valid: bool
    instances: tuple[PlacedInstance, ...]  # all placed, in request order (partial when invalid)
    problems: tuple[str, ...]  # plain sentences saying what is wrong and how to fix it


# Base profiles are "<n>g.<m>gb"; "+me", "+me.all", "-me", "+gfx" are engine/graphics variants [MIG-PROF].
_BASE_NAME = re.compile(r"^\d+g\.\d+gb$")


def is_base_profile(profile: MigProfile) -> bool:
    """True for plain compute profiles (no media-engine or graphics suffix)."""
    return not profile.media_engines and _BASE_NAME.match(profile.name) is not None


def _mask(start: int, size: int) -> int:
    return ((1 << size) - 1) << start


def _size_key(p: MigProfile) -> tuple[int, int, str]:
    """Sort key: largest first (grid size, then compute slices), then name."""
    return (-p.placement.size, -p.compute_slices, p.name)


def _unit(spec: MigSpec) -> str:
    # 8-slot cards place on memory slices; RTX PRO 6000 on a 12-unit grid (hardware-facts §0.2).
    return "slice" if spec.grid_units == 8 else "grid position"


def _span(spec: MigSpec, start: int, size: int) -> str:
    unit = _unit(spec)
    return f"{unit} {start}" if size == 1 else f"{unit}s {start}-{start + size - 1}"


def _ints(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)


def _count_names(names: Sequence[str]) -> str:
    """'2 x 1g.10gb, 2g.20gb' in the order first seen."""
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    return ", ".join(n if c == 1 else f"{c} × {n}" for n, c in counts.items())


def _search(items: Sequence[tuple[int, MigProfile]], occupied: int) -> list[tuple[int, MigProfile, int]] | None:
    """Backtracking start assignment for ``items`` (already ordered largest first) around ``occupied``.

    Larger instances go first ([MIG-GS] creation-order note) and each tries its lowest free start first.
    Equal consecutive profiles take increasing starts (breaks permutation symmetry); a branch is cut when
    the free units the remaining profiles can reach are fewer than they need (e.g. 1g.10gb never reaches
    slice 7); failed states are memoised. Impossible requests therefore fail in a few steps.
    """
    n = len(items)
    chosen: list[int] = [0] * n
    failed: set[tuple[int, int, int]] = set()
    by_profile: dict[int, list[tuple[int, int]]] = {}  # (start, mask) per distinct profile
    for _, p in items:
        if id(p) not in by_profile:
            by_profile[id(p)] = [(s, _mask(s, p.placement.size)) for s in p.placement.starts]
    tables = [by_profile[id(p)] for _, p in items]
    same_next = [k + 1 < n and items[k + 1][1] is items[k][1] for k in range(n)]
    need = [0] * (n + 1)  # grid units the items k.. still need
    reach = [0] * (n + 1)  # grid units any of the items k.. could cover
    for k in range(n - 1, -1, -1):
        need[k] = need[k + 1] + items[k][1].placement.size
        reach[k] = reach[k + 1]
        for _, m in tables[k]:
            reach[k] |= m

    def go(k: int, occ: int, floor: int) -> bool:
        if k == n:
            return True
        if (reach[k] & ~occ).bit_count() < need[k]:
            return False
        key = (k, occ, floor)
        if key in failed:
            return False
        for s, m in tables[k]:
            if s < floor or occ & m:
                continue
            chosen[k] = s
            if go(k + 1, occ | m, s + 1 if same_next[k] else 0):
                return True
        failed.add(key)
        return False

    if not go(0, occupied, 0):
        return None
    return [(i, p, chosen[k]) for k, (i, p) in enumerate(items)]


def _auto_order(items: Sequence[tuple[int, MigProfile]]) -> list[tuple[int, MigProfile]]:
    # Largest first; among equals the most constrained (fewest starts) first; equal profiles adjacent.
    return sorted(items, key=lambda it: (*_size_key(it[1])[:2], len(it[1].placement.starts), it[1].name, it[0]))


def _fits(spec: MigSpec, profiles: Sequence[MigProfile]) -> list[tuple[int, MigProfile, int]] | None:
    """A placement of these profiles with every start free, or None (placement only, no count checks)."""
    return _search(_auto_order(list(enumerate(profiles))), 0)


def _resolve(spec: MigSpec, requests: Sequence[MigRequest], problems: list[str],
             ) -> list[tuple[int, MigProfile, int | None]]:  # fmt: skip
    """(request index, profile, start) for each request naming a profile the card offers; a problem for others."""
    by_name = {p.name: p for p in spec.profiles}
    resolved: list[tuple[int, MigProfile, int | None]] = []
    for i, r in enumerate(requests):
        p = by_name.get(r.profile)
        if p is None:
            offered = ", ".join(p.name for p in sorted(spec.profiles, key=_size_key))
            problems.append(f"unknown MIG profile {r.profile!r}: this card offers {offered}")
        else:
            resolved.append((i, p, r.start))
    return resolved


def _count_problems(spec: MigSpec, n_requests: int, resolved: Sequence[tuple[int, MigProfile, int | None]],
                    ) -> list[str]:  # fmt: skip
    """Count limits ("Instances Total" per profile, and the card's GI limit) [MIG-PROF]."""
    problems: list[str] = []
    if n_requests > spec.max_instances:
        extra = n_requests - spec.max_instances
        problems.append(
            f"{n_requests} instances requested but this card allows at most {spec.max_instances}: "
            f"remove {extra} instance{'s' if extra > 1 else ''}"
        )
    counts: dict[str, int] = {}
    for _, p, _ in resolved:
        counts[p.name] = counts.get(p.name, 0) + 1
    by_name = {p.name: p for p in spec.profiles}
    for name, c in counts.items():
        cap = by_name[name].max_count
        if c > cap:
            problems.append(
                f"{c} × {name} requested but this card allows at most {cap}: remove {c - cap} or use another profile"
            )
    return problems


def _place_fixed(spec: MigSpec, resolved: Sequence[tuple[int, MigProfile, int | None]], problems: list[str],
                 ) -> tuple[dict[int, PlacedInstance], int, list[tuple[int, MigProfile]]]:  # fmt: skip
    """Explicit starts: legal start, then no overlap with earlier fixed instances. Returns the fixed instances,
    the grid units they occupy, and the requests left to place automatically."""
    unit = _unit(spec)
    placed: dict[int, PlacedInstance] = {}
    occupied = 0
    auto: list[tuple[int, MigProfile]] = []
    for i, p, start in resolved:
        size = p.placement.size
        if start is None:
            auto.append((i, p))
            continue
        if type(start) is not int or start not in p.placement.starts:
            problems.append(f"{p.name} cannot start at {unit} {start}: allowed starts are {_ints(p.placement.starts)}")
            continue
        m = _mask(start, size)
        if occupied & m:
            other = next(o for o in placed.values() if _mask(o.start, o.size) & m)
            problems.append(
                f"{p.name} at {_span(spec, start, size)} overlaps {other.profile.name} at "
                f"{_span(spec, other.start, other.size)}: move one of them or leave its start empty "
                f"to place it automatically"
            )
            continue
        occupied |= m
        placed[i] = PlacedInstance(i, p, start, size)
    return placed, occupied, auto


def place_layout(spec: MigSpec, requests: Sequence[MigRequest]) -> LayoutCheck:
    """Validate ``requests`` by placement and choose starts for those without one.

    Explicit starts stay fixed; the others get the lowest starts that make the whole layout valid. Never
    raises for bad input: every problem comes back as a sentence in ``problems``.
    """
    problems: list[str] = []
    resolved = _resolve(spec, requests, problems)
    problems += _count_problems(spec, len(requests), resolved)
    placed, occupied, auto = _place_fixed(spec, resolved, problems)
    ordered = _auto_order(auto)
    found = _search(ordered, occupied) if not problems else None
    if found is None:
        if not problems:
            problems.append(_no_room_sentence(spec, resolved, placed, auto))
        # Show what does fit: auto instances greedily, largest first, lowest free start.
        for i, p in ordered:
            for s in p.placement.starts:
                m = _mask(s, p.placement.size)
                if not occupied & m:
                    occupied |= m
                    placed[i] = PlacedInstance(i, p, s, p.placement.size)
                    break
    else:
        for i, p, s in found:
            placed[i] = PlacedInstance(i, p, s, p.placement.size)

    return LayoutCheck(
        valid=not problems,
        instances=tuple(placed[i] for i in sorted(placed)),
        problems=tuple(problems),
    )


def _no_room_sentence(
    spec: MigSpec,
    resolved: Sequence[tuple[int, MigProfile, int | None]],
    fixed: dict[int, PlacedInstance],
    auto: Sequence[tuple[int, MigProfile]],
) -> str:
    """Why the (count-valid) layout has no placement, and what would make it fit."""
    profiles = [p for _, p, _ in resolved]
    names = _count_names([p.name for p in sorted(profiles, key=_size_key)])
    anywhere = _fits(spec, profiles)
    if anywhere is not None and fixed:
        # Placeable, just not around the fixed starts: give a working arrangement.
        unit = _unit(spec)
        arrangement = ", ".join(f"{p.name} at {unit} {s}" for _, p, s in sorted(anywhere, key=lambda x: x[2]))
        stuck = _count_names([p.name for _, p in auto])
        fixed_desc = ", ".join(f"{o.profile.name} at {unit} {o.start}" for o in fixed.values())
        return (
            f"no free placement for {stuck} with the fixed starts ({fixed_desc}); "
            f"these instances fit as {arrangement}: change the starts or leave them empty"
        )
    # No arrangement at all (instances would overlap wherever they go): suggest single removals.
    fixes = []
    for name in dict.fromkeys(p.name for p in sorted(profiles, key=_size_key)):
        rest = list(profiles)
        rest.remove(next(p for p in rest if p.name == name))
        if _fits(spec, rest) is not None:
            fixes.append(name)
    how = "remove one " + " or one ".join(fixes) if fixes else "use fewer or smaller instances"
    return (
        f"{names} cannot be placed together on this card in any arrangement (instances may not overlap on "
        f"its {spec.grid_units}-{_unit(spec).split()[-1]} grid): {how}"
    )
