"""The measured runs as data (specs/runs/*.yaml, loaded by engine/calibration/runs.py): every file validates, each run
carries its source, quote and counter, and a malformed file is refused with a message naming the file, line and run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from configurator.catalog.errors import FileError
from configurator.catalog.loader import default_catalog
from configurator.catalog.yamlio import parse_yaml, read_text
from configurator.engine.calibration import runs
from configurator.engine.calibration.runs import RUN_FILES, Quantity, load_run_file, load_runs, runs_dir

RUN_DIR = runs_dir()
LOADED = runs.default_runs().runs
GOOD = """\
schema_version: 1
sources:
  tables:
    cite: "https://github.com/owner/project/blob/main/tables.md (1x A100, 2024)"
    url: https://github.com/owner/project/blob/main/tables.md
    batch: first
    settings: {framework: litgpt, precision: pure-bf16}
runs:
  - label: First run
    source: tables
    role: fitted
    model: llama-2-7b
    shards: 1
    counter: allocated
    measured: {value: 21.30, unit: GB}
    quote: "| 7 B | Llama 2 | 21.30 GB |"
    settings: {method: lora}
  - label: Second run
    source: tables
    role: held-apart
    model: llama-2-7b
    shards: 1
    counter: reserved
    measured: {value: 4.98, unit: GiB}
    quote: "| QLoRA | 4.98 |"
    settings: {method: qlora}
