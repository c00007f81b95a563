"""The service-plan scenario, Qt-free: the planner's result for the visitor's plan, the build it shows, and
its figures read from that result (the kinds and their words: kiosk/planspec.py)."""

from __future__ import annotations

from pathlib import Path

from configurator.catalog.loader import Catalog
from configurator.engine.editing.kiosk import short_name
from configurator.engine.model.build import Build
from configurator.engine.planner import Plan, PlanResult, plan_service
from configurator.engine.planner.buildout import node_build
from configurator.engine.planner.result import ClassInfo, DeviceInfo, FitCell
from configurator.present.words import to_unit
from configurator.ui.kiosk.planspec import PlanFigureSpec
from configurator.ui.kiosk.scenarios import Figure

# a card's verdict on one job, from the memory engine's status (FitCell.status)
VERDICT = {"fits": "holds it", "tight": "is too tight", "does-not-fit": "cannot hold it", "unknown": "may not hold it"}


_SHARED: dict[int, tuple[Catalog, PlanResults]] = {}


class PlanResults:
    """``plan_service`` and the shown build with those of recent plans kept: a visitor toggling back and forth,
    or the attract loop coming round again, is answered without planning again."""

    def __init__(self, catalog: Catalog, limit: int = 32) -> None:
        self.catalog = catalog
        self.limit = limit
        self._kept: dict[tuple[str, str], tuple[PlanResult, Build | None]] = {}

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        self._kept.clear()

    @classmethod
    def shared(cls, catalog: Catalog) -> PlanResults:
        """The process's results for ``catalog``: a demo window opened again (from the editor, or a kiosk
        restarted in the same process) answers the shipped plan at once instead of planning it (~60 ms) again."""
        entry = _SHARED.get(id(catalog))
        if entry is None or entry[0] is not catalog:  # the catalog is kept with its results: its id stays its own
            if len(_SHARED) >= 4:
                _SHARED.pop(next(iter(_SHARED)))
            entry = _SHARED[id(catalog)] = (catalog, cls(catalog))
        return entry[1]

    def planned(self, plan: Plan, base_dir: Path | None) -> tuple[PlanResult, Build | None]:
        """The plan's result and the build the scenario shows for it (:func:`shown_build`)."""
        key = (plan.model_dump_json(), str(base_dir))
        if key not in self._kept:
            if len(self._kept) >= self.limit:
                self._kept.pop(next(iter(self._kept)))
            result = plan_service(plan, self.catalog, base_dir)
            self._kept[key] = (result, shown_build(plan, result, self.catalog, base_dir))
        return self._kept[key]


def shown_build(plan: Plan, result: PlanResult, catalog: Catalog, base_dir: Path | None) -> Build | None:
    """The build the scenario shows and a visitor takes home: the first node type of the first ranked fleet,
    with the classes routed to it as jobs (the planner's "Open as build"); None without a fleet."""
    if not result.fleets or not result.fleets[0].nodes:
        return None
    fleet = result.fleets[0]
    return node_build(plan, fleet, fleet.nodes[0].node, catalog, base_dir)


def mig_profiles(plan: Plan, node: str, card_id: str, catalog: Catalog) -> set[str]:
    """The MIG profiles the plan lets ``node``'s cards use: its ``mig_layouts``, presets read from the card."""
    spec = next((n for n in plan.nodes if n.name == node), None)
    mig = catalog.cards[card_id].mig if card_id in catalog.cards else None
    if spec is None or mig is None:
        return set()
    out: set[str] = set()
    for entry in spec.mig_layouts:
        out.update(mig.presets.get(entry, []) if isinstance(entry, str) else entry)
    return out


# ---- figures ------------------------------------------------------------------------------------------------


def _gb(value: float | None, digits: int, unit: str) -> str:
    return "?" if value is None else f"{to_unit(value, unit):,.{digits}f} {unit}"


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


class _Reader:
    """One plan result, indexed for the figures: devices by id, cells by class."""

    def __init__(self, result: PlanResult, catalog: Catalog) -> None:
        self.result = result
        self.catalog = catalog
        self.devices: dict[str, DeviceInfo] = {d.id: d for d in result.devices}

    def card(self, device: DeviceInfo) -> str:
        spec = self.catalog.cards.get(device.card)
        return short_name(spec.name) if spec is not None else device.card

    def cells(self, job_class: str, node: str | None = None) -> list[tuple[FitCell, DeviceInfo]]:
        out = []
        for c in self.result.matrix:
            d = self.devices.get(c.device)
            if c.job_class == job_class and d is not None and (node is None or d.node == node):
                out.append((c, d))
        return out

    def whole(self, job_class: str, node: str) -> tuple[FitCell, DeviceInfo] | None:
        return next(((c, d) for c, d in self.cells(job_class, node) if d.kind == "card"), None)


def _none(spec: PlanFigureSpec, why: str) -> Figure:
    return Figure(None, "—", why, "unknown", words="No answer from the planner" if spec.kind == "fleet" else "")


