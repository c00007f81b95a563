"""The build sheet's job and MIG sections: per job its set-up, memory per card, communication and compute."""

from __future__ import annotations

from html import escape

from configurator.catalog.cards import short_card_name
from configurator.catalog.loader import Catalog
from configurator.engine import BuildResult
from configurator.engine.memory import rl
from configurator.engine.model.build import Job
from configurator.engine.model.result import JobResult
from configurator.present.job_words import parameters_words, step_band_phrase, step_words, vision_words, word
from configurator.present.link_words import link_name, rate_words
from configurator.present.memory_words import parts_note, reserved_basis_note
from configurator.present.rl_words import capacity_note, generation_sentence, step_split
from configurator.present.verdict import WORDS, colocated_share, job_verdict
from configurator.present.words import mig_profile_gb
from configurator.report.sheet_tables import FIGURE_MARK, H2, fmt_gb, html_table
from configurator.report.text import compute_phrase, overlap_phrase
from configurator.trace.cache import CachedTrace
from configurator.trace.request import PreparedTrace
from configurator.trace.words import breakdown_lines, traced_line


def _job_memory(i: int, job: JobResult, spec: Job) -> list[str]:
    """Memory per card in GB, the peak's make-up and the headroom figure's marker."""
    out: list[str] = []
    rows = []
    for r in job.cards:
        # the instance on a line of its own, whole ('1g.24gb#0' wrapped as '1g.24 / gb#0')
        where = f"{r.slot}" + (f"<br><span style='white-space:nowrap'>{r.mig} #{r.instance}</span>" if r.mig else "")
        rows.append([where, escape(short_card_name(r.card_name)), fmt_gb(r.weights_gb), fmt_gb(r.adapters_gb),
                     fmt_gb(r.gradients_gb), fmt_gb(r.optimizer_gb), fmt_gb(r.activations_gb), fmt_gb(r.transient_gb),
                     fmt_gb(r.overhead_gb), fmt_gb(r.peak_reserved_gb), fmt_gb(r.capacity_gb), fmt_gb(r.headroom_gb),
                     WORDS.get(r.status, r.status)])  # fmt: skip
    out.append(html_table(["Slot", "Card", "Weights", "Adapt.", "Grads", "Optim.", "Activ.", "Trans.", "Ovhd.",
                       "Peak", "Capacity", "Headroom", "Fit"], rows,
                      [11, 12, 8, 7, 6, 7, 7, 6, 6, 6, 9, 9, 6] if any(r.mig for r in job.cards)
                      else [6, 14, 9, 7, 6, 7, 7, 6, 6, 6, 9, 11, 6]))  # fmt: skip
    r0 = job.cards[0]
    out.append(
        f"<p style='font-size:8pt'>Memory in GB. Model states {r0.model_states_gb:.1f} GB; peak allocated "
        f"{r0.peak_allocated_gb:.1f} GB; allocator reserved {r0.allocator_reserved_gb:.1f} GB; peak as "
        f"nvidia-smi shows it {r0.peak_reserved_gb:.1f} GB (model band {r0.peak_low_gb:.1f}–"
        f"{r0.peak_high_gb:.1f} GB, leave-one-source-out: {escape(r0.band_basis)}); peak set by the "
        f"{r0.peak_phase} phase"
        + (f"; offloaded states take {job.host_memory_gb:.1f} GB of host memory" if job.host_memory_gb else "")
        + (f"; {note}" if (note := reserved_basis_note(r0.reserved_set_by, r0.fsdp_setup_pool_gb)) else "")
        + (f"; {note}" if (note := capacity_note(colocated_share(job))) else "")
        + ".</p>"
    )
    out.append(f"<p>{FIGURE_MARK.format(f'headroom:{i}')}</p>")
    # under the chart, whose bar stacks the parts too: why neither adds up to Peak
    note = parts_note(r0.peak_phase)
    out.append(f"<p style='font-size:7pt;color:#555555'>{escape(note[:1].upper() + note[1:])}; the headroom is "
               "capacity less the peak.</p>")  # fmt: skip
    return out


