"""evaluate's memos (engine/cache.py, used by engine/evaluate.py): a memoised evaluation equals a fresh one, after
any edit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from configurator.engine import evaluate
from configurator.engine.cache import CACHE
from configurator.engine.model.build import Build
from configurator.engine.model.buildfile import load_build
from tests.paths import BUILDS as BUILD_DIR
from tests.strategies import build_dicts

BUILDS = {p.name: load_build(p) for p in sorted(BUILD_DIR.glob("*.yaml"))}


def _fresh(build: Build):  # type: ignore[no-untyped-def]
    CACHE.clear()
    return evaluate(build)


def _dump(result) -> str:  # type: ignore[no-untyped-def]
    return result.model_dump_json()


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_memoised_evaluation_equals_a_fresh_one(name: str) -> None:
    build = BUILDS[name]
    fresh = _dump(_fresh(build))
    assert _dump(evaluate(build)) == fresh  # second call: every job from the memo
    assert _dump(evaluate(build)) == fresh


@settings(max_examples=60, deadline=None)
@given(first=build_dicts(known_ids_only=True), second=build_dicts(known_ids_only=True))
def test_an_edit_between_evaluations_never_leaks_the_old_result(first: dict, second: dict) -> None:
    """Two builds sharing jobs and assumptions but not cards, bridges or MIG layouts: the second evaluation,
    memo warm from the first, equals its fresh evaluation."""
    a = Build.model_validate(first)
    b = Build.model_validate(second).model_copy(update={"jobs": a.jobs, "assumptions": a.assumptions})
    evaluate(a)
    warm = _dump(evaluate(b))
    assert warm == _dump(_fresh(b))


def test_mig_commands_are_written_when_read_not_on_every_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 11: evaluate kept calling mig_commands and mig_parted_yaml for every MIG card."""
    from configurator.engine.mig import layout as mig

    build = next(b for b in BUILDS.values() if any(p.mig for p in b.cards))
    calls: list[str] = []
    real_commands, real_yaml = mig.mig_commands, mig.mig_parted_yaml

    def commands(*args, **kw):  # type: ignore[no-untyped-def]
        calls.append("commands")
        return real_commands(*args, **kw)

    def parted(*args, **kw):  # type: ignore[no-untyped-def]
        calls.append("yaml")
        return real_yaml(*args, **kw)

    monkeypatch.setattr(mig, "mig_commands", commands)
    monkeypatch.setattr(mig, "mig_parted_yaml", parted)
    result = _fresh(build)
    assert calls == []
    card = next(m for m in result.mig if m.valid)
    assert any("-cgi" in c for c in card.commands) and card.commands is card.commands  # written once
    assert card.mig_parted_yaml and "mig-configs:" in card.mig_parted_yaml
    assert calls == ["commands", "yaml"]
    dumped = result.model_dump()["mig"][0]  # the JSON and the CLI still carry them
    assert dumped["commands"] and dumped["mig_parted_yaml"]


def test_invalid_layouts_have_no_commands() -> None:
    cards = [{"slot": 1, "card": "h100-nvl", "mig": ["7g.94gb", "1g.12gb"]}]
    build = Build.model_validate({"chassis": "generic-server-8", "cards": cards})
    card = evaluate(build).mig[0]
    assert not card.valid and card.commands == [] and card.mig_parted_yaml is None


def test_the_cache_hits_the_same_inputs_only_and_keeps_two_evaluations() -> None:
    from configurator.engine.cache import Cache

    cache, made = Cache(), []

    def value(tag: str) -> str:
        made.append(tag)
        return tag

    a, b = Build(chassis="x"), Build(chassis="x")  # equal, but not the same object: no hit (ids may be reused)
    assert cache.memo("s", (a,), (1,), lambda: value("a1")) == "a1"
    assert cache.memo("s", (a,), (1,), lambda: value("again")) == "a1"
    assert cache.memo("s", (b,), (1,), lambda: value("b1")) == "b1"
    assert cache.memo("s", (a,), (2,), lambda: value("a2")) == "a2"  # the key's values count too
    assert made == ["a1", "b1", "a2"]
    cache.turn()
    assert cache.memo("s", (a,), (1,), lambda: value("x")) == "a1"  # used by the last evaluation: kept
    cache.turn()
    assert cache.memo("s", (a,), (1,), lambda: value("x")) == "a1"  # used again, so kept again
    assert cache.memo("s", (b,), (1,), lambda: value("b1 again")) == "b1 again"  # two evaluations unused: gone
    small = Cache(limit=2)
    for i in range(5):
        small.memo("s", (a,), (i,), lambda: None)
    assert len(small) <= 4  # a full generation turns by itself: at most two generations held


def test_jobs_on_the_same_cards_share_their_card_facts_but_keep_their_own_recipe() -> None:
    """compute's per-card facts are made once per set of cards and shares (time/compute.py job_cards), keyed by the
    precision too: an FP8 job beside a BF16 job on the same card gets its own recipe and ridges."""
    from configurator.catalog.loader import default_catalog
    from configurator.engine.time.compute import job_cards

    CACHE.clear()
    build = Build.model_validate({
        "name": "two precisions", "chassis": "generic-workstation-4", "cards": [{"slot": 1, "card": "h100-sxm"}],
        "jobs": [{"name": "bf16", "model": "llama-3.1-8b", "method": "lora", "cards": [1]},
                 {"name": "fp8", "model": "llama-3.1-8b", "method": "full", "precision": "fp8", "cards": [1]}],
    })  # fmt: skip
    bf16, fp8 = evaluate(build).jobs
    assert bf16.compute is not None and fp8.compute is not None
    assert bf16.compute.recipe is None and fp8.compute.recipe is not None
    card = default_catalog().card("h100-sxm")
    assert job_cards([(card, 1.0)], None, True, "mixed-bf16") is job_cards([(card, 1.0)], None, True, "mixed-bf16")
    assert job_cards([(card, 1.0)], None, True, "fp8").recipe_ops != {}
    assert job_cards([(card, 0.5)], None, True, "fp8").slowest == pytest.approx(
        job_cards([(card, 1.0)], None, True, "fp8").slowest / 2)  # a MIG share is its own entry
