"""Words for several jobs at once: whom a shared line is for, and the step band's caveat said for all of them."""

from __future__ import annotations

from configurator.engine import Build, evaluate
from configurator.present.job_words import band_basis_words, band_caveat_words
from configurator.present.words import jobs_named


def test_jobs_named_says_all_only_for_every_job() -> None:
    every = ["tenant A", "tenant B", "tenant C"]
    assert jobs_named(["tenant C", "tenant A", "tenant B"], every) == "all 3 jobs"
    assert jobs_named(["tenant A", "tenant B"], every) == "tenant A, tenant B"
    assert jobs_named(["solo"], ["solo"]) == "solo"  # one job is named, never 'all 1 jobs'
    assert jobs_named(["the host", "the host"], every) == "the host"  # a name once


def test_one_job_reads_as_the_engine_writes_it_several_in_the_plural() -> None:
    """The engine's basis ends with the job's own caveat ('as this job is'); the grouped words say it for all of
    them, and for one job as the engine does, so a group of one reads the same as the job's own line."""
    build = Build.model_validate({
        "name": "q", "chassis": "generic-server-8", "cards": [{"slot": 1, "card": "h200-nvl"}],
        "jobs": [{"name": "q", "model": "llama-3.1-8b", "method": "qlora", "cards": [1]}],
    })  # fmt: skip
    job = evaluate(build).jobs[0]
    assert job.step_band_outside[0] == "QLoRA"
    assert job.step_band_basis == band_basis_words(job.step_band_outside)
    assert band_caveat_words(["QLoRA", "on a MIG slice"], 2) == (
        "none of the runs is QLoRA or on a MIG slice as these jobs are"
    )
    assert band_caveat_words([], 3) == ""