def _rates_sentence(job: JobResult) -> str:
    """What the table's rates are, in the shared words (present/link_words.py): a catalog rate is no measurement of
    this machine, so the sheet never says "measured" alone ("174 (measured)" read as measured here). Per collective
    where their bases differ (an all-reduce at NVLink SHARP beside ring gathers)."""
    names: dict[str, list[str]] = {}
    for c in job.communication.collectives:
        names.setdefault(c.rate_basis, []).append(c.name)
    if len(names) == 1:
        return f"Rates: {rate_words(next(iter(names)))}."
    return "Rates: " + "; ".join(f"{rate_words(b)} for {', '.join(n)}" for b, n in names.items()) + "."


def _job_steps(job: JobResult) -> list[str]:
    """Communication and compute per step, with their notes."""
    out: list[str] = []
    comm, comp = job.communication, job.compute
    if comm.collectives or comp:
        out.append("<h3>Communication and compute per step</h3>")
    if comm.collectives:
        rows = [[escape(c.name), c.kind, str(c.count_per_step), f"{c.bytes_per_card / 1e9:,.2f}",
                 escape(link_name(c.link)), f"{c.rate_gb_s:,.0f}", f"{c.seconds:.3f}"]
                for c in comm.collectives]  # fmt: skip
        out.append(html_table(["Collective", "Kind", "×/step", "GB per card", "Link", "GB/s per direction", "Seconds"],
                          rows, [30, 13, 7, 11, 10, 17, 12]))  # fmt: skip
        out.append(
            f"<p>Communication {comm.seconds_per_step:.3f} s per step over {escape(link_name(comm.bound_by))}"
            f"{overlap_phrase(comm)}. {escape(_rates_sentence(job))}</p>"
        )
        out += [f"<p style='font-size:8pt'>{escape(n)}</p>" for n in comm.notes]
    if comp:
        secs, rate = compute_phrase(comp)
        band = step_band_phrase(job) if job.step_seconds is not None else ""
        out.append(
            f"<p>Compute {comp.flops_per_step / 1e12:,.1f} TFLOP per card per step ({comp.tokens_per_step:,} "
            f"tokens) {rate}: {secs}"
            + (f". Step time {step_words(job)}" if job.step_seconds is not None else "")
            + (f" ({escape(band)})" if band else "")
            + ".</p>"
        )
        out += [f"<p style='font-size:8pt'>{escape(n)}</p>" for n in comp.notes]
    return out


def _job_rl(job: JobResult) -> list[str]:
    """A DPO / GRPO / PPO job: the models it keeps per card with their sources, where it generates, the step
    split (engine/memory/rl.py, time/steptime/generation.py)."""
    r = job.rl
    if r is None:
        return []
    out = [f"<h3>{escape(r.objective.upper())}: models and generation</h3>"]
    rows = [[escape(m.role), escape(m.held), f"{m.gb_per_card:,.1f}", escape(m.source)] for m in r.models]
    out.append(html_table(["Model", "Held as", "GB per card", "Read from"], rows, [12, 30, 12, 46]))
    if (generation := generation_sentence(r)) is not None:
        out.append(f"<p>Generation: {escape(generation)}.</p>")
    if (split := step_split(r)) is not None:
        out.append(f"<p>Step split: {escape(split)}.</p>")
    return out


def _traced(job: JobResult, traced: tuple[PreparedTrace, CachedTrace]) -> list[str]:
    """The job's traced peak (from the trace cache), marked as traced and with the versions it is exact for."""
    prepared, hit = traced
    result = hit.result
    estimate = job.cards[0].peak_allocated_gb if job.cards else None
    beside = (f" The engine's estimate of the same figure is {estimate:.1f} GB (peak allocated above, estimated)."
              if estimate is not None else
              f" The engine cannot size this model ({escape(prepared.analytic_reason or 'unsupported')}): this traced "
              "figure is the job's only memory figure.")  # fmt: skip
    return [
        f"<p><b>Traced</b> ({escape(hit.when)}): {escape(traced_line(result).removeprefix('traced: '))}.{beside} At "
        "the peak: "
        f"{escape('; '.join(breakdown_lines(result)))}. Exact for {escape(result.versions_text())}; the CUDA context, "
        "cuBLAS workspaces and the allocator's reserve are not in a trace.</p>"
    ]


