"""Seed B's measurements, read beside nccl-tests: ``nvidia-smi mig -lgip``, ``lspci -vv`` and DCGM field exports.

Seed B lists what to measure before committing to a part: "nvidia-smi mig -lgip: available MIG profiles and how
many of each fit; DCGM_FI_DEV_FB_USED per instance: whether a 24 GB instance actually holds the job;
DCGM_FI_PROF_SM_ACTIVE: whether small jobs leave a whole card idle today; lspci -vv on the NIC and GPU: the PCIe
generation and width each card negotiated, since a card at x8 halves the already-slow path". A plan names the
files in ``measurements:`` (relative to the plan); this module reads them and says what each changes:

* ``mig -lgip``: the profiles the driver offers and their instance counts, checked against the catalog; a
  profile the driver offers fewer times than the catalog caps how many tenants a card holds.
* ``lspci -vv``: the negotiated link (``LnkSta``) of each NVIDIA GPU against its capability (``LnkCap``). A
  link below its capability scales the node's PCIe rate by (speed / capable speed) x (width / capable width):
  an x8 link at full speed halves it. It enters the node's cell builds as a PCIe calibration (the build
  engine's ``assumptions.calibration``, as an nccl-tests result does) unless the plan already calibrates PCIe
  from nccl-tests, which measures the path end to end and wins.
* DCGM exports (dcgm-exporter's Prometheus text, or ``dcgmi dmon`` columns): SM_ACTIVE on a whole card sets the
  class's ``sm_active`` on that node (the share of SMs the job keeps busy), which bounds its MIG gain;
  FB_USED per MIG instance is compared with the instance's memory (1 MiB = 2^20 bytes; GB = 10^9 bytes).

The files are read by the acceptance kit's parsers (engine/acceptance/parse), one parser per tool for the plan and
for ``configurator verify``: lines they do not recognise are skipped, numbers are bounded, and a file with nothing
usable is reported in the plan's words with the parser's sentence rather than raising.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from configurator.catalog.cards import CardSpec
from configurator.catalog.errors import FileError
from configurator.catalog.fileio import safe_read_text
from configurator.catalog.units import GB, MIB
from configurator.engine.acceptance.parse import (
    LgipProfile,
    LspciDevice,
    ParseError,
    parse_dcgm,
    parse_lgip,
    parse_lspci,
)
from configurator.engine.acceptance.parse.lspci import GT_S_TO_GEN
from configurator.engine.model.build import LinkCalibration
from configurator.engine.planner.matrix import Cell, Device, whole_card_id
from configurator.engine.planner.nodes import ResolvedNode
from configurator.engine.planner.plan import ClassMeasurement, NodeMeasurements, Plan
from configurator.engine.planner.result import PlanProblem
from configurator.engine.topology.links import MEASURED_PCIE_GEN5_GB_S, PCIE_X16_GB_S

MAX_BYTES = 4_000_000  # a measurement file larger than this is not a transcript

# ---- the files, read by the acceptance kit's parsers (engine/acceptance/parse): one parser per tool ------------
# nvidia-smi mig -lgip rows are parse.LgipProfile, DCGM samples parse.DcgmSample; a GPU's negotiated PCIe link is
# read from parse.LspciDevice into PcieLink below (its rate against its capability, as the planner weighs it).

GT_S_OF_GEN = {gen: gt for gt, gen in GT_S_TO_GEN.items()}  # PCIe transfer rate per lane of a generation (GT/s)


@dataclass(frozen=True)
class PcieLink:
    address: str
    name: str
    capable_gt_s: float
    capable_width: int
    speed_gt_s: float
    width: int

    @property
    def generation(self) -> int | None:
        return GT_S_TO_GEN.get(self.speed_gt_s)

    @property
    def factor(self) -> float:
        """The negotiated rate over the capable rate: an x8 link of an x16 card at full speed is 0.5."""
        return (self.speed_gt_s / self.capable_gt_s) * (self.width / self.capable_width)

    @property
    def label(self) -> str:
        gen = self.generation
        return f"Gen{gen} x{self.width}" if gen else f"{self.speed_gt_s:g} GT/s x{self.width}"


def gpu_links(devices: list[LspciDevice]) -> list[PcieLink]:
    """The negotiated link of every NVIDIA display / 3D controller that shows both its capability and status."""
    out = []
    for d in devices:
        if not d.is_nvidia_gpu or None in (d.cap_gen, d.cap_width, d.sta_gen, d.sta_width):
            continue
        assert d.cap_gen and d.cap_width and d.sta_gen and d.sta_width
        out.append(PcieLink(d.bus_id, d.description, GT_S_OF_GEN[d.cap_gen], d.cap_width, GT_S_OF_GEN[d.sta_gen],
                            d.sta_width))  # fmt: skip
    return out


# ---- applying them to a plan --------------------------------------------------------------------------------


@dataclass
class Applied:
    """What the plan's measurements change: per node a PCIe calibration and MIG instance caps, per class
    measured rates; with the words that report each file."""

    calibration: dict[str, LinkCalibration] = field(default_factory=dict)  # node name -> PCIe rate
    instance_caps: dict[tuple[str, str], int] = field(default_factory=dict)  # (node, profile) -> instances
    sm_active: dict[tuple[str, str], tuple[float, str]] = field(default_factory=dict)  # (class, node) -> (u, src)
    words: list[str] = field(default_factory=list)


def _read(path_text: str, base: Path | None, where: str, problems: list[PlanProblem]) -> str | None:
    path = Path(path_text).expanduser()
    if not path.is_absolute() and base is not None:
        path = base / path
    try:
        return safe_read_text(path, MAX_BYTES)  # regular files only, bounded, UTF-8 (catalog/fileio.py)
    except FileError as exc:
        first = exc.problems[0].message if exc.problems else "cannot be read"
        problems.append(
            PlanProblem(severity="error", code="MEASUREMENT_UNREADABLE", field=where, message=f"{path}: {first}")
        )
        return None


def _lgip(node: ResolvedNode, text: str, applied: Applied) -> bool:
    """Read an nvidia-smi mig -lgip file; False where it measured nothing."""
    card: CardSpec = node.card
    try:
        rows, _enabled = parse_lgip(text)
    except ParseError as exc:
        applied.words.append(f"{node.name}: {exc}")
        return False
    if not rows:
        applied.words.append(f"{node.name}: the mig -lgip file lists no MIG profile (is MIG enabled?)")
        return False
    known = {p.name: p for p in (card.mig.profiles if card.mig else [])}
    seen: dict[str, LgipProfile] = {}
    for r in rows:
        seen.setdefault(r.name, r)
    parts = []
    for name, r in seen.items():
        p = known.get(name)
        if p is None:
            parts.append(f"{name} x{r.total} (not in the catalog for {card.id})")
            continue
        mark = "" if r.total == p.max_count else f" (catalog: {p.max_count})"
        parts.append(f"{name} x{r.total}, {r.memory_gib:g} GiB, {r.sm} SMs{mark}")
        if r.total < p.max_count:
            applied.instance_caps[(node.name, name)] = r.total
    missing = sorted(set(known) - set(seen))
    tail = f"; the catalog's {', '.join(missing)} not offered by this driver" if missing else ""
    applied.words.append(f"{node.name}: nvidia-smi mig -lgip offers " + "; ".join(parts) + tail)
    return True


def _lspci(node: ResolvedNode, text: str, plan: Plan, applied: Applied) -> bool:
    """Read an lspci -vv file; False where it measured nothing."""
    try:
        links = gpu_links(parse_lspci(text))
    except ParseError as exc:
        applied.words.append(f"{node.name}: {exc}")
        return False
    if not links:
        applied.words.append(f"{node.name}: the lspci -vv file shows no NVIDIA GPU with a link status")
        return False
    worst = min(links, key=lambda link: link.factor)
    counts: dict[str, int] = {}
    for link in links:
        counts[link.label] = counts.get(link.label, 0) + 1
    seen = ", ".join(f"{n} at {label}" for label, n in counts.items())
    if worst.factor >= 0.999:
        gpus = f"{len(links)} GPU" + ("" if len(links) == 1 else "s")
        applied.words.append(f"{node.name}: lspci -vv shows {gpus}, {seen}: every link at its capability")
        return True
    nccl = any(c.link.startswith("pcie") for c in plan.assumptions.calibration)
    if nccl:
        applied.words.append(
            f"{node.name}: lspci -vv shows {seen}; {worst.address} runs at {worst.factor:.0%} of its capable rate, "
            "but the plan's nccl-tests PCIe calibration measures the path end to end and is kept"
        )
        return True
    gen = worst.generation or 5
    # the typical busbw of a Gen5 x16 path through one root complex (engine/topology/links.py), by generation and width
    rate = MEASURED_PCIE_GEN5_GB_S["NODE"] * PCIE_X16_GB_S.get(gen, 64.0) / 64.0 * worst.width / 16
    applied.calibration[node.name] = LinkCalibration(
        link="pcie", busbw_gb_s=rate, source=f"lspci -vv: {worst.address} negotiated {worst.label}"
    )
    applied.words.append(
        f"{node.name}: lspci -vv shows {seen}; {worst.address} negotiated {worst.label} of "
        f"x{worst.capable_width} at {worst.capable_gt_s:g} GT/s, {worst.factor:.0%} of its capable rate, so "
        f"multi-card jobs on this node type are planned at {rate:.1f} GB/s all-reduce busbw instead of the "
        "typical rate"
    )
    return True


def _dcgm(node: ResolvedNode, job_class: str, text: str, applied: Applied) -> bool:
    """Read a DCGM export of one class's job; False where it measured nothing."""
    try:
        samples = parse_dcgm(text)
    except ParseError as exc:
        applied.words.append(f"{node.name}, {job_class}: {exc}")
        return False
    sm = [s.sm_active for s in samples if s.sm_active is not None and s.instance is None]
    fb = [(s, s.fb_used_mib) for s in samples if s.fb_used_mib is not None]
    words = []
    if sm:
        u = sum(sm) / len(sm)
        u = min(1.0, max(u, 1e-3))
        applied.sm_active[(job_class, node.name)] = (u, f"DCGM SM_ACTIVE {u:.2f} on a whole {node.card.id}")
        samples_words = f"{len(sm)} sample" + ("" if len(sm) == 1 else "s")
        words.append(f"SM_ACTIVE {u:.2f} on a whole card (mean of {samples_words})")
    mig = node.card.mig
    for s, mib in fb:
        if s.instance is None:
            words.append(f"FB_USED {mib * MIB / GB:.1f} GB on GPU {s.gpu}")
            continue
        cap = None
        if s.profile and mig is not None:
            prof = next((p for p in mig.profiles if p.name == s.profile), None)
            cap = prof.capacity_gb if prof is not None else None
        used = mib * MIB / GB
        if cap is None:
            words.append(f"FB_USED {used:.1f} GB on instance {s.instance}")
        else:
            verdict = "holds the job" if used <= cap else "does NOT hold the job"
            words.append(f"FB_USED {used:.1f} GB of {cap:.1f} GB on a {s.profile} instance: it {verdict}")
    measured = bool(words)
    if not words:
        words.append("no SM_ACTIVE or FB_USED samples found")
    applied.words.append(f"{node.name}, {job_class}: DCGM " + "; ".join(words))
    return measured


