"""Links and their rates in words, one wording for the window, the text report and the sheet.

The rates a step's communication is timed at are the catalog's typical figures from published nccl-tests runs
(engine/topology/links.py), the datasheet's, or the user's own calibration: never a measurement of the machine being
configured, so "measured" alone is never printed for them."""

from __future__ import annotations

from configurator.engine.model.result import BuildResult

# Link kinds as the engine names them (Collective.link, Communication.bound_by): the names a buyer reads
LINK_NAMES = {
    "nvlink": "NVLink",
    "nvswitch": "NVSwitch",
    "pcie": "PCIe",
    "pcie-pix": "PCIe, one switch (PIX)",
    "pcie-pxb": "PCIe, switches (PXB)",
    "pcie-node": "PCIe, one CPU (NODE)",
    "pcie-sys": "PCIe across CPUs (SYS)",
}

# A collective's rate basis (Collective.rate_basis, Assumptions.link_rates) in words
RATE_BASIS = {
    "measured": "typical measured (nccl-tests busbw, published)",
    "measured (2-card pair)": "typical measured on a 2-card pair (nccl-tests busbw, published)",
    "nominal": "nominal (datasheet, per direction)",
    "calibrated": "calibrated (your nccl-tests)",
}


# The same bases in the few words a status bar holds (its tooltip gives rate_words'); the View menu's choices
SHORT_RATE_BASIS = {"measured": "typical (nccl-tests)", "nominal": "nominal (datasheet)", "calibrated": "calibrated"}
MENU_RATE_BASIS = {"measured": "Typical measured (nccl-tests busbw, published)", "nominal": "Nominal (datasheet)"}


def short_rate_words(basis: str) -> str:
    """'typical (nccl-tests)' for 'measured'; a basis missing here as it is."""
    return SHORT_RATE_BASIS.get(basis, basis)


def link_name(kind: str | None) -> str:
    """'NVLink' for the engine's 'nvlink'; a kind missing here as it is."""
    return LINK_NAMES.get(kind or "", kind or "")


def rate_words(basis: str) -> str:
    """'typical measured (nccl-tests busbw, published)' for 'measured'; a basis missing here (NVLink SHARP) as it
    is."""
    return RATE_BASIS.get(basis, basis)


def communicates(result: BuildResult) -> bool:
    """Whether any job of the result exchanges data between cards (has a collective a step)."""
    return any(j.communication.collectives for j in result.jobs)


def link_rates_note(result: BuildResult) -> str:
    """'Link rates: typical measured (nccl-tests busbw, published)' with each link's rate where a job
    communicates; '' where none does (a single-card build times no link)."""
    rates: dict[str, tuple[float, str]] = {}
    for job in result.jobs:
        for c in job.communication.collectives:
            rates[c.link] = (c.rate_gb_s, c.rate_basis)
    if not rates:
        return ""
    words = " + ".join(rate_words(b) for b in sorted({b for _, b in rates.values()}))
    per_link = ", ".join(f"{link_name(link)} {rate:g} GB/s" for link, (rate, _) in rates.items())
    return f"Link rates: {words} — {per_link}"


def units_note(result: BuildResult) -> str:
    """The text report's opening note: the unit, the link rates where a job communicates, the compute rates."""
    links = link_rates_note(result)
    compute = ("Compute rates: published, or the catalog's UNCONFIRMED estimate where none is published."
               if result.compute_rates == "estimated" else "Compute rates: published dense BF16 only.")  # fmt: skip
    return "GB = 10^9 bytes. " + (f"{links}. " if links else "") + compute