def _fleet(spec: PlanFigureSpec, r: _Reader, unit: str) -> Figure:
    res = r.result
    if not res.fleets:
        return _none(spec, "no fleet of these servers serves the plan")
    f = res.fleets[0]
    t = f.totals
    if t.cost_per_job is not None:  # ranked by cost per job where prices are known, else cards then energy
        per_job, ranked_by = f"{res.currency or ''} {t.cost_per_job:,.2f} a job".strip(), "cost per job"
    else:
        per_job = "?" if t.kwh_per_job is None else f"{t.kwh_per_job:,.1f} kWh a job"
        ranked_by = "cards, then energy per job"
    words = {"fleet": f.label, "candidates": f"{res.search.candidates:,}", "per_job": per_job,
             "ranked_by": ranked_by, "month": str(res.size_for_month), "months": str(res.months)}  # fmt: skip
    status, line = f.roadmap_verdict  # the planner's verdict over the roadmap
    return Figure(float(t.nodes), _count(t.nodes, "server", "servers"), spec.label.format(**words), status, line)


def _fits(spec: PlanFigureSpec, r: _Reader, unit: str) -> Figure:
    assert spec.job_class is not None
    one, other = (r.whole(spec.job_class, n) for n in spec.nodes)
    if one is None or other is None or one[0].peak_gb is None:
        return _none(spec, f"the planner could not size the {spec.job_class}")
    (c1, d1), (c2, d2) = one, other
    words = {"class": spec.job_class, "card": r.card(d1), "capacity": _gb(c1.capacity_gb, 1, unit),
             "verdict": VERDICT[c1.status], "other": r.card(d2), "other_capacity": _gb(c2.capacity_gb, 1, unit),
             "other_verdict": VERDICT[c2.status]}  # fmt: skip
    return Figure(c1.peak_gb, _gb(c1.peak_gb, spec.digits, unit), spec.label.format(**words), c1.status)


def _estimate(estimated: bool) -> str:
    """How a cell's time or a MIG gain was had, in one word: the engine's estimate ("est.", also a gain with one of
    its two times measured: the engine says which), or measurements the plan imports."""
    return "est." if estimated else "measured"


def _tenants(spec: PlanFigureSpec, r: _Reader, plan: Plan, unit: str) -> Figure:
    assert spec.job_class is not None
    node = spec.nodes[0]
    whole = r.whole(spec.job_class, node)
    if whole is None:
        return _none(spec, f"the planner could not size the {spec.job_class}")
    allowed = mig_profiles(plan, node, whole[1].card, r.catalog)
    mig = [(c, d) for c, d in r.cells(spec.job_class, node) if d.kind == "mig" and c.fits and d.profile in allowed]
    c, d = max(mig, key=lambda cd: (cd[0].devices_per_card, -cd[1].memory_gb), default=whole)
    n = round(c.devices_per_card)
    per_day = "?" if c.jobs_per_day_per_card is None else f"{c.jobs_per_day_per_card:,.1f}"
    gain = "?" if c.mig_gain is None else f"{c.mig_gain:.2f}×"
    words = {"class": spec.job_class, "card": r.card(d), "profile": d.profile or "whole card",
             "capacity": _gb(c.capacity_gb, 1, unit), "peak": _gb(c.peak_gb, 1, unit), "per_day": per_day,
             "gain": gain, "estimate": _estimate(c.estimated)}  # fmt: skip
    label = spec.label if d.kind == "mig" or spec.whole_label is None else spec.whole_label
    return Figure(float(n), _count(n, "tenant", "tenants"), label.format(**words), c.status)


def _cards(spec: PlanFigureSpec, r: _Reader, unit: str) -> Figure:
    """The fewest cards that hold the job's peak (fits or tight) per node type, and the group it is planned on."""
    assert spec.job_class is not None
    held: dict[str, int] = {}
    planned: dict[str, str] = {}
    peak: float | None = None
    for c, d in r.cells(spec.job_class):
        if d.kind == "mig":
            continue
        if d.kind == "card":
            peak = c.peak_gb
        holds = c.peak_gb is not None and c.capacity_gb is not None and c.peak_gb <= c.capacity_gb
        if holds and d.cards < held.get(d.node, 1 << 30):
            held[d.node] = d.cards
        if c.fits and d.node not in planned:
            planned[d.node] = f"{d.cards} × {r.card(d)}"
    if not held:
        return _none(spec, f"no group of cards holds the {spec.job_class}")
    n = min(held.values())
    cards = {d.node: r.card(d) for d in r.devices.values()}
    at_n = [cards[node] for node, k in held.items() if k == n]
    kinds = ("either kind" if len(at_n) == 2 else "every kind") if len(at_n) == len(cards) > 1 else " or ".join(at_n)
    words = {"class": spec.job_class, "peak": _gb(peak, 1, unit), "kinds": kinds,
             "planned": " or ".join(planned.values()) or "no group"}  # fmt: skip
    return Figure(float(n), _count(n, "card", "cards"), spec.label.format(**words), "fits" if planned else "tight")


def _class(r: _Reader, name: str) -> ClassInfo | None:
    return next((c for c in r.result.classes if c.name == name), None)


