"""The memory model's uncertainty bands are data (specs/bands.yaml), loaded once and validated like the catalog;
each band's run count is what the measured runs give (the figures: tests/engine/test_calibration.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.catalog.errors import FileError
from configurator.catalog.loader import default_catalog, specs_dir
from configurator.engine.calibration import band as calibration
from configurator.engine.calibration.band import load_bands, method_family


def test_band_run_counts_are_the_runs_behind_them() -> None:
    scores = calibration.cross_validate(default_catalog().models)
    counts = {"*": len(scores)}
    for s in scores:
        fam = method_family(s.run.job)
        counts[fam] = counts.get(fam, 0) + 1
        key = f"{s.run.job.framework}/{fam}"
        counts[key] = counts.get(key, 0) + 1
    for key, band in calibration.BANDS.bands.items():
        assert band.runs == counts[key], key
    assert {k: (b.err_min, b.err_max) for k, b in calibration.BANDS.bands.items()} == calibration.CV_BANDS
    assert calibration.BAND_COVERAGE == calibration.BANDS.method.coverage == 0.92


def _write(tmp_path: Path, old: str, new: str) -> Path:
    text = (specs_dir() / "bands.yaml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "bands.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("  min_runs: 8\n", "  min_runs: 8\n  typo: 1\n", "typo"),  # unknown keys refused
        ("    err_max: 0.135\n", "    err_max: -0.02\n", "err_max"),  # a band must hold zero error
        ("  litgpt/adapter:\n", "  litgpt/lora:\n", "litgpt/lora"),  # not a family
        ("    runs: 9\n", "    runs: 3\n", "min_runs"),  # too few runs for a band of its own
        ('  "*":\n', "  every:\n", '"*"'),
    ],
)
def test_a_bad_band_file_is_refused_by_name(tmp_path: Path, old: str, new: str, says: str) -> None:
    with pytest.raises(FileError) as err:
        load_bands(_write(tmp_path, old, new))
    assert says in str(err.value)


def test_the_shipped_file_loads() -> None:
    assert set(load_bands().bands) == set(calibration.CV_BANDS)
