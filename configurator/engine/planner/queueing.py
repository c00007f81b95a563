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
"""

from __future__ import annotations

import functools
import math

MAX_SERVERS = 1_000_000


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


def mean_wait_hours(servers: int, load: float, service_hours: float) -> float:
    """Mean time in queue W_q = C(c, a) x S / (c - a); infinite when a >= c (NaN beyond MAX_SERVERS devices)."""
    if load <= 0:
        return 0.0
    if servers <= load:
        return math.inf
    if servers > MAX_SERVERS:
        return math.nan
    return erlang_c(servers, load) * service_hours / (servers - load)


def servers_for_wait(load: float, service_hours: float, wait_target_hours: float) -> int:
    """The fewest devices whose M/M/c mean wait is at most ``wait_target_hours``.

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
        wait = (c * b / (c - load * (1 - b))) * service_hours / (c - load)
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
) -> int:
    """Whole devices for a class: ceil(lambda S / (U H)), and at least the Erlang C count for the wait target."""
    if jobs_per_day <= 0:
        return 0
    load = offered_load(jobs_per_day, service_hours, hours_per_day)
    n = max(1, math.ceil(load / utilisation - 1e-9))
    # beyond a million devices no fleet the search can buy serves the class; the wait target is moot there
    if wait_target_hours is not None and load < MAX_SERVERS:
        n = max(n, servers_for_wait(load, service_hours, wait_target_hours))
    return n
