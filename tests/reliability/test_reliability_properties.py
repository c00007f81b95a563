"""Property tests of the whole path a file takes: load, evaluate, the text report, the sheet's HTML, every
figure of the build sheet, and (on a subset) the PDF itself, for mutated builds and mutated config.json files.

5,040 examples in all under the "full" hypothesis profile (the counts are in EXAMPLES; `make test-full`), a fifth
of them under "quick", `make test`'s default (tests/conftest.py, tests/test_properties.examples). Each example
must end in a FileError with a field or a line, or in a result that every report draws; no other exception, no
figure that fails on a large or odd number, no user string reaching the sheet's HTML unescaped.
"""

from __future__ import annotations

import copy
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter, QPicture

from configurator.catalog.errors import FileError
from configurator.catalog.fileio import pdf_problem
from configurator.catalog.hf_config import load_hf_config
from configurator.catalog.loader import default_catalog
from configurator.engine import evaluate
from configurator.engine.model.build import Build
from configurator.engine.model.buildfile import parse_build
from configurator.engine.model.result import BuildResult
from configurator.report.figures import axis_step, draw_chassis, draw_headroom
from configurator.report.pdf import ensure_app, export_pdf
from configurator.report.sheet import SheetOptions, build_html
from configurator.report.text import render
from tests.strategies import doc_parent as _parent
from tests.strategies import doc_paths as _paths
from tests.strategies import examples

CATALOG = default_catalog()
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hf_configs"
CONFIGS = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(FIXTURES.glob("*.json"))}
EXAMPLES = {"mutated_builds": 1500, "extreme_builds": 1000, "mutated_configs": 2000, "pdf": 40}
MARKUP = ["<img src='/dev/zero'>", "<b>bold", "<script>x</script>", "<table><tr><td>", "</p></body>", "a < b & c"]


def _settings(n: int) -> settings:
    return settings(max_examples=examples(n), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                    HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])  # fmt: skip


HOSTILE_VALUES: list[Any] = [-1, 0, 1, 2, 10**400, -(10**30), 1e308, math.inf, -math.inf, math.nan, True, False,
                              None, [], {}, 1e-300, 0.5, 4096, 2**31, 2**63, 10**9, "", "llama", "full", [1, 2],
                              {"a": 1}, "9" * 5000, "x" * 300, *MARKUP]  # fmt: skip
CHASSIS_IDS = sorted(CATALOG.chassis)
CARD_IDS = sorted(CATALOG.cards)
MODEL_IDS = sorted(CATALOG.models)


def _hostile(rng: random.Random) -> Any:
    kind = rng.randrange(6)
    if kind == 0:
        return rng.randint(-(10**400), 10**400) if rng.random() < 0.5 else rng.randint(-5, 5000)
    if kind == 1:
        return rng.choice([rng.uniform(-1e9, 1e9), 10 ** rng.uniform(-300, 300), math.nan, math.inf])
    if kind == 2:
        return "".join(rng.choice("ab<>&'\"\x85\u202e\U0001f525 /.") for _ in range(rng.randrange(12)))
    if kind == 3:
        return [rng.randint(-3, 70) for _ in range(rng.randrange(5))]
    return rng.choice(HOSTILE_VALUES)


def _random_job(rng: random.Random, slots: list[int]) -> dict[str, Any]:
    method = rng.choice(["full", "lora", "qlora"])
    job: dict[str, Any] = {
        "name": rng.choice([*MARKUP, "job", "j" * 200, "\u202ename"]),
        "model": rng.choice(MODEL_IDS),
        "method": method,
        "optimizer": rng.choice(["adamw", "adamw-8bit", "paged-adamw", "paged-adamw-8bit", "sgd"]),
        "precision": rng.choice(["mixed-bf16", "pure-bf16"]),
        "parallelism": rng.choice(["single", "ddp", "fsdp", "tp"]),
        "sequence_length": rng.choice([1, 2048, 32768, 2_097_152, rng.randint(1, 2_097_152)]),
        "micro_batch_size": rng.choice([1, 2, 8, 4096, rng.randint(1, 4096)]),
        "gradient_checkpointing": rng.random() < 0.7,
        "attention": rng.choice(["sdpa", "flash", "eager"]),
        "loss": rng.choice(["standard", "chunked"]),
        "cards": rng.sample(slots, rng.randint(0, len(slots))) if slots else [],
    }
    if method != "full" or rng.random() < 0.3:
        job["lora"] = {"rank": rng.choice([1, 16, 4096]), "targets": rng.choice(
            ["all-linear", "attention", "qv", ["q_proj", "v_proj"], ["qkv_proj"], ["w1"], ["nope"]])}  # fmt: skip
    if rng.random() < 0.3:
        job["activation_memory_gb"] = rng.choice([0, 15, 10_000, rng.uniform(0, 10_000)])
    if rng.random() < 0.2:
        job["model"] = {"parameters": rng.choice([1, 7e9, 1e13, 10 ** rng.uniform(0, 13)]),
                        "name": rng.choice(MARKUP)}  # fmt: skip
    if job["parallelism"] == "tp" and rng.random() < 0.5:
        job["tensor_parallel"] = rng.choice([1, 2, 4, 8, 64])
    return job


