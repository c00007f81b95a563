"""Plain-text sizing report for ``configurator size``. Every figure comes from the engine's result."""

from __future__ import annotations

from collections.abc import Sequence

from configurator.engine.model.labels import band_words
from configurator.engine.model.result import BuildResult, Check, Communication, Compute, JobResult, VisionInfo
from configurator.present.host_words import nvme_line, ram_line, source_words, term_size_words
from configurator.present.job_words import parameters_words, step_band_phrase, step_words, vision_words
from configurator.present.link_words import link_name, rate_words
from configurator.present.memory_words import parts_note, reserved_basis_note
from configurator.present.rl_words import capacity_note, generation_sentence, step_split
from configurator.present.verdict import colocated_share

STATUS = {"fits": "fits", "tight": "TIGHT", "does-not-fit": "DOES NOT FIT", "unknown": "?"}


def overlap_phrase(comm: Communication) -> str:
    """How the step's communication relates to its compute, in words (text report and build sheet)."""
    ratio = f", {comm.ratio_to_compute:.2f}× compute" if comm.ratio_to_compute is not None else ""
    hidden = {True: ", can hide behind compute", False: ", on the critical path", None: ""}
    return ratio + hidden[comm.hidden_behind_compute]


def compute_phrase(comp: Compute) -> tuple[str, str]:
    """(time, rate clause) of a job's compute as both reports word it: ('2.669 s', 'at 835.5 dense BF16
    TFLOPS × 40% utilisation'), ('2.314 s', 'timed op by op at 835.5 dense BF16 TFLOPS: 46% of it achieved, ...'),
    or ('unknown', 'with no published dense BF16 rate')."""
    secs = f"{comp.seconds_per_step:.3f} s" if comp.seconds_per_step is not None else "unknown"
    if not comp.bf16_tflops:
        return secs, "with no published dense BF16 rate"
    rate = f"{comp.bf16_tflops:.1f} dense BF16 TFLOPS" + (" (estimated)" if comp.bf16_rate_estimated else "")
    if comp.step_model == "per-op":  # engine/time/steptime: the utilisation is what the ops achieve, not an input
        kernel = f", attention timed as {comp.attention_kernel}" if comp.attention_kernel else ""
        return secs, f"timed op by op at {rate}: {comp.utilization:.0%} of it achieved{kernel}"
    return secs, f"at {rate} × {comp.utilization:.0%} utilisation"


def _memory(job: JobResult) -> list[str]:
    """The memory table per card and what sets the first card's peak."""
    out: list[str] = []
    wheres = [f"slot {c.slot} {c.card}" + (f" {c.mig}#{c.instance}" if c.mig else "") for c in job.cards]
    width = max(24, *(len(w) + 1 for w in wheres))  # long card ids must not push the columns over
    out.append(f"  {'memory per card, GB':{width}s}" + "".join(f"{h:>9s}" for h in (
        "weights", "adapters", "grads", "optim", "activ", "transnt", "overhead", "states", "peak", "capacity",
        "headroom")))  # fmt: skip
    for where, c in zip(wheres, job.cards, strict=True):
        out.append(
            f"  {where:{width}s}" + "".join(f"{v:9.1f}" for v in (
                c.weights_gb, c.adapters_gb, c.gradients_gb, c.optimizer_gb, c.activations_gb, c.transient_gb,
                c.overhead_gb, c.model_states_gb, c.peak_reserved_gb, c.capacity_gb, c.headroom_gb))
            + f"  {STATUS[c.status]}"
        )  # fmt: skip
    c = job.cards[0]
    out.append(
        f"  peak allocated {c.peak_allocated_gb:.1f} GB, allocator reserved {c.allocator_reserved_gb:.1f} GB, "
        f"+ CUDA context {c.cuda_context_gb:.1f} GB = {c.peak_reserved_gb:.1f} GB as nvidia-smi shows "
        f"(model band {band_words(c.band_low_gb, c.band_high_gb, 'GB', 1)})"
    )
    phases = ", ".join(f"{k} {v:.1f}" for k, v in c.phase_reserved_gb.items())
    out.append(f"  peak set by the {c.peak_phase} phase (reserved per phase, GB: {phases})")
    out.append(f"  {parts_note(c.peak_phase)}")
    if c.band_basis:
        out.append(f"  band from leave-one-source-out cross-validation: {c.band_basis}")
    if note := reserved_basis_note(c.reserved_set_by, c.fsdp_setup_pool_gb):
        out.append(f"  {note}")
    if note := capacity_note(colocated_share(job)):  # the capacity column is not the whole card's
        out.append(f"  {note}")
    return out


def _steps(job: JobResult) -> list[str]:
    """Communication and compute per step, with their notes."""
    out: list[str] = []
    comm = job.communication
    if comm.collectives:
        # the rates' basis in the shared words (present/link_words.py): a catalog rate is no measurement of this machine
        bases = " + ".join(rate_words(b) for b in sorted({c.rate_basis for c in comm.collectives}))
        out.append(f"  communication per step, link rates {bases}:")
        for col in comm.collectives:
            out.append(
                f"    {col.name:42s} {col.kind:14s} ×{col.count_per_step:<4d} {col.bytes_per_card / 1e9:9.2f} GB/card"
                f" over {link_name(col.link)} at {col.rate_gb_s:.0f} GB/s = {col.seconds:.3f} s"
            )
        out.append(f"    total {comm.seconds_per_step:.3f} s{overlap_phrase(comm)}")
        out += [f"    {n}" for n in comm.notes]
    comp = job.compute
    if comp:
        secs, rate = compute_phrase(comp)
        out.append(
            f"  compute per step: {comp.flops_per_step / 1e12:,.1f} TFLOP per card on {comp.tokens_per_step:,} tokens, "
            f"{secs} a step, {rate}"
        )
        for m in comp.matmuls:
            bound = ", ".join(f"{k}: {v}" + (" at the estimated rate" if k in comp.estimated_ridge_cards else "")
                              for k, v in m.bound.items()) or "bound unknown: no published rate"
            out.append(f"    {m.name:32s} {m.intensity:9.1f} FLOP/byte  ({bound})")
        out += [f"    {n}" for n in comp.notes]
    return out


