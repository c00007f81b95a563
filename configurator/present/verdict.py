"""The verdict in plain words, one wording for the window's verdict line and the build sheet's first page:
per job "fits", "tight" or "does not fit" with the card that decides it, and the build's in one line.

The status is the engine's (``JobResult.status``, engine/evaluate_job.py ``_status``: tight when the band
around the peak reaches past the capacity or less than the safety margin is left); here it is only said.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.model.result import BuildResult, CardMemory, FitStatus, JobResult
from configurator.present.rl_words import share_phrase
from configurator.present.words import to_unit

WORDS: dict[str, str] = {"fits": "fits", "tight": "tight", "does-not-fit": "does not fit", "unknown": "not sized"}


@dataclass(frozen=True)
class Verdict:
    status: FitStatus
    word: str  # "fits", "tight", "does not fit", "not sized"
    sentence: str  # the reason, in a customer's words


def plural(n: int, one: str, many: str | None = None) -> str:
    """'1 job', '2 jobs', '1 NVLink bridge': the count and the word in its number (no 'job(s)')."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def _where(card: CardMemory) -> str:
    name = card.card_name.removeprefix("NVIDIA ")
    return f"the {name} in slot {card.slot}" + (f" (MIG slice {card.mig})" if card.mig else "")


def job_verdict(job: JobResult, unit: str = "GB") -> Verdict:
    """One job's verdict and why, from its fullest card (the one with the least headroom), saying what the headroom
    is measured against where that is not the whole card (a colocated vLLM's rest, from the engine's
    RLResult.colocated_share)."""
    word = WORDS.get(job.status, job.status)
    share = share_phrase(colocated_share(job))
    if not job.cards:
        return Verdict(job.status, word, "it runs on no card yet: choose the cards it runs on")
    card = min(job.cards, key=lambda c: c.headroom_gb)
    head = abs(to_unit(card.headroom_gb, unit))
    if job.status == "does-not-fit":
        return Verdict(job.status, word, f"it needs {head:,.1f} {unit} more than {_where(card)} has{share}")
    if job.status == "tight":
        return Verdict(job.status, word, f"it fits with only {head:,.1f} {unit} to spare on {_where(card)}{share}, "
                                         "inside the uncertainty of the estimate")  # fmt: skip
    if job.status == "fits":
        return Verdict(job.status, word, f"{head:,.1f} {unit} to spare on {_where(card)}{share}")
    return Verdict(job.status, word, "it could not be sized (see the checks)")


def colocated_share(job: JobResult) -> float:
    """The share of each of the job's cards a colocated vLLM holds (0: none), as the engine sized it."""
    return job.rl.colocated_share if job.rl is not None else 0.0


def build_verdict(result: BuildResult) -> Verdict:
    """The build's verdict: the worst job's status, and how many jobs are in each."""
    jobs = result.jobs
    if any(c.code == "CHASSIS_UNKNOWN" for c in result.checks):  # evaluate sizes nothing without a chassis
        return Verdict("unknown", WORDS["unknown"], "the chassis is unknown: choose one in the Chassis box to size "
                       "the jobs")  # fmt: skip
    if not jobs:
        return Verdict("unknown", WORDS["unknown"], "no job yet: add one to size the build")
    worst = result.status
    counts = result.status_counts
    if worst == "fits":
        sentence = "the job fits" if len(jobs) == 1 else f"all {len(jobs)} jobs fit"
    else:
        parts = [f"{counts['fits']} {'fits' if counts['fits'] == 1 else 'fit'}"] if counts["fits"] else []
        parts += [f"{counts['tight']} tight"] if counts["tight"] else []
        parts += [f"{counts['does-not-fit']} {'does' if counts['does-not-fit'] == 1 else 'do'} not fit"
                  ] if counts["does-not-fit"] else []  # fmt: skip
        parts += [f"{counts['unknown']} not sized"] if counts["unknown"] else []
        sentence = f"of {plural(len(jobs), 'job')}: " + ", ".join(parts)
    return Verdict(worst, WORDS.get(worst, worst), sentence)
