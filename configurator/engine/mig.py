"""MIG layout validation, automatic placement, enumeration and setup commands.

Model (hardware-facts §2.2, derived from `nvidia-smi mig -lgipp` [MIG-GS]): a GPU instance occupies the
grid units ``[start, start + size)`` of its profile's placement; a layout is valid only when every instance
sits on a legal start, no two overlap, each profile stays within its "Instances Total" and the card's
instance limit holds [MIG-PROF]. Validity is decided by placement, never by summing slices: on 8-slot cards
non-overlap on the memory axis already implies the 7-compute-slice limit (hardware-facts §2.2).

Grids are at most a few dozen units, so occupancy is an int bitmask (bit i = grid unit i).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
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
    return ", ".join(n if c == 1 else f"{c} x {n}" for n, c in counts.items())


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


def place_layout(spec: MigSpec, requests: Sequence[MigRequest]) -> LayoutCheck:
    """Validate ``requests`` by placement and choose starts for those without one.

    Explicit starts stay fixed; the others get the lowest starts that make the whole layout valid. Never
    raises for bad input: every problem comes back as a sentence in ``problems``.
    """
    problems: list[str] = []
    by_name = {p.name: p for p in spec.profiles}
    unit = _unit(spec)
    resolved: list[tuple[int, MigProfile, int | None]] = []
    for i, r in enumerate(requests):
        p = by_name.get(r.profile)
        if p is None:
            offered = ", ".join(p.name for p in sorted(spec.profiles, key=_size_key))
            problems.append(f"unknown MIG profile {r.profile!r}: this card offers {offered}")
        else:
            resolved.append((i, p, r.start))

    # Count limits ("Instances Total" per profile, and the card's GI limit) [MIG-PROF].
    if len(requests) > spec.max_instances:
        extra = len(requests) - spec.max_instances
        problems.append(
            f"{len(requests)} instances requested but this card allows at most {spec.max_instances}: "
            f"remove {extra} instance{'s' if extra > 1 else ''}"
        )
    counts: dict[str, int] = {}
    for _, p, _ in resolved:
        counts[p.name] = counts.get(p.name, 0) + 1
    for name, c in counts.items():
        cap = by_name[name].max_count
        if c > cap:
            problems.append(
                f"{c} x {name} requested but this card allows at most {cap}: remove {c - cap} or use another profile"
            )

    # Explicit starts: legal start, then no overlap with earlier fixed instances.
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


def _layout_key(profiles: Sequence[MigProfile]) -> Callable[[tuple[str, ...]], tuple]:
    by_name = {p.name: p for p in profiles}

    def key(names: tuple[str, ...]) -> tuple:
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


def preset_layout(spec: MigSpec, preset: str) -> list[MigRequest]:
    """The requests for a named preset (e.g. mig-parted's ``all-balanced`` [PARTED]), starts automatic."""
    try:
        names = spec.presets[preset]
    except KeyError:
        known = ", ".join(sorted(spec.presets)) or "none"
        raise ValueError(f"unknown MIG preset {preset!r}: this card has {known}") from None
    return [MigRequest(n) for n in names]


def _require_valid(layout: LayoutCheck) -> None:
    if not layout.valid:
        raise ValueError("the MIG layout is not valid: " + "; ".join(layout.problems))
    if not layout.instances:
        raise ValueError("the MIG layout has no instances")


def _creation_order(layout: LayoutCheck) -> list[PlacedInstance]:
    # Largest instances first: [MIG-GS] known issue ("3g ... must be specified first").
    return sorted(layout.instances, key=lambda x: (*_size_key(x.profile)[:2], x.start, x.index))


def cgi_command(spec: MigSpec, layout: LayoutCheck, gpu_index: int) -> str:
    """``nvidia-smi mig -cgi`` with explicit ``<id>:<start>`` placements [MIG-GS], largest first, ``-C``
    creating the default compute instance in each GPU instance."""
    _require_valid(layout)
    parts = ",".join(f"{x.profile.profile_id}:{x.start}" for x in _creation_order(layout))
    return f"sudo nvidia-smi mig -i {gpu_index} -cgi {parts} -C"


def mig_commands(spec: MigSpec, layout: LayoutCheck, gpu_index: int, *, display_mode_switch: bool) -> list[str]:
    """Full setup sequence for one GPU; lines starting with '#' are notes, not commands.

    On cards with ``display_mode_required`` (RTX PRO 6000 Workstation / Max-Q [MIG-GS]) the display-mode
    switch is emitted when ``display_mode_switch`` is true, otherwise a note says it must already be done.
    """
    _require_valid(layout)
    lines: list[str] = []
    switch = f"sudo ./DisplayModeSelector --gpumode=compute --gpu={gpu_index}"
    if spec.display_mode_required:
        if display_mode_switch:
            lines += [
                "# switch the card out of graphics display mode first (DisplayModeSelector >= 1.72.0)",
                switch,
                "# reboot now; then stop the display manager (Xorg/gdm) or -cgi fails with 'In use by another client'",
            ]
        else:
            lines.append(f"# display mode must already be compute ({switch}, then reboot)")
    lines.append(f"sudo nvidia-smi -i {gpu_index} -mig 1")
    lines.append(cgi_command(spec, layout, gpu_index))
    return lines


_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9._+-]*|\d+g\.[A-Za-z0-9._+-]+")


def _yaml_key(text: str) -> str:
    """Plain when YAML reads it back as the same string (profile names, simple ids); else double-quoted."""
    if _PLAIN.fullmatch(text) and text.lower() not in {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}:
        return text
    return json.dumps(text)


def mig_parted_yaml(spec: MigSpec, layout: LayoutCheck, *, config_name: str, devices: list[int] | None = None) -> str:
    """A mig-parted config file (format of [PARTED] ``config-default.yaml``) for this layout.

    mig-parted takes profile counts only and chooses placements itself; the -cgi command keeps the
    explicit starts.
    """
    _require_valid(layout)
    if not config_name:
        raise ValueError("the mig-parted config needs a name")
    counts: dict[str, int] = {}
    for x in _creation_order(layout):
        counts[x.profile.name] = counts.get(x.profile.name, 0) + 1
    # Written by hand, not yaml.safe_dump (1 ms saved per card; results write it when first read, MigSetup).
    # JSON strings and lists are valid YAML scalars, so names with spaces or colons stay safe.
    lines = [
        "version: v1",
        "mig-configs:",
        f"  {_yaml_key(config_name)}:",
        f"    - devices: {json.dumps(list(devices)) if devices is not None else 'all'}",
        "      mig-enabled: true",
        "      mig-devices:",
        *(f"        {_yaml_key(name)}: {count}" for name, count in counts.items()),
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class MigSetup:
    """What one card's setup commands and mig-parted file are written from. evaluate keeps it with the result
    and writes them only when read (result.MigCard.commands / .mig_parted_yaml): not on every evaluation."""

    spec: MigSpec
    layout: LayoutCheck
    gpu_index: int
    config_name: str

    def commands(self) -> list[str]:
        if not (self.layout.valid and self.layout.instances):
            return []
        return mig_commands(self.spec, self.layout, self.gpu_index, display_mode_switch=self.spec.display_mode_required)

    def parted_yaml(self) -> str | None:
        if not (self.layout.valid and self.layout.instances):
            return None
        return mig_parted_yaml(self.spec, self.layout, config_name=self.config_name, devices=[self.gpu_index])
