"""Host edits: the DIMMs and drives the build states as installed (``host:``), or none (the engine picks the
smallest set that holds the need), and how many checkpoints a job keeps (its NVMe need).

A stated part the chassis cannot take is refused with the sentence of the check HOST_PARTS_DONT_FIT: both ask
engine/memory/host.py's ``dimms_misfit`` / ``drives_misfit``.
"""

from __future__ import annotations

from configurator.catalog.loader import Catalog
from configurator.engine.editing.base import EditRefused
from configurator.engine.editing.jobs import update_job
from configurator.engine.memory.host import dimms_misfit, drives_misfit
from configurator.engine.model.build import Build, DimmSet, DriveSet, HostParts


def _with_host(build: Build, dimms: DimmSet | None, drives: DriveSet | None) -> Build:
    """``build`` with these parts stated; ``host:`` dropped when neither is (the file then reads as before)."""
    host = HostParts(dimms=dimms, drives=drives) if dimms is not None or drives is not None else None
    return build.model_copy(update={"host": host})


def _stated(build: Build) -> HostParts:
    return build.host or HostParts()


def check_dimms(build: Build, catalog: Catalog, count: int, size_gb: int) -> str | None:
    """Why ``count`` DIMMs of ``size_gb`` cannot go into the build's chassis, or None."""
    chassis = catalog.chassis.get(build.chassis)
    return None if chassis is None else dimms_misfit(chassis, count, size_gb)


def check_drives(build: Build, catalog: Catalog, count: int) -> str | None:
    """Why ``count`` drives cannot go into the build's chassis, or None."""
    chassis = catalog.chassis.get(build.chassis)
    return None if chassis is None else drives_misfit(chassis, count)


def set_host_dimms(build: Build, catalog: Catalog, count: int, size_gb: int) -> Build:
    """State the installed DIMMs: ``count`` of ``size_gb`` (binary GB, as labelled); refused where the chassis
    cannot take them."""
    why = check_dimms(build, catalog, count, size_gb)
    if why is not None:
        raise EditRefused(why)
    return _with_host(build, DimmSet(count=count, size_gb=size_gb), _stated(build).drives)


def clear_host_dimms(build: Build) -> Build:
    """No DIMMs stated: the engine picks the smallest set that holds the need."""
    return _with_host(build, None, _stated(build).drives)


def set_host_drives(build: Build, catalog: Catalog, count: int, tb: float) -> Build:
    """State the installed NVMe drives: ``count`` of ``tb`` TB (10^12 B); refused where the chassis has fewer
    bays."""
    why = check_drives(build, catalog, count)
    if why is not None:
        raise EditRefused(why)
    return _with_host(build, _stated(build).dimms, DriveSet(count=count, tb=tb))


def clear_host_drives(build: Build) -> Build:
    """No drives stated: the engine picks the smallest set that holds the need."""
    return _with_host(build, _stated(build).dimms, None)


def set_checkpoints_kept(build: Build, index: int, kept: int) -> Build:
    """How many checkpoints job ``index`` keeps on NVMe (Trainer save_total_limit; 0: none written)."""
    return update_job(build, index, checkpoints_kept=kept)
