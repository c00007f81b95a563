"""What the built machine must measure, predicted from the build and its ``BuildResult``.

Every figure carries its source and tolerance. Time and memory are read from the result (the engine's
models); this module adds no model of its own, only the mapping from the engine's figures to what each
tool prints (nvidia-smi, lspci, nccl-tests) and the tolerances of :mod:`.tolerances`.

GPU numbering: nvidia-smi and CUDA (with CUDA_DEVICE_ORDER=PCI_BUS_ID) number GPUs in PCI bus order. The
prediction assumes the chassis's slot numbers ascend with bus numbers, so GPU i is the i-th occupied slot;
``verify`` names a card found in another order as "card in the wrong slot / another order".
"""

from __future__ import annotations

import hashlib
from itertools import combinations

from pydantic import BaseModel, ConfigDict

from configurator.catalog.cards import CardSpec
from configurator.catalog.chassis import ChassisSpec
from configurator.catalog.loader import Catalog, default_catalog
from configurator.engine.acceptance import tolerances as tol
from configurator.engine.memory.rl import colocated_share
from configurator.engine.model.build import Build
from configurator.engine.model.buildfile import build_to_yaml
from configurator.engine.model.parallelism import strategy
from configurator.engine.model.result import BuildResult, JobResult
from configurator.engine.model.wall import PSU_EFFICIENCY
from configurator.engine.time.compute import bf16_rate
from configurator.engine.time.power_limit import is_capped
from configurator.engine.time.steptime.efficiency import efficiency
from configurator.engine.topology.links import LEGEND, build_topology

# the words beside an expected GEMM rate whose peak or fraction is UNCONFIRMED, in acceptance and verify alike
UNCONFIRMED_LABEL = "(UNCONFIRMED expectation)"
# the words beside a predicted step time (a model's estimate, not a measurement), in acceptance and verify alike
ESTIMATE_LABEL = "(estimated)"

ORDER_ASSUMPTION = (
    "GPU i is the i-th occupied slot: nvidia-smi numbers GPUs in PCI bus order, and the slots are "
    "taken to ascend with bus numbers (set CUDA_DEVICE_ORDER=PCI_BUS_ID for CUDA tools)"
)


class Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class MigProfileExpect(Out):
    name: str
    profile_id: int
    memory_gib: float | None
    instances_total: int
    source: str


class GpuExpect(Out):
    index: int  # nvidia-smi / CUDA index (PCI bus order)
    slot: int
    card: str  # catalog id
    name: str  # as nvidia-smi prints it (the catalog name)
    memory_total_mib: float | None  # nvidia-smi "memory.total" on a non-MIG GPU
    memory_source: str
    power_limit_w: float | None  # the build's limit, else the card's default
    pcie_gen: int  # negotiated: min(card, slot)
    pcie_width: int
    pcie_source: str
    root: str  # where the slot hangs: CPU0 · sw0
    mig_profiles: list[MigProfileExpect] = []  # what `nvidia-smi mig -lgip` lists once MIG is on
    mig_layout: list[str] = []  # the instances the build asks for on this card
    # the kit's GEMM probe (acceptance_tool/gemm_probe.py): sustained BF16 TFLOP/s of an 8192^3 torch.matmul
    gemm_tflops: float | None = None  # dense BF16 peak x the card's own or its arch's GEMM fraction; None: no peak
    gemm_peak_tflops: float | None = None  # the card's dense BF16 peak (catalog), above which a reading is wrong
    gemm_pass_min: float | None = None
    gemm_warn_min: float | None = None
    gemm_capped_w: float | None = None  # the build's own power limit where it is below the card's default
    gemm_source: str = ""
    gemm_unconfirmed: bool = False  # peak or fraction UNCONFIRMED (gemm_source says which): every view says so


class TopologyExpect(Out):
    gpus: list[int]
    slots: list[int]
    matrix: list[list[str]]
    legend: dict[str, str]
    source: str


class NcclExpect(Out):
    name: str
    gpus: list[int]
    slots: list[int]
    link: str  # the slowest link label on the ring (NV#, PIX, PXB, NODE, SYS)
    expected_busbw_gb_s: float
    pass_min_gb_s: float
    warn_min_gb_s: float
    basis: str  # measured (typical published busbw) or calibrated (the build's own nccl-tests figure)
    source: str
    tolerance: str = ""  # where the pass / warn fractions come from, a sentence of its own ("tolerance from ...")


