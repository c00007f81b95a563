"""The parallelism table (engine/model/parallelism.py): one record per strategy, every behaviour with its source, and
the engine's rules read from it instead of comparing the strategy's name."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from configurator.engine.memory.states import effective_offload, sharding
from configurator.engine.model.build import Job, Offload, Parallelism
from configurator.engine.model.parallelism import BEHAVIOURS, PARALLELISM

ENGINE = Path(__file__).resolve().parents[2] / "configurator" / "engine"


def test_every_strategy_a_job_can_name_has_one_record() -> None:
    assert set(PARALLELISM) == set(typing.get_args(Parallelism))
    for name, record in PARALLELISM.items():
        assert record.name == name


@pytest.mark.parametrize("name", sorted(PARALLELISM))
def test_every_behaviour_names_its_source(name: str) -> None:
    sources = PARALLELISM[name].sources
    assert set(sources) == set(BEHAVIOURS), f"{name}: sources for {sorted(set(BEHAVIOURS) - set(sources))} missing"
    assert all(text.strip() for text in sources.values())


def test_what_each_strategy_shards_follows_zero() -> None:
    # ZeRO §5: stage 1 the optimizer states, stage 2 and the gradients, stage 3 and the parameters; FSDP is stage 3
    assert [PARALLELISM[f"zero{i}"].stage for i in (1, 2, 3)] == [1, 2, 3]
    assert PARALLELISM["fsdp"].partitions == ("optimizer", "gradients", "parameters")
    assert not any(PARALLELISM[n].shards_states for n in ("single", "ddp", "tp"))
    assert [n for n, s in PARALLELISM.items() if s.splits_layers] == ["tp"]
    assert [n for n, s in PARALLELISM.items() if not s.multi_card] == ["single"]


@pytest.mark.parametrize("name", sorted(PARALLELISM))
@pytest.mark.parametrize("offload", typing.get_args(Offload))
def test_offload_is_what_the_strategy_allows(name: str, offload: str) -> None:
    job = Job(name="j", model="x", parallelism=name, offload=offload)  # type: ignore[arg-type]
    expected = offload if offload in PARALLELISM[name].offload else "none"
    assert effective_offload(job) == expected
    assert (offload == "nvme" and expected == "nvme") == (offload == "nvme" and name == "zero3")  # ZeRO-Infinity


@pytest.mark.parametrize("name", sorted(PARALLELISM))
def test_sharding_reads_the_record(name: str) -> None:
    record = PARALLELISM[name]
    split = sharding(Job(name="j", model="x", parallelism=name), 4)  # type: ignore[arg-type]
    assert split.shards == (4 if record.shards_states else 1)
    assert split.tp == (4 if record.splits_layers else 1)
    assert split.ddp == record.gradient_buckets
    assert sharding(Job(name="j", model="x", parallelism=name), 4, on_mig=True).shards == 1  # type: ignore[arg-type]


def test_no_engine_module_compares_the_strategy_by_name() -> None:
    # a rule that depends on the strategy reads its record (a new strategy is then one new record)
    pattern = re.compile(r"parallelism\s*(==|!=|in\s*\(|\.startswith)")
    modules = [path for path in sorted(ENGINE.rglob("*.py")) if path.name != "parallelism.py"]
    found = [f"{path.relative_to(ENGINE)}:{i}" for path in modules
             for i, line in enumerate(path.read_text().splitlines(), 1)
             if pattern.search(line.split("#")[0])]  # fmt: skip
    assert not found, found
