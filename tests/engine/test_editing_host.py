"""Host edits (engine/editing/host.py): stating DIMMs and drives, going back to the engine's pick, checkpoints kept,
and the chassis's refusals in the same sentence the check HOST_PARTS_DONT_FIT gives."""

from __future__ import annotations

import pytest

from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.sourced import Sourced
from configurator.engine import Build, editing, evaluate

CATALOG = default_catalog()


def _build(chassis: str = "generic-server-8") -> Build:
    return Build.model_validate({"chassis": chassis, "cards": [{"slot": s, "card": "h200-nvl"} for s in (1, 2)],
                                 "jobs": [{"name": "z3", "model": "llama-3.1-8b", "method": "full",
                                           "parallelism": "zero3", "offload": "cpu", "cards": [1, 2]}]})  # fmt: skip


def test_stated_dimms_and_drives_become_installed_parts_and_clear_back_to_the_pick() -> None:
    build = _build()
    picked = evaluate(build, CATALOG).host
    assert picked is not None and picked.dimms is not None and not picked.dimms.stated
    stated = editing.set_host_drives(editing.set_host_dimms(build, CATALOG, 16, 64), CATALOG, 2, 3.84)
    host = evaluate(stated, CATALOG).host
    assert host is not None and host.dimms is not None and host.drives is not None
    assert (host.dimms.count, host.dimms.size, host.dimms.stated) == (16, 64, True)
    assert (host.drives.count, host.drives.size, host.drives.stated) == (2, 3.84, True)
    no_dimms = editing.clear_host_dimms(stated)
    assert no_dimms.host is not None and no_dimms.host.dimms is None and no_dimms.host.drives is not None
    back = editing.clear_host_drives(no_dimms)
    assert back.host is None  # nothing stated: the file reads as it did
    assert evaluate(back, CATALOG).host == picked


@pytest.mark.parametrize(("count", "size", "says"), [
    (40, 64, ("40 × 64 GB", "32 DIMM slots", "fewer, larger")),
    (8, 512, ("8 × 512 GB", "up to 256 GB", "more, smaller")),
])  # fmt: skip
def test_dimms_the_chassis_cannot_take_are_refused_with_the_checks_sentence(
    count: int, size: int, says: tuple[str, ...]
) -> None:
    build = _build()
    with pytest.raises(editing.EditRefused) as refused:
        editing.set_host_dimms(build, CATALOG, count, size)
    assert all(s in str(refused.value) for s in says)
    # the same sentence as the check on a file that states them (the edit and the check ask one function)
    filed = Build.model_validate({**build.model_dump(), "host": {"dimms": {"count": count, "size_gb": size}}})
    messages = [c.message for c in evaluate(filed, CATALOG).checks if c.code == "HOST_PARTS_DONT_FIT"]
    assert messages == [str(refused.value)]
    assert editing.check_dimms(build, CATALOG, count, size) == str(refused.value)
    assert editing.check_dimms(build, CATALOG, 32, 256) is None  # the most it takes


def test_more_drives_than_bays_are_refused() -> None:
    build = _build("generic-workstation-4")
    with pytest.raises(editing.EditRefused, match=r"5 drives do not fit .* 4 drive bays"):
        editing.set_host_drives(build, CATALOG, 5, 1.92)
    assert editing.set_host_drives(build, CATALOG, 4, 1.92).host is not None


def test_a_chassis_that_publishes_no_slots_takes_what_is_stated() -> None:
    server = CATALOG.chassis["generic-server-8"]
    assert server.host is not None
    unknown = Sourced(value=None, source="test: unpublished", note="test: the vendor publishes no figure")
    host = server.host.model_copy(update={"dimm_slots": unknown, "max_dimm_gb": unknown})
    unpublished = server.model_copy(update={"id": "test-unpublished", "host": host})
    catalog = Catalog(cards=CATALOG.cards, chassis={**CATALOG.chassis, "test-unpublished": unpublished},
                      models=CATALOG.models)  # fmt: skip
    build = _build("test-unpublished")
    assert editing.check_dimms(build, catalog, 64, 512) is None
    assert editing.set_host_dimms(build, catalog, 64, 512).host is not None


def test_checkpoints_kept_sizes_the_nvme() -> None:
    build = _build()
    more = editing.set_checkpoints_kept(build, 0, 5)
    assert more.jobs[0].checkpoints_kept == 5
    before, after = evaluate(build, CATALOG).host, evaluate(more, CATALOG).host
    assert before is not None and after is not None and after.nvme_need_gb > before.nvme_need_gb
    with pytest.raises(ValueError):
        editing.set_checkpoints_kept(build, 0, -1)
    with pytest.raises(editing.EditRefused):
        editing.set_checkpoints_kept(build, 3, 1)
