"""What every edit shares: the refusal, and re-pointing jobs and bridges when cards move."""

from __future__ import annotations

from configurator.engine.model.build import Bridge, Build, InstanceRef, Job


class EditRefused(ValueError):
    """An edit that would make the build physically impossible; the message says why."""


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
