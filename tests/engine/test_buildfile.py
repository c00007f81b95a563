"""Build files: every bad file is a FileError naming file, line and field; YAML stays safe; saves are atomic."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from configurator.catalog.errors import FileError, Problem
from configurator.engine.model.buildfile import build_to_yaml, load_build, parse_build, save_build

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "resources" / "builds" / "default.yaml"

GOOD = """\
schema_version: 1
name: test build
chassis: generic-server-8
cards:
  - {slot: 1, card: h200-nvl}
  - {slot: 2, card: h200-nvl}
bridges:
  - {slots: [1, 2]}
jobs:
  - name: eight b
    model: llama-3.1-8b
    method: lora
    sequence_length: 2048
    cards: [1]
"""
# line numbers in GOOD
CHASSIS_LINE, CARD0_LINE, MODEL_LINE, METHOD_LINE = 3, 5, 11, 12


class _TooSlow(BaseException):
    """Raised by the alarm; a BaseException so no `except Exception` (or OSError) in the code under test eats it."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def _alarm(signum: int, frame: object) -> None:
        raise _TooSlow(f"took longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _load_error(tmp_path: Path, text: str | bytes) -> tuple[Path, FileError]:
    path = tmp_path / "build.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(FileError) as info:
        load_build(path)
    assert info.value.path == str(path)
    assert str(path) in str(info.value)
    assert info.value.problems
    return path, info.value


def _only(exc: FileError, field: str) -> Problem:
    matching = [p for p in exc.problems if p.field == field]
    assert matching, [str(p) for p in exc.problems]
    return matching[0]


def _edit(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new, 1)


# ---------------------------------------------------------------- good file, and its line-numbered mistakes


def test_good_build_loads() -> None:
    """The baseline file loads, so every failure below comes from the one edit each test makes."""
    build = parse_build(GOOD, "good.yaml")
    assert build.chassis == "generic-server-8"
    assert build.jobs[0].method == "lora"
    assert [c.card for c in build.cards] == ["h200-nvl", "h200-nvl"]


def test_unknown_key_names_its_line(tmp_path: Path) -> None:
    """A misspelt key is reported at its own line and field, saying it is not allowed."""
    path, exc = _load_error(tmp_path, _edit("    method: lora\n", "    method: lora\n    colour: red\n"))
    problem = _only(exc, "jobs[0].colour")
    assert problem.line == METHOD_LINE + 1
    assert "unknown key" in problem.message
    assert f"{path}:{METHOD_LINE + 1}: jobs[0].colour" in str(exc)


def test_unknown_top_level_key_names_its_line(tmp_path: Path) -> None:
    """An unknown key at the top of the file points at that key's line."""
    _, exc = _load_error(tmp_path, _edit("name: test build\n", "name: test build\nchasis: hgx-8\n"))
    assert _only(exc, "chasis").line == 3


def test_bad_enum_says_line_and_allowed_values(tmp_path: Path) -> None:
    """`method: loar` points at the method line and lists full, lora and qlora."""
    path, exc = _load_error(tmp_path, _edit("method: lora", "method: loar"))
    problem = _only(exc, "jobs[0].method")
    assert problem.line == METHOD_LINE
    for allowed in ("full", "lora", "qlora"):
        assert f"'{allowed}'" in problem.message
    assert f"{path}:{METHOD_LINE}: jobs[0].method" in str(exc)


def test_out_of_range_number_names_field_and_line(tmp_path: Path) -> None:
    """A negative sequence length is refused at its line with the bound it broke."""
    _, exc = _load_error(tmp_path, _edit("sequence_length: 2048", "sequence_length: -5"))
    problem = _only(exc, "jobs[0].sequence_length")
    assert problem.line == METHOD_LINE + 1
    assert "greater than or equal to 1" in problem.message


def test_unknown_card_suggests_close_ids(tmp_path: Path) -> None:
    """A misspelt card id is reported at its line with 'did you mean' and the right id."""
    path, exc = _load_error(tmp_path, _edit("{slot: 1, card: h200-nvl}", "{slot: 1, card: h200-nlv}"))
    problem = _only(exc, "cards[0].card")
    assert problem.line == CARD0_LINE
    assert "unknown card 'h200-nlv'" in problem.message
    assert "did you mean" in problem.message and "h200-nvl" in problem.message
    assert f"{path}:{CARD0_LINE}: cards[0].card" in str(exc)


def test_unknown_chassis_suggests_close_ids(tmp_path: Path) -> None:
    """A misspelt chassis is reported at its line with the close catalog ids."""
    _, exc = _load_error(tmp_path, _edit("chassis: generic-server-8", "chassis: generic-server-9"))
    problem = _only(exc, "chassis")
    assert problem.line == CHASSIS_LINE
    assert "unknown chassis" in problem.message
    assert "did you mean" in problem.message and "generic-server-8" in problem.message


def test_unknown_model_suggests_close_ids(tmp_path: Path) -> None:
    """A misspelt model is reported at its line with close ids and the other ways to give a model."""
    _, exc = _load_error(tmp_path, _edit("model: llama-3.1-8b", "model: llama-3.1-8c"))
    problem = _only(exc, "jobs[0].model")
    assert problem.line == MODEL_LINE
    assert "did you mean" in problem.message and "llama-3.1-8b" in problem.message
    assert "config.json" in problem.message


def test_several_problems_are_all_reported(tmp_path: Path) -> None:
    """Two unknown ids in one file are both reported, so the user fixes them in one pass."""
    text = _edit("chassis: generic-server-8", "chassis: nope-chassis").replace("llama-3.1-8b", "nope-model")
    _, exc = _load_error(tmp_path, text)
    assert {p.field for p in exc.problems} == {"chassis", "jobs[0].model"}


def test_malformed_yaml_names_line(tmp_path: Path) -> None:
    """Broken YAML syntax is reported with the line where the parser stopped."""
    path, exc = _load_error(tmp_path, _edit("name: test build\n", "name: test build\n  oops: [1, 2\n"))
    assert exc.problems[0].line in (2, 3)
    assert "not valid YAML" in exc.problems[0].message
    assert f"{path}:{exc.problems[0].line}:" in str(exc)


def test_duplicate_slot_is_a_file_error(tmp_path: Path) -> None:
    """Two cards in one slot are refused at load with the slot number, at the second card's line, naming the first's."""
    _, exc = _load_error(tmp_path, _edit("{slot: 2, card: h200-nvl}", "{slot: 1, card: h200-nvl}"))
    [problem] = [p for p in exc.problems if "slot 1" in p.message]
    assert problem.line == CARD0_LINE + 1 and problem.field == "cards[1].slot"
    assert f"line {CARD0_LINE}" in problem.message


# ---------------------------------------------------------------- hostile and odd files


def _billion_laughs() -> str:
    lines = ['lol: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    previous = "a"
    for name in "bcdefghi":
        lines.append(f"{name}{name}: &{name} [" + ", ".join(f"*{previous}" for _ in range(9)) + "]")
        previous = name
    return "chassis: generic-server-8\n" + "\n".join(lines) + "\nname: *i\n"


def test_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    """A billion-laughs file (few aliases, 10^9 expanded values) is refused in well under a second."""
    text = _billion_laughs()
    assert text.count("*") < 200  # under the plain alias-count limit: the expansion check must catch it
    with _time_limit(10):  # a hang guard; benchmarks/test_bench_limits.py times it
        _, exc = _load_error(tmp_path, text)
    assert "alias bomb" in exc.problems[0].message
    assert exc.problems[0].line is not None


def test_recursive_alias_is_refused(tmp_path: Path) -> None:
    """A list that contains itself through an alias is a FileError with a line, not a RecursionError."""
    with _time_limit(10):
        _, exc = _load_error(tmp_path, GOOD + "extra: &loop [1, *loop]\n")
    assert "recursive alias" in exc.problems[0].message
    assert exc.problems[0].line == GOOD.count("\n") + 1


def test_deeply_nested_yaml_is_refused(tmp_path: Path) -> None:
    """Thousands of nested brackets are a FileError ('nested too deeply'), not a RecursionError."""
    with _time_limit(20):
        _, exc = _load_error(tmp_path, "chassis: generic-server-8\nname: " + "[" * 3000 + "]" * 3000 + "\n")
    assert "nested too deeply" in exc.problems[0].message


def test_impossible_date_is_a_file_error_with_line(tmp_path: Path) -> None:
    """A value YAML reads as a date but cannot exist (month 13) is a FileError at its line, not a ValueError."""
    _, exc = _load_error(tmp_path, _edit("name: test build", "name: 2001-13-45"))
    assert exc.problems[0].line == 2
    assert "2001-13-45" in exc.problems[0].message


def test_oversized_file_is_refused(tmp_path: Path) -> None:
    """A 6 MB file is refused by size before it is parsed."""
    path = tmp_path / "build.yaml"
    path.write_text(GOOD + "# padding\n" * 600_000, encoding="utf-8")
    assert path.stat().st_size > 6_000_000
    with pytest.raises(FileError) as info:
        load_build(path)
    assert "larger than 1 MB" in info.value.problems[0].message  # a build's own limit (catalog/limits.py)
    with pytest.raises(FileError):  # the same limit holds for text handed in directly
        parse_build(path.read_text(encoding="utf-8"), "pasted.yaml")


def test_non_utf8_file_is_refused(tmp_path: Path) -> None:
    """A binary file that is not UTF-8 says so, with the byte offset."""
    _, exc = _load_error(tmp_path, b"name: x\n\xff\xfe\x00\x81\x00binary")
    assert "not UTF-8" in exc.problems[0].message
    assert "byte 8" in exc.problems[0].message


def test_control_characters_are_refused(tmp_path: Path) -> None:
    """UTF-8 text with NUL bytes (a binary file) is a FileError, not a crash."""
    _, exc = _load_error(tmp_path, b"chassis: generic-server-8\nname: a\x00b\n")
    assert "not valid YAML" in exc.problems[0].message


def test_python_tags_are_not_executed(tmp_path: Path) -> None:
    """`!!python/object/apply:os.system` is refused at its line and never runs (safe loading only)."""
    marker = tmp_path / "pwned"
    text = _edit("name: test build", f"name: !!python/object/apply:os.system ['touch {marker}']")
    _, exc = _load_error(tmp_path, text)
    assert not marker.exists()
    assert exc.problems[0].line == 2
    assert "python/object/apply" in exc.problems[0].message


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"], ids=["empty", "blank", "comment"])
def test_empty_file_is_refused(tmp_path: Path, text: str) -> None:
    """An empty file says a build is a mapping with name, chassis, cards and jobs."""
    _, exc = _load_error(tmp_path, text)
    assert "YAML mapping" in exc.problems[0].message


def test_list_at_top_level_is_refused(tmp_path: Path) -> None:
    """A file holding a list instead of a mapping is refused with what a build file should be."""
    _, exc = _load_error(tmp_path, "- chassis: generic-server-8\n- name: x\n")
    assert "YAML mapping" in exc.problems[0].message


def test_missing_chassis_is_reported(tmp_path: Path) -> None:
    """A file without the required chassis key says the key is missing."""
    _, exc = _load_error(tmp_path, _edit("chassis: generic-server-8\n", ""))
    problem = _only(exc, "chassis")
    assert "required key is missing" in problem.message
    assert problem.line is not None


def test_missing_file_is_a_file_error(tmp_path: Path) -> None:
    """Opening a file that does not exist is a FileError saying so."""
    with pytest.raises(FileError) as info:
        load_build(tmp_path / "nope.yaml")
    assert "file not found" in str(info.value)


# ---------------------------------------------------------------- saving


def test_default_build_round_trips(tmp_path: Path) -> None:
    """Saving the default build and opening it again gives the same build."""
    build = load_build(DEFAULT)
    target = tmp_path / "saved.yaml"
    save_build(build, target)
    assert load_build(target) == build
    first = target.read_bytes()
    save_build(load_build(target), target)
    assert target.read_bytes() == first  # saving is stable: no drift on every save
    assert [p.name for p in tmp_path.iterdir()] == ["saved.yaml"]


def test_saved_file_starts_with_schema_version(tmp_path: Path) -> None:
    """Saved files lead with schema_version, so a future version can tell old files apart."""
    build = load_build(DEFAULT)
    text = build_to_yaml(build)
    assert text.startswith("schema_version: 1\n")
    assert f"chassis: {build.chassis}\n" in text


def test_round_trip_keeps_non_default_choices(tmp_path: Path) -> None:
    """Every non-default choice (MIG layout, instance refs, params-only model, calibration) survives a save."""
    text = """\
name: everything
chassis: generic-server-8
cards:
  - {slot: 1, card: h100-nvl, power_limit_w: 350, mig: [3g.47gb, {profile: 1g.12gb, start: 6}]}
assumptions:
  link_rates: nominal
  utilization: 0.3
  calibration: [{link: pcie, busbw_gb_s: 21.5, source: my-run.txt}]
jobs:
  - name: thirty b
    model: {parameters: 30e9, name: my 30B}
    method: qlora
    quantization: nf4
    optimizer: paged-adamw-8bit
    lora: {rank: 64, targets: [q_proj, v_proj], dropout: 0.1}
    activation_memory_gb: 15
    cards: [{slot: 1, instance: 0}]
"""
    build = parse_build(text, "everything.yaml")
    target = tmp_path / "everything.yaml"
    save_build(build, target)
    again = load_build(target)
    assert again == build
    assert again.cards[0].mig is not None and again.cards[0].mig[1].start == 6
    assert again.assumptions.calibration[0].busbw_gb_s == 21.5


@pytest.mark.parametrize("where", ["inside-a-file", "missing-folder"])
def test_save_to_unwritable_place_is_a_file_error(tmp_path: Path, where: str) -> None:
    """Saving where no file can be written is a FileError and leaves no temporary file behind."""
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder", encoding="utf-8")
    target = blocker / "x.yaml" if where == "inside-a-file" else tmp_path / "no" / "such" / "x.yaml"
    with pytest.raises(FileError) as info:
        save_build(load_build(DEFAULT), target)
    assert info.value.path == str(target)
    assert "cannot write here" in info.value.problems[0].message
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["afile"]
    assert blocker.read_text(encoding="utf-8") == "not a folder"


def test_failed_save_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """If the final rename fails, the old file stays byte-identical and the temporary file is removed."""
    target = tmp_path / "build.yaml"
    target.write_text(GOOD, encoding="utf-8")
    before = target.read_bytes()
    calls: list[tuple[str, str]] = []

    def failing_replace(src: str, dst: str) -> None:
        calls.append((str(src), str(dst)))
        assert Path(src).is_file()  # the new content was written to a temporary file first
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(FileError) as info:
        save_build(load_build(DEFAULT), target)
    assert calls and calls[0][1] == str(target)
    assert "No space left on device" in info.value.problems[0].message
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["build.yaml"]


def test_failed_write_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """If writing the temporary file fails (disk full at fsync), the old file stays and nothing is left over."""
    target = tmp_path / "build.yaml"
    target.write_text(GOOD, encoding="utf-8")
    before = target.read_bytes()

    def failing_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(FileError):
        save_build(load_build(DEFAULT), target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["build.yaml"]


def test_save_replaces_existing_file(tmp_path: Path) -> None:
    """Saving over an existing build replaces its content with the new build."""
    target = tmp_path / "b.yaml"
    target.write_text(GOOD, encoding="utf-8")
    default = load_build(DEFAULT)
    save_build(default, target)
    assert load_build(target) == default
    assert load_build(target) != parse_build(GOOD, "good.yaml")