def _unused(where: str, path: str, applied: Applied) -> PlanProblem:
    """A file that was read but measured nothing (empty, another tool's output): a problem, not only a line in
    the Measurements list, so a measurement the user meant to apply is not silently left out."""
    why = applied.words[-1].split(": ", 1)[-1] if applied.words else "nothing measured"
    return PlanProblem(severity="warning", code="MEASUREMENT_UNUSED", field=where,
                       message=f"{path}: nothing measured, the plan keeps the engine's figures ({why})")  # fmt: skip


def apply_files(plan: Plan, resolved: list[ResolvedNode], base: Path | None, problems: list[PlanProblem]) -> Applied:
    """Read every file of ``plan.measurements``; unknown node types or classes and unreadable files are problems."""
    applied = Applied()
    nodes = {n.name: n for n in resolved}
    classes = {c.name for c in plan.classes}
    for i, m in enumerate(plan.measurements):
        where = f"measurements[{i}]"
        node = nodes.get(m.node)
        if node is None:
            problems.append(
                PlanProblem(
                    severity="error",
                    code="MEASUREMENT_NODE",
                    field=f"{where}.node",
                    message=f"no node type {m.node!r} in the plan",
                )
            )
            continue
        lgip = _read(m.mig_lgip, base, f"{where}.mig_lgip", problems) if m.mig_lgip else None
        if m.mig_lgip and lgip is not None and not _lgip(node, lgip, applied):
            problems.append(_unused(f"{where}.mig_lgip", m.mig_lgip, applied))
        lspci = _read(m.lspci, base, f"{where}.lspci", problems) if m.lspci else None
        if m.lspci and lspci is not None and not _lspci(node, lspci, plan, applied):
            problems.append(_unused(f"{where}.lspci", m.lspci, applied))
        for j, run in enumerate(m.dcgm):
            if run.job_class not in classes:
                problems.append(
                    PlanProblem(
                        severity="error",
                        code="MEASUREMENT_CLASS",
                        field=f"{where}.dcgm[{j}].job_class",
                        message=f"no job class {run.job_class!r} in the plan",
                    )
                )
                continue
            text = _read(run.file, base, f"{where}.dcgm[{j}].file", problems)
            if text is not None and not _dcgm(node, run.job_class, text, applied):
                problems.append(_unused(f"{where}.dcgm[{j}].file", run.file, applied))
    return applied


