"""Links and their rates in words, one wording for the window, the text report and the sheet.

The rates a step's communication is timed at are the catalog's typical figures from published nccl-tests runs
(engine/topology/links.py), the datasheet's, or the user's own calibration: never a measurement of the machine being
configured, so "measured" alone is never printed for them."""

from __future__ import annotations

from configurator.engine.model.result import BuildResult
from configurator.engine.topology.links import LINK_WORDS, RATE_BASIS_WORDS, link_words

# Link kinds as the engine names them (Collective.link, Communication.bound_by): the names a buyer reads, the
# engine's (its check messages say them too)
LINK_NAMES = LINK_WORDS

# The same bases in the few words a status bar holds (its tooltip gives rate_words')
SHORT_RATE_BASIS = {"measured": "typical (nccl-tests)", "nominal": "nominal (datasheet)", "calibrated": "calibrated"}


def short_rate_words(basis: str) -> str:
    """'typical (nccl-tests)' for 'measured'; a basis missing here as it is."""
    return SHORT_RATE_BASIS.get(basis, basis)


def link_name(kind: str | None) -> str:
    """'NVLink' for the engine's 'nvlink'; a kind missing here as it is."""
    return link_words(kind)


def menu_rate_words(basis: str) -> str:
    """A View menu choice: 'Typical measured (nccl-tests busbw, published)' for 'measured'."""
    words = rate_words(basis)
    return words[:1].upper() + words[1:]


def rate_words(basis: str) -> str:
    """'typical measured (nccl-tests busbw, published)' for 'measured'; a basis missing here (NVLink SHARP) as it
    is."""
    return RATE_BASIS_WORDS.get(basis, basis)  # the engine's words (engine/topology/links.py), as its notes


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