class JobExpect(Out):
    name: str
    slots: list[int]
    gpus: list[int]
    mig: str | None = None
    peak_allocated_gb: float
    allocated_low_gb: float
    allocated_high_gb: float
    nvidia_smi_gb: float  # allocator reserved + CUDA context (+ a colocated vLLM's share): what nvidia-smi / DCGM show
    nvidia_smi_low_gb: float
    nvidia_smi_high_gb: float
    band_basis: str
    # a colocated vLLM's share of each card (gpu_memory_utilization x the card), in the nvidia-smi figures above (the
    # training process holds it), not in the allocated ones; None: no generation engine on the job's cards
    generation_share_gb: float | None = None
    step_seconds: float | None
    step_low_s: float | None
    step_high_s: float | None
    tokens_per_second: float | None
    tokens_low: float | None
    tokens_high: float | None
    step_source: str
    measured_here: list[str] = []  # stored measurements of this machine, shown beside the prediction


class PowerExpect(Out):
    cards_w: float
    platform_w: float
    dc_w: float  # PSU output under load: cards at their power limits + platform
    wall_w: float  # at the socket: dc / PSU efficiency
    wall_max_w: float  # above this a measured wall draw fails
    psu_capacity_w: float | None
    transient_w: float
    source: str


class AcceptancePrediction(Out):
    build_name: str
    build_digest: str  # the sheet reference's content digest (report.sheet.reference_number)
    chassis: str | None
    gpus: list[GpuExpect] = []
    topology: TopologyExpect | None = None
    nccl: list[NcclExpect] = []
    jobs: list[JobExpect] = []
    power: PowerExpect | None = None
    assumptions: list[str] = []


_DIGESTS: dict[int, tuple[Build, str]] = {}  # id(build) -> (build, digest): builds are frozen; kept, so ids stay valid


def step_assumptions(jobs: list[JobExpect]) -> list[str]:
    """The step-time bands' sources, each once: the text the jobs share, then what is each job's own, named by job
    (two nearly identical 400-character lines differed only in their last clause, with no job named)."""
    sources = {j.name: j.step_source for j in jobs if j.step_source}
    if len(set(sources.values())) < 2:
        return [f"step time: {src}" for src in dict.fromkeys(sources.values())]
    clauses = {name: src.split("; ") for name, src in sources.items()}
    shared: list[str] = []
    for parts in zip(*clauses.values(), strict=False):
        if len(set(parts)) > 1:
            break
        shared.append(parts[0])
    if not shared:
        return [f"step time, {name}: {src}" for name, src in sources.items()]
    own = {name: "; ".join(parts[len(shared) :]) for name, parts in clauses.items()}
    return [f"step time: {'; '.join(shared)}"] + [f"step time, {name}: {rest}" for name, rest in own.items() if rest]


def build_digest(build: Build) -> str:
    """The 6-hex content digest the sheet's reference carries (GBC-YYYYMMDD-XXXXXX); remembered per build object
    (the YAML dump it hashes takes ~40 ms on an 8-card build, and the sheet asks on every layout pass)."""
    hit = _DIGESTS.get(id(build))
    if hit is not None and hit[0] is build:
        return hit[1]
    digest = hashlib.sha1(build_to_yaml(build).encode()).hexdigest()[:6].upper()
    if len(_DIGESTS) >= 8:
        _DIGESTS.clear()
    _DIGESTS[id(build)] = (build, digest)
    return digest


