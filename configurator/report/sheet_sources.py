"""The build sheet's closing sections: checks, assumptions (with their sources) and the sourced figures."""

from __future__ import annotations

from html import escape

from configurator.catalog.chassis import ChassisSpec
from configurator.catalog.loader import Catalog
from configurator.engine import Build, BuildResult
from configurator.engine.calibration import band as calibration
from configurator.engine.memory.estimate import (
    ALLOCATOR_DYNAMIC_FRACTION,
    ALLOCATOR_STATIC_FRACTION,
    CUDA_CONTEXT_BYTES,
    FSDP_SETUP_UNIT_COPIES,
)
from configurator.present.colours import SEVERITY_COLOUR
from configurator.present.link_words import communicates, rate_words
from configurator.present.words import check_ref
from configurator.report.sheet_tables import H2, html_table, source_text


def checks_section(result: BuildResult) -> list[str]:
    """Every check with its severity, code and what to do about it."""
    out: list[str] = []
    out.append(H2.format("Checks"))
    if result.checks:
        rows = [[f"<span style='color:{SEVERITY_COLOUR[c.severity]}'>{c.severity}</span>",
                 escape(c.message) + (f"<br/><small>{escape(c.detail)}</small>" if c.detail else "")
                 + f" <span style='color:#666;font-size:7pt;white-space:nowrap'>(check {check_ref(c.code)})</span>"]
                for c in result.checks]  # fmt: skip
        out.append(html_table(["Severity", "What and how to fix it"], rows, [12, 88]))
    else:
        out.append("<p>No problems found.</p>")
    return out


def assumptions_section(build: Build, result: BuildResult) -> list[str]:
    """The assumptions the figures rest on, each with its source."""
    out: list[str] = []
    out.append(H2.format("Assumptions and sources"))
    a = build.assumptions
    out.append(
        "<ul>"
        "<li>GB = 10<sup>9</sup> bytes (SI prefix); capacities are what nvidia-smi shows.</li>"
        + (  # only where a job communicates: a single-card build times no link
            f"<li>Link rates: {escape(rate_words(a.link_rates))}"
            + (
                "; calibrated: "
                + ", ".join(f"{c.link} {c.busbw_gb_s:g} GB/s ({escape(c.source)})" for c in a.calibration)
                if a.calibration
                else ""
            )
            + ".</li>"
            if communicates(result)
            else ""
        )
        + (
            "<li>Compute rates: published dense BF16, or the catalog's UNCONFIRMED estimate where NVIDIA publishes "
            "none (each job that uses one says so).</li>"
            if a.compute_rates == "estimated"
            else "<li>Compute rates: published dense BF16 only; a card without one has no compute time.</li>"
        )
        + (
            "<li>Step time, op by op: each op's FLOPs and bytes from the model's shapes, timed at published achieved "
            "GEMM, attention and bandwidth efficiencies (specs/efficiency.yaml; validated on published throughputs, "
            f"specs/throughput-runs.yaml).{_attention_sentence(result)}</li>"
            if a.step_model == "per-op"
            else f"<li>Utilisation {a.utilization:.0%} of dense BF16 peak (model FLOPs utilisation; 40–55 % is typical "
            "of large dense training, Chowdhery et al. 2022; Korthikanti et al. 2022).</li>"
        )
        + f"<li>Safety margin {a.safety_margin_fraction:.0%} of capacity; "
        f"CUDA context {CUDA_CONTEXT_BYTES / 1e9:.2f} GB; "
        f"caching-allocator reserve {ALLOCATOR_STATIC_FRACTION:.0%} of static and {ALLOCATOR_DYNAMIC_FRACTION:.0%} "
        "of dynamic memory; under FSDP, the gathered units and gradient shards keep pools of their own streams, "
        f"and the pool left from FSDP set-up (sharded weights and adapters plus {FSDP_SETUP_UNIT_COPIES:g} copies "
        "of the largest unit) is a floor under the peak.</li>"
        "<li>Activations: per-layer saved tensors of a Llama-style block (Korthikanti et al. 2022, re-derived for "
        "RMSNorm, rotary SDPA/flash attention, GQA and SwiGLU) plus logits and loss buffers, for the job's "
        f"training stack. {_checks_sentence()}</li>"
        "<li>Model states follow the ZeRO count: 16 B per trained parameter with mixed-precision AdamW, 10 B with "
        "8-bit AdamW; QLoRA stores block linears in NF4 (bitsandbytes, double quantisation by default).</li>"
        "</ul>"
    )
    return out


