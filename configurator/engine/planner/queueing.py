"""How many devices a job class needs: throughput at a target utilisation, and Erlang C waits.

A device runs one job at a time. A class with ``jobs_per_day`` arrivals spread over ``hours_per_day`` hours
of operation, each job holding a device for ``service_hours``, offers ``a = lambda x S`` erlangs of work,
with lambda in jobs per operating hour (Little's law, L = lambda W: Little 1961, Operations Research 9(3)).
At a planned busy fraction U it needs ``n = a / U = jobs_per_day x S / (U x H)`` devices.

With a wait-time target the class is an M/M/c queue (Poisson arrivals, exponential service, c devices):
the probability that a job waits is Erlang's C formula and the mean wait is ``W_q = C(c, a) x S / (c - a)``
(Gross, Shortle, Thompson and Harris, *Fundamentals of Queueing Theory*, 4th ed., Wiley 2008, section 2.3,
the M/M/c queue). C is computed from Erlang's B formula by its recursion
``B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1))`` and ``C = c B / (c - a (1 - B))`` (same text, section 2.6,
Erlang's loss formula), which stays exact for thousands of servers where the factorial form overflows.
Fine-tuning jobs of one class have nearly equal lengths, so their service time is closer to deterministic
than exponential; M/M/c then overstates the wait (the Lee-Longton approximation scales the M/M/c wait by
(c_a^2 + c_s^2) / 2, one half for deterministic service: Lee and Longton 1959, as given by Whitt 1993,
"Approximations for the GI/G/m queue", Production and Operations Management 2(2)), which makes these counts
conservative.

Arrivals are not spread evenly over the day: a service's jobs arrive in working hours. The planner sizes
for the busiest hour (``peak_share``: the fraction of a day's arrivals that come in it) and treats that hour
as a stationary M/M/c queue, the pointwise stationary approximation (Green and Kolesar, "The pointwise
stationary approximation for queues with nonstationary arrivals", Management Science 37(1), 1991), which
overstates the peak wait when jobs run longer than the peak lasts (the queue has no time to build up), so
it is again on the safe side. A peak hour whose offered load reaches the devices (a >= c) is unstable: the
queue grows through the peak, and no finite wait is reported for it.

The waiting time of an M/M/c queue has the tail P(W_q > t) = C(c, a) x exp(-(c mu - lambda) t) (same text,
section 2.3, the waiting-time distribution of the M/M/c queue), so its p-quantile is
``t_p = S ln(C / (1 - p)) / (c - a)`` when C > 1 - p, and 0 when fewer than 1 - p of the jobs wait at all.
Wait targets apply to that p95.
"""

from __future__ import annotations

import functools
import math

MAX_SERVERS = 1_000_000
P95 = 0.95


def offered_load(jobs_per_day: float, service_hours: float, hours_per_day: float) -> float:
    """Erlangs: arrivals per operating hour x hours each job holds a device (Little's law)."""
    return jobs_per_day / hours_per_day * service_hours


def erlang_b(servers: int, load: float) -> float:
    """Erlang B blocking probability by the stable recursion B(k) = a B(k-1) / (k + a B(k-1))."""
    if servers < 0 or load < 0:
        raise ValueError("servers and load must be non-negative")
    b = 1.0
    for k in range(1, servers + 1):
        b = load * b / (k + load * b)
    return b


def erlang_c(servers: int, load: float) -> float:
    """Probability that an arriving job waits in an M/M/c queue with c = ``servers``, a = ``load`` erlangs.

    1 when the queue is unstable (a >= c): every job waits and the wait grows without bound.
    """
    if load <= 0:
        return 0.0
    if servers <= load:
        return 1.0
    b = erlang_b(servers, load)
    return servers * b / (servers - load * (1 - b))


def _edge_wait(servers: int, load: float) -> float | None:
    """The wait where the queue formulas do not apply: none without load, infinite when a >= c (unstable), NaN
    beyond MAX_SERVERS devices; None where they do."""
    if load <= 0:
        return 0.0
    if servers <= load:
        return math.inf
    if servers > MAX_SERVERS:
        return math.nan
    return None


