"""specs/efficiency.yaml and specs/collectives.yaml are validated by pydantic models at load (issue 24 follow-up):
a misspelt key, a fraction above 1 or an entry without its source fails when the file is read."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from configurator.catalog.loader import specs_dir
from configurator.engine.time.communication import CollectivesSpec, collectives_spec
from configurator.engine.time.steptime.efficiency import load_efficiency


def _shipped(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((specs_dir() / name).read_text(encoding="utf-8"))
    return data


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "efficiency.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_shipped_specs_validate() -> None:
    eff = load_efficiency()
    assert 0 < eff.bandwidth <= 1 and eff.grouped_experts == {"eager": False, "fused": True}
    assert collectives_spec().nvls.measured_cards == 8


@pytest.mark.parametrize("change", [
    lambda d: d["gemm_peak_fraction"]["Hopper"].update(value=1.3),  # a fraction above 1
    lambda d: d["bandwidth_fraction"].pop("source"),  # no source
    lambda d: d.update(gemm_peak_fractoin=d.pop("gemm_peak_fraction")),  # misspelt key
    lambda d: d["tiles"].pop("Ampere"),  # an architecture without its tile
    lambda d: d["framework_stack"].update(torchtitan="compiled"),  # a stack the model does not know
    lambda d: d["gemm_peak_fraction"]["Hopper"].pop("measured_on"),  # a measured fraction without its chip
    lambda d: d["gemm_peak_fraction"]["Hopper"]["measured_on"].pop("source"),  # a chip without its source
    lambda d: d["gemm_peak_fraction"]["Ada Lovelace"].update(  # an UNCONFIRMED fraction said to be measured
        measured_on={"compute_capability": 8.9, "source": "a guess"}),
    lambda d: d["gemm_peak_fraction_by_card"]["h100-pcie"].pop("measured_on"),  # a card's own figure, unmeasured
    lambda d: d["gemm_peak_fraction_by_card"]["h100-pcie"].update(  # a card's own figure as an assumption
        source="UNCONFIRMED: a guess", measured_on=None),
    lambda d: d["gemm_peak_fraction_by_card"]["h100-pcie"].update(value=1.2),  # a card's fraction above 1
])  # fmt: skip
def test_efficiency_rejects_a_bad_file(tmp_path: Path, change: Any) -> None:
    data = copy.deepcopy(_shipped("efficiency.yaml"))
    change(data)
    with pytest.raises(ValidationError):
        load_efficiency(_write(tmp_path, data))


@pytest.mark.parametrize("change", [
    lambda d: d["latency"]["per_step_us"].update(infiniband=9.0),  # an unknown link family
    lambda d: d["nvls"].update(measured_cards=1),
    lambda d: d["pcie_pair_factor"].pop("source"),
    lambda d: d.update(extra={"value": 1}),
])  # fmt: skip
def test_collectives_rejects_a_bad_file(change: Any) -> None:
    data = copy.deepcopy(_shipped("collectives.yaml"))
    CollectivesSpec.model_validate(data)
    change(data)
    with pytest.raises(ValidationError):
        CollectivesSpec.model_validate(data)
