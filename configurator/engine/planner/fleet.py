"""A fleet (node types x counts x MIG layouts) against the demand: routing, capacity and totals.

Pure arithmetic on the class x device matrix, so thousands of fleets are priced per second.

Routing (mixed fleets, by job size): classes go largest first (fewest devices that hold them), each to the
device of the fleet with the lowest cost per job among those that fit it, spilling to the next when the
first has too few devices left. This is the greedy, per-class special case of Gavel's heterogeneity-aware
allocation over a throughput matrix T[job, device type] (Narayanan et al., "Heterogeneity-Aware Cluster
Scheduling Policies for Deep Learning Workloads", OSDI 2020): each class gets whole devices of one
type rather than a fractional time share, as a scheduler routing by job size does.

Energy: every card draws its measured idle power for every operating hour (resources/plans/idle-power.yaml,
or the plan's ``idle_power``; a card without one is taken at its power limit, an upper bound) and its default
power limit while a job runs on it, so a busy card-hour adds (limit - idle) x PUE; the chassis platform draws
its catalog power throughout. Cost (per device-hour): capital straight-line over the service life plus that
energy at the power price, as in cost per job = S x (capital / life hours + kW x PUE x price) / U.

Ranking: with prices, by cost per job; without them (capital unknown), by cards, then energy per job, then
nodes: the words of each fleet's ``ranked_by`` say which.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

from configurator.engine.planner.queueing import devices_needed, mean_wait_hours, peak_load, wait_quantile_hours


@dataclass(frozen=True)
class NodeModel:
    name: str
    card: str
    cards_per_node: int
    layouts: tuple[tuple[str, ...], ...]
    max_nodes: int
    capital: float | None  # one node
    kw: float  # one node, IT power with every card at its default power limit
    layout_counts: tuple[dict[str, int], ...] = ()  # per layout: profile -> instances per card
    idle_kw: float | None = None  # one node with no job running: platform + cards at idle (None: = kw)
    busy_kw_per_card: float = 0.0  # what a card adds while a job runs on it: power limit - idle

    @property
    def base_kw(self) -> float:
        return self.kw if self.idle_kw is None else self.idle_kw


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
    peak_share: float | None = None  # fraction of a day's arrivals in its busiest hour (None: even)
    _orders: dict[int, list[list[tuple[int, int, float, float | None]]]] = field(default_factory=dict)
    _class_order: list[int] | None = None
    _demands: dict[int, list[float]] = field(default_factory=dict)
    _hours: dict[tuple[int, int], float] = field(default_factory=dict)
    _served: dict[tuple[int, int, int, int], float] = field(default_factory=dict)
    _min_cards: dict[int, float] = field(default_factory=dict)
    _kwh: list[float] | None = None
    _info: list[tuple[int, tuple[int, str] | None, int]] | None = None
    _by_fixed: list[tuple[float, int, int, tuple[tuple[int, int, int], ...]]] | None = None

    def with_classes(self, classes: list[ClassModel]) -> Model:
        """The same service and node types with other classes (other service times): caches that depend on the
        classes start empty; the fixed-cost order of the candidates (nodes and prices only) is shared."""
        out = Model(self.nodes, self.devices, classes, self.utilisation, self.hours_per_day, self.days_per_month,
                    self.life_months, self.power_price, self.pue, self.rack_kw, self.peak_share)  # fmt: skip
        out._by_fixed, out._kwh = self._by_fixed, self._kwh
        return out

    def node_cost_per_month(self, t: int) -> float | None:
        """Capital over the service life plus the node's idle energy (busy energy is per job: job_energy_cost)."""
        n = self.nodes[t]
        if n.capital is None or self.power_price is None:
            return None
        return n.capital / self.life_months + self.node_kwh_per_month(t) * self.power_price

    def node_kwh_per_month(self, t: int) -> float:
        """Facility kWh a node draws in a month with no job running (idle cards, platform), x PUE."""
        if self._kwh is None:
            self._kwh = [n.base_kw * self.pue * self.hours_per_day * self.days_per_month for n in self.nodes]
        return self._kwh[t]

    def busy_kwh(self, d: int, device_hours: float) -> float:
        """Facility kWh that ``device_hours`` of jobs on device ``d`` add over idle, x PUE."""
        dev = self.devices[d]
        return device_hours * dev.card_fraction * self.nodes[dev.node].busy_kw_per_card * self.pue

    def device_cost_per_hour(self, d: int) -> float | None:
        """A device's share of its node's capital and idle energy per operating hour."""
        dev = self.devices[d]
        monthly = self.node_cost_per_month(dev.node)
        if monthly is None:
            return None
        n = self.nodes[dev.node]
        return monthly / (n.cards_per_node * self.hours_per_day * self.days_per_month) * dev.card_fraction

    def job_cost(self, d: int, service_hours: float) -> float | None:
        """Cost of one job on device ``d`` at the utilisation target: S x rate / U plus its busy energy."""
        rate = self.device_cost_per_hour(d)
        if rate is None or self.power_price is None:
            return None
        return service_hours * rate / self.utilisation + self.busy_kwh(d, service_hours) * self.power_price

    def need_for(self, ci: int, d: int, jobs_per_day: float) -> int:
        """Devices ``d`` that part of class ``ci``'s demand (``jobs_per_day`` of it) needs on its own: a split
        class loses the pooling of one queue, so each part is sized for its own target."""
        c = self.classes[ci]
        s = self.service_hours(ci, d)
        return devices_needed(
            jobs_per_day, s, self.utilisation, self.hours_per_day, c.wait_target_hours, self.peak_share
        )

    def share_served(self, ci: int, d: int, devices: int, month: int) -> float:
        """The largest share of class ``ci``'s demand that ``devices`` devices ``d`` serve on their own (utilisation
        target, stable peak, wait target): served_share, kept per (class, device, count, month)."""
        key = (ci, d, devices, month)
        got = self._served.get(key)
        if got is None:
            c = self.classes[ci]
            got = self._served[key] = served_share(
                c.demand(month), self.service_hours(ci, d), self.utilisation, self.hours_per_day, c.wait_target_hours,
                self.peak_share, devices)  # fmt: skip
        return got

    def service_hours(self, ci: int, d: int) -> float:
        key = (ci, d)
        if key not in self._hours:
            self._hours[key] = next(s for dd, s in self.classes[ci].options if dd == d)
        return self._hours[key]

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
                need = devices_needed(
                    lam, s, self.utilisation, self.hours_per_day, c.wait_target_hours, self.peak_share
                )
                rate = self.device_cost_per_hour(d)
                cost = self.job_cost(d, s)
                busy = self.busy_kwh(d, lam / self.hours_per_day * s)  # kWh per operating hour over idle
                # what serving the whole class there takes: its devices' cost, or their share of cards
                spend = math.inf if rate is None or cost is None else need * rate + busy * (self.power_price or 0)
                cards = need * self.devices[d].card_fraction
                rows.append((d, need, s, cost, spend, cards, busy))
            rows.sort(key=lambda r: (r[4], r[5], r[6], r[0]))
            out.append([(d, need, s, cost) for d, need, s, cost, _, _, _ in rows])
        self._orders[month] = out
        return out

    def class_order(self) -> list[int]:
        if self._class_order is None:
            classes = self.classes
            self._class_order = sorted(
                range(len(classes)), key=lambda k: (len(classes[k].options), -classes[k].size, k)
            )
        return self._class_order

    def min_cards(self, month: int) -> float:
        """Cards no fleet can serve the month's demand with fewer of: per class, the fewest card-equivalents of
        work at the utilisation target on any device it fits, a / U x card fraction (before any rounding, the
        stable peak or a wait target, which only add), summed over the classes."""
        got = self._min_cards.get(month)
        if got is None:
            total = 0.0
            for c in self.classes:
                lam = c.demand(month)
                if lam <= 0 or not c.options:
                    continue
                total += min(
                    lam / self.hours_per_day * s / self.utilisation * self.devices[d].card_fraction
                    for d, s in c.options
                )
            got = self._min_cards[month] = total
        return got

    def device_info(self) -> list[tuple[int, tuple[int, str] | None, int]]:
        """Per device, what routing reads: (node type, (node type, MIG profile) or None, cards a job holds)."""
        if self._info is None:
            self._info = [
                (dev.node, (dev.node, dev.profile or "") if dev.kind == "mig" else None, dev.cards)
                for dev in self.devices
            ]
        return self._info

    def min_busy_kwh(self, month: int) -> float:
        """Busy energy per month no fleet serves the month's demand with less of: per class, the least on any
        device it fits."""
        total = 0.0
        for c in self.classes:
            lam = c.demand(month)
            if lam > 0 and c.options:
                total += min(self.busy_kwh(d, lam * s) for d, s in c.options) * self.days_per_month
        return total

    def demands(self, month: int) -> list[float]:
        if month not in self._demands:
            self._demands[month] = [c.demand(month) for c in self.classes]
        return self._demands[month]