def mean_wait_hours(servers: int, load: float, service_hours: float) -> float:
    """Mean time in queue W_q = C(c, a) x S / (c - a); infinite when a >= c (NaN beyond MAX_SERVERS devices)."""
    edge = _edge_wait(servers, load)
    if edge is not None:
        return edge
    return erlang_c(servers, load) * service_hours / (servers - load)


def wait_quantile_hours(servers: int, load: float, service_hours: float, q: float = P95) -> float:
    """The q-quantile of the M/M/c time in queue: ``S ln(C / (1 - q)) / (c - a)``, 0 when P(wait) <= 1 - q;
    infinite when a >= c (NaN beyond MAX_SERVERS devices)."""
    edge = _edge_wait(servers, load)
    if edge is not None:
        return edge
    c = erlang_c(servers, load)
    return _quantile(c, servers, load, service_hours, q)


def _quantile(c_wait: float, servers: int, load: float, service_hours: float, q: float) -> float:
    if c_wait <= 1 - q:
        return 0.0
    return service_hours * math.log(c_wait / (1 - q)) / (servers - load)


def servers_for_wait(load: float, service_hours: float, wait_target_hours: float, q: float | None = None) -> int:
    """The fewest devices whose M/M/c mean wait (``q`` None) or q-quantile wait is at most ``wait_target_hours``.

    Walks c upward from the first stable count, carrying Erlang B along its recursion, so the search costs
    one step per device. ValueError beyond MAX_SERVERS devices.
    """
    if load <= 0:
        return 0
    c = max(1, math.floor(load) + 1)
    if c > MAX_SERVERS:
        raise ValueError(f"more than {MAX_SERVERS:,} devices needed to meet the wait target")
    b = erlang_b(c, load)
    while True:
        cw = c * b / (c - load * (1 - b))
        wait = cw * service_hours / (c - load) if q is None else _quantile(cw, c, load, service_hours, q)
        if wait <= wait_target_hours:
            return c
        c += 1
        if c > MAX_SERVERS:
            raise ValueError(f"more than {MAX_SERVERS:,} devices needed to meet the wait target")
        b = load * b / (c + load * b)


@functools.lru_cache(maxsize=65536)
def devices_needed(
    jobs_per_day: float,
    service_hours: float,
    utilisation: float,
    hours_per_day: float,
    wait_target_hours: float | None = None,
    peak_share: float | None = None,
) -> int:
    """Whole devices for a class: ceil(lambda S / (U H)) over the day; with a daily profile (``peak_share``,
    the fraction of the day's arrivals in the busiest hour) also a stable queue in that hour (c > a_peak);
    and with a wait target the Erlang C count whose p95 wait in the peak hour meets it."""
    if jobs_per_day <= 0:
        return 0
    load = offered_load(jobs_per_day, service_hours, hours_per_day)
    n = max(1, math.ceil(load / utilisation - 1e-9))
    peak = peak_load(jobs_per_day, service_hours, hours_per_day, peak_share)
    if peak_share is not None and peak < MAX_SERVERS:
        n = max(n, math.floor(peak) + 1)
    # beyond a million devices no fleet the search can buy serves the class; the wait target is moot there
    if wait_target_hours is not None and peak < MAX_SERVERS:
        try:
            n = max(n, servers_for_wait(peak, service_hours, wait_target_hours, P95))
        except ValueError:  # a peak just under the bound whose wait target needs more than MAX_SERVERS devices
            n = max(n, MAX_SERVERS + 1)
    return n


def peak_load(jobs_per_day: float, service_hours: float, hours_per_day: float, peak_share: float | None) -> float:
    """Erlangs offered in the busiest hour: the day's arrivals x ``peak_share`` per hour x S; without a daily
    profile (None), the day's arrivals spread evenly over the hours of operation."""
    if peak_share is None:
        return offered_load(jobs_per_day, service_hours, hours_per_day)
    return jobs_per_day * peak_share * service_hours
