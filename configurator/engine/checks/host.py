"""The host's checks: the build's RAM and NVMe need (engine/memory/host.py) against what the chassis can hold and
what the build says is installed. Each sentence says the fix."""

from __future__ import annotations

import math

from configurator.catalog.chassis import ChassisSpec
from configurator.catalog.units import GB, GIB
from configurator.engine.memory.host import DRIVE_SIZES_TB, dimms_misfit, drives_misfit
from configurator.engine.model.result import Check, HostResult, JobResult


def _names(terms_jobs: list[str]) -> str:
    return ", ".join(dict.fromkeys(j for j in terms_jobs if j))  # "": the OS reserve, no job's


def host_checks(host: HostResult, chassis: ChassisSpec, jobs: list[JobResult]) -> list[Check]:
    checks: list[Check] = []
    offloading = [j.name for j in jobs if j.offload != "none"]
    ram_jobs = _names([t.job for t in host.ram_terms])
    need = host.ram_need_gb
    limit = host.ram_max_gb
    if limit is None:
        if offloading:
            spec = chassis.host_memory_max_gb
            note = f" ({spec.note})" if spec is not None and spec.note else ""
            checks.append(Check(severity="info", code="HOST_MEMORY_UNKNOWN", message=(
                f"Jobs {', '.join(offloading)} need {need:.0f} GB of host memory (model loading, offloaded states "
                f"and checkpoint staging, the OS's reserve included); the most memory {chassis.name} takes is "
                f"unknown{note}: check its specification.")))  # fmt: skip
    elif need > limit:
        checks.append(Check(severity="error", code="HOST_MEMORY", message=(
            f"Jobs {ram_jobs} need {need:.0f} GB of host memory (model loading, offloaded states, pinned buffers "
            f"and checkpoint staging), more than the {limit:.0f} GB {chassis.name} takes at most: offload less (no "
            "offload_param, or ZeRO-Infinity to NVMe), load the model on rank 0 only (FSDP "
            "cpu_ram_efficient_loading), run the jobs one after another, or choose a chassis with more DIMM "
            "slots.")))  # fmt: skip
    checks += _storage(host, chassis)
    checks += _installed(host, chassis, need)
    return checks


def _storage(host: HostResult, chassis: ChassisSpec) -> list[Check]:
    bays = host.drive_bays
    if bays is None or not host.nvme_terms:
        return []
    most = bays * max(DRIVE_SIZES_TB) * 1000
    if host.nvme_need_gb <= most:
        return []
    jobs = _names([t.job for t in host.nvme_terms])
    return [Check(severity="error", code="HOST_STORAGE", message=(
        f"Jobs {jobs} need {host.nvme_need_gb / 1000:.1f} TB of NVMe (swap files, checkpoints kept and model "
        f"files), more than {bays} bays of {max(DRIVE_SIZES_TB):g} TB drives hold in {chassis.name}: keep fewer "
        "checkpoints, write them to network storage, or choose a chassis with more drive bays."))]  # fmt: skip


def _dimm_fix(host: HostResult, size: float, need: float) -> str:
    """The concrete DIMMs that hold ``need`` GB: as many of the installed size as it takes (in the slots), and the
    engine's pick where that differs (every memory channel filled alike, memory/host.py pick_dimms)."""
    count = math.ceil(need * GB / GIB / size)
    pick = host.picked_dimms
    picked = f"{pick.count} × {pick.size:g} GB" if pick is not None else None
    if host.dimm_slots is not None and count > host.dimm_slots:
        return f"Install {picked} DIMMs" if picked else "No DIMMs in its slots hold that: run fewer jobs at once"
    fix = f"Install at least {count} × {size:g} GB DIMMs"
    if picked and picked != f"{count} × {size:g} GB":
        fix += f" ({picked} fills every memory channel alike)"
    return fix


def _installed(host: HostResult, chassis: ChassisSpec, need: float) -> list[Check]:
    checks: list[Check] = []
    d = host.dimms
    misfit = dimms_misfit(chassis, d.count, d.size) if d is not None and d.stated else None
    if misfit is not None:
        checks.append(Check(severity="error", code="HOST_PARTS_DONT_FIT", message=misfit))
    if d is not None and d.stated and d.capacity_gb < need:
        checks.append(Check(severity="error", code="HOST_RAM_SHORT", message=(
            f"The build installs {d.count} × {d.size:g} GB {'DIMM' if d.count == 1 else 'DIMMs'} "
            f"({d.count * d.size:,.0f} GiB), less than its jobs need at the same time: {need:,.0f} GB = "
            f"{need * GB / GIB:,.0f} GiB (a DIMM's label counts GiB). {_dimm_fix(host, d.size, need)}, offload "
            "less, or load the model on rank 0 only (FSDP cpu_ram_efficient_loading).")))  # fmt: skip
    r = host.drives
    misfit = drives_misfit(chassis, r.count) if r is not None and r.stated else None
    if misfit is not None:
        checks.append(Check(severity="error", code="HOST_PARTS_DONT_FIT", message=misfit))
    if r is not None and r.stated and r.capacity_gb < host.nvme_need_gb:
        checks.append(Check(severity="error", code="HOST_NVME_SHORT", message=(
            f"The build installs {r.count} × {r.size:g} TB of NVMe, less than the {host.nvme_need_gb / 1000:.2f} TB "
            "its jobs write (swap files, checkpoints kept, model files): add drives, or keep fewer "
            "checkpoints.")))  # fmt: skip
    return checks
