"""Hypothesis strategies shared by the property tests: valid builds, jobs, LoRA settings, MIG layouts, and
the paths of a build document (for mutations). A helper module, not a test module."""


from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st

from configurator.catalog.loader import default_catalog
from configurator.catalog.models import ModelSpec
from configurator.engine.memory.estimate import job_parameters
from configurator.engine.model.build import Job

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


def doc_paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += doc_paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += doc_paths(v, (*prefix, i))
    return out


def doc_parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path[:-1]:
        doc = doc[part]
    return doc
