"""The acceptance figures and a verify report as plain text (the CLI's output); every figure is read from
the engine's :class:`AcceptancePrediction` / :class:`VerifyReport`."""

from __future__ import annotations

from configurator.engine.acceptance.predict import ESTIMATE_LABEL, UNCONFIRMED_LABEL, AcceptancePrediction
from configurator.engine.acceptance.verify import VerifyReport
from configurator.engine.model.labels import figure_band_words

MARK = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "missing": "----"}
# the wall line the kit writes while the meter file is still empty: dropped once verify has read a reading
_KIT_WALL = "wall draw:"
# what an nccl figure's basis means: a sheet of predictions printed "(measured)" before anything was measured
BASIS_WORDS = {
    "measured": "basis: typical busbw, published measurements",
    "calibrated": "basis: your nccl-tests calibration",
    "nominal": "basis: datasheet rate",
}


def _f(v: float | None, fmt: str = "{:,.2f}") -> str:
    return "not predicted" if v is None else fmt.format(v)


def render_prediction(p: AcceptancePrediction) -> str:
    out = [f"Acceptance figures: {p.build_name} (reference digest {p.build_digest})", ""]
    out.append("GPUs (nvidia-smi order = PCI bus order):")
    for g in p.gpus:
        mig = f"; MIG: {', '.join(g.mig_layout)}" if g.mig_layout else ""
        out.append(
            f"  GPU{g.index}  slot {g.slot}  {g.name}  {_f(g.memory_total_mib, '{:,.0f}')} MiB  "
            f"limit {_f(g.power_limit_w, '{:,.0f}')} W  lspci LnkSta Gen{g.pcie_gen} x{g.pcie_width}  "
            f"({g.root}){mig}"
        )
        if g.gemm_tflops is not None:
            unconfirmed = f" {UNCONFIRMED_LABEL}" if g.gemm_unconfirmed else ""
            out.append(
                f"        BF16 GEMM (gemm_probe.py): {g.gemm_tflops:,.0f} TFLOP/s, pass >= {g.gemm_pass_min:,.0f}, "
                f"warn >= {g.gemm_warn_min:,.0f}{unconfirmed}"
            )
        if g.mig_profiles:
            out.append(
                "        mig -lgip: "
                + ", ".join(f"{m.name} ({m.memory_gib} GiB, {m.instances_total})" for m in g.mig_profiles)
            )
    if p.topology:
        out += ["", "nvidia-smi topo -m (predicted):", "        " + "".join(f"GPU{i:<5d}" for i in p.topology.gpus)]
        for i, row in zip(p.topology.gpus, p.topology.matrix, strict=True):
            out.append(f"  GPU{i:<3d} " + "".join(f"{c:8s}" for c in row))
    if p.nccl:
        out += ["", "nccl-tests all_reduce_perf busbw at >= 64 MiB (pass / warn thresholds):"]
        for n in p.nccl:
            out.append(
                f"  {n.name:44s} {n.link:5s} {n.expected_busbw_gb_s:7.1f} GB/s  pass >= {n.pass_min_gb_s:.1f}, "
                f"warn >= {n.warn_min_gb_s:.1f} ({BASIS_WORDS.get(n.basis, n.basis)})"
            )
        out.append(f"  {p.nccl[0].tolerance}")  # the sentence opens with "tolerance from ..." itself
    if p.jobs:
        out += ["", "Jobs:"]
        for j in p.jobs:
            out.append(f"  {j.name} (GPU {', '.join(map(str, j.gpus))}{'; MIG ' + j.mig if j.mig else ''}):")
            alloc = figure_band_words(j.peak_allocated_gb, j.allocated_low_gb, j.allocated_high_gb, "GB", 1)
            smi = figure_band_words(j.nvidia_smi_gb, j.nvidia_smi_low_gb, j.nvidia_smi_high_gb, "GB", 1)
            if j.generation_share_gb:
                smi += f", with the colocated vLLM's {j.generation_share_gb:.1f} GB"
            out.append(f"    peak allocated {alloc}; as nvidia-smi shows it {smi}")
            if j.step_seconds is not None:
                tok = f", {j.tokens_per_second:,.0f} tokens/s" if j.tokens_per_second else ""
                step = figure_band_words(j.step_seconds, j.step_low_s, j.step_high_s, "s")
                out.append(f"    step {step}{tok} {ESTIMATE_LABEL}")
            else:
                out.append("    step time: not predicted (no compute rate for a card of the job)")
            out += [f"    {line}" for line in j.measured_here]
    if p.power:
        w = p.power
        out += [
            "",
            f"Power under load: cards {w.cards_w:,.0f} W + platform {w.platform_w:,.0f} W = PSU output "
            f"{w.dc_w:,.0f} W; at the wall about {w.wall_w:,.0f} W (fail above {w.wall_max_w:,.0f} W)",
        ]
    out += ["", "Assumptions:"] + [f"  - {a}" for a in p.assumptions]
    return "\n".join(out) + "\n"


def kit_missing(r: VerifyReport) -> list[str]:
    """The kit's own NOT MEASURED lines (its report.txt), each saying why and how to get it."""
    if not r.kit_report:
        return []
    wall_read = any(c.category == "wall" and c.status != "missing" for c in r.checks)
    lines = [ln.removeprefix("NOT MEASURED: ") for ln in r.kit_report.splitlines() if ln.startswith("NOT MEASURED: ")]
    return [ln for ln in lines if not (wall_read and ln.startswith(_KIT_WALL))]


def render_verify(r: VerifyReport) -> str:
    out = []
    if r.problems:  # a path that could not be read comes first, as every other command's error does
        out += ["Files that could not be read:"] + [f"  {p}" for p in r.problems] + [""]
    out += [
        f"Verify: {r.build_name} (digest {r.build_digest}): {r.result.upper()}  "
        f"{r.count('pass')} pass, {r.count('warn')} warn, {r.count('fail')} fail, {r.count('missing')} not measured",
        "",
    ]
    if r.not_accepted:
        out += [r.not_accepted, ""]
    for c in sorted(r.checks, key=lambda c: -{"fail": 3, "warn": 2, "missing": 1, "pass": 0}[c.status]):
        line = f"{MARK[c.status]}  {c.figure}: expected {c.expected}"
        if c.measured is not None:
            line += f", measured {c.measured}"
        if c.difference:
            line += f", difference {c.difference}"
        out.append(line)
        if c.cause and c.status != "pass":
            out.append(f"      likely cause: {c.cause}")
    missing = kit_missing(r)
    if missing:
        out += ["", "The burn-in kit could not measure:"] + [f"  {line}" for line in missing]
    if r.stored:
        out += ["", "Earlier measurements of this machine:"]
        out += [f"  {job}: {line}" for job, lines in r.stored.items() for line in lines]
    if r.versions:
        out += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in r.versions.items())]
    return "\n".join(out) + "\n"