def _measured_hours(tokens: float, m: ClassMeasurement) -> float | None:
    return None if m.tokens_per_second is None else tokens / m.tokens_per_second / 3600.0


def apply_to_cells(
    plan: Plan, cells: list[Cell], devices: dict[str, Device], resolved: list[ResolvedNode], applied: Applied
) -> list[Cell]:
    """Cells with the classes' measured rates in place of the engine's service time (basis says which).

    tokens/s on a device sets that device's time. On a node with a measured whole card: a MIG slice of compute
    share s runs a job whose whole-card SM_ACTIVE is u at min(1, s / u) of the whole card's rate (a job that
    keeps only u of the SMs busy loses nothing until the slice has fewer SMs than it uses); without SM_ACTIVE the
    slice keeps the engine's slice-over-card ratio, applied to the measured whole-card time. Such a slice's
    ``ratio_basis`` says what set its time over the whole card's, which is what its MIG gain rests on
    (result.mig_gain_basis): the engine's ratio, or SM_ACTIVE.
    """
    names = {n.index: n.name for n in resolved}
    by_key = {(c.job_class, c.device): c for c in cells}
    out = []
    for c in cells:
        cls = plan.classes[c.job_class]
        dev = devices.get(c.device)
        if dev is None or not c.fits or c.service_hours is None:
            out.append(c)
            continue
        node = names[dev.node]
        what = c.device.removeprefix(f"{node} / ")
        exact = next((m for m in cls.measured if m.node == node and m.device == what and m.tokens_per_second), None)
        if exact is not None:
            hours = _measured_hours(cls.job_tokens, exact)
            out.append(
                replace(c, service_hours=hours, basis=f"measured {exact.tokens_per_second:g} tokens/s ({exact.source})")
            )
            continue
        if dev.kind != "mig":
            out.append(c)
            continue
        whole_cell = by_key.get((c.job_class, whole_card_id(node)))
        whole_meas = next((m for m in cls.measured if m.node == node and m.device == "whole card"), None)
        u_src = applied.sm_active.get((cls.name, node))
        if whole_meas is not None and whole_meas.sm_active is not None:
            u_src = (
                whole_meas.sm_active,
                f"SM_ACTIVE {whole_meas.sm_active:.2f} on a whole card ({whole_meas.source})",
            )
        whole_hours = whole_cell.service_hours if whole_cell is not None else None
        basis: str | None = None
        if whole_meas is not None and whole_meas.tokens_per_second:
            measured = _measured_hours(cls.job_tokens, whole_meas)
            if measured is not None and whole_hours:
                if u_src is None:
                    scaled = measured * c.service_hours / whole_hours
                    why = "measured tokens/s on a whole card, x the engine's slice ratio"
                    out.append(replace(c, service_hours=scaled, basis=why, ratio_basis="engine"))
                    continue
                whole_hours, basis = measured, f"measured {whole_meas.tokens_per_second:g} tokens/s on a whole card"
        if u_src is not None and whole_hours:
            u, src = u_src
            hours = whole_hours * max(1.0, u / dev.compute_share)
            out.append(replace(c, service_hours=hours, basis=(basis + "; " if basis else "") + src, ratio_basis=src))
            continue
        out.append(c)
    return out