def _wait(spec: PlanFigureSpec, r: _Reader) -> Figure:
    """The class's wait at the busiest hour in the first ranked fleet: the p95 as the number, its status the
    p95 target's verdict; an unstable peak hour shows as unstable, never as a wait."""
    assert spec.job_class is not None
    c = _class(r, spec.job_class)
    if c is None or not c.routed_to:
        return _none(spec, f"the first fleet does not run the {spec.job_class}")
    target = "no target" if c.wait_target_hours is None else f"{c.wait_target_hours:g} h"
    peak = f"{r.result.peak_factor:.1f}×"
    if c.peak_unstable:
        words = {"class": spec.job_class, "mean": "unbounded", "p95": "unbounded", "target": target,
                 "verdict": "not met: the queue grows", "peak": peak}  # fmt: skip
        return Figure(None, "unstable", spec.label.format(**words), "does-not-fit")
    if c.wait_mean_h is None or c.wait_p95_h is None:
        return _none(spec, f"no wait for the {spec.job_class}")
    verdict = "no target" if c.wait_target_met is None else ("met" if c.wait_target_met else "not met")
    words = {"class": spec.job_class, "mean": f"{c.wait_mean_h:.2f} h", "p95": f"{c.wait_p95_h:.2f} h",
             "target": target, "verdict": verdict, "peak": peak}  # fmt: skip
    status = "tight" if c.wait_target_met is False else "fits"
    return Figure(c.wait_p95_h, f"{c.wait_p95_h:.2f} h", spec.label.format(**words), status)


def _mig_gain(spec: PlanFigureSpec, r: _Reader) -> Figure:
    """Jobs per card-day with MIG over without, on the profile the planner reports for the class."""
    assert spec.job_class is not None
    c = _class(r, spec.job_class)
    if c is None or c.mig_gain is None or c.mig_gain_device is None:
        return _none(spec, f"no MIG instance holds the {spec.job_class}")
    dev = r.devices.get(c.mig_gain_device)
    basis = c.mig_gain_basis_words
    words = {"class": spec.job_class, "gain": f"{c.mig_gain:.2f}×", "profile": (dev.profile if dev else None) or "?",
             "card": r.card(dev) if dev else "?", "basis": basis or "",
             "estimate": _estimate(c.mig_gain_estimated)}  # fmt: skip
    return Figure(c.mig_gain, f"{c.mig_gain:.2f}×", spec.label.format(**words), c.mig_gain_status or "tight")


def _mix(kinds: list[str]) -> str:
    """A fleet's server kinds, short: 'RTX PRO 6000 server alone', 'RTX PRO 6000 server + HGX H100' (the
    planner's sentence says 'only' and 'a mix of', engine/planner/explain.py)."""
    if not kinds:
        return "no servers"
    return f"{kinds[0]} alone" if len(kinds) == 1 else " + ".join(kinds)


def _reversal(spec: PlanFigureSpec, r: _Reader) -> Figure:
    """The roadmap month at which the recommended servers change, with the planner's sentence ({reversal}) and
    a kiosk's short form of it ({summary}): the same fields, in fewer words. The change need not last: the
    planner also says which servers are best by the month the fleet is sized for (Reversal.sized), and so does
    the short form; it never says "from then on" where the planner does not."""
    rec = r.result.recommendation
    rev = rec.reversal if rec is not None else None
    if rev is None:
        return _none(spec, "no fleet serves the plan")
    month = rev.month or 0
    number = f"Month {rev.month}" if rev.month else ("No change" if rev.settled else "Not searched")
    last = r.result.size_for_month
    if rev.month is None:
        summary = f"{_mix(rev.after)} stays best all roadmap long" if rev.settled else (
            "the roadmap was not searched")  # fmt: skip
    else:
        why = f"{rev.job_class} arrives" if rev.job_class else "demand grows"
        summary = f"{why}: {_mix(rev.after)} is best"
        if rev.undone_by_sizing:
            summary += f"; by month {last}, {_mix(rev.sized)}{' again' if rev.sized_as_before else ''}"
    words = {"reversal": rev.words, "month": str(rev.month) if rev.month else "none", "summary": summary}
    return Figure(float(month), number, spec.label.format(**words), "tight" if rev.month else "fits")


def read_plan_figure(spec: PlanFigureSpec, plan: Plan, result: PlanResult, catalog: Catalog,
                     unit: str = "GB") -> Figure:  # fmt: skip
    """One plan figure from the planner's result for ``plan`` (the visitor's plan, so MIG and the servers the
    fleet may buy are the visitor's). ``unit``: the display unit a GB figure is shown in."""
    r = _Reader(result, catalog)
    if spec.kind == "fleet":
        return _fleet(spec, r, unit)
    if spec.kind == "fits":
        return _fits(spec, r, unit)
    if spec.kind == "tenants":
        return _tenants(spec, r, plan, unit)
    if spec.kind == "wait":
        return _wait(spec, r)
    if spec.kind == "mig_gain":
        return _mig_gain(spec, r)
    if spec.kind == "reversal":
        return _reversal(spec, r)
    return _cards(spec, r, unit)