def _attention_sentence(result: BuildResult) -> str:
    """Which attention kernel each job's step is timed at, as the engine chose it for the job's card and attention
    setting (Compute.attention_kernel): no blanket claim that one kernel times them all."""
    kernels = [(job.name, job.compute.attention_kernel) for job in result.jobs
               if job.compute is not None and job.compute.attention_kernel]  # fmt: skip
    if not kernels:
        return ""
    each = "; ".join(f"{escape(name)}: {escape(kernel)}" for name, kernel in kernels)
    return (" Each job's attention is timed at the kernel it runs on its cards (the one PyTorch SDPA picks there, "
            f"or the one the model or the job's attention setting forces): {each}.")


def _checks_sentence() -> str:
    """What the printed band rests on: the cross-validated runs and the runs held apart (engine.calibration.band)."""
    c = calibration.summary()
    return (
        f"Checked against {c.runs} published peak-memory runs from {c.sources} projects ({c.within_15} within "
        f"15%, median error {c.median_abs_error:.1%}). Each run is also scored with the allocator constants refitted "
        "without its own project's runs; the band printed with each peak holds "
        f"{calibration.BAND_COVERAGE:.0%} of those errors for jobs like it (LoRA/QLoRA or full fine-tune, per "
        "framework where it has enough runs) and is wider for a stack no measured run used. "
        f"{c.held_apart} further runs from {c.held_apart_sources} projects, kept out of every fit and band, land "
        f"within {c.held_apart_max_abs_error:.0%} (median {c.held_apart_median_abs_error:.1%})."
    )


def _value(value: float | None, unit: str) -> str:
    """A catalog figure with its unit: '143,771 MiB', '835.5 TFLOPS', '600 W'; 'not published' without one."""
    if value is None:
        return "not published"
    return f"{value:,.0f} {unit}" if float(value).is_integer() else f"{value:,g} {unit}"


def sources_section(build: Build, result: BuildResult, catalog: Catalog, chassis: ChassisSpec | None) -> list[str]:
    """Every catalog figure the sheet uses, with its value and source."""
    a = build.assumptions
    rows = []
    seen: set[str] = set()
    for c in build.cards:
        card = catalog.cards.get(c.card)
        if card is None or card.id in seen:
            continue
        seen.add(card.id)
        for label, s, unit in (("visible memory", card.memory_visible_mib, "MiB"),
                               ("dense BF16 rate", card.bf16_dense_tflops, "TFLOPS"),
                               ("memory bandwidth", card.memory_bandwidth_gb_s, "GB/s"),
                               ("power", card.power.tdp_w, "W")):  # fmt: skip
            name = escape(card.name.removeprefix("NVIDIA "))
            rows.append([name, label, _value(s.value, unit), source_text(s.source)])
        estimate = card.bf16_dense_tflops_estimate
        if estimate is not None and a.compute_rates == "estimated" and not card.bf16_dense_tflops.value:
            rows.append([escape(card.name.removeprefix("NVIDIA ")), "dense BF16 rate, estimate used",
                         _value(estimate.value, "TFLOPS"), source_text(estimate.source)])  # fmt: skip
        if card.nvlink:
            s = card.nvlink.gb_s_bidirectional
            rows.append([escape(card.name.removeprefix("NVIDIA ")), "NVLink (both directions)",
                         _value(s.value, "GB/s"), source_text(s.source)])  # fmt: skip
    if chassis:
        rows.append([escape(chassis.name), "slot map", "—", source_text(chassis.source)])
        for label, s in (("PSU, each", chassis.psu.watts_each), ("platform power", chassis.platform_power_w)):
            rows.append([escape(chassis.name), label, _value(s.value, "W"), source_text(s.source)])
    for job in result.jobs:
        m = catalog.models.get(job.model)
        if m is not None and m.id not in seen:
            seen.add(m.id)
            # in billions: the 14-digit count broke mid-number in the value column ("70,553,706,49 / 6")
            rows.append([escape(m.name), "parameters (architecture)", f"{m.total_params / 1e9:,.2f} B",
                         source_text(m.source)])  # fmt: skip
    return [html_table(["Item", "Figure", "Value", "Source"], rows, [22, 18, 12, 48])]
