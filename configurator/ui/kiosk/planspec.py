"""A plan scenario's figures as the scenario file gives them: words only, every number from the planner.

A plan scenario (``plan:`` in scenarios.yaml) shows the planner's answer for a plan file. Its figures give a
``kind`` and words whose ``{placeholders}`` are filled from the ``PlanResult`` (kiosk/planscene.py). The words
may not hold a digit of their own (a typed-in number), the class and node types they name must be the
plan's, and the result fields each kind reads are checked against the result models when the scenarios
load, so a renamed planner field fails the load, not the stand.

Kinds:
  fleet    the first ranked fleet: {fleet} its servers, {candidates} fleets searched, {per_job} its cost or
           energy per job and {ranked_by} which, {month} the month it is sized for of {months}; its status
           line is the roadmap's verdict (keeps up, runs out of capacity, stops fitting; and the month)
  fits     one job of ``job_class`` on one whole card of each of two node types (``nodes``): the job's
           peak; {class} {card} {capacity} {verdict} for the first, {other} {other_capacity} {other_verdict}
  tenants  ``job_class`` on the MIG instance of ``nodes[0]``'s card that holds the most such jobs at once,
           among the profiles the plan lets the node use: {class} {card} {profile} {capacity} {peak}
           {per_day} (jobs a day per card) {gain} (jobs per card-day on that profile over the whole card's);
           ``whole_label`` when the plan lets it use no MIG instance
  cards    the fewest cards of one node type that hold one job of ``job_class``: {class} {peak} (on one
           card), {kinds} (the node types where that many do), {planned} (the groups the planner runs it on)
  wait     ``job_class``'s wait for a device at the busiest hour in the first ranked fleet (M/M/c): {class}
           {mean} {p95} {target} (its p95 target) {verdict} (met / not met / no target) {peak} (the busiest
           hour's arrival rate over the mean); an unstable peak hour shows as such, never as a wait
  mig_gain ``job_class``'s jobs per card-day with MIG over without: {class} {gain} {profile} {card} {basis}
           {estimate} (est., or measured where measurements set the gain, not a mix of one with the engine's;
           tenants has it too)
  reversal the roadmap month and class at which the recommended servers change: {reversal} (the planner's
           sentence), {month}, {summary} (a short form: which servers from which month, and why)
"""

from __future__ import annotations

import string
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from configurator.engine.planner import Plan, PlanResult
from configurator.engine.planner.result import ClassInfo, DeviceInfo, FitCell, FleetResult, Recommendation, Reversal
from configurator.ui.kiosk.resultpaths import check_path

PlanKind = Literal["fleet", "fits", "tenants", "cards", "wait", "mig_gain", "reversal"]

WORDS: dict[str, set[str]] = {
    "fleet": {"fleet", "candidates", "per_job", "ranked_by", "month", "months"},
    "fits": {"class", "card", "capacity", "verdict", "other", "other_capacity", "other_verdict"},
    "tenants": {"class", "card", "profile", "capacity", "peak", "per_day", "gain", "estimate"},
    "cards": {"class", "peak", "kinds", "planned"},
    "wait": {"class", "mean", "p95", "target", "verdict", "peak"},
    "mig_gain": {"class", "gain", "profile", "card", "basis", "estimate"},
    "reversal": {"reversal", "month", "summary"},
}
NODES_NEEDED = {"fleet": 0, "fits": 2, "tenants": 1, "cards": 0, "wait": 0, "mig_gain": 0, "reversal": 0}
NO_CLASS = {"fleet", "reversal"}  # the kinds that name no job_class

# the result fields the kinds read (kiosk/planscene.py), checked by check_plan_reads
READS: dict[type[BaseModel], tuple[str, ...]] = {
    PlanResult: ("fleets", "matrix", "devices", "search.candidates", "size_for_month", "months", "currency",
                 "classes", "peak_factor", "recommendation"),
    ClassInfo: ("name", "wait_mean_h", "wait_p95_h", "peak_unstable", "wait_target_hours", "wait_target_met",
                "mig_gain", "mig_gain_device", "mig_gain_basis", "mig_gain_estimated"),
    Recommendation: ("reversal", "ranked_by"),
    Reversal: ("month", "words", "settled", "job_class", "before", "after", "sized"),
    FleetResult: ("label", "nodes", "feasible", "unserved", "stops_fitting_month", "out_of_capacity_month",
                  "totals.nodes", "totals.cost_per_job", "totals.kwh_per_job", "ranked_by"),
    FitCell: ("job_class", "device", "status", "fits", "peak_gb", "capacity_gb", "devices_per_card",
              "jobs_per_day_per_card", "mig_gain", "mig_gain_basis",
              "mig_gain_estimated", "basis"),
    DeviceInfo: ("id", "node", "card", "kind", "profile", "cards"),
}  # fmt: skip


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def literal_text(text: str) -> str:
    """``text`` without its placeholders."""
    return "".join(lit for lit, _, _, _ in string.Formatter().parse(text))


def check_words(text: str, allowed: set[str], what: str) -> None:
    """Placeholders among ``allowed`` and no digit typed in; ValueError naming ``what`` otherwise."""
    unknown = placeholders(text) - allowed
    if unknown:
        raise ValueError(f"{what}: no {{{', '.join(sorted(unknown))}}} here (one of {sorted(allowed)})")
    if any(ch.isdigit() for ch in literal_text(text)):
        raise ValueError(f"{what}: {text!r} types a number in; every number comes from the plan's result")


class PlanFigureSpec(BaseModel):
    """One figure of a plan scenario (see the module docstring for the kinds and their words)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: PlanKind
    label: str
    job_class: str | None = None
    nodes: list[str] = Field(default_factory=list)
    whole_label: str | None = None  # tenants: the words without a MIG instance
    digits: int = Field(default=1, ge=0, le=3)  # decimals of the GB figures

    @model_validator(mode="after")
    def _words_only(self) -> PlanFigureSpec:
        check_words(self.label, WORDS[self.kind], "label")
        if self.whole_label is not None:
            if self.kind != "tenants":
                raise ValueError("whole_label is for a tenants figure")
            check_words(self.whole_label, WORDS[self.kind], "whole_label")
        if len(self.nodes) != NODES_NEEDED[self.kind]:
            raise ValueError(
                f"a {self.kind} figure names {NODES_NEEDED[self.kind]} node type(s), not {len(self.nodes)}"
            )
        if (self.kind in NO_CLASS) != (self.job_class is None):
            raise ValueError("a fleet or reversal figure names no job_class; the others name one")
        return self


def check_plan_reads() -> None:
    """Every result field the kinds read exists in the result models (ValueError naming the one that does not)."""
    for model, paths in READS.items():
        for path in paths:
            check_path(model, path)


def check_against_plan(spec: PlanFigureSpec, plan: Plan) -> None:
    """The spec's class and node types are the plan's (ValueError naming the one that is not)."""
    classes = [c.name for c in plan.classes]
    nodes = [n.name for n in plan.nodes]
    if spec.job_class is not None and spec.job_class not in classes:
        raise ValueError(f"job_class: the plan has no class {spec.job_class!r} (it has {', '.join(classes)})")
    for name in spec.nodes:
        if name not in nodes:
            raise ValueError(f"nodes: the plan has no node type {name!r} (it has {', '.join(nodes)})")