def _vision(v: VisionInfo) -> list[str]:
    """A vision-language job's images and tower: where its sequence and its tower's share come from."""
    images, tower = vision_words(v)
    return [f"  {images}", f"  {tower}", *(f"    source: {s}" for s in v.sources)]


def _rl(job: JobResult) -> list[str]:
    """What an RL / preference job keeps per card, where it generates, and its step split."""
    r = job.rl
    if r is None:
        return []
    out = [f"  {r.objective.upper()}: the models on each training card"]
    for m in r.models:
        out.append(f"    {m.role:10s} {m.gb_per_card:7.1f} GB  {m.held}  [{m.source}]")
    if (generation := generation_sentence(r)) is not None:
        out.append(f"  generation: {generation}")
    if (split := step_split(r)) is not None:
        out.append(f"  step split: {split}")
    return out


def _job(job: JobResult, errors: Sequence[Check] = ()) -> list[str]:
    """One job's block of the text report: its errors first (the cause before the figures it explains: a job
    naming an empty slot is sized on the cards it has), then what it runs, its memory per card, communication and
    compute."""
    out = [f"Job: {job.name}  [{STATUS[job.status]}]"]
    out += [f"  {c.severity.upper()} {c.code}: {c.message}" for c in errors]
    out += [
        f"  model {job.model_name} ({job.model}), {parameters_words(job.params_total, job.params_trainable)}; "
        f"method {job.method}, {job.parallelism}",
    ]
    if job.stack:
        out.append(f"  stack: {job.stack}")
    if job.vision is not None:
        out += _vision(job.vision)
    if job.host_memory_gb is None:
        out.append("  host memory for offloaded states: unknown (NVMe staging buffers)")
    elif job.host_memory_gb > 0:
        out.append(f"  host memory for offloaded states: {job.host_memory_gb:.1f} GB on this node")
    if job.cards:
        out += _memory(job)
    out += _rl(job)
    out += _steps(job)
    if job.step_seconds is not None:
        band = step_band_phrase(job)
        out.append(f"  step time: {step_words(job)}" + (f" ({band})" if band else ""))
    return out


def _host(result: BuildResult) -> list[str]:
    """The host's RAM and NVMe: need and parts (the quote's DIMM and drive lines), then the terms with sources."""
    host = result.host
    if host is None or not (host.ram_terms or host.nvme_terms):
        return []
    out = ["", ram_line(host), nvme_line(host)]
    for part in (host.dimms, host.drives):
        if part is not None:
            out.append(f"  part {part.part_id}: {part.count} × {part.description}")
    for t in host.ram_terms:
        where = t.job or "the host"
        out.append(f"  RAM  {term_size_words(t, 'GB'):>13s}  {where}: {t.what} ({source_words(t.source)})")
    for t in host.nvme_terms:
        out.append(f"  NVMe {term_size_words(t, 'TB'):>13s}  {t.job}: {t.what} ({source_words(t.source)})")
    return out


def render(result: BuildResult) -> str:
    lines = [f"Build: {result.name}", f"Chassis: {result.chassis_name or result.chassis or '?'}"]
    lines += result.notes  # the unit, the link rates where a job communicates, the compute rates (evaluate.py)
    if result.power:
        p = result.power
        supply = (
            f"of {p.psu_capacity_w:,.0f} W PSU ({p.margin_w:,.0f} W margin)"
            if p.psu_capacity_w is not None and p.margin_w is not None
            else "(PSU rating unpublished: check the vendor's configuration)"
        )
        lines.append(f"Power: cards {p.cards_w:,.0f} W + platform {p.platform_w:,.0f} W = {p.total_w:,.0f} W {supply}")
    if result.topology and result.topology.slots:
        t = result.topology
        lines.append("Topology (nvidia-smi topo -m style):")
        lines.append("          " + "".join(f"slot{s:<4d}" for s in t.slots))
        for s, row in zip(t.slots, t.matrix, strict=True):
            lines.append(f"  slot{s:<4d}" + "".join(f"{v:8s}" for v in row))
        lines.append("  " + "; ".join(f"{k} = {v}" for k, v in t.legend.items()))
    for job in result.jobs:
        lines.append("")
        lines += _job(job, [c for c in result.errors if c.job == job.name])
    lines += _host(result)
    for mig in result.mig:
        lines.append("")
        state = "valid" if mig.valid else "INVALID"
        lines.append(f"MIG slot {mig.slot} ({mig.card}): {state}")
        for i in mig.instances:
            jobs = f" <- {', '.join(i.jobs)}" if i.jobs else ""
            lines.append(f"  instance {i.index}: {i.profile} at {i.start}, {i.capacity_gb:.1f} GB{jobs}")
        lines += [f"  {c}" for c in mig.commands]
    if result.checks:
        lines.append("")
        lines.append("Checks:")
        for c in result.checks:
            lines.append(f"  {c.severity.upper():7s} {c.code}: {c.message}")
            if c.detail:
                lines.append(f"          details: {c.detail}")
    return "\n".join(lines) + "\n"