def job_section(i: int, job: JobResult, spec: Job,
                traced: tuple[PreparedTrace, CachedTrace] | None = None) -> list[str]:  # fmt: skip
    """One job: model, method and set-up, precision, memory per card (and its traced peak, when the trace cache
    holds one), communication and compute."""
    out: list[str] = []
    out.append(H2.format(f"Job: {escape(job.name)}"))
    lora = (f", LoRA rank {spec.lora.rank} on {escape(word('targets', spec.lora.targets))}"
            if spec.method != "full" else "")  # fmt: skip
    quant = f", base in {word('quantization', spec.quantization)}" if spec.method == "qlora" else ""
    verdict = job_verdict(job)
    out.append(
        f"<p>Model <b>{escape(job.model_name)}</b> ({parameters_words(job.params_total, job.params_trainable)}). "
        f"Method {word('method', spec.method)}{lora}{quant}; "
        f"optimizer {word('optimizer', spec.optimizer)}, {word('precision', spec.precision)}; sharding "
        f"{word('parallelism', spec.parallelism)}"
        + (f" (tensor parallel {spec.tensor_parallel})" if spec.parallelism == "tp" else "")
        + (f"; sequence {spec.sequence_length:,}" if not rl.generates(spec) else
           f"; {spec.objective.upper()}, prompt {spec.rl.prompt_length:,} + completion {spec.rl.completion_length:,}")
        + f" × micro-batch {spec.micro_batch_size}, gradient checkpointing "
        f"{'on' if spec.gradient_checkpointing else 'off'}, attention {word('attention', spec.attention)}"
        f"{' (padded batches)' if spec.padded_batches else ''}, loss "
        f"{word('loss', job.loss)}"
        + (f"; stack: {escape(job.stack)}" if job.stack else "")
        + (f", fixed activation budget {spec.activation_memory_gb:g} GB"
           if spec.activation_memory_gb is not None else "")
        + f". Verdict: <b>{escape(verdict.word)}</b> ({escape(verdict.sentence)}).</p>"
    )  # fmt: skip
    if job.vision is not None:  # a vision-language job's images and tower, with the code they are read from
        images, tower = vision_words(job.vision)
        out.append(f"<p>{escape(images[0].upper() + images[1:])}. {escape(tower[0].upper() + tower[1:])}. Sources: "
                   f"{escape('; '.join(job.vision.sources))}.</p>")  # fmt: skip
    if job.precision and (job.precision.recipe or job.precision.base_weights != "bf16"):  # low precision
        lp = job.precision
        # the support rule's source only where one applies (a BF16-compute job on an MXFP4 base has none: an empty
        # "support: ." was printed)
        support = f"; support: {escape(lp.source)}" if lp.source else ""
        out.append(f"<p>Precision: {escape(lp.recipe or 'BF16 compute')}, base {escape(lp.base_weights)}"
                   f"{support}.</p>")  # fmt: skip
    if job.cards:
        out += _job_memory(i, job, spec)
    out += _job_rl(job)
    if traced is not None:
        out += _traced(job, traced)
    out += _job_steps(job)
    return out


def mig_section(result: BuildResult, catalog: Catalog) -> list[str]:
    """Each MIG card's layout: instances, jobs, the commands that create it and its problems."""
    out: list[str] = []
    if result.mig:
        out.append(H2.format("MIG layouts"))
        for m in result.mig:
            card = catalog.cards.get(m.card)
            name = card.name if card else m.card
            rows = [[str(i.index), i.profile, str(i.start), f"{i.capacity_gb:.1f}",
                     f"{mig_profile_gb(i.profile, i.capacity_nominal_gb):g}",
                     escape(", ".join(i.jobs) or "—")] for i in m.instances]  # fmt: skip
            out.append(f"<p><b>Slot {m.slot}: {escape(name)}</b> — layout {'valid' if m.valid else 'not valid'}.</p>")
            out.append(html_table(["Instance", "Profile", "Start", "GB visible", "GB nominal", "Jobs"], rows,
                              [10, 18, 10, 14, 14, 34]))  # fmt: skip
            if m.commands:
                cmds = "<br>".join(escape(c) for c in m.commands)
                out.append(f"<p style='font-family:monospace;font-size:8pt'>{cmds}</p>")
            out += [f"<p style='color:#C62828'>{escape(p)}</p>" for p in m.problems]
    return out
