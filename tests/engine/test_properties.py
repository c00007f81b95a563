"""Property tests of the sizing engine and the build-file loader (hypothesis).

- any structurally valid build evaluates without raising, and its result serialises;
- sharding over more FSDP cards never raises the per-card model states;
- a longer sequence never lowers activation memory;
- any mutation of a valid build file is reported as a FileError with a field or a line, never another exception.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from typing import Any

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from configurator.catalog.errors import FileError
from configurator.engine import evaluate
from configurator.engine.memory.estimate import memory_for_card
from configurator.engine.model.build import Build, Job
from configurator.engine.model.buildfile import build_to_yaml, parse_build
from tests.strategies import (
    ATTENTIONS,
    CATALOG,
    FAST,
    FIXTURES,
    _model_for,
    build_dicts,
    catalog_jobs,
    doc_parent,
    doc_paths,
    examples,
)


def test_lora_on_the_head_alone_evaluates() -> None:
    """A LoRA job adapting only lm_head (no block module) without checkpointing: the autocast casts of the block
    adapters are none, not a crash (found by the memo property test: "no LoRA target modules given")."""
    job = {"name": "j", "model": "llama-3.1-8b", "method": "lora", "lora": {"rank": 8, "targets": ["lm_head"]},
           "gradient_checkpointing": False, "precision": "mixed-bf16", "cards": [1]}
    build = Build.model_validate({"name": "head", "chassis": "generic-workstation-4",
                                  "cards": [{"slot": 1, "card": "h100-nvl"}], "jobs": [job]})
    result = evaluate(build).jobs[0]
    assert result.cards and result.cards[0].peak_reserved_gb > 0 and result.params_trainable > 0


@FAST
@given(build_dicts())
def test_valid_builds_evaluate_without_raising(data: dict[str, Any]) -> None:
    """Any structurally valid build (odd slots, MIG layouts, instance refs, 128k tokens) gives a result, no crash."""
    build = Build.model_validate(data)
    result = evaluate(build, base_dir=FIXTURES)
    dumped = json.loads(result.model_dump_json())
    assert dumped["name"] == build.name
    if build.chassis in CATALOG.chassis:  # an unknown chassis stops the evaluation at that one error
        assert len(dumped["jobs"]) == len(build.jobs)
    for job in result.jobs:
        for row in job.cards:
            assert math.isfinite(row.peak_reserved_gb) and row.peak_reserved_gb > 0
            assert row.fits == (row.headroom_gb >= 0)
            # what a chart stacks reaches the peak it reports (at_peak_gb: the parts alive at the peak)
            assert sum(row.at_peak_gb.values()) + row.overhead_gb == pytest.approx(row.peak_reserved_gb, abs=1e-6)
    # every reference the catalog lacks is reported as an error check
    if build.chassis not in CATALOG.chassis:
        assert any(c.code == "CHASSIS_UNKNOWN" for c in result.errors)
    else:
        chassis_slots = {p.slot for p in CATALOG.chassis[build.chassis].positions}
        if any(c.card not in CATALOG.cards or c.slot not in chassis_slots for c in build.cards):
            assert result.errors


@FAST
@given(build_dicts(), st.integers(0, 12), st.sampled_from([2, 3, 4, 8]))
def test_a_dropped_bridge_either_joins_valid_cards_or_says_why(data: dict[str, Any], slot: int, size: int) -> None:
    """Dropping a bridge of any size on any slot of any build never raises: it names a group that add_bridge
    takes, or gives a reason."""
    from configurator.engine.editing import add_bridge, bridge_group_for

    build = Build.model_validate(data)
    group, reason = bridge_group_for(build, CATALOG, slot, size)
    assert (group is None) != (reason is None)
    if group is not None:
        assert slot in group and len(group) == size
        assert group in [b.slots for b in add_bridge(build, CATALOG, group).bridges]


@FAST
@given(build_dicts(known_ids_only=True))
def test_saved_build_reopens_identical(data: dict[str, Any]) -> None:
    """A build saved as YAML and opened again is the same build (nothing lost or changed by the round trip)."""
    build = Build.model_validate(data)
    assert parse_build(build_to_yaml(build), "roundtrip.yaml") == build


# ---------------------------------------------------------------- monotonicity


@settings(max_examples=examples(40), deadline=None)
@given(catalog_jobs(arch_only=False))
def test_more_fsdp_cards_never_raise_model_states(job: Job) -> None:
    """Sharding a job over more FSDP cards never increases the weights + gradients + optimizer on each card."""
    model = _model_for(job)
    states = [memory_for_card(model, job, shards=n).model_states for n in range(1, 9)]
    for fewer, more in itertools.pairwise(states):
        assert more <= fewer * (1 + 1e-12)
    assert states[-1] < states[0]  # sharding actually divides something


@settings(max_examples=examples(40), deadline=None)
@given(catalog_jobs(arch_only=False), st.integers(1, 8), st.integers(1, 65536), st.integers(1, 65536))
def test_counters_are_ordered_and_grow_with_the_sequence(job: Job, shards: int, s1: int, s2: int) -> None:
    """Whatever the phase that sets it (training step or FSDP set-up pool), the allocator never holds less
    than is allocated, nvidia-smi never shows less than the allocator holds, and a longer sequence never
    lowers any of the three counters."""
    short, long_ = sorted((s1, s2))
    model = _model_for(job)
    counters = []
    for seq in (short, long_):
        mem = memory_for_card(model, job.model_copy(update={"sequence_length": seq}), shards=shards)
        assert mem.peak_allocated <= mem.allocator_reserved * (1 + 1e-12)
        assert mem.allocator_reserved < mem.peak_reserved
        assert mem.setup_pool <= mem.allocator_reserved * (1 + 1e-12)
        counters.append((mem.peak_allocated, mem.allocator_reserved, mem.peak_reserved))
    for a, b in zip(*counters, strict=True):
        assert a <= b * (1 + 1e-12)


@settings(max_examples=examples(40), deadline=None)
@given(catalog_jobs(arch_only=False), st.integers(1, 8))
def test_every_phases_parts_add_up_to_that_phase_and_the_peaks_to_the_peak(job: Job, shards: int) -> None:
    """Each phase's parts (MemoryBreakdown.parts_at) sum to that phase's live bytes, none below zero, and the peak's
    parts and the overhead to the peak reserved that the charts' stacked bars reach (the kinds' own fields, each
    one's largest, may add up to more)."""
    mem = memory_for_card(_model_for(job), job, shards=shards)
    for phase, live in mem.phase_allocated().items():
        parts = mem.parts_at(phase)
        assert sum(parts.values()) == pytest.approx(live, rel=1e-12, abs=1.0)
        assert min(parts.values()) >= -1.0, (phase, parts)
    at_peak = mem.parts_at(mem.peak_allocated_phase)
    assert sum(at_peak.values()) + mem.overhead == pytest.approx(mem.peak_reserved, rel=1e-12, abs=1.0)


