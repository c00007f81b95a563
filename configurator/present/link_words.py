"""Links and their rates in words, one wording for the window, the text report and the sheet.

The rates a step's communication is timed at are the catalog's typical figures from published nccl-tests runs
(engine/topology/links.py), the datasheet's, or the user's own calibration: never a measurement of the machine being
configured, so "measured" alone is never printed for them."""

from __future__ import annotations

from configurator.engine.model.result import BuildResult
from configurator.engine.topology.links import RATE_BASIS_WORDS, link_words

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


def comm_share_words(ratio: float) -> list[str]:
    """A step's communication against its compute as phrases a narrow label may break between:
    ['communication', '35% of compute time'] for the engine's ratio_to_compute 0.35 ('comm/compute = 0.35' was
    jargon); '< 1%' below 0.01."""
    share = f"{ratio * 100:.0f}%" if ratio >= 0.01 else "< 1%"
    return ["communication", f"{share} of compute time"]


COMM_SHARE_NOTE = ("Communication: the time the cards spend exchanging data in a step (NCCL collectives over the "
                   "links), as a share of the step's compute time; over 100% the links, not the cards, set the "
                   "step time.")  # fmt: skip
