"""``evaluate(build) -> BuildResult``: the one function the CLI, GUI and PDF call.

Never raises on a structurally valid build: unknown ids, impossible placements and jobs that do not
fit become checks with a code, a severity and a sentence.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from configurator.catalog.cards import CardSpec
from configurator.catalog.errors import FileError, UnknownIdError
from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.models import ModelSpec
from configurator.engine import calibration
from configurator.engine.advice import fit_advice
from configurator.engine.breakdown import MemoryBreakdown
from configurator.engine.build import Build, Job, ParamsOnlyModel
from configurator.engine.communication import communication, slowest_link
from configurator.engine.compute import compute
from configurator.engine.lowprecision import (
    extra_bytes,
    job_capability,
    precision_checks,
    recipe_of,
    support_at,
    supported_recipes,
)
from configurator.engine.memory import (
    GB,
    effective_offload,
    job_parameters,
    memory_for_card,
    sharding,
)
from configurator.engine.mig import LayoutCheck, MigRequest, MigSetup, place_layout
from configurator.engine.physical import bridge_checks, power_budget, slot_checks
from configurator.engine.precision import trained_bytes
from configurator.engine.resolver import RESOLVE_ERRORS, ModelResolver
from configurator.engine.result import (
    BuildResult,
    CardMemory,
    Check,
    FitStatus,
    JobResult,
    MigCard,
    MigInstanceResult,
    PrecisionInfo,
    Topology,
)
from configurator.engine.stack import describe, stack_of
from configurator.engine.topology import LEGEND, TopologyModel, build_topology, calibration_map


def resolve_model(ref: str | ParamsOnlyModel, catalog: Catalog, base_dir: Path | None) -> ModelSpec:
    """A catalog id, a path to a Hugging Face config.json, or {parameters: N} (see ``ModelResolver``)."""
    return ModelResolver(catalog, base_dir).resolve(ref)


def _status(headroom: float, capacity: float, high: float, margin: float) -> FitStatus:
    """Tight whenever the band straddles capacity (its high end over it) or the margin is not left."""
    if headroom < 0:
        return "does-not-fit"
    if headroom < margin * capacity or high > capacity:
        return "tight"
    return "fits"


def _fits_clearly(peak: float, *, capacity: float, margin: float, band: calibration.Band | None = None) -> bool:
    """The verdict rule as a predicate on the peak: what the advice must reach ("fits", not "tight")."""
    high = (band or calibration.band_for(None)).around(peak)[1]
    return _status(capacity - peak, capacity, high, margin) == "fits"


def _fits_changed(peak: float, job: Job, *, capacity: float, margin: float) -> bool:
    """``_fits_clearly`` for a job as the advice would change it: with the band that job gets."""
    return _fits_clearly(peak, capacity=capacity, margin=margin, band=calibration.band_for(job))


def _row(slot: int, card: CardSpec, mem: MemoryBreakdown, capacity: float, nominal: float, margin: float,
         mig: str | None = None, instance: int | None = None, band: calibration.Band | None = None,
         ) -> CardMemory:  # fmt: skip
    peak = mem.peak_reserved
    pools = mem.phase_reserved()
    band = band or calibration.band_for(None)
    low, high = band.around(peak)
    headroom = capacity - peak
    return CardMemory.model_construct(  # built here from checked numbers: validation would only cost time
        slot=slot, card=card.id, card_name=card.name, mig=mig, instance=instance,
        capacity_gb=capacity / GB, capacity_nominal_gb=nominal / GB,
        weights_gb=mem.weights / GB, adapters_gb=mem.adapters / GB, gradients_gb=mem.gradients / GB,
        optimizer_gb=mem.optimizer / GB, activations_gb=mem.activations / GB, transient_gb=mem.transient / GB,
        overhead_gb=mem.overhead / GB, model_states_gb=mem.model_states / GB,
        room_for_activations_gb=(capacity - mem.model_states) / GB,
        peak_allocated_gb=mem.peak_allocated / GB, allocator_reserved_gb=mem.allocator_reserved / GB,
        cuda_context_gb=mem.cuda_context / GB, peak_reserved_gb=peak / GB,
        peak_low_gb=low / GB, peak_high_gb=high / GB,
        headroom_gb=headroom / GB, headroom_nominal_gb=(nominal - mem.peak_allocated) / GB,
        fits=headroom >= 0, status=_status(headroom, capacity, high, margin),
        fixed_activation_budget=mem.fixed_budget, fsdp_setup_pool_gb=mem.setup_pool / GB,
        reserved_set_by="fsdp-setup" if mem.setup_bound else "step",
        peak_phase=max(pools, key=pools.__getitem__), band_low_gb=low / GB, band_high_gb=high / GB,
        band_basis=band.basis, phase_reserved_gb={k: (v + mem.cuda_context) / GB for k, v in pools.items() if v},
    )  # fmt: skip


def _mig_layouts(build: Build, cards: dict[int, CardSpec], checks: list[Check]) -> dict[int, LayoutCheck]:
    layouts: dict[int, LayoutCheck] = {}
    for placement in build.cards:
        card = cards.get(placement.slot)
        if placement.mig is None or card is None:
            continue
        if card.mig is None:
            checks.append(
                Check(
                    severity="error",
                    code="MIG_UNSUPPORTED",
                    slot=placement.slot,
                    message=(f"{card.name} does not support MIG; remove the layout from slot {placement.slot}."),
                )
            )
            continue
        layout = _place(card.mig, [MigRequest(r.profile, r.start) for r in placement.mig])
        layouts[placement.slot] = layout
        for problem in layout.problems:
            checks.append(
                Check(
                    severity="error",
                    code="MIG_LAYOUT_INVALID",
                    slot=placement.slot,
                    message=f"Slot {placement.slot} ({card.name}): {problem}",
                )
            )
        if card.mig.display_mode_required:
            checks.append(Check(severity="warning", code="MIG_DISPLAY_MODE", slot=placement.slot, message=(
                f"{card.name} in slot {placement.slot} must be switched from graphics to compute display mode "
                "(DisplayModeSelector --gpumode=compute, then reboot) before MIG can be enabled; its display "
                "outputs turn off.")))  # fmt: skip
    return layouts


# Memos keyed on the identity of immutable inputs (builds, jobs, catalog specs and layouts are frozen): an
# evaluation repeated while the user drags sees the same objects for everything the drag does not touch. Each
# entry keeps its inputs, so an id reused after garbage collection never hits.
class _Memo:
    """Keeps what the last two evaluations used, and nothing older: a drag always hits it, and a long session
    (the demo cycling its scenarios) holds no more than two builds' worth."""

    def __init__(self) -> None:
        self.now: dict = {}  # type: ignore[type-arg]
        self.before: dict = {}  # type: ignore[type-arg]

    def get(self, key: tuple):  # type: ignore[no-untyped-def,type-arg]
        hit = self.now.get(key)
        if hit is None:
            hit = self.before.get(key)
            if hit is not None:
                self.now[key] = hit
        return hit

    def put(self, key: tuple, value: object) -> None:  # type: ignore[type-arg]
        self.now[key] = value

    def turn(self) -> None:
        """A new evaluation starts: what the one before the last used goes."""
        self.before, self.now = self.now, {}

    def clear(self) -> None:
        self.now, self.before = {}, {}


