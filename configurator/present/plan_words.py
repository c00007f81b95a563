"""A service plan's figures in words, the same in ``configurator plan`` and the plan's PDF section."""

from __future__ import annotations

from collections import Counter

from configurator.engine.model.labels import bound_words
from configurator.engine.planner.packing import Packing
from configurator.engine.planner.result import ClassInfo
from configurator.present.verdict import plural
from configurator.present.words import layout_words


def packing_words(p: Packing) -> str:
    """A node type's MIG packing summarised: 'MIG packing on NVIDIA RTX PRO 6000 Blackwell Server Edition: 96
    instances on 24 cards, 24 cards as 4 × 1g.24gb, the other 72 cards whole (first-fit-decreasing, lower bound
    24); 0 stranded compute slices'. Identical layouts are counted, never repeated card by card."""
    layouts = Counter(tuple(c.profiles) for c in p.cards)  # in the packing's order: largest layouts first
    shapes = ", ".join(f"{plural(n, 'card')} as {layout_words(list(lay))}" for lay, n in layouts.items())
    whole = ""
    if p.node_mig_cards is not None and p.node_mig_cards > len(p.cards):
        whole += f", {plural(p.node_mig_cards - len(p.cards), 'more MIG card')} with no instance in use"
    if p.node_cards is not None and p.node_mig_cards is not None and p.node_cards > p.node_mig_cards:
        whole += f", the other {plural(p.node_cards - p.node_mig_cards, 'card')} whole"
    where = p.card_name or p.card
    return (
        f"MIG packing on {where}: {plural(sum(p.demand.values()), 'instance')} on {plural(len(p.cards), 'card')}"
        + (f", {shapes}" if shapes else "")
        + f"{whole} ({p.method}, lower bound {p.lower_bound}); "
        + plural(p.stranded_compute_slices, "stranded compute slice")
    )


def hours_words(hours: float | None, lower_bound: bool = False, unknown: str = "unknown") -> str:
    """A service time: '5.00 h', or '≥ 5.00 h' where it is the engine's lower bound (a model given by its
    parameter count only: FitCell.lower_bound, Route.lower_bound), the same mark in the text, PDF and window."""
    return unknown if hours is None else bound_words(f"{hours:.2f} h", lower_bound)


LOWER_BOUND_KEY = "≥: a lower bound (the model is given by its parameter count only: attention FLOPs left out)"


def demand_input_words(c: ClassInfo) -> str:
    """What the plan gave for a class's demand, beside the sizing month's figure: 'input 120, +6 %/month', or
    'month by month' where the plan lists it (ClassInfo.jobs_per_day_input)."""
    if c.jobs_per_day_input is None:
        return "input month by month"
    growth = f", {c.growth_per_month * 100:+g} %/month" if c.growth_per_month else ""
    start = f" from month {c.from_month}" if c.from_month > 1 and c.growth_per_month else ""
    return f"input {c.jobs_per_day_input:,.4g}{growth}{start}"
