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
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from configurator.catalog.errors import FileError
from configurator.catalog.loader import default_catalog
from configurator.catalog.models import ModelSpec
from configurator.engine import evaluate
from configurator.engine.memory.estimate import job_parameters, memory_for_card
from configurator.engine.model.build import Build, Job
from configurator.engine.model.buildfile import build_to_yaml, parse_build

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "hf_configs"
CATALOG = default_catalog()
CHASSIS_IDS = sorted(CATALOG.chassis)
CARD_IDS = sorted(CATALOG.cards)
MODEL_IDS = sorted(CATALOG.models)
ARCH_MODEL_IDS = sorted(m for m, spec in CATALOG.models.items() if not spec.is_params_only)
HF_FILES = sorted(p.name for p in FIXTURES.glob("*.json"))

METHODS = ["full", "lora", "qlora"]
OPTIMIZERS = ["adamw", "adamw-8bit", "paged-adamw", "paged-adamw-8bit", "sgd"]
PRECISIONS = ["mixed-bf16", "pure-bf16"]
PARALLELISMS = ["single", "ddp", "fsdp", "tp"]
ATTENTIONS = ["sdpa", "flash", "eager"]
LOSSES = ["standard", "chunked"]
MODULE_NAMES = [
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
    "lm_head",
    "w1",
    "qkv_proj",
    "no_such_module",
]



