"""An HGX baseboard holds one GPU model (review 2 item 5): a module of another model is an error check, meets the
others over no NVLink, and cannot be placed on the board by an edit."""

from __future__ import annotations

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine import Build, editing, evaluate
from configurator.engine.editing import EditRefused
from configurator.engine.model.build import CardPlacement

MIXED = Build(name="mixed", chassis="hgx-8",
              cards=[CardPlacement(slot=1, card="h100-sxm"), CardPlacement(slot=2, card="h200-sxm"),
                     CardPlacement(slot=3, card="h100-sxm")])  # fmt: skip


def test_mixed_board_is_an_error_on_the_odd_module() -> None:
    result = evaluate(MIXED)
    mixed = [c for c in result.checks if c.code == "SXM_BOARD_MIXED"]
    assert [(c.severity, c.slot) for c in mixed] == [("error", 2)]


def test_no_nvlink_to_a_module_of_another_model() -> None:
    topology = evaluate(MIXED).topology
    assert topology is not None
    rows = dict(zip(topology.slots, topology.matrix, strict=True))
    assert rows[1][topology.slots.index(3)].startswith("NV")  # the board's two H100 SXM
    assert not any(cell.startswith("NV") for cell in rows[2])  # the H200 SXM reaches them over no NVLink
    assert topology.nvlink_domains == [[1, 3]]


def test_placing_another_model_on_the_board_is_refused() -> None:
    catalog = default_catalog()
    one = Build(name="one", chassis="hgx-8", cards=[CardPlacement(slot=1, card="h100-sxm")])
    with pytest.raises(EditRefused, match="holds NVIDIA H100 SXM"):
        editing.place_card(one, catalog, 2, "h200-sxm")
    assert editing.place_card(one, catalog, 2, "h100-sxm").card_in(2) is not None
    # the only module may be replaced by another model: moving it keeps the board one model
    assert editing.move_card(one, catalog, 1, 4).card_in(4) is not None