_TOPOLOGY_MEMO = _Memo()  # -> (inputs, TopologyModel, Topology)
_LAYOUT_MEMO = _Memo()  # -> (MigSpec, LayoutCheck)
_JOB_MEMO = _Memo()  # -> (inputs, JobResult, checks it added, card use it recorded)


def _topology(build: Build, cards: dict[int, CardSpec], chassis) -> tuple[TopologyModel, Topology]:  # type: ignore[no-untyped-def]
    """The links between the cards and their nvidia-smi matrix: they depend on the chassis, the cards by slot,
    the occupied slots and the bridges only."""
    specs = (chassis, *(c for _, c in sorted(cards.items())))
    key = (*(id(x) for x in specs), tuple(sorted(cards)), tuple(p.slot for p in build.cards),
           tuple(tuple(b.slots) for b in build.bridges))  # fmt: skip
    hit = _TOPOLOGY_MEMO.get(key)
    if hit is None or any(a is not b for a, b in zip(hit[0], specs, strict=True)):
        topo = build_topology(build, cards, chassis)
        hit = (specs, topo, Topology(slots=topo.slots, matrix=topo.matrix(), nvlink_domains=topo.domains,
                                     legend=LEGEND))  # fmt: skip
        _TOPOLOGY_MEMO.put(key, hit)
    return hit[1], hit[2]


