"""Search over candidate fleets: node types x node counts x MIG layouts, ranked by cost per job.

Each candidate is priced by :func:`fleet.score` (routing and totals are arithmetic on the cached class x
device matrix). Small searches run in this process; larger ones are split over worker processes
(``concurrent.futures.ProcessPoolExecutor``), each scoring a contiguous range of candidate indices.
"""

from __future__ import annotations

import heapq
import itertools
import math
import os
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

from configurator.engine.planner.cancel import Cancel, check, never
from configurator.engine.planner.fleet import Candidate, Model, RankKey, Score, jobs_per_month, rank_key, score

Key = tuple[RankKey, int]  # the rank key, then the candidate's index (ties keep the enumeration order)
Ranked = tuple[Key, Candidate, Score]

PARALLEL_FROM = 20_000  # candidates from which worker processes pay for their start-up


def node_options(model: Model, t: int) -> list[tuple[int, int, int]]:
    """(nodes, layout index or -1, MIG'd cards per node) for one node type, 0 nodes first."""
    node = model.nodes[t]
    shapes = [(-1, 0)] + [(j, k) for j in range(len(node.layouts)) for k in range(1, node.cards_per_node + 1)]
    return [(0, -1, 0)] + [(n, j, k) for n in range(1, node.max_nodes + 1) for j, k in shapes]


def candidate_count(model: Model) -> int:
    return math.prod(len(node_options(model, t)) for t in range(len(model.nodes))) - 1


def _candidates(model: Model, start: int, stop: int) -> Iterator[tuple[int, Candidate]]:
    opts = [node_options(model, t) for t in range(len(model.nodes))]
    product = itertools.islice(enumerate(itertools.product(*opts)), start, stop)
    for i, cand in product:
        if any(n for n, _l, _k in cand):
            yield i, cand


Mix = tuple[bool, ...]  # which node types a candidate buys


CHECK_EVERY = 4096  # candidates scored between two looks at the caller's cancel (a few ms)


def _best(
    model: Model, month: int, top: int, start: int, stop: int, cancel: Cancel = never
) -> tuple[list[Ranked], int, int, dict[Mix, Ranked]]:
    """The ``top`` best of a range of candidates, their counts, and the best candidate of each mix of node types
    (each type alone, and every mix), so pure fleets are ranked beside mixed ones."""
    heap: list[tuple[_Neg, Candidate, Score]] = []  # (negated key, candidate, score): the top n smallest keys
    mixes: dict[Mix, Ranked] = {}
    feasible = n = 0
    for i, cand in _candidates(model, start, stop):
        if n % CHECK_EVERY == 0:
            check(cancel)
        s = score(model, cand, month)
        n += 1
        feasible += s[0]
        key = (rank_key(s), i)
        mix = tuple(c[0] > 0 for c in cand)
        best = mixes.get(mix)
        if best is None or key < best[0]:
            mixes[mix] = (key, cand, s)
        if len(heap) < top:
            heapq.heappush(heap, (_Neg(key), cand, s))
        elif key < heap[0][0].key:
            heapq.heapreplace(heap, (_Neg(key), cand, s))
    return [(h[0].key, h[1], h[2]) for h in heap], n, feasible, mixes


class _Neg:
    """Reverses the order of a key, for a max-heap of the best ``top`` keys."""

    __slots__ = ("key",)

    def __init__(self, key: Key) -> None:
        self.key = key

    def __lt__(self, other: _Neg) -> bool:
        return self.key > other.key

    def __reduce__(self) -> tuple[type[_Neg], tuple[Key]]:
        return (_Neg, (self.key,))


def search(
    model: Model,
    month: int,
    top: int,
    processes: int | None = None,
    mixes: dict[Mix, Ranked] | None = None,
    cancel: Cancel = never,
) -> tuple[list[Ranked], int, int, float, int]:
    """The ``top`` candidates by (feasible first, cost per job, cards, nodes).

    Returns (ranked [(key, candidate, score)], candidates scored, feasible, seconds, processes used); fills
    ``mixes`` (when given) with the best candidate of each mix of node types. ``cancel`` is asked every
    CHECK_EVERY candidates in one process, and before and after the worker processes' share.
    """
    start = time.perf_counter()
    total = candidate_count(model) + 1  # the index range includes the empty fleet, which is skipped
    workers = processes or (os.cpu_count() or 1)
    if processes is None and total < PARALLEL_FROM:
        workers = 1
    workers = max(1, min(workers, total))
    if workers == 1:
        best, n, feasible, found = _best(model, month, top, 0, total, cancel)
    else:
        check(cancel)
        bounds = [total * w // workers for w in range(workers + 1)]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            parts = list(
                pool.map(
                    _best, *zip(*[(model, month, top, bounds[w], bounds[w + 1]) for w in range(workers)], strict=True)
                )
            )
        check(cancel)
        best = [b for part in parts for b in part[0]]
        n = sum(p[1] for p in parts)
        feasible = sum(p[2] for p in parts)
        found = {}
        for part in parts:
            for mix, r in part[3].items():
                if mix not in found or r[0] < found[mix][0]:
                    found[mix] = r
    if mixes is not None:
        mixes.update(found)
    best.sort(key=lambda b: b[0])
    return best[:top], n, feasible, time.perf_counter() - start, workers


def _by_fixed_cost(model: Model) -> list[tuple[float, int, int, Candidate]]:
    """Every candidate with its fixed cost per month (capital and idle energy; inf without prices) and cards,
    cheapest first (then fewest cards): the order best_feasible walks. Kept on the model, month-independent."""
    got = model._by_fixed
    if got is None:
        fixed = [model.node_cost_per_month(t) for t in range(len(model.nodes))]
        per_node = [model.nodes[t].cards_per_node for t in range(len(model.nodes))]
        rows = []
        for i, cand in _candidates(model, 0, candidate_count(model) + 1):
            cost = 0.0
            for t, (n, _l, _k) in enumerate(cand):
                if n:
                    f = fixed[t]
                    cost = math.inf if f is None else cost + n * f
            cards = sum(n * per_node[t] for t, (n, _l, _k) in enumerate(cand))
            rows.append((cost, cards, i, cand))
        rows.sort(key=lambda r: (r[0], r[1], r[2]))
        got = model._by_fixed = rows
    return got


def best_feasible(model: Model, month: int) -> Candidate | None:
    """The best feasible candidate of a month (the search's ranking), best-first: candidates in order of fixed
    cost (capital and idle energy, which busy energy only adds to) or, without prices, of cards; the walk stops
    once no candidate left can beat the best found. For the roadmap's other months, where only the winner
    matters."""
    jobs = jobs_per_month(model, month)
    floor = model.min_cards(month) - 1e-9
    busy = model.min_busy_kwh(month) * (model.power_price or 0.0)  # what every fleet adds to its fixed cost
    best: tuple[RankKey, int] | None = None
    found: Candidate | None = None
    for cost, cards, i, cand in _by_fixed_cost(model):
        if best is not None:
            priced = best[0][1] < math.inf
            if priced and jobs > 0 and (cost + busy) / jobs > best[0][1] + 1e-12:
                break
            if not priced and cost == math.inf and cards > best[0][2]:
                break
        if cards < floor:
            continue
        s = score(model, cand, month)
        if not s[0]:
            continue
        key = (rank_key(s), i)
        if best is None or key < best:
            best, found = key, cand
    return found
