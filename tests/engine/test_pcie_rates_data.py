"""The typical measured PCIe busbw by path kind is data (specs/pcie.yaml) with its source and quote, loaded once
and validated; the topology reads it unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.catalog.errors import FileError
from configurator.catalog.loader import specs_dir
from configurator.engine.topology.links import MEASURED_PCIE_GEN5_GB_S, load_pcie_rates


def test_the_shipped_rates() -> None:
    rates = load_pcie_rates()
    assert MEASURED_PCIE_GEN5_GB_S == {"PIX": 40.0, "PXB": 38.0, "NODE": 38.0, "SYS": 30.0}
    assert "37.6" in rates.quote and "41.1" in rates.quote and "rtx6kpro" in rates.source
    # the same-NUMA kinds lie within the measured range's rounding; cross-socket about 20 % below
    assert all(37.5 <= MEASURED_PCIE_GEN5_GB_S[k] <= 42 for k in ("PIX", "PXB", "NODE"))
    assert MEASURED_PCIE_GEN5_GB_S["SYS"] == pytest.approx(0.8 * MEASURED_PCIE_GEN5_GB_S["NODE"], rel=0.02)


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("  sys: 30.0", "  sys: 300.0", "sys"),  # above the Gen5 x16 payload rate
        ("  pix: 40.0   # through one PCIe switch: the top of the measured range\n", "", "pix"),  # a kind missing
        ("schema_version: 1\n", "schema_version: 1\nextra: 1\n", "extra"),  # unknown keys refused
        ("quote: >-", "quotes: >-", "quote"),
    ],
)
def test_a_bad_rates_file_is_refused_by_name(tmp_path: Path, old: str, new: str, says: str) -> None:
    text = (specs_dir() / "pcie.yaml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "pcie.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(FileError) as err:
        load_pcie_rates(path)
    assert says in str(err.value)
