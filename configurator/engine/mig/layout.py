"""MIG layout validation, automatic placement, enumeration and setup commands.

Placement lives in engine/mig/placement.py and enumeration in engine/mig/enumeration.py (re-exported here: the old
import path); this module writes the setup commands and the mig-parted file.

The placement model (legal starts, no overlap, per-profile and per-card limits) is described in mig_place.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from configurator.catalog.cards import CardSpec, MigProfile, MigSpec
from configurator.engine.mig.enumeration import dead_end_layouts, enumerate_layouts
from configurator.engine.mig.placement import (
    LayoutCheck,
    MigRequest,
    PlacedInstance,
    _size_key,
    is_base_profile,
    place_layout,
)

__all__ = [
    "LayoutCheck",
    "MigRequest",
    "MigSetup",
    "PlacedInstance",
    "cgi_command",
    "dead_end_layouts",
    "enumerate_layouts",
    "is_base_profile",
    "mig_commands",
    "mig_parted_yaml",
    "place_layout",
    "preset_layout",
    "profile_shares",
    "total_compute_slices",
]


def total_compute_slices(spec: MigSpec) -> int:
    """Compute slices of the whole card: 7 on 8-slice cards (A100/Hopper/Blackwell SXM), else the instance
    limit (RTX PRO 6000: four 1g). A slice's share of the card is its compute slices over this (evaluate_job,
    the planner's packing and devices)."""
    return 7 if spec.grid_units == 8 else spec.max_instances


def profile_shares(card: CardSpec, prof: MigProfile) -> tuple[float, float]:
    """(compute, memory bandwidth) share of the whole card a MIG instance of ``prof`` gets. Compute: its SMs over the
    card's (the catalog's ``nvidia-smi mig -lgip`` SM counts: seven 1g instances of an H100 hold 112 of its 132 SMs,
    so a 1g is 16/132 = 0.121 of the card, not 1/7 = 0.143), or its compute slices over the card's where an SM count
    is unpublished. Memory: its memory slices over the card's (NVIDIA MIG User Guide, 'Concepts': memory slices
    carry their share of the memory controllers)."""
    assert card.mig is not None
    share = prof.compute_slices / total_compute_slices(card.mig)
    if card.sm_count is not None and card.sm_count.value and prof.sm_count.value:
        share = prof.sm_count.value / card.sm_count.value
    return share, prof.placement.size / card.mig.grid_units


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
