"""A job's name is its identity: the build file refuses two jobs named alike, and drags carry the name."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.catalog.errors import FileError
from configurator.engine.model.buildfile import load_build
from configurator.ui.dnd.mime import job_mime, read_job
from tests.gui_helpers import drag_drop, make_window
from tests.paths import BUILDS

TWINS = """\
schema_version: 1
name: two jobs named alike
chassis: generic-server-8
cards:
  - {slot: 1, card: h200-nvl}
  - {slot: 2, card: h200-nvl}
jobs:
  - {name: tune, model: llama-3.1-8b, method: lora, cards: [1]}
  - {name: other, model: llama-3.1-8b, method: lora, cards: [2]}
  - {name: tune, model: llama-3.1-8b, method: qlora, cards: [2]}
"""


def test_two_jobs_named_alike_are_refused_with_a_rename_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "twins.yaml"
    path.write_text(TWINS, encoding="utf-8")
    with pytest.raises(FileError) as info:
        load_build(path)
    text = str(info.value)
    assert "jobs 1 and 3 are both called 'tune'" in text
    assert "rename one, e.g. to 'tune (3)'" in text


def test_every_shipped_build_has_unique_job_names() -> None:
    for path in sorted(BUILDS.glob("*.yaml")):
        build = load_build(path)
        assert len({j.name for j in build.jobs}) == len(build.jobs), path.name
        assert all(build.job_index(j.name) == i for i, j in enumerate(build.jobs))


def test_a_job_drag_carries_its_name() -> None:
    assert read_job(job_mime("70B QLoRA")) == "70B QLoRA"


def test_a_job_dropped_on_a_build_without_it_is_refused(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A job dragged from another window (or a build that changed under the drag) names a job this build does
    not have: the drop is refused and no other job moves. With list positions it moved this build's job 2."""
    window = make_window(qtbot, tmp_path)
    before = window.doc.build
    assert len(before.jobs) > 1 and before.job_index("a job from another window") is None
    messages: list[str] = []
    window.chassis_view.status.connect(messages.append)
    free = next(c.slot for c in before.cards if c.slot not in before.jobs[1].cards and not c.mig)
    assert not drag_drop(window.chassis_view, job_mime("a job from another window"), free)
    assert window.doc.build == before
    assert any("no job called 'a job from another window'" in m for m in messages)


def test_undo_and_redo_reuse_the_stored_results(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Undo and redo swap the results the engine already gave in: no evaluation on the GUI thread."""
    from functools import partial

    from configurator.engine import editing

    window = make_window(qtbot, tmp_path)
    doc = window.doc
    first = doc.result
    assert doc.edit("longer", partial(editing.update_job, index=0, sequence_length=8192))
    edited, runs = doc.result, doc.evaluations
    doc.undo_stack.undo()
    assert doc.result is first and doc.evaluations == runs
    doc.undo_stack.redo()
    assert doc.result is edited and doc.evaluations == runs