def gemm_expect(card: CardSpec, limit: float | None, estimates: bool) -> dict[str, object]:
    """The GEMM probe's expected rate on ``card``: its dense BF16 peak (published, or with ``estimates`` the
    catalog's UNCONFIRMED estimate) x its own measured large-GEMM fraction where the table has one, else its
    architecture's (the step model's own table and rule, engine/time/steptime/efficiency.py gemm_large), with the
    pass / warn floors of :mod:`.tolerances` and where each comes from."""
    peak = bf16_rate(card, estimates)  # the step model's rule: published, or with estimates the catalog's estimate
    unconfirmed = []
    peak_src = card.bf16_dense_tflops.source
    if peak and not card.bf16_dense_tflops.value and card.bf16_dense_tflops_estimate is not None:
        peak_src = card.bf16_dense_tflops_estimate.source
        unconfirmed.append("the peak is the catalog's estimate (no dense BF16 rate is published)")
    elif "UNCONFIRMED" in (card.bf16_dense_tflops.note or "") + peak_src:
        unconfirmed.append("the catalog marks the peak UNCONFIRMED")
    if not peak:
        return {"gemm_source": f"no dense BF16 peak for {card.name} in the catalog: the GEMM rate is not predicted"}
    eff = efficiency()
    arch = eff.arch(card.architecture)
    fraction = eff.gemm_large(arch, card.id)  # the card's own measured fraction where it has one, else its arch's
    if card.id in eff.gemm_by_card:
        fraction_words = (
            f"{card.name}'s own large-GEMM fraction {fraction:.3f} (specs/efficiency.yaml gemm_peak_fraction_by_card)"
        )
    else:
        fraction_words = f"{arch} large-GEMM fraction {fraction:.3f} (specs/efficiency.yaml gemm_peak_fraction)"
        measured_on = eff.gemm_measured_on.get(arch)
        if measured_on is None or card.compute_capability.value != measured_on:
            cc = card.compute_capability.value
            unconfirmed.append(f"the {arch} fraction was not measured on this chip (compute capability {cc})")
    expected = peak * fraction
    default = card.power.tdp_w.value
    capped = limit if is_capped(limit, default) else None  # as the engine's POWER_LIMIT_NOT_TIMED decides it
    source = (
        f"{card.name} dense BF16 peak {peak:g} TFLOPS ({peak_src[:120]}) x {fraction_words}"
        + (f"; UNCONFIRMED: {'; '.join(unconfirmed)}" if unconfirmed else "")
        + (
            f"; at the card's default {default:g} W: the build caps it at {limit:g} W, so a lower rate is expected "
            "and judged warn at worst"
            if capped
            else ""
        )
        + f"; {tol.GEMM_SOURCE}"
    )
    return {
        "gemm_unconfirmed": bool(unconfirmed),
        "gemm_tflops": round(expected, 1),
        "gemm_peak_tflops": peak,
        "gemm_pass_min": round(expected * tol.GEMM_PASS_FRACTION, 1),
        "gemm_warn_min": round(expected * tol.GEMM_WARN_FRACTION, 1),
        "gemm_capped_w": capped,
        "gemm_source": source,
    }


def _gpus(build: Build, cards: dict[int, CardSpec], chassis: ChassisSpec | None) -> list[GpuExpect]:
    out = []
    for i, slot in enumerate(sorted(cards)):
        card, placement = cards[slot], build.card_in(slot)
        card_gen, card_lanes = int(card.pcie_generation.value or 5), int(card.pcie_lanes.value or 16)
        if chassis is not None:
            pos = chassis.position(slot)
            gen, width, root = min(card_gen, pos.pcie_generation), min(card_lanes, pos.lanes), pos.root_label()
            pcie_src = (
                f"min(card Gen{card_gen} x{card_lanes}, slot Gen{pos.pcie_generation} x{pos.lanes}) ({chassis.id})"
            )
        else:
            gen, width, root, pcie_src = card_gen, card_lanes, "unknown", "card's own link; no chassis in the build"
        profiles = (
            [
                MigProfileExpect(
                    name=p.name,
                    profile_id=p.profile_id,
                    memory_gib=p.memory_gib.value,
                    instances_total=p.max_count,
                    source=card.mig.source,
                )
                for p in card.mig.profiles
            ]
            if card.mig
            else []
        )
        layout = [r.profile for r in placement.mig] if placement and placement.mig else []
        limit = (placement.power_limit_w if placement else None) or card.power.tdp_w.value
        out.append(
            GpuExpect(
                index=i,
                slot=slot,
                card=card.id,
                name=card.name,
                memory_total_mib=card.memory_visible_mib.value,
                memory_source=card.memory_visible_mib.source or "catalog",
                power_limit_w=limit,
                pcie_gen=gen,
                pcie_width=width,
                pcie_source=pcie_src,
                root=root,
                mig_profiles=profiles,
                mig_layout=layout,
                **gemm_expect(card, limit, build.assumptions.compute_rates == "estimated"),
            )
        )
    return out