def measured_nodes(
    plan: Plan, resolved: list[ResolvedNode], base: Path | None, problems: list[PlanProblem]
) -> tuple[list[ResolvedNode], Applied]:
    """The resolved nodes with their measured PCIe calibration, and what the measurement files said."""
    applied = apply_files(plan, resolved, base, problems)
    nodes = [replace(n, calibration=(applied.calibration[n.name],)) if n.name in applied.calibration else n
             for n in resolved]  # fmt: skip
    return nodes, applied


def with_files(plan: Plan, mig_lgip: list[str], lspci: list[str], dcgm: list[str]) -> Plan:
    """The plan with measurement files given on the command line added to ``measurements``: ``NODE=FILE`` for
    ``--mig-lgip`` and ``--lspci``, ``NODE:CLASS=FILE`` for ``--dcgm`` (paths as given, absolute once resolved).
    ValueError with a plain sentence for a malformed argument."""
    entries = [m.model_dump() for m in plan.measurements]
    node_names = [n.name for n in plan.nodes]
    class_names = [c.name for c in plan.classes]

    def known(flag: str, arg: str, name: str, names: list[str], what: str) -> None:
        if name not in names:  # a usage error, named by its flag: not a problem at a YAML path the user never wrote
            raise ValueError(f"{flag} {arg!r}: no {what} {name!r} in the plan (its {what}s: {', '.join(names)})")

    def entry(node: str) -> dict[str, object]:
        for e in entries:
            if e["node"] == node:
                return e
        e = {"node": node, "mig_lgip": None, "lspci": None, "dcgm": []}
        entries.append(e)
        return e

    def split(arg: str, flag: str, form: str) -> tuple[str, str]:
        key, sep, path = arg.partition("=")
        if not sep or not key.strip() or not path.strip():
            raise ValueError(f"{flag} {arg!r}: give it as {form}")
        return key.strip(), str(Path(path.strip()).expanduser().resolve())

    for arg in mig_lgip:
        node, path = split(arg, "--mig-lgip", "NODE=FILE (a node type of the plan)")
        known("--mig-lgip", arg, node, node_names, "node type")
        entry(node)["mig_lgip"] = path
    for arg in lspci:
        node, path = split(arg, "--lspci", "NODE=FILE (a node type of the plan)")
        known("--lspci", arg, node, node_names, "node type")
        entry(node)["lspci"] = path
    for arg in dcgm:
        key, path = split(arg, "--dcgm", "NODE:CLASS=FILE")
        node, sep, job_class = key.partition(":")
        if not sep or not node.strip() or not job_class.strip():
            raise ValueError(f"--dcgm {arg!r}: give it as NODE:CLASS=FILE (the node type and the job class that ran)")
        known("--dcgm", arg, node.strip(), node_names, "node type")
        known("--dcgm", arg, job_class.strip(), class_names, "job class")
        dcgm_runs = entry(node.strip())["dcgm"]
        assert isinstance(dcgm_runs, list)
        dcgm_runs.append({"file": path, "job_class": job_class.strip()})
    return plan.model_copy(update={"measurements": [NodeMeasurements.model_validate(e) for e in entries]})