def test_a_fixed_activation_budgets_phases_add_up_too() -> None:
    """A job with activation_memory_gb has one step phase; its optimizer step and load add up as any job's (the
    budget's parts stood in for every phase after the load, 158.5 GB against the optimizer step's 128.5)."""
    job = Job.model_validate({"name": "j", "model": "llama-3.1-8b", "method": "full", "activation_memory_gb": 30})
    mem = memory_for_card(_model_for(job), job)
    assert mem.fixed_budget and set(mem.phase_allocated()) == {"load", "backward-start", "optimizer-step"}
    for phase, live in mem.phase_allocated().items():
        assert sum(mem.parts_at(phase).values()) == pytest.approx(live, rel=1e-12), phase


@settings(max_examples=examples(60), deadline=None)
@given(catalog_jobs(), st.integers(1, 131072), st.integers(1, 131072))
def test_longer_sequences_never_lower_activations(job: Job, s1: int, s2: int) -> None:
    """Raising the sequence length never makes the predicted activation memory smaller."""
    short, long_ = sorted((s1, s2))
    assume(short < long_)
    model = _model_for(job)
    for checkpointing in (True, False):
        for attention in ATTENTIONS:
            a = job.model_copy(
                update={"sequence_length": short, "gradient_checkpointing": checkpointing, "attention": attention}
            )
            b = a.model_copy(update={"sequence_length": long_})
            act_a = memory_for_card(model, a).activations
            act_b = memory_for_card(model, b).activations
            assert act_a <= act_b, (checkpointing, attention, act_a, act_b)


# ---------------------------------------------------------------- invalid files give FileError only

VALID_BUILD: dict[str, Any] = {
    "schema_version": 1,
    "name": "mutation base",
    "chassis": "generic-server-8",
    "cards": [
        {"slot": 1, "card": "h200-nvl"},
        {"slot": 2, "card": "h200-nvl"},
        {"slot": 3, "card": "h100-nvl", "mig": ["3g.47gb", {"profile": "1g.12gb", "start": 6}]},
    ],
    "bridges": [{"slots": [1, 2]}],
    "assumptions": {
        "link_rates": "measured",
        "utilization": 0.4,
        "calibration": [{"link": "nvlink", "busbw_gb_s": 150.0}],
    },
    "jobs": [
        {
            "name": "a",
            "model": "llama-3.1-8b",
            "method": "lora",
            "lora": {"rank": 16, "targets": ["q_proj"]},
            "parallelism": "fsdp",
            "sequence_length": 4096,
            "cards": [1, 2],
        },
        {
            "name": "b",
            "model": {"parameters": 30e9},
            "method": "qlora",
            "activation_memory_gb": 15,
            "cards": [{"slot": 3, "instance": 0}],
        },
    ],
}

BAD_VALUES = st.one_of(
    st.sampled_from(["x", "", "no-such-id", "h200-nvi", "llama-3.1-8c", "loar", "2001-02-03"]),
    st.sampled_from([-1, -1e9, 0, 10**12, 1e400, -0.5, 1.5, True, None, [], {}, [None], {"k": 1}, [1, 1]]),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
)