def _nccl(
    build: Build, result: BuildResult, cards: dict[int, CardSpec], chassis: ChassisSpec, gpus: list[GpuExpect]
) -> list[NcclExpect]:
    topo = build_topology(build, cards, chassis)
    calibration: dict[str, float] = {c.link: c.busbw_gb_s for c in build.assumptions.calibration}
    index = {g.slot: g.index for g in gpus}
    groups: list[tuple[str, list[int]]] = [
        (f"pair GPU{index[a]}-GPU{index[b]}", [a, b]) for a, b in combinations(sorted(cards), 2)
    ]
    seen = {tuple(s) for _, s in groups}
    for dom in topo.domains:
        if len(dom) > 2 and tuple(dom) not in seen:
            groups.append((f"NVLink domain (slots {', '.join(map(str, dom))})", dom))
            seen.add(tuple(dom))
    for job in build.jobs:
        slots = sorted({s for s, inst in job.card_keys if inst is None and s in cards})
        if len(slots) > 2 and tuple(slots) not in seen:
            groups.append((f"job '{job.name}'", slots))
            seen.add(tuple(slots))
    if len(cards) > 2 and tuple(sorted(cards)) not in seen:
        groups.append(("all GPUs", sorted(cards)))
    out = []
    for name, slots in groups:
        links = [topo.link(a, b) for a, b in combinations(slots, 2)]
        slowest = min(links, key=lambda lk: lk.rate("measured", calibration)[0])
        rate, basis = slowest.rate("measured", calibration)
        # in words, not the code's names: the source reaches the customer sheet (engine/topology/links.py holds the
        # catalog's card figure or MEASURED_PCIE_GEN5_GB_S)
        src = (
            f"{slowest.label} link, typical all_reduce busbw over it ("
            + ("your nccl-tests calibration of this link" if basis == "calibrated" else
               "published nccl-tests runs on this card's fabric, as the catalog gives it" if slowest.family != "pcie"
               else "published nccl-tests runs over this PCIe path")
            + f"); {tol.NCCL_SOURCE}"
        )  # fmt: skip
        out.append(
            NcclExpect(
                name=name,
                gpus=[index[s] for s in slots],
                slots=slots,
                link=slowest.label,
                expected_busbw_gb_s=round(rate, 1),
                pass_min_gb_s=round(rate * tol.NCCL_PASS_FRACTION, 1),
                warn_min_gb_s=round(rate * tol.NCCL_WARN_FRACTION, 1),
                basis=basis,
                source=src,
                tolerance=tol.NCCL_SOURCE,
            )
        )
    return out


