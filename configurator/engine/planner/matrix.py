"""The class x device matrix: each job class on each device once, through the build engine.

A device is a whole card, one MIG instance of a profile, or a group of whole cards in one node for a class
that no single card holds. Each cell is a one-job build evaluated by :func:`configurator.engine.evaluate`,
so fits, peaks and step times are the build engine's own (memory model, MIG slice share of compute and
bandwidth, links between the group's slots). The fleet search then only does arithmetic on these cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from configurator.catalog.hf_config import names_file
from configurator.catalog.loader import Catalog
from configurator.engine.evaluate import evaluate
from configurator.engine.mig.layout import is_base_profile, profile_shares, total_compute_slices
from configurator.engine.model.build import Build
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.result import FitStatus
from configurator.engine.planner.nodes import ResolvedNode
from configurator.engine.planner.plan import JobClass, Plan


@dataclass(frozen=True)
class Device:
    id: str
    node: int  # index into the resolved nodes
    kind: str  # card | mig | group
    profile: str | None
    cards: int  # cards one job holds
    memory_gb: float
    compute_share: float  # of one card: a MIG instance's SMs over the card's (engine/mig/layout.py profile_shares)
    card_fraction: float  # of one card's cost per job-hour (x cards for a group)
    memory_share: float = 1.0  # of one card's memory bandwidth: a MIG instance's memory slices over the card's


@dataclass(frozen=True)
class Cell:
    job_class: int
    device: str
    status: FitStatus
    fits: bool
    peak_gb: float | None
    capacity_gb: float | None
    step_seconds: float | None
    service_hours: float | None
    estimated_rate: bool
    note: str | None
    basis: str = "engine"  # where service_hours comes from: the engine, or a measurement (measurements.py)
    # a MIG slice whose time a measurement set relative to the whole card's: what sets that ratio ("engine": the
    # engine's, applied to a measured whole card; or SM_ACTIVE on a whole card). None: the time stands on its basis
    ratio_basis: str | None = None
    # the engine gives the step time its held-apart runs' band (a per-op step time, not RL: evaluate_job._step_band)
    banded: bool = False
    # the engine's time is a lower bound: a model given by its parameter count only (Compute.lower_bound)
    lower_bound: bool = False


def whole_card_id(node_name: str) -> str:
    """The device id of a node's whole card in the class x device matrix (its MIG profiles are "node / profile")."""
    return f"{node_name} / whole card"


def node_devices(node: ResolvedNode) -> list[Device]:
    """The whole card and every MIG profile the node's card offers (groups are added per class)."""
    card = node.card
    out = [Device(whole_card_id(node.name), node.index, "card", None, 1, card.visible_gb, 1.0, 1.0)]
    if card.mig is not None:
        total = total_compute_slices(card.mig)
        used = {n for layout in node.layouts for n in layout}
        for p in card.mig.profiles:
            if not (is_base_profile(p) or p.name in used):
                continue
            # compute from the instance's SMs (mig/layout.py profile_shares, as a build's job on it is timed); the
            # card's cost a job holds stays by slices: what the instance takes from the card's grid
            share, memory = profile_shares(card, p)
            frac = max(p.compute_slices / total, p.placement.size / card.mig.grid_units)
            out.append(Device(f"{node.name} / {p.name}", node.index, "mig", p.name, 1, p.capacity_gb, share, frac,
                              memory))  # fmt: skip
    return out


def group_device(node: ResolvedNode, g: int) -> Device:
    return Device(f"{node.name} / {g} cards", node.index, "group", None, g, node.card.visible_gb, 1.0, float(g))


def _job(cls: JobClass, cards: list[int] | list[dict[str, int]], parallelism: str, g: int) -> dict[str, Any]:
    return {
        "name": cls.name,
        "model": cls.model if isinstance(cls.model, str) else cls.model.model_dump(),
        "method": cls.method,
        "lora": cls.lora.model_dump(),
        "objective": cls.objective,
        "rl": cls.rl.model_dump(),
        "quantization": cls.quantization,
        "optimizer": cls.optimizer,
        "precision": cls.precision,
        "parallelism": parallelism,
        "tensor_parallel": g if PARALLELISM[parallelism].splits_layers else 1,
        "sequence_length": cls.sequence_length,
        "micro_batch_size": cls.micro_batch_size,
        "gradient_accumulation_steps": cls.gradient_accumulation_steps,
        "gradient_checkpointing": cls.gradient_checkpointing,
        "attention": cls.attention,
        "padded_batches": cls.padded_batches,
        "activation_memory_gb": cls.activation_memory_gb,
        "cards": cards,
    }


def _assumptions(plan: Plan, node: ResolvedNode) -> dict[str, Any]:
    """The plan's assumptions, with the node's measured PCIe rate (lspci -vv, measurements.py) as a calibration."""
    data = plan.assumptions.model_dump()
    if node.calibration:
        data["calibration"] = [*data["calibration"], *(c.model_dump() for c in node.calibration)]
    return data