def _place(spec, requests: list[MigRequest]) -> LayoutCheck:  # type: ignore[no-untyped-def]
    key = (id(spec), tuple(requests))
    hit = _LAYOUT_MEMO.get(key)
    if hit is None or hit[0] is not spec:
        hit = (spec, place_layout(spec, requests))
        _LAYOUT_MEMO.put(key, hit)
    return hit[1]


def _evaluate_job_memo(job: Job, build: Build, catalog: Catalog, models: ModelResolver,
                       cards: dict[int, CardSpec], layouts: dict[int, LayoutCheck], topo: TopologyModel,
                       calib: dict[str, float], checks: list[Check],
                       card_use: dict) -> JobResult:  # type: ignore[type-arg]  # fmt: skip
    """_evaluate_job, memoised on what it reads: the job, its model, the assumptions, the catalog, the card and
    MIG layout at each slot it names and the links between those slots. The checks it adds and the card use it
    records are kept with the result and replayed."""
    try:
        model = models.resolve(job.model)
    except RESOLVE_ERRORS:
        return _evaluate_job(job, build, catalog, models, cards, layouts, topo, calib, checks, card_use)
    slots = sorted({s for s, _ in job.card_keys})
    inputs = (job, model, build.assumptions, catalog, *(x for s in slots for x in (cards.get(s), layouts.get(s))))
    # the links it reads, by value: between its own cards (a card moved elsewhere leaves them alone)
    links = tuple(topo.link(a, b) for i, a in enumerate(slots) for b in slots[i + 1 :] if a in cards and b in cards)
    key = (*(id(x) for x in inputs), links)
    hit = _JOB_MEMO.get(key)
    if hit is None or len(hit[0]) != len(inputs) or any(a is not b for a, b in zip(hit[0], inputs, strict=True)):
        own_checks: list[Check] = []
        own_use: dict = {}  # type: ignore[type-arg]
        result = _evaluate_job(job, build, catalog, models, cards, layouts, topo, calib, own_checks, own_use)
        hit = (inputs, result, own_checks, [(k, u) for k, uses in own_use.items() for u in uses])
        _JOB_MEMO.put(key, hit)
    checks += hit[2]
    for k, use in hit[3]:
        card_use.setdefault(k, []).append(use)
    return hit[1]