# A candidate: per node type (node count, layout index or -1 for whole cards, MIG'd cards per node)
Candidate = tuple[tuple[int, int, int], ...]


def node_count(cand: Candidate) -> int:
    """The servers a candidate buys, all node types together."""
    return sum(n for n, _l, _k in cand)


# A candidate's score: (feasible, cost per job or None without prices, kWh per job, cards, nodes)
Score = tuple[bool, float | None, float, int, int]
# What ranks it, smallest first: (infeasible, cost per job or inf, cards without prices, kWh per job, cards, nodes)
RankKey = tuple[bool, float, int, float, int, int]


@functools.lru_cache(maxsize=65536)
def served_share(jobs_per_day: float, service_hours: float, utilisation: float, hours_per_day: float,
                 wait_target_hours: float | None, peak_share: float | None, devices: int) -> float:  # fmt: skip
    """The largest share of ``jobs_per_day`` that ``devices`` devices serve on their own (devices_needed of the
    share at most ``devices``), by bisection on the share (30 halvings). A function of the figures alone, memoised
    across plans: an edit to one class re-plans the others' shares from here (the planner window's re-plan)."""
    if devices <= 0:
        return 0.0
    if jobs_per_day <= 0:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        need = devices_needed(jobs_per_day * mid, service_hours, utilisation, hours_per_day, wait_target_hours,
                              peak_share)  # fmt: skip
        if need <= devices:
            lo = mid
        else:
            hi = mid
    return lo


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