def cell_build(cls: JobClass, node: ResolvedNode, device: Device, plan: Plan) -> Build:
    """The one-job build a cell evaluates; also what a UI opens when the user picks this device."""
    s0 = node.slots[0]
    if device.kind == "mig":
        cards = [{"slot": s0, "card": node.card.id, "mig": [device.profile]}]
        job = _job(cls, [{"slot": s0, "instance": 0}], "single", 1)
        bridges: list[dict[str, list[int]]] = []
    elif device.kind == "card":
        cards = [{"slot": s0, "card": node.card.id}]
        job = _job(cls, [s0], "single", 1)
        bridges = []
    else:
        slots = list(node.slots[: device.cards])
        cards = [{"slot": s, "card": node.card.id} for s in slots]
        job = _job(cls, slots, cls.multi_card_parallelism, device.cards)
        bridges = [{"slots": list(b)} for b in node.bridges if set(b) <= set(slots)]
    return Build.model_validate(
        {
            "name": f"{cls.name} on {device.id}",
            "chassis": node.chassis.id,
            "cards": cards,
            "bridges": bridges,
            "assumptions": _assumptions(plan, node),
            "jobs": [job],
        }
    )


def evaluate_cell(
    cls: JobClass, k: int, node: ResolvedNode, device: Device, plan: Plan, catalog: Catalog, base: Path | None
) -> Cell:
    build = cell_build(cls, node, device, plan)
    result = evaluate(build, catalog, base)
    jr = result.jobs[0]
    errors = [c for c in result.checks if c.severity == "error"]
    if not jr.cards:
        why = errors[0].message if errors else "the build engine could not size this job"
        return Cell(k, device.id, "unknown", False, None, None, None, None, False, why)
    peak = max(r.peak_reserved_gb for r in jr.cards)
    capacity = min(r.capacity_gb for r in jr.cards)
    status: FitStatus = jr.status
    fits = status == "fits" or (status == "tight" and plan.service.accept_tight)
    blocking = [c for c in errors if c.code not in ("JOB_DOES_NOT_FIT",)]
    if blocking:  # e.g. a tensor-parallel degree the group cannot take
        fits = False
    note = None
    if not fits:
        if blocking:
            note = blocking[0].message
        elif status == "tight":
            note = f"needs {peak:.1f} GB of {capacity:.1f} GB: inside the memory model's uncertainty (tight)"
        else:
            note = f"needs {peak:.1f} GB of {capacity:.1f} GB"
    step = jr.step_seconds
    banded = jr.step_high_seconds is not None
    estimated = bool(jr.compute and jr.compute.bf16_rate_estimated)
    lower = step is not None and jr.compute is not None and jr.compute.lower_bound
    if lower:  # the engine's (Compute.lower_bound)
        note = (note + "; " if note else "") + "parameter count only: attention FLOPs left out (a lower bound)"
    service = None
    if step is not None:
        split = PARALLELISM[cls.multi_card_parallelism].splits_layers
        replicas = device.cards if (device.kind == "group" and not split) else 1
        steps = cls.job_tokens / (cls.tokens_per_step * replicas)
        service = steps * step / 3600.0
    elif fits:
        extra = "no compute rate is published for this card (set assumptions.compute_rates: estimated)"
        note = (note + "; " if note else "") + extra
    return Cell(k, device.id, status, fits, peak, capacity, step, service, estimated, note, banded=banded,
                lower_bound=lower)  # fmt: skip


# What a cell depends on is the job (not its demand), the node, the device and the assumptions. Editing
# demand, prices or the service parameters re-plans without evaluating a single build again.
_DEMAND_FIELDS = {
    "name",
    "jobs_per_day",
    "jobs_per_day_by_month",
    "wait_target_hours",
    "from_month",
    "growth_per_month",
}
_CACHE: dict[tuple[object, ...], Cell] = {}
CACHE_LIMIT = 20_000


def cached_cell(
    cls: JobClass, k: int, node: ResolvedNode, device: Device, plan: Plan, catalog: Catalog, base: Path | None
) -> Cell:
    key = (
        cls.model_dump_json(exclude=_DEMAND_FIELDS),
        node.name, node.chassis.id, node.card.id, node.slots, node.bridges, device.id,
        plan.assumptions.model_dump_json(), plan.service.accept_tight, str(base), id(catalog),
        tuple(c.model_dump_json() for c in node.calibration),
    )  # fmt: skip
    cell = _CACHE.get(key)
    from_file = isinstance(cls.model, str) and names_file(cls.model)
    if cell is None or from_file:  # a config.json may change on disk: evaluate it again
        cell = evaluate_cell(cls, k, node, device, plan, catalog, base)
        if len(_CACHE) >= CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[key] = cell
    return Cell(k, *[getattr(cell, f) for f in Cell.__dataclass_fields__ if f != "job_class"])


def class_cells(
    cls: JobClass, k: int, nodes: list[ResolvedNode], plan: Plan, catalog: Catalog, base: Path | None
) -> tuple[list[Cell], list[Device]]:
    """Every device of every node for one class; a group only where no whole card holds the class."""
    cells: list[Cell] = []
    groups: list[Device] = []
    for node in nodes:
        devices = node_devices(node)
        for d in devices:
            cells.append(cached_cell(cls, k, node, d, plan, catalog, base))
        whole = cells[-len(devices)]
        if whole.fits or whole.status == "unknown" or node.cards_per_node < 2:
            continue
        last = None
        for g in range(2, node.cards_per_node + 1):
            d = group_device(node, g)
            last = (d, cached_cell(cls, k, node, d, plan, catalog, base))
            if last[1].fits:
                break
            if last[1].status == "tight":  # the smallest group that holds the peak, shown though not planned on
                groups.append(d)
                cells.append(last[1])
        if last is not None:
            groups.append(last[0])
            cells.append(last[1])
    return cells, groups