def _job(
    job: JobResult,
    slots: list[int],
    gpus: list[GpuExpect],
    mig: str | None,
    tensor_parallel: int,
    parallelism: str,
    stored: list[str],
    colocated: float = 0.0,
) -> JobExpect | None:
    if not job.cards:
        return None
    peak = max(job.cards, key=lambda c: c.peak_reserved_gb)
    reserved = peak.peak_reserved_gb
    low = peak.band_low_gb or peak.peak_low_gb or reserved
    high = peak.band_high_gb or peak.peak_high_gb or reserved
    scale_lo, scale_hi = (low / reserved, high / reserved) if reserved > 0 else (1.0, 1.0)
    band_basis = (peak.band_basis or "calibration band") + "; allocated: the same relative band"
    # TRL's colocated vLLM runs in the training process and takes its share of the card (engine/memory/rl.py
    # colocated_share): nvidia-smi and DCGM's FB_USED show it with the training's pool. The engine sizes the training
    # in the rest, so its share is added as a fixed term to the nvidia-smi figure and its band, not to allocated.
    share = job.rl.generation_share_gb if colocated and job.rl is not None else None
    if share:
        band_basis += (
            f"; as nvidia-smi shows it: the training + the colocated vLLM's {share:.1f} GB ({colocated:.0%} of the "
            "card, gpu_memory_utilization); peak allocated: the training's alone"
        )
    vllm = share or 0.0
    step = job.step_seconds
    tokens = None
    if step and job.compute is not None and job.compute.tokens_per_step:
        replicas = max(1, len(slots) // tensor_parallel) if strategy(parallelism).splits_layers else max(1, len(slots))
        tokens = job.compute.tokens_per_step * replicas / step
    # the engine's band (published runs held apart from the model: time/steptime/band.py), or where the job has none
    # (the utilisation model, an RL step) the stated assumption
    step_low: float | None
    step_high: float | None
    if step and job.step_low_seconds is not None and job.step_high_seconds is not None:
        step_low, step_high, source = job.step_low_seconds, job.step_high_seconds, job.step_band_basis or ""
    else:
        t = tol.STEP_TIME_TOLERANCE
        step_low, step_high = (step * (1 - t), step * (1 + t)) if step else (None, None)
        source = tol.STEP_TIME_SOURCE
    index = {g.slot: g.index for g in gpus}
    return JobExpect(
        name=job.name,
        slots=slots,
        gpus=[index[s] for s in slots if s in index],
        mig=mig,
        # unrounded: each view rounds once (rounded here to 2 decimals, 48.25 printed 48.2 where size printed 48.3)
        peak_allocated_gb=peak.peak_allocated_gb,
        allocated_low_gb=peak.peak_allocated_gb * scale_lo,
        allocated_high_gb=peak.peak_allocated_gb * scale_hi,
        nvidia_smi_gb=reserved + vllm,
        nvidia_smi_low_gb=low + vllm,
        nvidia_smi_high_gb=high + vllm,
        band_basis=band_basis,
        generation_share_gb=round(share, 2) if share else None,
        step_seconds=step,
        step_low_s=step_low,
        step_high_s=step_high,
        tokens_per_second=tokens,
        # tokens/s is inverse to the step time: the slow end of the band is the low tokens/s
        tokens_low=tokens * step / step_high if tokens and step and step_high else None,
        tokens_high=tokens * step / step_low if tokens and step and step_low else None,
        step_source=source,
        measured_here=stored,
    )


def predict(
    build: Build, result: BuildResult, catalog: Catalog | None = None, stored: dict[str, list[str]] | None = None
) -> AcceptancePrediction:
    """The acceptance figures of ``build``. ``stored``: per job name, lines describing measurements of this
    machine kept by :mod:`.measured_store`, shown beside the prediction ("measured on this machine")."""
    catalog = catalog or default_catalog()
    chassis = catalog.chassis.get(build.chassis) if build.chassis else None
    cards = {c.slot: catalog.cards[c.card] for c in build.cards if c.card in catalog.cards}
    if chassis is not None:
        cards = {s: c for s, c in cards.items() if any(p.slot == s for p in chassis.positions)}
    gpus = _gpus(build, cards, chassis)
    topology = nccl = None
    if result.topology is not None and len(gpus) > 1:
        topology = TopologyExpect(
            gpus=[g.index for g in gpus],
            slots=result.topology.slots,
            matrix=result.topology.matrix,
            legend=LEGEND,
            source=f"engine/topology/links.py from {build.chassis}'s PCIe root layout and the build's bridges",
        )
    if chassis is not None and len(cards) > 1:
        nccl = _nccl(build, result, cards, chassis, gpus)
    jobs = []
    for spec in build.jobs:
        res = result.job(spec.name)
        if res is None:
            continue
        slots = [s for s, _ in spec.card_keys]
        mig = next((c.mig for c in res.cards if c.mig), None)
        expect = _job(res, slots, gpus, mig, spec.tensor_parallel, spec.parallelism, (stored or {}).get(spec.name, []),
                      colocated_share(spec))  # fmt: skip
        if expect is not None:
            jobs.append(expect)
    power = None
    if result.power is not None:
        p = result.power
        wall = p.total_w / PSU_EFFICIENCY
        power = PowerExpect(
            cards_w=p.cards_w,
            platform_w=p.platform_w,
            dc_w=p.total_w,
            wall_w=round(wall),
            wall_max_w=round(wall * (1 + tol.WALL_OVER_TOLERANCE)),
            psu_capacity_w=p.psu_capacity_w,
            transient_w=p.transient_demand_w,
            source=(
                f"engine/topology/physical.py power budget (cards at their limits + the chassis platform "
                f"figure) / {PSU_EFFICIENCY:.0%} PSU efficiency (engine/model/wall.py); a measured draw "
                f"more than {tol.WALL_OVER_TOLERANCE:.0%} above fails"
            ),
        )
    return AcceptancePrediction(
        build_name=build.name,
        build_digest=build_digest(build),
        chassis=build.chassis,
        gpus=gpus,
        topology=topology,
        nccl=nccl or [],
        jobs=jobs,
        power=power,
        assumptions=[
            ORDER_ASSUMPTION,
            *step_assumptions(jobs),
            "peak memory: the engine's calibration band around peak reserved (nvidia-smi view)",
        ],
    )