def evaluate(build: Build, catalog: Catalog | None = None, base_dir: str | Path | None = None,
             models: ModelResolver | None = None) -> BuildResult:  # fmt: skip
    """``models``: the resolver for the build's model references (its folder and cache); by default one for
    ``base_dir``, the build file's folder."""
    catalog = catalog or default_catalog()
    models = models or ModelResolver(catalog, base_dir)
    for memo in (_TOPOLOGY_MEMO, _LAYOUT_MEMO, _JOB_MEMO):
        memo.turn()
    a = build.assumptions
    checks: list[Check] = []
    try:
        chassis = catalog.chassis_spec(build.chassis)
    except UnknownIdError as exc:
        checks.append(Check(severity="error", code="CHASSIS_UNKNOWN", message=f"{exc}."))
        return BuildResult(name=build.name, chassis=None, link_rates=a.link_rates, compute_rates=a.compute_rates,
                           utilization=a.utilization, checks=checks)  # fmt: skip

    cards: dict[int, CardSpec] = {}
    slots_in_chassis = {p.slot for p in chassis.positions}
    for placement in build.cards:
        if placement.slot not in slots_in_chassis:
            checks.append(
                Check(
                    severity="error",
                    code="SLOT_UNKNOWN",
                    slot=placement.slot,
                    message=(f"{chassis.name} has no slot {placement.slot} (slots: {sorted(slots_in_chassis)})."),
                )
            )
            continue
        try:
            cards[placement.slot] = catalog.card(placement.card)
        except UnknownIdError as exc:
            checks.append(
                Check(
                    severity="error",
                    code="CARD_UNKNOWN",
                    slot=placement.slot,
                    message=f"Slot {placement.slot}: {exc}.",
                )
            )
    checks += slot_checks(build, chassis, cards)
    checks += bridge_checks(build, chassis, cards)
    power, power_checks = power_budget(build, chassis, cards)
    checks += power_checks
    topo, topology = _topology(build, cards, chassis)
    layouts = _mig_layouts(build, cards, checks)
    calib = calibration_map(a.calibration)

    jobs: list[JobResult] = []
    placed_jobs: dict[tuple[int, int], list[str]] = {}
    card_use: dict[tuple[int, int | None], list[tuple[str, float]]] = {}
    for job in build.jobs:
        result = _evaluate_job_memo(job, build, catalog, models, cards, layouts, topo, calib, checks, card_use)
        jobs.append(result)
        for row in result.cards:
            if row.instance is not None:
                placed_jobs.setdefault((row.slot, row.instance), []).append(job.name)

    checks += _host_memory_checks(jobs, chassis)
    for (slot, instance), users in card_use.items():
        if len(users) > 1:
            total = sum(peak for _, peak in users)
            capacity = capacity_of(cards[slot], layouts.get(slot), instance)[0]
            where = f"slot {slot}" + (f" instance {instance}" if instance is not None else "")
            sev = "error" if total > capacity else "warning"
            checks.append(Check(severity=sev, code="CARD_SHARED", slot=slot, message=(
                f"Jobs {', '.join(n for n, _ in users)} share {where}: together they need {total / GB:.1f} GB "
                f"of {capacity / GB:.1f} GB. Run them one after another, or give each its own card or MIG "
                "instance.")))  # fmt: skip

    mig_cards = []
    for slot, layout in layouts.items():
        card = cards[slot]
        assert card.mig is not None
        gpu_index = topo.slots.index(slot) if slot in topo.slots else 0
        setup = MigSetup(card.mig, layout, gpu_index, f"{build.name} slot {slot}".lower().replace(" ", "-"))
        mig_cards.append(MigCard.of(
            setup, slot=slot, card=card.id, valid=layout.valid, display_mode_required=card.mig.display_mode_required,
            instances=[MigInstanceResult(
                index=i.index, profile=i.profile.name, start=i.start, size=i.size,
                capacity_gb=i.profile.capacity_gb, capacity_nominal_gb=i.profile.memory_nominal_gb.value or 0,
                jobs=placed_jobs.get((slot, i.index), [])) for i in layout.instances],
            problems=list(layout.problems),
        ))  # fmt: skip

    severity_order = {"error": 0, "warning": 1, "info": 2}
    checks.sort(key=lambda c: severity_order[c.severity])
    return BuildResult(
        name=build.name, chassis=chassis.id, chassis_name=chassis.name, link_rates=a.link_rates,
        compute_rates=a.compute_rates,
        utilization=a.utilization, jobs=jobs, checks=checks, topology=topology, mig=mig_cards, power=power,
        notes=[f"GB = 10^9 bytes. Link rates: {a.link_rates}"
               + (" (datasheet, per direction)" if a.link_rates == "nominal" else " (typical nccl-tests busbw)")
               + ("; calibrated from nccl-tests for " + ", ".join(sorted(calib)) if calib else "") + ". "
               + ("Compute rates: published, or the catalog's UNCONFIRMED estimate where none is published."
                  if a.compute_rates == "estimated" else "Compute rates: published dense BF16 only.")],
    )  # fmt: skip