def route(model: Model, cand: Candidate, month: int, full: bool = True) -> Routing:
    """Route every active class onto the candidate, largest first, cheapest device first (module docstring).

    Kept as one loop: it is the search's inner loop, run for every candidate and month. ``full`` False stops at
    the first class without enough devices (the search only needs to know the candidate is short)."""
    orders = model.orders(month)
    free, whole_per_node, pools = _capacity(model, cand)
    total = {t: sum(f) for t, f in free.items()}  # free whole cards per node type
    info = model.device_info()
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
            t, key, g = info[d]
            if key is not None:
                if key not in pools:
                    continue
                avail = pools[key]
            else:
                if whole_per_node.get(t, 0) < g:
                    continue
                avail = total[t] if g == 1 else sum(f // g for f in free[t])
            present = True
            if avail <= 0 or need <= 0:
                continue
            want = need if rest >= 1 - 1e-9 else model.need_for(ci, d, demand[ci] * rest)
            take = min(avail, want)
            if key is not None:
                pools[key] -= take
            else:
                left = take
                cards = free[t]
                for i in range(len(cards) - 1, -1, -1):  # fill from the last node, keeping others whole
                    k = min(cards[i] // g, left)
                    cards[i] -= k * g
                    left -= k
                    if not left:
                        break
                total[t] -= take * g
            share = rest if take >= want else min(rest, model.share_served(ci, d, take, month))
            routes.append((ci, d, take, share))
            rest -= share
            if rest <= 1e-9:
                break
        if not present:
            unfit.append(ci)
        elif rest > 1e-9:
            unserved.append(ci)
        if not full and (unfit or unserved):
            break
    return Routing(routes, unserved, unfit, active)


def busy_kwh_per_month(model: Model, r: Routing, month: int) -> float:
    """Facility kWh per month the routed jobs add over idle: busy device-hours x (limit - idle) x PUE."""
    demand = model.demands(month)
    per_day = 0.0
    for ci, d, _n, share in r.routes:
        per_day += model.busy_kwh(d, demand[ci] * share * model.service_hours(ci, d))
    return per_day * model.days_per_month


def fleet_kwh_per_month(model: Model, cand: Candidate, r: Routing, month: int) -> float:
    """Facility kWh per month: every node idle for every operating hour, plus the routed jobs' busy energy."""
    idle = sum(n * model.node_kwh_per_month(t) for t, (n, _l, _k) in enumerate(cand) if n)
    return idle + busy_kwh_per_month(model, r, month)


def fleet_cost(model: Model, cand: Candidate, busy_kwh: float = 0.0) -> float | None:
    """Money per month: capital over the service life and idle energy per node, plus ``busy_kwh`` of jobs."""
    total = 0.0
    for t, (n, _l, _k) in enumerate(cand):
        if n:
            c = model.node_cost_per_month(t)
            if c is None:
                return None
            total += n * c
    return total + busy_kwh * (model.power_price or 0.0)


def jobs_per_month(model: Model, month: int) -> float:
    return sum(model.demands(month)) * model.days_per_month


def score(model: Model, cand: Candidate, month: int) -> Score:
    """(feasible, cost per job, kWh per job, cards, nodes) of one candidate: the search's arithmetic.

    A candidate with fewer cards than the demand's lower bound (Model.min_cards) is short without routing; a
    short candidate's cost and energy leave out the busy energy of the jobs it cannot run."""
    cards = sum(n * model.nodes[t].cards_per_node for t, (n, _l, _k) in enumerate(cand))
    nodes = node_count(cand)
    jobs = jobs_per_month(model, month)
    if cards < model.min_cards(month) - 1e-9:
        feasible, busy = False, 0.0
    else:
        r = route(model, cand, month, full=False)
        feasible = not r.unserved and not r.unfit
        busy = busy_kwh_per_month(model, r, month) if feasible else 0.0
    cost = fleet_cost(model, cand, busy)
    per_job = cost / jobs if cost is not None and jobs > 0 else None
    kwh = sum(n * model.node_kwh_per_month(t) for t, (n, _l, _k) in enumerate(cand)) + busy
    return feasible, per_job, kwh / jobs if jobs > 0 else math.inf, cards, nodes


RANKED_BY_COST = "cost per job (capital over the service life, plus energy at the power price × PUE)"
RANKED_BY_CARDS = "cards, then energy per job (no prices: capital unknown; idle draw modelled), then servers"


def rank_key(s: Score) -> RankKey:
    """Feasible first, then cost per job; where prices are unknown, cards, then energy per job, then nodes. Among
    fleets that do not serve the demand, the most cards first (the nearest to serving it: the cheapest short fleet
    is the smallest, the least use to a reader of a plan that no fleet serves), then cost or energy."""
    feasible, per_job, kwh, cards, nodes = s
    if not feasible:
        return (True, float(-cards), 0, per_job if per_job is not None else kwh, cards, nodes)
    if per_job is not None:
        return (not feasible, per_job, 0, kwh, cards, nodes)
    return (not feasible, math.inf, cards, kwh, cards, nodes)


def ranked_by(s: Score) -> str:
    return RANKED_BY_COST if s[1] is not None else RANKED_BY_CARDS


def wait_of(model: Model, ci: int, d: int, devices: int, share: float, month: int) -> tuple[float, float]:
    """(mean, p95) hours a job of class ``ci`` waits on ``devices`` devices ``d`` in the peak hour (inf when the
    peak hour's load reaches the devices: unstable)."""
    c = model.classes[ci]
    s = model.service_hours(ci, d)
    load = peak_load(c.demand(month) * share, s, model.hours_per_day, model.peak_share)
    return mean_wait_hours(devices, load, s), wait_quantile_hours(devices, load, s)
