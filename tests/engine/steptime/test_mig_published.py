"""MIG by SMs checked on published MIG training measurements beyond NJIT ARCS (issue 24, item 4): MIGProfiler's
BERT-base (A100 80GB) and ViT-B/16 (A100 40GB) step times per profile. Both sources are held apart; the scored ratio
and the tolerance were committed in specs/throughput-runs.yaml before the first scoring. Run with -s for the table."""

from __future__ import annotations

import pytest

from configurator.catalog.loader import Catalog
from configurator.engine.time.steptime.validation import MigScored, load_runs, mig_table, score_mig


@pytest.fixture(scope="module")
def mig_rows(catalog: Catalog) -> list[MigScored]:
    return score_mig(catalog=catalog)


def _key(r: MigScored) -> str:
    return f"{r.profile}@{r.micro_batch}x{r.seq}"


def test_published_mig_table(mig_rows: list[MigScored], capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        print("\nMIG training, instance throughput over the whole (7g) instance's:\n" + mig_table(mig_rows))
    assert {r.source for r in mig_rows} == {"migprofiler-bert", "migprofiler-vit"}
    assert len(mig_rows) == 29


def test_rows_within_committed_tolerance_except_the_recorded_misses(mig_rows: list[MigScored]) -> None:
    """Every row reads within its tolerance except those the data file records as missed after the first scoring;
    a recorded miss that starts to pass, or a new miss, fails here so the record is revisited."""
    for m in (x for x in load_runs()["mig"] if "rows" in x):
        rows = [r for r in mig_rows if r.source == m["from"]]
        missed = {_key(r) for r in rows if not r.within}
        assert missed == set(m.get("known_misses", [])), m["from"]


def test_every_miss_reads_the_slice_too_fast(mig_rows: list[MigScored]) -> None:
    """The misses share one direction (the model's slice is too fast against these FP32 runs), never too slow."""
    assert all(r.error > 0 for r in mig_rows if not r.within)


def test_large_steps_follow_the_sm_share(mig_rows: list[MigScored]) -> None:
    """Where the step fills the whole instance (>= 4,096 tokens), measured and modelled ratios are near the SM share
    (measured 1.03-1.18 x it), so 7 x 1g does about the whole instance's work, not 3x. Unlike the 25 % tolerance
    above, this band (0.95-1.2 x the SM share) was written after the data was seen: it describes the data, it was
    not a prediction committed before scoring. The model's side reads up to 1.21 x since the Ampere sustained fraction
    was refitted (0.770 -> 0.802, once LoRA's fp32-adapter traffic was timed): faster compute leaves the memory-bound
    ops, which follow the memory slices' larger share, a larger part of the step; the committed 25 % scoring above is
    unchanged."""
    big = [r for r in mig_rows if r.micro_batch * r.seq >= 4096]
    assert big
    for r in big:
        assert r.sm_share * 0.95 <= r.measured <= r.sm_share * 1.2, _key(r)
        assert r.sm_share * 0.95 <= r.predicted <= r.sm_share * 1.25, _key(r)


def test_rows_reported_at_each_candidate_matmul_rate(catalog: Catalog, mig_rows: list[MigScored],
                                                     capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """The runs are FP32 and do not say whether their matmuls ran at the FP32 or the TF32 rate (PyTorch's default
    changed in 1.12), so the same rows are reported at each candidate rate beside the committed BF16 scoring. Which
    candidate a source ran at is read from the whole instance's absolute step time (the candidate whose modelled
    step is nearest the measured one); under it, more rows fall within the committed tolerance than under the BF16
    scoring. Written after the tables were seen: it describes them (BERT: FP32, ViT: TF32), it predicts nothing."""
    import math
    import statistics

    from configurator.engine.time.steptime.validation import mig_rate_candidates

    assert mig_rate_candidates() == ["fp32", "tf32"]
    by_rate = {rate: score_mig(catalog=catalog, rate=rate) for rate in mig_rate_candidates()}
    with capsys.disabled():
        for rate, rows in by_rate.items():
            print(f"\nThe same rows with the matmuls at the {rate.upper()} rate (reported, not scored):\n"
                  + mig_table(rows))  # fmt: skip
    for rows in by_rate.values():  # the committed scoring is untouched by the reports
        assert [(r.source, r.profile, r.micro_batch, r.seq, r.measured) for r in rows] == [
            (r.source, r.profile, r.micro_batch, r.seq, r.measured) for r in mig_rows]

    def distance(rows: list[MigScored], source: str) -> float:
        return statistics.median(abs(math.log(r.whole_model_ms / r.whole_ms)) for r in rows if r.source == source)

    nearest = {s: min(by_rate, key=lambda rate: distance(by_rate[rate], s)) for s in ("migprofiler-bert",
                                                                                      "migprofiler-vit")}  # fmt: skip
    assert nearest == {"migprofiler-bert": "fp32", "migprofiler-vit": "tf32"}
    as_run = [r for s, rate in nearest.items() for r in by_rate[rate] if r.source == s]
    assert sum(r.within for r in as_run) > sum(r.within for r in mig_rows)
