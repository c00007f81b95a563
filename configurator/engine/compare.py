"""Side-by-side comparison of two evaluated builds: the same jobs, their headroom, step time and power."""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.result import BuildResult


@dataclass(frozen=True)
class Difference:
    job: str | None  # None for build-wide rows (power, errors)
    what: str  # "headroom (GB)", "step time (s)", "status", "power (W)", "errors"
    left: str
    right: str
    better: str | None  # "left", "right" or None (equal or not comparable)


def _fmt(v: float | None, unit: str) -> str:
    if v is None:
        return "—"
    return {"s": f"{v:.2f} s", "W": f"{v:,.0f} W"}.get(unit, f"{v:,.1f} {unit}")


def compare(left: BuildResult, right: BuildResult) -> list[Difference]:
    """Rows for every job present in either build, matched by name, plus power and error counts."""
    rows: list[Difference] = []
    right_jobs = {j.name: j for j in right.jobs}
    names = [j.name for j in left.jobs] + [j.name for j in right.jobs if j.name not in {x.name for x in left.jobs}]
    left_jobs = {j.name: j for j in left.jobs}
    for name in names:
        a, b = left_jobs.get(name), right_jobs.get(name)
        ha = min((c.headroom_gb for c in a.cards), default=None) if a else None
        hb = min((c.headroom_gb for c in b.cards), default=None) if b else None
        better = None if ha is None or hb is None or abs(ha - hb) < 0.05 else ("left" if ha > hb else "right")
        rows.append(Difference(name, "headroom (GB, smallest card)", _fmt(ha, "GB"), _fmt(hb, "GB"), better))
        sa, sb = (a.step_seconds if a else None), (b.step_seconds if b else None)
        better = None if sa is None or sb is None or abs(sa - sb) < 0.005 else ("left" if sa < sb else "right")
        rows.append(Difference(name, "step time", _fmt(sa, "s"), _fmt(sb, "s"), better))
        st_a, st_b = (a.status if a else "—"), (b.status if b else "—")
        rank = {"fits": 2, "tight": 1, "does-not-fit": 0}
        better = None if st_a == st_b else ("left" if rank.get(st_a, -1) > rank.get(st_b, -1) else "right")
        rows.append(Difference(name, "fit", st_a, st_b, better))
    pa = left.power.total_w if left.power else None
    pb = right.power.total_w if right.power else None
    better = None if pa is None or pb is None or pa == pb else ("left" if pa < pb else "right")
    rows.append(Difference(None, "power", _fmt(pa, "W"), _fmt(pb, "W"), better))
    ea, eb = len(left.errors), len(right.errors)
    rows.append(Difference(None, "errors", str(ea), str(eb), None if ea == eb else ("left" if ea < eb else "right")))
    # step times on different rate bases are not like for like: show the bases, rank neither
    for what, la, rb in (("link rates", left.link_rates, right.link_rates),
                         ("compute rates", left.compute_rates, right.compute_rates)):  # fmt: skip
        if la != rb:
            rows.append(Difference(None, what, la, rb, None))
    return rows