def examples(full: int) -> int:
    """The examples a property whose full run is ``full`` gets under the loaded hypothesis profile: all of them
    under "full" (`make test-full`), a fifth (at least 20) under "quick", `make test`'s default (tests/conftest.py)."""
    if settings.get_current_profile_name() == "full":
        return full
    return max(min(full, 20), full // 5)


FAST = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- strategies


@st.composite
def lora_settings(draw: st.DrawFn, named_modules: bool = True) -> dict[str, Any]:
    """LoRA settings; named_modules adds explicit module lists, some of which a given model lacks."""
    presets = st.sampled_from(["all-linear", "attention", "qv"])
    names = st.lists(st.sampled_from(MODULE_NAMES), min_size=1, max_size=4, unique=True)
    targets: Any = draw(st.one_of(presets, names) if named_modules else presets)
    out: dict[str, Any] = {"rank": draw(st.integers(1, 256)), "targets": targets}
    if draw(st.booleans()):
        out["dropout"] = draw(st.sampled_from([0.0, 0.05, 0.1, 0.5]))
    return out


@st.composite
def job_dicts(draw: st.DrawFn, slots: list[int], mig_counts: dict[int, int], known_ids_only: bool) -> dict[str, Any]:
    """A structurally valid job; its ids and cards may or may not exist (the engine reports those as checks)."""
    models = [
        st.sampled_from(MODEL_IDS),
        st.sampled_from(HF_FILES),
        st.builds(lambda p, f: {"parameters": p, "adapter_fraction": f}, st.floats(1e6, 1e12),
                  st.floats(1e-4, 1.0, exclude_max=True)),  # below 1, as ModelSpec's
        st.just("missing/config.json"),
    ]
    if not known_ids_only:
        models.append(st.just("no-such-model"))
    model: Any = draw(st.one_of(*models))
    slot_choice = st.sampled_from(slots) if slots else st.integers(1, 8)
    card_ref = st.one_of(
        slot_choice,
        st.integers(1, 64),
        st.builds(lambda s, i: {"slot": s, "instance": i}, slot_choice, st.integers(0, 7)),
    )
    if mig_counts:
        mig_slot = st.sampled_from(sorted(mig_counts))
        card_ref = st.one_of(
            card_ref,
            mig_slot.flatmap(
                lambda s: st.builds(lambda i: {"slot": s, "instance": i}, st.integers(0, max(mig_counts[s] - 1, 0)))
            ),
        )
    job: dict[str, Any] = {
        "name": draw(st.text(min_size=1, max_size=12)),
        "model": model,
        "method": draw(st.sampled_from(METHODS)),
        "lora": draw(lora_settings()),
        "quantization": draw(st.sampled_from(["nf4-dq", "nf4"])),
        "optimizer": draw(st.sampled_from(OPTIMIZERS)),
        "precision": draw(st.sampled_from(PRECISIONS)),
        "parallelism": draw(st.sampled_from(PARALLELISMS)),
        "tensor_parallel": draw(st.integers(1, 8)),
        "sequence_length": draw(st.integers(1, 131072)),
        "micro_batch_size": draw(st.integers(1, 16)),
        "gradient_accumulation_steps": draw(st.integers(1, 64)),
        "gradient_checkpointing": draw(st.booleans()),
        "loss": draw(st.sampled_from(LOSSES)),
        "attention": draw(st.sampled_from(ATTENTIONS)),
        "cards": draw(st.lists(card_ref, max_size=5)),
    }
    if draw(st.integers(0, 4)) == 0:
        job["activation_memory_gb"] = draw(st.floats(0, 500))
    return job


@st.composite
def mig_layout(draw: st.DrawFn, card_id: str) -> list[Any] | None:
    spec = CATALOG.cards[card_id].mig
    if spec is None:
        # a layout on a card without MIG is a check (MIG_UNSUPPORTED), not a crash
        return draw(st.one_of(st.none(), st.just(["1g.10gb"])))
    if draw(st.booleans()):
        return None
    names = [p.name for p in spec.profiles]
    request = st.one_of(
        st.sampled_from(names),
        st.builds(lambda n, s: {"profile": n, "start": s}, st.sampled_from(names), st.integers(0, 12)),
        st.just("9g.999gb"),
    )
    return draw(st.lists(request, max_size=9))


@st.composite
def build_dicts(draw: st.DrawFn, known_ids_only: bool = False) -> dict[str, Any]:
    chassis_id = draw(
        st.sampled_from(CHASSIS_IDS)
        if known_ids_only
        else st.one_of(st.sampled_from(CHASSIS_IDS), st.just("no-such-chassis"))
    )
    chassis = CATALOG.chassis.get(chassis_id)
    positions = [p.slot for p in chassis.positions] if chassis else [1, 2, 3, 4]
    slot_pool = (
        st.one_of(st.sampled_from(positions), st.integers(1, 64)) if not known_ids_only else st.sampled_from(positions)
    )
    slots = draw(st.lists(slot_pool, max_size=len(positions), unique=True))
    cards = []
    mig_counts: dict[int, int] = {}
    for slot in slots:
        card_id = draw(
            st.sampled_from(CARD_IDS)
            if known_ids_only
            else st.one_of(st.sampled_from(CARD_IDS), st.just("no-such-card"))
        )
        placement: dict[str, Any] = {"slot": slot, "card": card_id}
        if draw(st.integers(0, 3)) == 0:
            placement["power_limit_w"] = draw(st.floats(1, 2000))
        if card_id in CATALOG.cards:
            layout = draw(mig_layout(card_id))
            if layout is not None:
                placement["mig"] = layout
                mig_counts[slot] = len(layout)
        cards.append(placement)
    bridge_pool = st.sampled_from(slots) if len(slots) >= 2 else st.integers(1, 8)
    bridges = draw(
        st.lists(
            st.builds(lambda s: {"slots": s}, st.lists(bridge_pool, min_size=2, max_size=4, unique=True)), max_size=3
        )
    )
    assumptions = {
        "link_rates": draw(st.sampled_from(["nominal", "measured"])),
        "utilization": draw(st.floats(0.01, 1.0)),
        "safety_margin_fraction": draw(st.floats(0.0, 0.5)),
        "calibration": draw(
            st.lists(
                st.builds(
                    lambda k, b: {"link": k, "busbw_gb_s": b},
                    st.sampled_from(["nvlink", "nvswitch", "pcie"]),
                    st.floats(0.1, 5000),
                ),
                max_size=2,
            )
        ),
    }
    return {
        "schema_version": 1,
        "name": draw(st.text(max_size=30)),
        "chassis": chassis_id,
        "cards": cards,
        "bridges": bridges,
        "assumptions": assumptions,
        # a job's name is its identity (Build refuses two alike): draw distinct names
        "jobs": draw(st.lists(job_dicts(slots, mig_counts, known_ids_only), max_size=4,
                              unique_by=lambda j: j["name"])),
    }


def _model_for(job: Job) -> ModelSpec:
    """The job's catalog model; skips combinations the engine reports as a check (qv on a fused qkv_proj)."""
    assert isinstance(job.model, str)
    model = CATALOG.models[job.model]
    try:
        job_parameters(model, job)
    except ValueError:
        assume(False)
    return model


@st.composite
def catalog_jobs(draw: st.DrawFn, arch_only: bool = True) -> Job:
    return Job.model_validate(
        {
            "name": "job",
            "model": draw(st.sampled_from(ARCH_MODEL_IDS if arch_only else MODEL_IDS)),
            "method": draw(st.sampled_from(METHODS)),
            "lora": draw(lora_settings(named_modules=False)),
            "quantization": draw(st.sampled_from(["nf4-dq", "nf4"])),
            "optimizer": draw(st.sampled_from(OPTIMIZERS)),
            "precision": draw(st.sampled_from(PRECISIONS)),
            "sequence_length": draw(st.integers(1, 131072)),
            "micro_batch_size": draw(st.integers(1, 16)),
            "gradient_checkpointing": draw(st.booleans()),
            "loss": draw(st.sampled_from(LOSSES)),
            "attention": draw(st.sampled_from(ATTENTIONS)),
        }
    )


# ---------------------------------------------------------------- evaluate never raises


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


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path[:-1]:
        doc = doc[part]
    return doc


@st.composite
def mutated_build_texts(draw: st.DrawFn) -> str:
    doc = copy.deepcopy(VALID_BUILD)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        path = draw(st.sampled_from(paths))
        parent = _parent(doc, path)
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