def _host_memory_checks(jobs: list[JobResult], chassis) -> list[Check]:  # type: ignore[no-untyped-def]
    """Offloaded states against the most system memory the chassis takes (catalog host_memory_max_gb)."""
    offloading = [j for j in jobs if j.host_memory_gb is None or j.host_memory_gb > 0]
    if not offloading:
        return []
    names = ", ".join(j.name for j in offloading)
    if any(j.host_memory_gb is None for j in offloading):
        return [Check(severity="info", code="HOST_MEMORY_UNKNOWN", message=(
            f"Jobs {names} offload to NVMe: the pinned host buffers DeepSpeed stages through depend on its "
            "buffer settings, so the host memory they need is unknown here."))]  # fmt: skip
    need = sum(j.host_memory_gb or 0.0 for j in offloading)
    limit = chassis.host_memory_max_gb
    if limit is None or limit.value is None:
        note = f" ({limit.note})" if limit is not None and limit.note else ""
        return [Check(severity="info", code="HOST_MEMORY_UNKNOWN", message=(
            f"Jobs {names} keep {need:.0f} GB of offloaded states in host memory, beside the OS and the data "
            f"loaders; the most memory {chassis.name} takes is unknown{note}: check its specification."))]  # fmt: skip
    sev = "error" if need > limit.value else "info"
    verdict = "more than" if need > limit.value else "within"
    return [Check(severity=sev, code="HOST_MEMORY", message=(
        f"Jobs {names} keep {need:.0f} GB of offloaded states in host memory, {verdict} the {limit.value:.0f} GB "
        f"{chassis.name} takes at most; install enough beside the OS and data loaders (pinned memory is not "
        "swappable)."))]  # fmt: skip


def capacity_of(card: CardSpec, layout: LayoutCheck | None, instance: int | None) -> tuple[float, float, str | None]:
    """(driver-visible bytes, nominal bytes, MIG profile) of a card or one of its instances."""
    if instance is None or layout is None:
        return card.visible_gb * GB, (card.memory_gb.value or card.visible_gb) * GB, None
    for inst in layout.instances:
        if inst.index == instance:
            p = inst.profile
            return p.capacity_gb * GB, (p.memory_nominal_gb.value or p.capacity_gb) * GB, p.name
    raise KeyError(instance)


