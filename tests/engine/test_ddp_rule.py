"""Whether a job's replicas keep DDP's gradient buckets is one rule (states.sharding, from the parallelism table),
used by the engine for every job and by the calibration for every measured run."""

from __future__ import annotations

from configurator.engine.calibration import band as calibration
from configurator.engine.memory.states import sharding
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM


def test_buckets_only_on_several_replicas_of_a_bucketing_strategy() -> None:
    for name, strategy in PARALLELISM.items():
        job = Job(name="j", model="x", parallelism=name)
        assert sharding(job, 1).ddp is False, name  # one card: no reducer
        assert sharding(job, 4, on_mig=True).ddp is False, name  # MIG instances never form a group
        assert sharding(job, 4).ddp is strategy.gradient_buckets, name


def test_calibration_applies_the_same_rule_to_every_run() -> None:
    runs = calibration.cv_runs() + calibration.HELD_APART_RUNS
    assert any(r.job.parallelism == "ddp" for r in runs)  # the rule is exercised on a DDP run
    for r in runs:
        cards = calibration.run_cards(r)
        assert cards >= r.shards and (cards > 1) == (r.shards > 1 or PARALLELISM[r.job.parallelism].multi_card)
        assert calibration._keeps_buckets(r) is sharding(r.job, cards).ddp
        assert calibration._keeps_buckets(r) is (r.job.parallelism == "ddp"), r.label
