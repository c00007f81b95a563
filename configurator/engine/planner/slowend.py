"""The recommended fleet at the slow end of the engine's step-time band: how robust the recommendation is to it.

The band (specs/steptime-band.yaml, engine/time/steptime/band.py) is how far published runs held apart from the
model fell from its step time. A class's service time is steps x step time (matrix.evaluate_cell), so at the
band's high end every service time that is the engine's is ``band.high`` times longer; a time an imported
measurement set (measurements.apply_to_cells) is not the engine's and stays as measured.

Computed on that slow-end model, with the search's own arithmetic (fleet.score, fleet.route):

- the recommended fleet as bought: does it still serve every class within its p95 wait target;
- the fewest servers of its own mix (the same node types, MIG layouts and MIG'd cards per node, the counts in the
  recommended proportions) that do: one score per server count, a few milliseconds;
- whether the best server mix changes: the search's best fleet of each mix grown the same way, ranked as the search
  ranks. Not a second search: the best-first walk the reversal uses (search.best_feasible) took 80-190 ms at the
  slow end of seed B's plan (its cheap fleets all fall short there), more than the re-plan the planner window waits
  for can add; growing each mix's best is a few milliseconds and not bounded by nodes[].max_nodes.
"""

from __future__ import annotations

import math

from configurator.engine.planner.explain import slow_end_words
from configurator.engine.planner.fleet import (
    Candidate,
    ClassModel,
    Model,
    RankKey,
    node_count,
    rank_key,
    route,
    score,
)
from configurator.engine.planner.fleet_result import fleet_label, kinds
from configurator.engine.planner.matrix import Cell, whole_card_id
from configurator.engine.planner.prepare import Prepared
from configurator.engine.planner.result import SlowEnd, SlowMix, is_estimate
from configurator.engine.planner.search import Mix, Ranked
from configurator.engine.time.steptime.band import StepBandFile, step_band


def engine_timed(cell: Cell, whole: Cell | None) -> bool:
    """The cell's time is the engine's: its basis is the engine's, or it is a MIG slice whose time is the whole
    card's engine time x a measured SM_ACTIVE ratio (a ratio does not make the time it multiplies measured)."""
    if is_estimate(cell.basis):
        return True
    return cell.ratio_basis is not None and whole is not None and is_estimate(whole.basis)


def slow_model(pre: Prepared, factor: float) -> tuple[Model, int, int, list[str]]:
    """The search's model with every engine service time x ``factor``; the cells scaled, the cells kept as measured,
    and the classes scaled whose engine time has no band of its own."""
    dev_ids = list(pre.devices)
    names = {n.index: n.name for n in pre.resolved}
    by_key = {(c.job_class, c.device): c for c in pre.cells}
    scaled = measured = 0
    unbanded: list[str] = []
    classes: list[ClassModel] = []
    for pos, cm in enumerate(pre.model.classes):
        k = pre.usable[pos]
        options = []
        for d, hours in cm.options:
            cell = by_key[(k, dev_ids[d])]
            whole = by_key.get((k, whole_card_id(names[pre.devices[cell.device].node])))
            if engine_timed(cell, whole):
                scaled += 1
                if not cell.banded and cm.name not in unbanded:
                    unbanded.append(cm.name)
                options.append((d, hours * factor))
            else:
                measured += 1
                options.append((d, hours))
        classes.append(ClassModel(cm.name, cm.jobs_per_day, cm.growth, cm.from_month, cm.wait_target_hours,
                                  tuple(options), cm.size, cm.by_month))  # fmt: skip
    return pre.model.with_classes(classes), scaled, measured, unbanded


def proportional(cand: Candidate, total: int) -> Candidate:
    """``cand``'s node types, layouts and MIG'd cards with ``total`` servers split in its proportions (largest
    remainder, ties to the plan's order); ``total`` at least the candidate's servers, so no type drops out."""
    counts = [n for n, _l, _k in cand]
    base = sum(counts)
    quotas = [n * total / base for n in counts]
    ns = [math.floor(q + 1e-9) for q in quotas]
    order = sorted(range(len(ns)), key=lambda t: (-(quotas[t] - ns[t]), t))
    for t in order[: total - sum(ns)]:
        ns[t] += 1
    return tuple((n, layout, k) for n, (_n, layout, k) in zip(ns, cand, strict=True))


def servers_needed(model: Model, cand: Candidate, month: int, bound: int) -> Candidate | None:
    """The fewest servers of ``cand``'s own mix (:func:`proportional`) that serve every class within its p95 wait
    target in ``month``, up to ``bound`` servers; None if none does."""
    for total in range(node_count(cand), bound + 1):
        c = proportional(cand, total)
        if score(model, c, month)[0]:
            return c
    return None


def _grown(slow: Model, cand: Candidate, month: int, factor: float) -> tuple[Candidate | None, int]:
    """``cand`` grown in its proportions until it serves every class at the slow end (:func:`servers_needed`)."""
    bound = math.ceil(node_count(cand) * factor * 4) + 8  # Erlang C's p95 at longer times: a margin
    return servers_needed(slow, cand, month, bound), bound


def slow_end(pre: Prepared, cand: Candidate, mixes: dict[Mix, Ranked], band: StepBandFile | None = None) -> SlowEnd:
    """The recommended fleet ``cand`` at the slow end of the step-time band (module docstring); ``mixes``: the
    search's best fleet of each server mix."""
    band = band or step_band()
    factor = band.band.high
    month = pre.month
    slow, scaled, measured, unbanded = slow_model(pre, factor)
    r = route(slow, cand, month)
    short = [slow.classes[ci].name for ci in r.unfit + r.unserved]
    needed, bound = (cand, 0) if not short else _grown(slow, cand, month, factor)
    grown: list[tuple[tuple[bool, RankKey], SlowMix]] = []
    for _key, mix_cand, s in mixes.values():
        if not s[0]:
            continue
        g = needed if mix_cand == cand else _grown(slow, mix_cand, month, factor)[0]
        sc = score(slow, g, month) if g is not None else None
        grown.append((
            (g is None, rank_key(sc) if sc else (True, math.inf, 0, math.inf, 0, 0)),
            SlowMix(kinds=kinds(slow, mix_cand), fleet=fleet_label(slow, g) if g else "",
                    servers=None if g is None else node_count(g), cost_per_job=sc[1] if sc else None),
        ))  # fmt: skip
    grown.sort(key=lambda x: x[0])
    over_max = [n.max_nodes for n, (c, _l, _k) in zip(slow.nodes, needed or (), strict=False) if c > n.max_nodes]
    se = SlowEnd(
        factor=factor,
        low=band.band.low,
        basis=band.basis,
        scaled=scaled,
        measured=measured,
        unbanded=unbanded,
        servers=node_count(cand),
        targets_met=not short,
        short=short,
        servers_needed=None if needed is None else node_count(needed),
        fleet_needed=None if needed is None else fleet_label(slow, needed),
        needed_cost_per_job=None if needed is None else score(slow, needed, month)[1],
        over_bounds=[n.name for n, (c, _l, _k) in zip(slow.nodes, needed or (), strict=False) if c > n.max_nodes],
        over_bounds_max_nodes=over_max,
        grown_up_to=bound,
        mixes=[m for _k, m in grown],
    )
    return se.model_copy(update={"words": slow_end_words(se, kinds(pre.model, cand), pre.currency)})
