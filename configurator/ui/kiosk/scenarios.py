"""Demo mode: a full-screen kiosk for a trade-show stand or a shop window.

Five ready builds answer five customer questions (``resources/demo/scenarios.yaml``). A visitor can change
each one (drag cards from a big-icon palette into the chassis, move the sequence-length slider, switch
LoRA / QLoRA / Full fine-tune) and watch the key figure, read live from the engine's result, change with it. A sixth
question is a service plan (seed B's, ``resources/plans/seed-b-service.yaml``): its figures are the service
planner's, its buttons change the plan (which servers, MIG, today or the roadmap), and its chassis shows the
planner's first ranked server (kiosk/planspec.py, planscene.py, planmode.py).

- No menus, no file dialogs. Escape does nothing; Ctrl+Shift+Q opens a PIN pad (the typed settings option ``demo/pin``,
  set in Preferences) and the right PIN emits ``exit_requested``. Window-manager closes (Alt+F4) are ignored.
- After ``demo/idle_minutes`` (default 3) without input the visitor's changes are dropped and the
  scenarios cycle every 12 s with a cross-fade, until the next touch, click or key.
- "Take this build home" (kiosk/takehome.py, on a worker thread) names the build after its jobs, writes the
  build sheet PDF and the build YAML into ``demo/folder`` (default Documents/configurator-demo) as
  ``<CODE>.pdf`` and ``<CODE>.yaml``, and shows the build's QR code (engine.model.buildcode: the whole build, opened
  anywhere with ``configurator open-code``); the 6-character shop reference finds the saved files at the
  stand (:func:`open_demo_code`).
- Type and sizes scale with the screen (kiosk/scaling.py): designed at 1920x1080, laid out from 1280x800.

The settings keys above are declared, with their defaults, in ``ui/settings.py``'s OPTIONS.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from configurator.catalog.errors import FileError
from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.yamlio import parse_yaml, read_text
from configurator.engine import Build, BuildResult, evaluate
from configurator.engine.editing.kiosk import (
    fitting_status,
    short_name,
    variant_build,
)
from configurator.engine.model.codes import LinkKind
from configurator.engine.model.labels import method_name
from configurator.engine.model.resolver import ModelResolver
from configurator.engine.model.result import CardMemory, JobResult
from configurator.engine.planner import Plan, load_plan
from configurator.paths import resource
from configurator.present.colours import STATUS_INK as STATUS_INK  # the views' and the sheet's one table
from configurator.present.words import capacity_label, to_unit
from configurator.ui.kiosk.planspec import PlanFigureSpec, check_against_plan, check_plan_reads, check_words
from configurator.ui.kiosk.resultpaths import check_path

# ---- settings (read with these defaults; not part of the Preferences dialog) ---------------------------------

CYCLE_MS = 12_000  # attract loop: one scenario every 12 s
FADE_MS = 700  # cross-fade between scenarios
MESSAGE_MS = 7_000  # how long a refusal stays on screen

# Codes avoid characters that read alike (0/O, 1/I/L) and U (Crockford's alphabet, upper case).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789"
CODE_LENGTH = 6
SEQUENCE_LENGTHS = [512, 1024, 2048, 4096, 8192, 16384, 32768]
TOP_H = 300  # question, paragraph and key figure: the same height in every scenario
GRID_W = 188  # palette cell width: four cards fit beside the knobs at 1920 px
METHODS = [(m, method_name(m)) for m in ("lora", "qlora", "full")]  # the method buttons, left to right
CONTROLS = {"sequence", "method", "cards", "bridge"}
PLAN_CONTROLS = {"servers", "mig", "roadmap"}  # a plan scenario's: which servers, MIG on/off, today or roadmap
HEADROOM_FIELDS = {"room_for_activations_gb", "headroom_gb", "headroom_nominal_gb"}

INK, MUTED, ACCENT = "#1A1A1A", "#555555", "#1B5E20"
STATUS_WORDS = {"fits": "Fits in memory", "tight": "Tight: little memory to spare",
                "does-not-fit": "Does not fit in memory", "unknown": "Not placed on a card"}  # fmt: skip


def demo_resources() -> Path:
    """resources/demo beside the package (source tree) or inside it (installed wheel)."""
    return resource("demo", "scenarios.yaml").parent


# ---- scenarios ---------------------------------------------------------------------------------------------


# Figures that are not one field of the result: fitting_jobs counted by read_figure, all_gather_gb the engine's
# Communication.all_gather_gb_per_card (a property, not a field, so check_path does not see it).
DERIVED_FIELDS = {"fitting_jobs", "all_gather_gb"}


class FigureSpec(BaseModel):
    """Where a figure comes from in the result and how it reads (see the comment in scenarios.yaml).

    ``field`` is checked against the result models when the scenarios load: a CardMemory field (read on
    the job's card ``card``), a dotted JobResult path ('communication.seconds_per_step'), or one of
    DERIVED_FIELDS. A misspelt field fails the load, not the stand."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    field: str
    label: str
    job: int = Field(default=0, ge=0)
    card: int = Field(default=0, ge=0)
    unit: Literal["GB", "s", ""] = "GB"
    digits: int = Field(default=1, ge=0, le=3)
    short_label: str | None = None
    variant: dict[str, str] | None = None

    @field_validator("field")
    @classmethod
    def _names_a_result_figure(cls, value: str) -> str:
        if value in DERIVED_FIELDS:
            return value
        if "." in value or value == "step_seconds":  # read_figure reads these from the job, the rest from its card
            check_path(JobResult, value)
        else:
            check_path(CardMemory, value)
        return value


@dataclass(frozen=True)
class Scenario:
    """One question of the scenario bar: a build file (``build_path``), or a service plan (``plan_path``) whose
    figures are the planner's and whose build is the planner's first ranked node (kiosk/planscene.py)."""

    title: str
    build_path: Path | None
    text: str
    cards: list[str]
    key: FigureSpec | PlanFigureSpec
    more: list[FigureSpec | PlanFigureSpec] = field(default_factory=list)
    controls: list[str] = field(default_factory=lambda: ["sequence", "method"])
    card_counts: list[int] = field(default_factory=list)
    grow_job: int | None = None
    plan_path: Path | None = None
    plan: Plan | None = None  # the plan file as shipped (the visitor's changes are never saved there)

    @property
    def is_plan(self) -> bool:
        return self.plan is not None


def _figure(data: Any, where: str) -> FigureSpec:
    if not isinstance(data, dict) or "field" not in data or "label" not in data:
        raise ValueError(f"{where}: a figure needs at least field and label")
    try:
        return FigureSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"{where}: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def _plan_figure(data: Any, plan: Plan, where: str) -> PlanFigureSpec:
    if not isinstance(data, dict) or "kind" not in data or "label" not in data:
        raise ValueError(f"{where}: a plan figure needs at least kind and label")
    try:
        spec = PlanFigureSpec.model_validate(data)
        check_against_plan(spec, plan)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(map(str, first["loc"]))
        raise ValueError(f"{where}: {loc + ': ' if loc else ''}{first['msg'].removeprefix('Value error, ')}") from None
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    return spec


def _plan_scenario(s: dict[str, Any], folder: Path, catalog: Catalog, where: str) -> dict[str, Any]:
    """The fields of a plan scenario (``plan:``): the plan loaded, its figures checked against it and the result
    models, its words free of typed-in numbers."""
    plan_path = (folder / str(s["plan"])).resolve()
    if not plan_path.is_file():
        raise ValueError(f"{where}: plan file {plan_path.name!r} not found")
    try:
        plan = load_plan(plan_path, catalog)
    except FileError as exc:
        raise ValueError(f"{where}: {exc}") from None
    check_plan_reads()
    text = " ".join(str(s.get("text", "")).split())
    try:
        check_words(text, set(), "text")
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    controls = [str(c) for c in s.get("controls", sorted(PLAN_CONTROLS))]
    if set(controls) - PLAN_CONTROLS:
        raise ValueError(f"{where}: unknown plan control(s) {sorted(set(controls) - PLAN_CONTROLS)}")
    return {
        "build_path": None,
        "text": text,
        "cards": [],
        "key": _plan_figure(s.get("key"), plan, f"{where} key"),
        "more": [_plan_figure(m, plan, f"{where} more[{j}]") for j, m in enumerate(s.get("more") or [])],
        "controls": controls,
        "plan_path": plan_path,
        "plan": plan,
    }


def _build_scenario(s: dict[str, Any], folder: Path, catalog: Catalog, where: str) -> dict[str, Any]:
    build_path = folder / str(s.get("build", ""))
    if not build_path.is_file():
        raise ValueError(f"{where}: build file {build_path.name!r} not found")
    cards = [str(c) for c in s.get("cards") or []]
    bad = [c for c in cards if c not in catalog.cards]
    if bad:
        raise ValueError(f"{where}: unknown card(s) {bad}")
    controls = [str(c) for c in s.get("controls", ["sequence", "method"])]
    if set(controls) - CONTROLS:
        raise ValueError(f"{where}: unknown control(s) {sorted(set(controls) - CONTROLS)}")
    return {
        "build_path": build_path,
        "text": " ".join(str(s.get("text", "")).split()),
        "cards": cards,
        "key": _figure(s.get("key"), f"{where} key"),
        "more": [_figure(m, f"{where} more[{j}]") for j, m in enumerate(s.get("more") or [])],
        "controls": controls,
        "card_counts": [int(n) for n in s.get("card_counts") or []],
        "grow_job": s.get("grow_job"),
    }


def load_scenarios(path: Path | None = None, catalog: Catalog | None = None) -> list[Scenario]:
    """Read scenarios.yaml; every build or plan it names must exist (ValueError with the scenario otherwise)."""
    path = path or demo_resources() / "scenarios.yaml"
    catalog = catalog or default_catalog()
    # the catalog's hardened loader (libyaml where installed: ~5 ms instead of ~55 ms with PyYAML's pure-Python
    # parser, paid by every demo window; alias and size limits for a shop's own scenarios file)
    try:
        data = parse_yaml(read_text(path), path.name)[0] or {}
    except FileError as exc:
        raise ValueError(str(exc)) from None
    out: list[Scenario] = []
    for i, s in enumerate(data.get("scenarios") or []):
        where = f"{path.name}: scenario {i + 1}"
        if "plan" in s and "build" in s:
            raise ValueError(f"{where}: give a build or a plan, not both")
        fields = (_plan_scenario if "plan" in s else _build_scenario)(s, path.parent, catalog, where)
        out.append(Scenario(title=str(s["title"]), **fields))
    if not out:
        raise ValueError(f"{path}: no scenarios")
    return out


# ---- figures read from the result ------------------------------------------------------------------------


def _link_words(bound_by: str | None) -> str:
    if not bound_by:
        return "the card's own memory"
    return "NVLink" if LinkKind(bound_by).is_nvlink else "PCIe"


@dataclass(frozen=True)
class Figure:
    value: float | None
    number: str  # "108 GB"
    label: str  # "left for activations on the H200 NVL"
    status: str  # fits / tight / does-not-fit / unknown
    words: str = ""  # the status line, where it is not the memory verdict (a plan's roadmap verdict)

    @property
    def text(self) -> str:
        return f"{self.number} {self.label}"


def _rows(result: BuildResult, spec: FigureSpec) -> tuple[JobResult | None, CardMemory | None]:
    job = result.jobs[spec.job] if 0 <= spec.job < len(result.jobs) else None
    row = job.cards[spec.card] if job is not None and 0 <= spec.card < len(job.cards) else None
    return job, row


def format_number(value: float, spec: FigureSpec, unit: str = "GB") -> str:
    """The number as the kiosk shows it, big or on a chart bar: '60 GB', '1,026 GB' (a shortfall is shown
    without its sign when the spec has words for it), '2.2 s'. ``value`` in GB for a GB figure."""
    shown = abs(value) if value < 0 and spec.short_label else value
    if spec.unit == "GB" and unit != "GB":
        shown = to_unit(shown, unit)
    shown_unit = unit if spec.unit == "GB" else spec.unit
    return f"{shown:,.{spec.digits}f}" + (f" {shown_unit}" if shown_unit else "")


# The words over each chart bar for a card figure (the chart's title), so the bars say what the big figure says.
CHART_WORDS = {
    # the main window's bars give what is free after the activations (headroom): this figure is before them
    "room_for_activations_gb": "room for activations",
    "headroom_gb": "free after activations",
    "headroom_nominal_gb": "spare",
    "model_states_gb": "for weights, adapters, optimizer",
}


def chart_spec(scenario: Scenario) -> FigureSpec | None:
    """The scenario's figure the chart's bars show: the key figure, else the first of ``more``, that is a GB
    figure of one card row of this build (not a variant). None: the chart keeps its own headroom labels."""
    for spec in (scenario.key, *scenario.more):
        if isinstance(spec, FigureSpec) and spec.unit == "GB" and not spec.variant and spec.field in CHART_WORDS:
            return spec
    return None


def bar_text(value: float, spec: FigureSpec, unit: str = "GB") -> str:
    """A chart bar's words for one card row: the big figure's number, 'short' when it is negative."""
    number = format_number(value, spec, unit)
    return f"{number} short" if value < 0 else number


def read_figure(spec: FigureSpec, build: Build, result: BuildResult, catalog: Catalog,
                models: ModelResolver | None = None, unit: str = "GB") -> Figure:  # fmt: skip
    """Evaluate one figure spec against a build's result (``models``: the scenario document's resolver, so a
    variant resolves a relative config.json from the scenario's folder like the build itself). ``unit``:
    the display unit (settings ``units``); a figure in GB is shown in it."""
    if spec.variant:
        build = variant_build(build, spec.variant)
        result = evaluate(build, catalog, models=models)
    job, row = _rows(result, spec)
    value: float | None = None
    number = ""
    status: str = row.status if row is not None else (job.status if job is not None else "unknown")
    if spec.field == "fitting_jobs":
        fits = sum(1 for j in result.jobs if j.fits)
        value = float(fits)
        number = f"{fits} of {len(result.jobs)}"
        status = fitting_status(fits, len(result.jobs))
        row = row or next((c for j in result.jobs for c in j.cards), None)
    elif spec.field == "all_gather_gb" and job is not None:
        value = job.communication.all_gather_gb_per_card
    elif "." in spec.field or spec.field == "step_seconds":
        obj: Any = job
        for part in spec.field.split("."):
            obj = getattr(obj, part, None) if obj is not None else None
        value = float(obj) if isinstance(obj, int | float) else None
    elif row is not None:
        raw = getattr(row, spec.field, None)
        value = float(raw) if isinstance(raw, int | float) else None
    if job is not None and row is None and job.cards:
        row = job.cards[0]
    words = {
        "card": short_name(row.card_name) if row is not None else "card",
        "capacity": capacity_label(row.capacity_nominal_gb, row.capacity_gb, unit) if row is not None else "?",
        "mig": (row.mig or "") if row is not None else "",
        "link": _link_words(job.communication.bound_by if job is not None else None),
        "job": job.name if job is not None else "",
    }
    label = spec.label
    if value is None:
        return Figure(None, "—", "(this job has no card: drag one into the chassis)", "unknown")
    if not number:
        number = format_number(value, spec, unit)
        if value < 0:
            fallback = "short: it does not fit" if spec.field in HEADROOM_FIELDS else spec.label
            label = spec.short_label or fallback
    return Figure(value, number, label.format(**words), status)