"""


@pytest.mark.parametrize("name", RUN_FILES)
def test_every_shipped_run_file_validates(name: str) -> None:
    loaded, _ = load_run_file(RUN_DIR / f"{name}.yaml")
    assert loaded, name


def test_every_file_in_the_folder_is_loaded() -> None:
    """A run file missing from RUN_FILES would never be scored: the folder and the list agree."""
    assert sorted(p.stem for p in RUN_DIR.glob("*.yaml")) == sorted(RUN_FILES)


def test_the_runs_and_their_roles() -> None:
    """55 runs: 18 fitted, 10 held out, 15 pooled for issue 12, 12 held apart; labels unique."""
    assert len(LOADED) == 55
    counts = len(runs.MEASURED_RUNS), len(runs.HELD_OUT_RUNS), len(runs.NEW_RUNS), len(runs.HELD_APART_RUNS)
    assert counts == (18, 10, 15, 12)
    assert len({r.entry.label for r in LOADED}) == 55


def test_loaded_once() -> None:
    assert runs.default_runs() is runs.default_runs()


@pytest.mark.parametrize("run", LOADED, ids=[r.entry.label for r in LOADED])
def test_every_run_names_its_source_quote_counter_and_model(run: runs.LoadedRun) -> None:
    assert re.match(r"https://\S+\.\S+", run.source.url), run.source.url
    assert run.entry.counter in ("allocated", "reserved", "device", "unnamed")
    assert run.entry.model in default_catalog().models, run.entry.model


@pytest.mark.parametrize("run", LOADED, ids=[r.entry.label for r in LOADED])
def test_the_quote_holds_the_figure(run: runs.LoadedRun) -> None:
    """The stored figure is one of the quote's numbers (commas dropped), in the unit the run states."""
    numbers = {
        float(n.replace(",", "")) for n in re.findall(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?", run.entry.quote)
    }
    assert float(run.entry.measured.value) in numbers, (run.entry.measured.value, run.entry.quote)


def test_every_source_is_cited_by_a_run() -> None:
    for name in RUN_FILES:
        loaded, _ = load_run_file(RUN_DIR / f"{name}.yaml")
        data = runs.RunFile.model_validate(parse_yaml(read_text(RUN_DIR / f"{name}.yaml"), name)[0])
        assert set(data.sources) == {r.entry.source for r in loaded}, name


def test_figures_convert_exactly() -> None:
    """GB is decimal (the figure as written x 10^9), GiB and MiB binary, bytes as given."""
    assert Quantity(value=21.30, unit="GB").bytes() == 21.30e9
    assert Quantity(value=22, unit="GB").bytes() == 22e9
    assert Quantity(value=34.78, unit="GiB").bytes() == 34.78 * 2**30
    assert Quantity(value=40, unit="GiB").bytes() == 40 * 2**30
    assert Quantity(value=51154.27, unit="MiB").bytes() == 51154.27 * 2**20
    assert Quantity(value=72434837504, unit="bytes").bytes() == 72434837504.0
    assert runs.FSDP_SETUP_POOL_MEASURED == 3.72 * 2**30


def test_a_run_is_sized_with_its_source_settings_under_its_own(tmp_path: Path) -> None:
    path = tmp_path / "good.yaml"
    path.write_text(GOOD)
    first, second = load_run_file(path)[0]
    assert (first.job.framework, first.job.precision, first.job.method) == ("litgpt", "pure-bf16", "lora")
    assert second.job.method == "qlora" and second.measured_run().measured_bytes == 4.98 * 2**30
    assert first.measured_run().measured_bytes == 21.30e9


def _problem(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(FileError) as info:
        load_run_file(path)
    message = str(info.value)
    assert str(path) in message
    return message


def test_an_unknown_key_names_the_file_line_and_run(tmp_path: Path) -> None:
    message = _problem(tmp_path, GOOD.replace("    counter: reserved\n", "    counter: reserved\n    peak: 3\n"))
    assert "runs[1] ('Second run').peak: unknown key (not allowed here)" in message
    assert "bad.yaml:24: " in message


def test_a_bad_setting_names_the_run(tmp_path: Path) -> None:
    message = _problem(tmp_path, GOOD.replace("settings: {method: qlora}", "settings: {method: qlorra}"))
    assert "runs[1] ('Second run').settings.method" in message
    assert "bad.yaml:26: " in message


def test_an_unknown_setting_names_the_run(tmp_path: Path) -> None:
    message = _problem(tmp_path, GOOD.replace("settings: {method: lora}", "settings: {method: lora, batch: 4}"))
    assert "runs[0] ('First run').settings.batch: unknown key" in message


def test_an_unknown_source_lists_the_known_ones(tmp_path: Path) -> None:
    bad = GOOD.replace("    source: tables\n    role: held-apart", "    source: tabels\n    role: held-apart")
    message = _problem(tmp_path, bad)
    assert "runs[1] ('Second run').source: unknown source 'tabels' (this file has: tables)" in message


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ('quote: "| QLoRA | 4.98 |"', 'quote: "  "', "quote: Value error, must not be blank"),
        ('    quote: "| QLoRA | 4.98 |"\n', "", "quote: required key is missing"),
        ("unit: GiB}", "unit: gib}", "measured.unit"),
        ("counter: reserved", "counter: peak", "counter"),
        ("role: held-apart", "role: apart", "role"),
        ("schema_version: 1", "schema_version: 2", "schema_version"),
    ],
)
def test_a_malformed_entry_is_refused_clearly(tmp_path: Path, old: str, new: str, says: str) -> None:
    assert old in GOOD
    message = _problem(tmp_path, GOOD.replace(old, new))
    assert says.split(":")[0] in message
    if "runs" in message:
        assert "('Second run')" in message


def test_not_yaml_is_refused_with_its_line(tmp_path: Path) -> None:
    message = _problem(tmp_path, GOOD.replace("shards: 1\n    counter: reserved", "shards: [1\n    counter: reserved"))
    assert "not valid YAML" in message


def test_a_label_given_twice_across_files_is_refused(tmp_path: Path) -> None:
    for name in RUN_FILES:
        (tmp_path / f"{name}.yaml").write_text((RUN_DIR / f"{name}.yaml").read_text())
    (tmp_path / "schmid.yaml").write_text(
        (RUN_DIR / "schmid.yaml")
        .read_text()
        .replace("Schmid Llama 3 70B QLoRA, FSDP1 x4, CPU offload", "LitGPT Llama 2 7B LoRA mb1")
    )
    with pytest.raises(FileError, match=re.escape("label 'LitGPT Llama 2 7B LoRA mb1' is also in litgpt.yaml")):
        load_runs(tmp_path)


def test_a_bad_source_setting_points_at_the_source(tmp_path: Path) -> None:
    message = _problem(tmp_path, GOOD.replace("settings: {framework: litgpt,", "settings: {framework: litgtp,"))
    assert "bad.yaml:7: sources.tables.settings.framework: Input should be" in message
    assert "(for run 'First run')" in message
