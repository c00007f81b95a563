"""The framework profiles as data (specs/frameworks.yaml, loaded by engine/model/stack.py): the shipped file validates
into the profiles, and a malformed one is refused with a message naming the file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.catalog.errors import FileError
from configurator.catalog.loader import specs_dir
from configurator.engine.model.stack import BEHAVIOURS, PROFILES, load_profiles

SHIPPED = specs_dir() / "frameworks.yaml"


def test_the_shipped_file_gives_every_profile_with_a_source_for_every_behaviour() -> None:
    profiles = load_profiles(SHIPPED)
    assert profiles == PROFILES
    assert list(profiles) == ["hf-trainer", "torchtune", "torchtitan", "axolotl", "litgpt", "fsdp-qlora"]
    for profile in profiles.values():
        assert list(profile.sources) == list(BEHAVIOURS)


def _refused(tmp_path: Path, old: str, new: str) -> str:
    text = SHIPPED.read_text()
    assert old in text
    path = tmp_path / "frameworks.yaml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(FileError) as info:
        load_profiles(path)
    assert str(path) in str(info.value)
    return str(info.value)


def test_a_bad_value_names_the_framework_and_behaviour(tmp_path: Path) -> None:
    message = _refused(tmp_path, 'value: "standard"', 'value: "standrd"')
    assert "frameworks.hf-trainer.behaviours.loss.value" in message
    assert "frameworks.yaml:11: " in message


def test_an_unknown_key_is_refused(tmp_path: Path) -> None:
    message = _refused(tmp_path, "      frees_logits:\n", "      frees_logit:\n")
    assert "frees_logit: unknown key (not allowed here)" in message
    assert "frees_logits: required key is missing" in message


def test_a_behaviour_without_its_source_is_refused(tmp_path: Path) -> None:
    message = _refused(tmp_path, '        read_from: "PreTrainedModel', '        read: "PreTrainedModel')
    assert "behaviours.checkpointing.read_from: required key is missing" in message


def test_a_missing_framework_is_named(tmp_path: Path) -> None:
    message = _refused(tmp_path, "  axolotl:\n", "  axolotl-old:\n")
    assert "axolotl-old" in message