@st.composite
def mutated_build_texts(draw: st.DrawFn) -> str:
    doc = copy.deepcopy(VALID_BUILD)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in doc_paths(doc) if p]
        path = draw(st.sampled_from(paths))
        parent = doc_parent(doc, path)
        action = draw(st.sampled_from(["replace", "delete", "unknown-key"]))
        if action == "replace":
            parent[path[-1]] = copy.deepcopy(draw(BAD_VALUES))
        elif action == "delete":
            del parent[path[-1]]
        else:
            target = parent[path[-1]] if isinstance(parent[path[-1]], dict) else parent
            if isinstance(target, dict):
                key = draw(st.sampled_from(["colour", "slots", "Name", "cards ", "0"]))
                target[key] = copy.deepcopy(draw(BAD_VALUES))
            else:
                target.append(copy.deepcopy(draw(BAD_VALUES)))
    return yaml.safe_dump(doc, sort_keys=False)


def test_mutation_base_is_valid() -> None:
    """The unmutated base build loads, so the mutation test below starts from a good file."""
    build = parse_build(yaml.safe_dump(VALID_BUILD, sort_keys=False), "base.yaml")
    assert not evaluate(build).errors


@settings(max_examples=examples(300), deadline=None)
@given(mutated_build_texts())
def test_mutated_builds_give_file_errors_only(text: str) -> None:
    """A damaged build file is reported as FileError with a field or line for each problem, never a crash."""
    try:
        build = parse_build(text, "mutated.yaml")
    except FileError as exc:
        assert exc.problems
        assert exc.path == "mutated.yaml"
        for problem in exc.problems:
            assert problem.field or problem.line, problem
        return
    # a mutation that is still a valid build must still evaluate
    json.loads(evaluate(build).model_dump_json())


HOSTILE_SNIPPETS = [
    "&a [*a]",
    "*nope",
    "!!python/object/apply:os.system ['true']",
    "2001-13-45",
    "2001-01-01 10:00:00+99:00",
    "{",
    "]",
    "\t",
    ": :",
    "? [a]\n: b",
    "!!binary 'x'",
    "<<: 1",
    "9" * 5000,
    "[" * 1000 + "]" * 1000,
    "!!set {a, b}",
    "!!float 'x'",
    "~",
    "'",
    '"\\x"',
    "- - -",
    "\x00",
    "\ufeff",
    "&b x\nz: *b",
]


@settings(max_examples=examples(300), deadline=None)
@given(st.data())
def test_damaged_yaml_text_gives_file_errors_only(data: st.DataObject) -> None:
    """Hostile or damaged text in a build file (bad dates, recursion, cuts) fails as FileError, never a crash."""
    lines = yaml.safe_dump(VALID_BUILD, sort_keys=False).splitlines(keepends=True)
    snippet = data.draw(st.one_of(st.sampled_from(HOSTILE_SNIPPETS), st.text(max_size=10)))
    if data.draw(st.booleans()):
        # put the snippet where a value goes
        n = data.draw(st.sampled_from([i for i, line in enumerate(lines) if ": " in line]))
        key = lines[n].split(": ", 1)[0]
        lines[n] = f"{key}: {snippet}\n"
        mutated = "".join(lines)
    else:
        text = "".join(lines)
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 20))
        mutated = text[:at] + snippet + text[at + cut :]
    try:
        build = parse_build(mutated, "damaged.yaml")
    except FileError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert problem.message
        return
    json.loads(evaluate(build).model_dump_json())


@pytest.mark.parametrize("checkpointing", [True, False])
def test_activations_grow_with_sequence_example(checkpointing: bool) -> None:
    """A concrete anchor for the property: 8B at 8k tokens keeps more activations than at 2k."""
    job = Job(name="j", model="llama-3.1-8b", sequence_length=2048, gradient_checkpointing=checkpointing)
    model = CATALOG.models["llama-3.1-8b"]
    longer = job.model_copy(update={"sequence_length": 8192})
    assert memory_for_card(model, longer).activations > 3.5 * memory_for_card(model, job).activations


@pytest.mark.parametrize(
    "refs",
    [[1, 1], [1, 2, 1], [{"slot": 3, "instance": 0}, {"slot": 3, "instance": 0}]],
    ids=["twice", "ring-back", "mig-instance-twice"],
)
def test_job_naming_a_card_twice_is_a_check(refs: list[Any]) -> None:
    """A job that lists one card (or MIG instance) twice gets a JOB_CARD_REPEATED error, not a KeyError crash."""
    data = copy.deepcopy(VALID_BUILD)
    data["jobs"][0]["parallelism"] = "ddp"
    data["jobs"][0]["cards"] = refs
    result = evaluate(Build.model_validate(data))
    repeated = [c for c in result.errors if c.code == "JOB_CARD_REPEATED"]
    assert len(repeated) == 1 and repeated[0].job == "a"
    rows = [(r.slot, r.instance) for r in result.jobs[0].cards]
    assert len(rows) == len(set(rows))  # each card sized once
