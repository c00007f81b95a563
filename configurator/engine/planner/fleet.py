"""A fleet (node types x counts x MIG layouts) against the demand: routing, capacity and totals.

Pure arithmetic on the class x device matrix, so thousands of fleets are priced per second.

Routing (mixed fleets, by job size): classes go largest first (fewest devices that hold them), each to the
device of the fleet with the lowest cost per job among those that fit it, spilling to the next when the
first has too few devices left. This is the greedy, per-class special case of Gavel's heterogeneity-aware
allocation over a throughput matrix T[job, device type] (Narayanan et al., "Heterogeneity-Aware Cluster
Scheduling Policies for Deep Learning Workloads", OSDI 2020): each class gets whole devices of one
type rather than a fractional time share, as a scheduler routing by job size does.

Cost (per device-hour): capital straight-line over the service life plus energy at the default power limit
for every operating hour, x PUE, as in the cost per job = S x (capital / life hours + kW x PUE x price) / U.
Drawing default power while idle is an upper bound: idle power is not in the catalog.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from configurator.engine.planner.queueing import devices_needed, mean_wait_hours, offered_load


@dataclass(frozen=True)
class NodeModel:
    name: str
    card: str
    cards_per_node: int
    layouts: tuple[tuple[str, ...], ...]
    max_nodes: int
    capital: float | None  # one node
    kw: float  # one node, IT power
    layout_counts: tuple[dict[str, int], ...] = ()  # per layout: profile -> instances per card


@dataclass(frozen=True)
class DevModel:
    id: str
    node: int
    kind: str  # card | mig | group
    profile: str | None
    cards: int
    card_fraction: float


def class_demand(
    jobs_per_day: float, by_month: tuple[float, ...] | None, growth: float, from_month: int, month: int
) -> float:
    """Arrivals per day of a class in a roadmap month: nothing before ``from_month``; then the month-by-month
    list (its last value holding after it), or ``jobs_per_day`` grown by ``growth`` a month, compounded."""
    if month < from_month:
        return 0.0
    if by_month:
        return by_month[min(month, len(by_month)) - 1]
    return jobs_per_day * (1 + growth) ** (month - from_month)


@dataclass(frozen=True)
class ClassModel:
    name: str
    jobs_per_day: float
    growth: float
    from_month: int
    wait_target_hours: float | None
    # fitting devices: (device index, service hours), the ones with a known service time only
    options: tuple[tuple[int, float], ...]
    size: float  # smallest memory of a device that holds it (routing order: largest first)
    by_month: tuple[float, ...] | None = None

    def demand(self, month: int) -> float:
        return class_demand(self.jobs_per_day, self.by_month, self.growth, self.from_month, month)


@dataclass
class Model:
    """Everything a fleet evaluation needs; plain data, so it pickles to worker processes."""

    nodes: list[NodeModel]
    devices: list[DevModel]
    classes: list[ClassModel]
    utilisation: float
    hours_per_day: float
    days_per_month: float
    life_months: float
    power_price: float | None
    pue: float
    rack_kw: float | None
    _orders: dict[int, list[list[tuple[int, int, float, float | None]]]] = field(default_factory=dict)
    _class_order: list[int] | None = None
    _demands: dict[int, list[float]] = field(default_factory=dict)

    def node_cost_per_month(self, t: int) -> float | None:
        n = self.nodes[t]
        if n.capital is None or self.power_price is None:
            return None
        return n.capital / self.life_months + self.node_kwh_per_month(t) * self.power_price

    def node_kwh_per_month(self, t: int) -> float:
        return self.nodes[t].kw * self.pue * self.hours_per_day * self.days_per_month

    def device_cost_per_hour(self, d: int) -> float | None:
        dev = self.devices[d]
        monthly = self.node_cost_per_month(dev.node)
        if monthly is None:
            return None
        n = self.nodes[dev.node]
        return monthly / (n.cards_per_node * self.hours_per_day * self.days_per_month) * dev.card_fraction

    def orders(self, month: int) -> list[list[tuple[int, int, float, float | None]]]:
        """Per class, its devices (index, devices needed, service hours, cost per job), cheapest first.

        Cheapest is what the devices the whole class needs cost per hour (so an Erlang C count for a wait
        target counts), or without prices the cards they take."""
        if month in self._orders:
            return self._orders[month]
        out = []
        for c in self.classes:
            lam = c.demand(month)
            rows = []
            for d, s in c.options:
                need = devices_needed(lam, s, self.utilisation, self.hours_per_day, c.wait_target_hours)
                rate = self.device_cost_per_hour(d)
                cost = None if rate is None else s * rate / self.utilisation
                # what serving the whole class there takes: its devices' cost, or their share of cards
                spend = math.inf if rate is None else need * rate
                cards = need * self.devices[d].card_fraction
                rows.append((d, need, s, cost, spend, cards))
            rows.sort(key=lambda r: (r[4], r[5], r[0]))
            out.append([(d, need, s, cost) for d, need, s, cost, _, _ in rows])
        self._orders[month] = out
        return out

    def class_order(self) -> list[int]:
        if self._class_order is None:
            classes = self.classes
            self._class_order = sorted(
                range(len(classes)), key=lambda k: (len(classes[k].options), -classes[k].size, k)
            )
        return self._class_order

    def demands(self, month: int) -> list[float]:
        if month not in self._demands:
            self._demands[month] = [c.demand(month) for c in self.classes]
        return self._demands[month]


# A candidate: per node type (node count, layout index or -1 for whole cards, MIG'd cards per node)
Candidate = tuple[tuple[int, int, int], ...]
# A candidate's score: (feasible, cost per job or None without prices, kWh per job, cards, nodes)
Score = tuple[bool, float | None, float, int, int]
# What ranks it, smallest first: (infeasible, cost per job or inf, kWh per job, cards, nodes)
RankKey = tuple[bool, float, float, int, int]


@dataclass
class Routing:
    routes: list[tuple[int, int, int, float]]  # (class, device, devices given, share of the class's jobs)
    unserved: list[int]  # classes short of capacity
    unfit: list[int]  # active classes no device of the fleet holds
    active: list[int]


def _capacity(model: Model, cand: Candidate) -> tuple[dict[int, list[int]], dict[int, int], dict[tuple[int, str], int]]:
    """What a candidate offers before routing: per node type the free whole cards of each node and whole
    cards per node, and per (node type, MIG profile) the instances in the fleet."""
    free: dict[int, list[int]] = {}  # node type -> free whole cards per node
    whole_per_node: dict[int, int] = {}
    pools: dict[tuple[int, str], int] = {}
    for t, (n, layout, k) in enumerate(cand):
        if n <= 0:
            continue
        node = model.nodes[t]
        whole = node.cards_per_node - (k if layout >= 0 else 0)
        if whole > 0:
            free[t] = [whole] * n
            whole_per_node[t] = whole
        if layout >= 0:
            for prof, c in node.layout_counts[layout].items():
                pools[(t, prof)] = pools.get((t, prof), 0) + c * k * n
    return free, whole_per_node, pools


def route(model: Model, cand: Candidate, month: int) -> Routing:
    """Route every active class onto the candidate, largest first, cheapest device first (module docstring).

    Kept as one loop: it is the search's inner loop, run for every candidate and month."""
    orders = model.orders(month)
    free, whole_per_node, pools = _capacity(model, cand)
    routes: list[tuple[int, int, int, float]] = []
    unserved: list[int] = []
    unfit: list[int] = []
    active: list[int] = []
    demand = model.demands(month)
    for ci in model.class_order():
        if demand[ci] <= 0:
            continue
        active.append(ci)
        rest = 1.0
        present = False
        for d, need, _s, _cost in orders[ci]:
            dev = model.devices[d]
            t = dev.node
            if dev.kind == "mig":
                key = (t, dev.profile or "")
                if key not in pools:
                    continue
                avail = pools[key]
            else:
                if whole_per_node.get(t, 0) < dev.cards:
                    continue
                avail = sum(f // dev.cards for f in free[t])
            present = True
            if avail <= 0 or need <= 0:
                continue
            want = math.ceil(need * rest - 1e-9)
            take = min(avail, want)
            if dev.kind == "mig":
                pools[(t, dev.profile or "")] -= take
            else:
                left = take
                cards = free[t]
                for i in range(len(cards) - 1, -1, -1):  # fill from the last node, keeping others whole
                    while left and cards[i] >= dev.cards:
                        cards[i] -= dev.cards
                        left -= 1
                    if not left:
                        break
            share = rest if take >= want else take / need
            routes.append((ci, d, take, share))
            rest -= share
            if rest <= 1e-9:
                break
        if not present:
            unfit.append(ci)
        elif rest > 1e-9:
            unserved.append(ci)
    return Routing(routes, unserved, unfit, active)


def fleet_cost(model: Model, cand: Candidate) -> float | None:
    total = 0.0
    for t, (n, _l, _k) in enumerate(cand):
        if n:
            c = model.node_cost_per_month(t)
            if c is None:
                return None
            total += n * c
    return total


def jobs_per_month(model: Model, month: int) -> float:
    return sum(model.demands(month)) * model.days_per_month


def score(model: Model, cand: Candidate, month: int) -> Score:
    """(feasible, cost per job, kWh per job, cards, nodes) of one candidate: the search's arithmetic."""
    r = route(model, cand, month)
    feasible = not r.unserved and not r.unfit
    cost = fleet_cost(model, cand)
    jobs = jobs_per_month(model, month)
    per_job = cost / jobs if cost is not None and jobs > 0 else None
    cards = sum(n * model.nodes[t].cards_per_node for t, (n, _l, _k) in enumerate(cand))
    nodes = sum(n for n, _l, _k in cand)
    kwh = sum(n * model.node_kwh_per_month(t) for t, (n, _l, _k) in enumerate(cand))
    return feasible, per_job, kwh / jobs if jobs > 0 else math.inf, cards, nodes


def rank_key(s: Score) -> RankKey:
    """Feasible first, then cost per job; where prices are unknown, energy per job, then cards and nodes."""
    feasible, per_job, kwh, cards, nodes = s
    return (not feasible, per_job if per_job is not None else math.inf, kwh, cards, nodes)


def wait_of(model: Model, ci: int, d: int, devices: int, share: float, month: int) -> float | None:
    c = model.classes[ci]
    s = next(s for dd, s in c.options if dd == d)
    load = offered_load(c.demand(month) * share, s, model.hours_per_day)
    w = mean_wait_hours(devices, load, s)
    return None if not math.isfinite(w) else w
