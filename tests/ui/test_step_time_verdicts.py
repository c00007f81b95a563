"""The step-time chart says what the engine says of each job: a job that does not fit is drawn as the time it would
take if it did (hatched, and said so over its bar), and the visible note carries each job's own band caveat."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from configurator.engine.model.buildfile import load_build
from configurator.ui.base.document import BuildDocument
from configurator.ui.charts.step_time import StepTimeChart
from tests.paths import BUILDS

pytestmark = pytest.mark.usefixtures("qapp")


def chart_of(qtbot, result) -> StepTimeChart:  # type: ignore[no-untyped-def]
    chart = StepTimeChart()
    qtbot.addWidget(chart)
    chart.resize(900, 480)
    chart.show()
    chart.update_result(result)
    return chart


def two_jobs_one_short():  # type: ignore[no-untyped-def]
    result = BuildDocument(load_build(BUILDS / "seed-70b-lora-8x-h200-nvl.yaml")).result
    job = result.jobs[0]
    assert job.step_seconds and job.status == "fits"
    short = job.model_copy(update={"name": "too big", "fits": False, "status": "does-not-fit"})
    return result.model_copy(update={"jobs": [job, short]})


def test_a_job_that_does_not_fit_shows_a_time_if_it_did(qtbot) -> None:  # type: ignore[no-untyped-def]
    """It got a confident step time like any other job."""
    result = two_jobs_one_short()
    chart = chart_of(qtbot, result)
    fits, short = (chart.labels[i].textItem.toPlainText().replace("\n", " ") for i in (0, 1))
    assert "does not fit" not in fits
    assert "does not fit" in short and "time if it did" in short, short
    for key, bar in chart.bars.items():
        xs = list(bar.opts["x"])
        if not xs:
            continue
        brushes = bar.opts["brushes"]
        assert brushes is not None, key
        for x, brush in zip(xs, brushes, strict=True):
            hatched = brush.style() not in (Qt.BrushStyle.SolidPattern, Qt.BrushStyle.NoBrush)
            assert hatched == (x == 1.0), (key, x, brush.style())
    legend = [label.text for _, label in chart.legend.items]
    assert any("does not fit" in text for text in legend), legend


def test_the_note_carries_each_job_s_own_band_caveat(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The note showed the band's generic basis only; a job's 'none of the runs is QLoRA ... as this job is' was in a
    tooltip."""
    result = BuildDocument(load_build(BUILDS / "default.yaml")).result
    own = [j.step_band_basis for j in result.jobs if j.step_band_basis and "none of the runs" in j.step_band_basis]
    assert own, [j.step_band_basis for j in result.jobs]
    chart = chart_of(qtbot, result)
    note = chart.note.text
    for basis in own:
        caveat = basis[basis.index("none of the runs") :]
        assert caveat in note, (caveat, note)


def test_a_caveat_several_jobs_share_speaks_of_them_all(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Four MIG tenants under one caveat: 'Every job: ... as this job is' read oddly; now they are named as the sheet
    names them and the caveat is plural."""
    result = BuildDocument(load_build(BUILDS / "seed-mig-four-tenants.yaml")).result
    assert len(result.jobs) == 4 and all(j.step_band_outside == result.jobs[0].step_band_outside for j in result.jobs)
    note = chart_of(qtbot, result).note.text
    assert "For all 4 jobs: none of the runs is QLoRA or on a MIG slice as these jobs are." in note, note
    assert "as this job is" not in note


def test_segments_read_as_names_and_the_tallest_are_named_first(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Segments read 'mlp (compute) 1.07 s', 'lora', 'bwd all-gather' where the Roofline tab reads 'MLP
    up-projection'; and at 2560x1440 a 0.75 s segment had no name (its name wider than the bar) while a 0.07 s one
    had one."""
    result = BuildDocument(load_build(BUILDS / "seed-70b-lora-8x-h200-nvl.yaml")).result
    job = result.jobs[0]
    jobs = [job.model_copy(update={"name": f"job {k}"}) for k in range(4)]
    chart = chart_of(qtbot, result.model_copy(update={"jobs": jobs}))
    chart.resize(900, 900)
    qtbot.wait(20)
    chart._place_segment_labels()
    shown = [t.textItem.toPlainText() for t in chart.seg_labels if t.isVisible()]
    assert shown
    internal = ("mlp", "lora", "dequant", "projections", "elementwise", "recompute", "fwd ", "bwd ")
    for text in shown:
        assert not text.startswith(internal), text
    h = chart.plot.vb.height()
    for i in range(4):
        segs = sorted((s for s in chart._seg_names if s[0] == i), key=lambda s: s[1] - s[2])
        named = {round((s.pos().y()), 6) for s in chart.seg_labels if s.isVisible() and round(s.pos().x()) == i}
        for _, y0, y1, text, _ in segs[:3]:  # the three tallest
            if (y1 - y0) / chart._y_hi * h >= 30:
                assert round((y0 + y1) / 2, 6) in named, (i, text, shown)
