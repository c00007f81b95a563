"""A card capped below its default power limit (the build's ``power_limit_w``): the step time assumes the default
power, so the job gets a check that says so and how much slower compute-bound work may run, quoting the measured
sweep in specs/power-limits.yaml. The sweep is not applied to the time: one figure-read sweep on one chip does not
time every card (see the data file).
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field

from configurator.catalog.cards import CardSpec
from configurator.catalog.fileio import safe_read_text
from configurator.catalog.loader import specs_dir
from configurator.catalog.sourced import Strict
from configurator.engine.model.result import Check

# a cap within 1 % of the default is the default (nvidia-smi reports limits in whole watts)
_SAME = 0.99


class Sweep(Strict):
    card: str  # catalog id
    name: str
    architecture: str
    default_w: float = Field(gt=0)
    workload: str
    source: str = Field(min_length=1)
    quote: str | None = None
    note: str | None = None
    points: tuple[tuple[float, float], ...] = Field(min_length=1)  # (limit W, throughput over the default's)

    def throughput_at(self, power_fraction: float) -> tuple[float, bool]:
        """(throughput over full power, within the sweep's range) at ``power_fraction`` of the default limit:
        linear between the measured points (and full power at 1); below the lowest point, the lowest."""
        pts = sorted([(w / self.default_w, f) for w, f in self.points] + [(1.0, 1.0)])
        if power_fraction <= pts[0][0]:
            return pts[0][1], power_fraction >= pts[0][0] - 1e-9
        for (x0, y0), (x1, y1) in itertools.pairwise(pts):
            if x0 <= power_fraction <= x1:
                return y0 + (y1 - y0) * (power_fraction - x0) / (x1 - x0), True
        return 1.0, True


class PowerLimitSpec(Strict):
    schema_version: Literal[1]
    sweeps: tuple[Sweep, ...] = Field(min_length=1)


@functools.lru_cache(maxsize=1)
def sweeps(path: Path | None = None) -> tuple[Sweep, ...]:
    raw = yaml.safe_load(safe_read_text(path or specs_dir() / "power-limits.yaml"))
    return PowerLimitSpec.model_validate(raw).sweeps


def is_capped(limit: float | None, default: float | None) -> bool:
    """Whether a build's power limit caps a card below its default (within 1 % is the default: whole watts)."""
    return bool(limit and default and limit < _SAME * default)


def _slots_words(slots: list[int]) -> str:
    if len(slots) == 1:
        return f"slot {slots[0]} is"
    return f"slots {', '.join(map(str, slots[:-1]))} and {slots[-1]} are"


def power_limit_checks(job_name: str, slots: list[int], cards: dict[int, CardSpec],
                       limits: dict[int, float | None]) -> list[Check]:  # fmt: skip
    """POWER_LIMIT_NOT_TIMED for the job's cards capped below their default power limit: one check per card model
    and cap (four H200 NVL at 450 W read as one), on its first slot."""
    groups: dict[tuple[str, float], list[int]] = {}
    for slot in sorted(set(slots)):
        card, limit = cards.get(slot), limits.get(slot)
        default = card.power.tdp_w.value if card is not None else None
        if card is None or limit is None or not is_capped(limit, default):
            continue
        groups.setdefault((card.id, limit), []).append(slot)
    out: list[Check] = []
    for (_, limit), capped in groups.items():
        card = cards[capped[0]]
        default = card.power.tdp_w.value or limit
        share = limit / default
        own = next((s for s in sweeps() if s.architecture == card.architecture), None)
        sweep = own or sweeps()[0]
        fraction, inside = sweep.throughput_at(share)
        if own is None:  # another architecture's sweep: how the figure is meant, in the message itself
            slower = f"roughly {1 / fraction:.1f}× as long (measured on a {sweep.architecture} card; indicative)"
        else:
            slower = f"{'up to' if inside else 'at least'} {1 / fraction:.1f}× as long"
        out.append(Check(severity="warning", code="POWER_LIMIT_NOT_TIMED", slot=capped[0], job=job_name, message=(
            f"{card.name} in {_slots_words(capped)} capped at {limit:,.0f} W ({share:.0%} of its {default:,.0f} W "
            f"default), but the step time of job '{job_name}' assumes full power: under the cap compute-bound work "
            f"may take {slower}; memory-bound work changes little. Where the power supply has room, raising the "
            "limit shortens the step; otherwise read the step time as a best case."), detail=(
            f"Measured: {sweep.workload} on an {sweep.name} ran at about {fraction:.0%} of its full-power throughput "
            f"at {share:.0%} of its power limit"
            + ("" if inside else " (below the sweep's lowest point, so at least that slow)")
            + f", read off a published figure ({sweep.source})."
            + ("" if own is not None else
               f" No such sweep is published for {card.architecture} cards: indicative only.")
            + " Not applied to the step time: one sweep on one chip (specs/power-limits.yaml).")))  # fmt: skip
    return out