def _evaluate_job(job: Job, build: Build, catalog: Catalog, models: ModelResolver, cards: dict[int, CardSpec],
                  layouts: dict[int, LayoutCheck], topo: TopologyModel, calib: dict[str, float],
                  checks: list[Check], card_use: dict) -> JobResult:  # type: ignore[type-arg]  # fmt: skip
    a = build.assumptions
    name = job.name
    try:
        model = models.resolve(job.model)
    except RESOLVE_ERRORS as exc:
        checks.append(
            Check(
                severity="error",
                code="JOB_MODEL_UNKNOWN",
                job=name,
                message=f"Job '{name}': {exc.summary() if isinstance(exc, FileError) else str(exc).splitlines()[0]}",
            )
        )
        return JobResult(name=name, model=str(job.model), model_name="?", method=job.method,
                         parallelism=job.parallelism, params_total=0, params_trainable=0)  # fmt: skip
    try:
        params = job_parameters(model, job)
    except ValueError as exc:
        checks.append(Check(severity="error", code="JOB_LORA_TARGETS", job=name, message=f"Job '{name}': {exc}"))
        return JobResult(
            name=name,
            model=model.id,
            model_name=model.name,
            method=job.method,
            parallelism=job.parallelism,
            params_total=model.total_params,
            params_trainable=0,
        )

    keys = job.card_keys
    stack = stack_of(job)
    base_result = dict(
        name=name,
        model=model.id,
        model_name=model.name,
        method=job.method,
        parallelism=job.parallelism,
        params_total=params.total,
        params_trainable=params.trainable,
        framework=job.framework,
        stack=describe(job),
        loss=stack.loss,
        fsdp_version=job.fsdp_version,
        offload=effective_offload(job),
    )
    if not keys:
        checks.append(
            Check(
                severity="warning",
                code="JOB_NO_CARDS",
                job=name,
                message=(f"Job '{name}' runs on no card yet: assign it to a card or a MIG instance."),
            )
        )
        return JobResult(**base_result)  # type: ignore[arg-type]
    valid_keys: list[tuple[int, int | None]] = []
    for k, (slot, instance) in enumerate(keys):
        if (slot, instance) in keys[:k]:
            where = f"slot {slot}" + (f" instance {instance}" if instance is not None else "")
            checks.append(Check(severity="error", code="JOB_CARD_REPEATED", slot=slot, job=name, message=(
                f"Job '{name}' names {where} more than once: list each card once.")))  # fmt: skip
            continue
        if slot not in cards:
            checks.append(
                Check(
                    severity="error",
                    code="JOB_SLOT_EMPTY",
                    slot=slot,
                    job=name,
                    message=(
                        f"Job '{name}' names slot {slot}, which holds no card: place a card there or give the "
                        "job an occupied slot."
                    ),
                )
            )
            continue
        layout = layouts.get(slot)
        if instance is not None:
            if layout is None:
                checks.append(
                    Check(
                        severity="error",
                        code="MIG_INSTANCE_UNKNOWN",
                        slot=slot,
                        job=name,
                        message=(
                            f"Job '{name}' names MIG instance {instance} of slot {slot}, which has no MIG layout: "
                            "add a layout to that card, or name the slot alone for the whole card."
                        ),
                    )
                )
                continue
            if instance not in {i.index for i in layout.instances}:
                checks.append(Check(severity="error", code="MIG_INSTANCE_UNKNOWN", slot=slot, job=name, message=(
                    f"Job '{name}' names MIG instance {instance} of slot {slot}; that layout has instances "
                    f"{[i.index for i in layout.instances]}.")))  # fmt: skip
                continue
        elif layout is not None:
            checks.append(Check(severity="error", code="MIG_CARD_WHOLE_JOB", slot=slot, job=name, message=(
                f"Slot {slot} is split into MIG instances; job '{name}' must name one "
                f"({{slot: {slot}, instance: N}}) or the layout must go.")))  # fmt: skip
            continue
        valid_keys.append((slot, instance))
    if not valid_keys:
        return JobResult(**base_result)  # type: ignore[arg-type]

    n = len(valid_keys)
    on_mig = any(i is not None for _, i in valid_keys)
    if on_mig and n > 1:
        checks.append(Check(severity="error", code="MIG_MULTI_CARD_JOB", job=name, message=(
            f"Job '{name}' spans {n} MIG instances: NCCL is not supported with MIG (NVIDIA MIG user guide), "
            "so an instance runs a single-GPU job. Give the job whole cards, or one instance.")))  # fmt: skip
    parallelism = job.parallelism
    if parallelism == "single" and n > 1:
        checks.append(
            Check(
                severity="error",
                code="JOB_PARALLELISM",
                job=name,
                message=(f"Job '{name}' is set to a single card but names {n}: choose DDP, FSDP or tensor parallel."),
            )
        )
    if parallelism != "single" and n == 1:
        checks.append(
            Check(
                severity="info",
                code="JOB_PARALLELISM",
                job=name,
                message=(f"Job '{name}' is set to {parallelism} on one card: it runs as a single-card job."),
            )
        )
    tp = (job.tensor_parallel if job.tensor_parallel > 1 else n) if parallelism == "tp" else 1
    if parallelism == "tp" and tp != n:
        checks.append(
            Check(
                severity="error",
                code="JOB_TP_DEGREE",
                job=name,
                message=(
                    f"Job '{name}' has tensor_parallel {tp} on {n} cards: the degree must equal the number of cards."
                ),
            )
        )
        tp = n
    multi = n > 1 and not on_mig
    if model.is_params_only and job.activation_memory_gb is None:
        checks.append(Check(severity="warning", code="JOB_NO_ACTIVATION_MODEL", job=name, message=(
            f"Job '{name}': {model.name} has no architecture, so activations cannot be derived; set "
            "activation_memory_gb (e.g. 15 GB) or import its config.json.")))  # fmt: skip

    if job.offload != "none" and effective_offload(job) == "none":
        has = ("FSDP (CPU) and DeepSpeed ZeRO-1/2/3 (CPU; NVMe only with ZeRO-3)" if job.offload == "nvme" or n > 1
               else "a sharding engine, and this job runs on one card")  # fmt: skip
        checks.append(Check(severity="warning", code="JOB_OFFLOAD_IGNORED", job=name, message=(
            f"Job '{name}' asks for {job.offload} offload with {parallelism}: offload exists in {has}. The job is "
            "sized without offload; choose zero3 for NVMe, or fsdp / zero1-3 for CPU offload.")))  # fmt: skip
    split = sharding(job, n, on_mig)
    job_cards = [cards[s] for s, _ in valid_keys]
    cc = job_capability(job_cards)  # the lowest: its recipe and copies (Hopper transposes) set the memory
    checks += precision_checks(job, [(s, cards[s]) for s, _ in valid_keys])
    mem = memory_for_card(model, job, shards=split.shards, tp=split.tp, ddp=split.ddp, capability=cc)
    precision = _precision_info(model, job, params, job_cards, cc, split.shards, split.tp)
    band = calibration.band_for(job)
    rows = []
    same: dict[tuple, CardMemory] = {}  # type: ignore[type-arg]  # cards of one kind differ by slot only
    for slot, instance in valid_keys:
        card = cards[slot]
        capacity, nominal, profile = capacity_of(card, layouts.get(slot), instance)
        kind = (id(card), capacity, nominal, profile, instance)
        if kind in same:
            rows.append(same[kind].model_copy(update={"slot": slot}))
        else:
            rows.append(_row(slot, card, mem, capacity, nominal, a.safety_margin_fraction, profile, instance, band))
            same[kind] = rows[-1]
        card_use.setdefault((slot, instance), []).append((name, mem.peak_reserved))
    advice_for: dict[float, str] = {}  # capacity -> advice sentence, so cards of one kind share one search
    for row in rows:
        where = f"slot {row.slot}" + (f" ({row.mig} instance {row.instance})" if row.mig else "")
        if not row.fits:
            capacity = row.capacity_gb * GB
            if capacity not in advice_for:
                advice_for[capacity] = fit_advice(
                    model, job, n, on_mig, mem.peak_reserved, capacity,
                    partial(_fits_changed, capacity=capacity, margin=a.safety_margin_fraction), cc,
                ).sentence()  # fmt: skip
            checks.append(Check(severity="error", code="JOB_DOES_NOT_FIT", slot=row.slot, job=name, message=(
                f"Job '{name}' needs {row.peak_reserved_gb:.1f} GB on {where} ({row.card_name}) of "
                f"{row.capacity_gb:.1f} GB: short by {-row.headroom_gb:.1f} GB. "
                f"{advice_for[capacity]}")))  # fmt: skip
        elif row.status == "tight":
            checks.append(Check(severity="warning", code="JOB_TIGHT", slot=row.slot, job=name, message=(
                f"Job '{name}' leaves {row.headroom_gb:.1f} GB on {where} of {row.capacity_gb:.1f} GB: inside the "
                f"model's uncertainty (peak {row.peak_low_gb:.1f}-{row.peak_high_gb:.1f} GB) or under the "
                f"{a.safety_margin_fraction:.0%} safety margin; too little to plan on. Use a larger card or instance, "
                "or lower the peak (QLoRA, a shorter sequence, FSDP over more cards).")))  # fmt: skip

    if mem.setup_bound and rows:
        checks.append(Check(severity="info", code="FSDP_SETUP_FLOOR", job=name, message=(
            f"Job '{name}': memory left over from loading and sharding the model "
            f"({rows[0].fsdp_setup_pool_gb:.1f} GB per card) sets this job's peak, so a shorter sequence or "
            "a smaller batch will not lower it."), detail=(
            "FSDP set-up copies each unit into a flat parameter before sharding; the caching allocator keeps that "
            "pool. Calling torch.cuda.empty_cache() after wrapping the model releases what it holds beyond the "
            "sharded weights.")))  # fmt: skip
    if len({cards[s].id for s, _ in valid_keys}) > 1:
        checks.append(
            Check(
                severity="info",
                code="JOB_MIXED_CARDS",
                job=name,
                message=(
                    f"Job '{name}' runs on different cards: it is bound by the smallest card and the slowest link."
                ),
            )
        )

    tb = trained_bytes(job.method, job.optimizer, job.precision)
    slots = [s for s, _ in valid_keys]
    comm_link = None
    rate, basis = 0.0, a.link_rates
    if multi:
        comm_link, rate, basis = slowest_link(slots, topo.link, a.link_rates, calib)
    comm = communication(job, params, tb, slots, comm_link, rate, basis, model.hidden_size, model.num_layers)
    shares = []
    for slot, instance in valid_keys:
        card = cards[slot]
        share = 1.0
        if instance is not None and card.mig is not None:
            profile = capacity_of(card, layouts.get(slot), instance)[2]
            total_slices = 7 if card.mig.grid_units == 8 else card.mig.max_instances
            share = card.mig.profile(profile).compute_slices / total_slices if profile else 1.0
        shares.append((card, share))
    estimates = a.compute_rates == "estimated"
    comp = None if model.is_params_only else compute(job, model, params, tb, shares, a.utilization, tp, estimates)
    step = None
    if comp and comp.seconds_per_step is not None:
        overlap = parallelism in ("ddp", "fsdp")  # bucketed all-reduce and prefetched gathers overlap compute
        exposed = max(0.0, comm.seconds_per_step - comp.seconds_per_step) if overlap else comm.seconds_per_step
        step = comp.seconds_per_step + exposed
        if comm.collectives:
            ratio = comm.seconds_per_step / comp.seconds_per_step
            comm = comm.model_copy(
                update={"ratio_to_compute": ratio, "hidden_behind_compute": overlap and ratio <= 1.0}
            )
            if ratio > 1.0:
                checks.append(Check(severity="warning", code="COMM_DOMINATES", job=name, message=(
                    f"Job '{name}' spends {comm.seconds_per_step:.2f} s per step communicating over "
                    f"{comm.bound_by} against {comp.seconds_per_step:.2f} s computing ({ratio:.1f}x): the cards "
                    "wait on the link. Bridge the cards (NVLink), use fewer cards, or a method that moves "
                    "less (LoRA on one card, QLoRA).")))  # fmt: skip
    if parallelism == "tp" and multi and comm_link is not None and comm_link.family == "pcie":
        checks.append(
            Check(
                severity="warning",
                code="TP_OVER_PCIE",
                job=name,
                message=(
                    f"Job '{name}' runs tensor parallel over PCIe: two all-reduces per layer sit on the critical "
                    "path (PCIe Gen5 x16 moves 64 GB/s per direction, NVLink 450 GB/s: 7x slower). Prefer FSDP, or "
                    "NVLink-bridged cards."
                ),
            )
        )
    if multi and comm_link is not None and comm_link.family == "pcie":
        checks.append(Check(severity="info", code="PCIE_P2P", job=name, message=(
            f"Job '{name}' sends data card to card over PCIe: two system settings decide whether that runs at full "
            "speed; check them before blaming the cards."), detail=(
            "PCIe peer-to-peer needs the IOMMU off (or in passthrough) and ACS disabled on PCIe switches "
            "(NCCL documentation, troubleshooting).")))  # fmt: skip
    fits = all(r.fits for r in rows)
    status: FitStatus = "does-not-fit" if not fits else ("tight" if any(r.status == "tight" for r in rows) else "fits")
    host = None if mem.host is None else mem.host * len(rows) / GB  # every rank of the job sits in this chassis
    return JobResult(**base_result, cards=rows, communication=comm, compute=comp, step_seconds=step,  # type: ignore[arg-type]
                     fits=fits, status=status, precision=precision, host_memory_gb=host)  # fmt: skip


def _precision_info(model: ModelSpec, job: Job, params, cards: list[CardSpec], cc,  # type: ignore[no-untyped-def]
                    shards: int, tp: int) -> PrecisionInfo:  # fmt: skip
    recipe = recipe_of(job.precision, cc)
    layer_linear = params.frozen_linear // (model.num_layers or 1)
    low = extra_bytes(model, job, params.frozen_linear, params.largest_linear, layer_linear, cc, shards=shards, tp=tp)
    return PrecisionInfo(
        precision=job.precision, recipe=recipe, base_weights=job.base_weights,
        supported=list(supported_recipes(cards)),
        source=support_at(cc, recipe or "fp8-current").source if recipe or job.base_weights == "fp8" else None,
        copies_gb=low.copies / GB, scales_gb=low.scales / GB,
        transient_gb=0.0 if job.activation_memory_gb is not None or model.is_params_only else low.transient / GB,
    )  # fmt: skip