def _random_build(rng: random.Random) -> dict[str, Any]:
    """A build of catalog parts, mostly valid, at the edges the schema allows."""
    chassis = CATALOG.chassis[rng.choice(CHASSIS_IDS)]
    positions = [p.slot for p in chassis.positions]
    slots = sorted(rng.sample(positions, rng.randint(0, len(positions))))
    cards = []
    for slot in slots:
        card = CATALOG.cards[rng.choice(CARD_IDS)]
        placement: dict[str, Any] = {"slot": slot, "card": card.id}
        if card.mig and rng.random() < 0.25:
            names = [p.name for p in card.mig.profiles]
            placement["mig"] = [rng.choice(names) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.2:
            placement["power_limit_w"] = rng.uniform(1, 2000)
        cards.append(placement)
    bridges = [{"slots": rng.sample(slots, rng.choice([2, 4]) if len(slots) >= 4 else 2)}
               for _ in range(rng.randint(0, 2)) if len(slots) >= 2]  # fmt: skip
    return {
        "schema_version": 1,
        "name": rng.choice([*MARKUP, "build", "b" * 200]),
        "chassis": chassis.id,
        "cards": cards,
        "bridges": bridges,
        "assumptions": {"link_rates": rng.choice(["nominal", "measured"]),
                        "compute_rates": rng.choice(["published", "estimated"]),
                        "utilization": rng.choice([0.01, 0.4, 1.0]),
                        "calibration": [{"link": rng.choice(["nvlink", "nvswitch", "pcie"]),
                                         "busbw_gb_s": rng.choice([0.1, 20.0, 5000.0])}] * rng.randint(0, 1)},
        "jobs": [_random_job(rng, slots) for _ in range(rng.randint(0, 4))],
    }  # fmt: skip


def _mutate(rng: random.Random, doc: Any) -> Any:
    """One to three values replaced by hostile ones, keys dropped or unknown ones added."""
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent = _parent(doc, path)
        action = rng.choice(["replace", "replace", "delete", "unknown-key"])
        if action == "replace":
            parent[path[-1]] = copy.deepcopy(_hostile(rng))
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[rng.choice(["colour", "Name", "cards ", "0", "<b>", "text_config"])] = _hostile(rng)
        else:
            parent.append(copy.deepcopy(_hostile(rng)))
    return doc


def _dump(doc: Any) -> str | None:
    try:
        return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    except ValueError:  # an int of over 4,300 digits: PyYAML itself cannot write it
        return None


def _draw_everything(build: Build, result: BuildResult) -> None:
    """The text report, the sheet's HTML and every figure of the sheet, recorded into a QPicture."""
    text = render(result)
    assert isinstance(text, str)
    html = build_html(build, result, CATALOG, SheetOptions())
    for mark in MARKUP[:5]:  # every user string is escaped before it reaches rich text
        assert mark not in html
    picture = QPicture()
    painter = QPainter(picture)
    try:
        draw_chassis(painter, QRectF(0, 0, 500, 300), build, CATALOG)
        for job in result.jobs:
            draw_headroom(painter, QRectF(0, 0, 500, 180), job)
    finally:
        painter.end()


def _load_and_draw(text: str, where: str, base_dir: Path | None = None) -> BuildResult | None:
    try:
        build = parse_build(text, where)
    except FileError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert problem.field or problem.line, problem
            assert len(problem.message) <= 300 and len(problem.field) <= 120
        assert len(str(exc).splitlines()) <= 22
        return None
    result = evaluate(build, base_dir=base_dir)
    json.loads(result.model_dump_json())
    _draw_everything(build, result)
    return result


@pytest.fixture(scope="module", autouse=True)
def _app() -> None:
    ensure_app()


# ---- builds ----------------------------------------------------------------------------------------
SEEDS = st.randoms(use_true_random=False)


@_settings(EXAMPLES["mutated_builds"])
@given(SEEDS)
def test_mutated_builds_load_evaluate_and_draw(rng: random.Random) -> None:
    text = _dump(_mutate(rng, _random_build(rng)))
    if text is not None:
        _load_and_draw(text, "mutated.yaml")


@_settings(EXAMPLES["extreme_builds"])
@given(SEEDS)
def test_extreme_builds_draw_every_figure(rng: random.Random) -> None:
    text = _dump(_random_build(rng))
    assert text is not None
    _load_and_draw(text, "extreme.yaml")


@_settings(EXAMPLES["pdf"])
@given(SEEDS)
def test_extreme_builds_export_a_whole_pdf(tmp_path_factory: pytest.TempPathFactory, rng: random.Random) -> None:
    try:
        build = parse_build(_dump(_random_build(rng)) or "", "extreme.yaml")
    except FileError:
        return
    out = tmp_path_factory.mktemp("pdf") / "sheet.pdf"
    pages = export_pdf(out, build, evaluate(build))
    assert pages >= 1 and pdf_problem(out) is None


@given(st.floats(min_value=1e-300, max_value=1e300))
@_settings(500)
def test_axis_step_exists_for_any_magnitude(top: float) -> None:
    """The headroom axis has a 1-2-2.5-5 step with 2 to 6 intervals for any top, 10^-300 to 10^300 GB."""
    step = axis_step(top)
    assert step > 0 and top / step <= 6 + 1e-9
    assert top / step > 0.9 or top < 1e-290


def test_headroom_figure_draws_huge_and_odd_numbers() -> None:
    """Rows needing 10^4..10^12 GB (and NaN, inf) draw: the axis step search never runs out."""
    build = parse_build(Path("resources/builds/default.yaml").read_text(encoding="utf-8"), "default.yaml")
    result = evaluate(build)
    job = next(j for j in result.jobs if j.cards)
    for value in (1e4, 5e4, 1e6, 1e9, 1e12, 1e300, math.inf, math.nan, -5.0):
        row = job.cards[0].model_copy(update={"activations_gb": value, "peak_reserved_gb": value})
        picture = QPicture()
        painter = QPainter(picture)
        try:
            draw_headroom(painter, QRectF(0, 0, 500, 180), job.model_copy(update={"cards": [row]}))
        finally:
            painter.end()


# ---- config.json ----------------------------------------------------------------------------------


def _random_config(rng: random.Random) -> Any:
    config: Any = copy.deepcopy(CONFIGS[rng.choice(sorted(CONFIGS))])
    for _ in range(rng.randint(1, 3)):
        keys = sorted(config) if isinstance(config, dict) else []
        action = rng.choice(["replace", "replace", "delete", "add", "wrap"])
        if action == "replace" and keys:
            config[rng.choice(keys)] = _hostile(rng)
        elif action == "delete" and keys:
            del config[rng.choice(keys)]
        elif action == "add" and isinstance(config, dict):
            config[rng.choice(["text_config", "num_experts", "head_dim", "mlp_only_layers", "x"])] = _hostile(rng)
        elif action == "wrap":  # a multimodal config holding the language model in text_config
            config = {"model_type": rng.choice(["mllama", "gemma3", "llava"]), "text_config": config}
    return config


@_settings(EXAMPLES["mutated_configs"])
@given(SEEDS)
def test_mutated_configs_load_evaluate_and_draw(tmp_path_factory: pytest.TempPathFactory, rng: random.Random) -> None:
    config = _random_config(rng)
    method = rng.choice(["lora", "qlora", "full"])
    folder = tmp_path_factory.mktemp("cfg")
    try:
        text = json.dumps(config)  # NaN and Infinity as Python's json writes them
    except ValueError:  # a 400-digit int is fine; past 4,300 digits json.dumps itself refuses
        return
    (folder / "config.json").write_text(text, encoding="utf-8")
    try:
        spec = load_hf_config(folder / "config.json")
    except FileError as exc:
        assert exc.problems and all(len(p.message) <= 300 for p in exc.problems)
    else:
        assert 0 < spec.total_params < 10**22
    build_text = (
        "name: cfg\nchassis: generic-server-8\ncards: [{slot: 1, card: h200-nvl}, {slot: 2, card: h200-nvl}]\n"
        f"jobs:\n  - {{name: j, model: config.json, method: {method}, cards: [1, 2], parallelism: fsdp}}\n"
    )
    result = _load_and_draw(build_text, str(folder / "build.yaml"), base_dir=folder)
    assert result is not None
    if not any(c.code == "JOB_MODEL_UNKNOWN" for c in result.checks):
        assert result.jobs[0].params_total > 0
