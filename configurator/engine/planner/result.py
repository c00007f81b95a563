"""The planner's output: one immutable pydantic model the CLI, a window and the PDF section all read.

GB = 10^9 bytes; hours are wall-clock hours; money is in ``PlanResult.currency`` (None when no price is
known, and then every cost is None rather than a guess).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from configurator.engine.model.result import FitStatus
from configurator.engine.planner.packing import Packing

DeviceKind = Literal["card", "mig", "group"]


ENGINE = "engine"


def months_phrase(months: int) -> str:
    """'an 18-month', 'a 12-month': the article as the number is spoken (eight, eleven, eighteen, eighty-...)."""
    spoken_vowel = str(months).startswith("8") or months in (11, 18)
    return f"{'an' if spoken_vowel else 'a'} {months}-month"


def is_estimate(basis: str | None) -> bool:
    """A cell's time is the engine's estimate: its basis is "engine" (or unset), not a measurement the plan
    imports. The one rule every view labels a cell "estimate" by (a MIG gain's: GainBasis.estimated)."""
    return (basis or ENGINE) == ENGINE


class GainBasis(NamedTuple):
    basis: str  # in words: "engine", the measurement that set the ratio, or each cell's part
    estimated: bool  # rests on the engine's estimate, in whole or in part


def mig_gain_basis(slice_basis: str, whole_basis: str, ratio_basis: str | None = None) -> GainBasis:
    """What a MIG gain rests on, from both cells it divides (the slice's and the whole card's of the node type): the
    one rule the planner's cells and classes take their gain's basis by.

    ``ratio_basis``: a slice time a measurement set relative to the whole card's (measurements.apply_to_cells)
    gives the gain that ratio's basis: the engine's slice-over-card ratio applied to a measured whole card is the
    engine's gain still (the measurement cancels out of it), SM_ACTIVE on a whole card sets it. Otherwise the gain
    is the engine's where both times are, measured where both are ("slice ...; whole card ..."), and a mix names
    its measured part and its engine estimate and counts as an estimate."""
    if ratio_basis is not None:
        return GainBasis(ratio_basis, is_estimate(ratio_basis))
    slice_est, whole_est = is_estimate(slice_basis), is_estimate(whole_basis)
    if slice_est and whole_est:
        return GainBasis(ENGINE, True)
    if slice_est:
        return GainBasis(f"slice engine estimate, whole card {whole_basis}", True)
    if whole_est:
        return GainBasis(f"slice {slice_basis}, whole card engine estimate", True)
    return GainBasis(f"slice {slice_basis}; whole card {whole_basis}", False)


def mig_gain_tag(basis: str | None) -> str:
    """The short tag beside a MIG gain wherever it is shown: "engine estimate", or what it rests on."""
    return "engine estimate" if is_estimate(basis) else str(basis)


class Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class PlanProblem(Out):
    severity: Literal["error", "warning", "info"]
    code: str
    field: str = ""  # the plan field it concerns, e.g. "nodes[1].card"
    message: str


class ClassInfo(Out):
    name: str
    model: str
    model_name: str
    method: str
    parameters: int
    objective: str = "sft"  # sft, dpo, grpo, ppo
    tokens_per_job: float
    jobs_per_day: float  # in the month the search sizes for
    # what the plan gave: jobs a day in the class's first month, grown by growth_per_month a month from then on;
    # None where the plan gives the roadmap month by month (jobs_per_day_by_month)
    jobs_per_day_input: float | None = None
    growth_per_month: float = 0.0
    wait_target_hours: float | None  # the p95 of the wait in the peak hour must not exceed it
    from_month: int
    # the recommended fleet (ranked first) at the peak hour: mean and p95 of the wait for a device, in hours;
    # None where the class is not served, or where the peak hour is unstable (peak_unstable: the queue grows)
    wait_mean_h: float | None = None
    wait_p95_h: float | None = None
    peak_unstable: bool = False
    wait_target_met: bool | None = None
    # jobs per card-day with MIG over without: the best MIG profile of the node type that runs the class in the
    # recommended fleet (or else of any node type with MIG), against the whole card of that node type
    mig_gain: float | None = None
    mig_gain_device: str | None = None
    # what the gain rests on, from both its cells (mig_gain_basis above): "engine"; the measurement that set the
    # ratio; "slice ...; whole card ..." where both are measured; or a mix, "slice ..., whole card engine estimate"
    mig_gain_basis: str | None = None
    # the gain rests on the engine's estimate, in whole or in part (mig_gain_basis's GainBasis.estimated)
    mig_gain_estimated: bool = True
    # the MIG device of mig_gain is the full-card instance (all the card's compute as one instance): no MIG gain in
    # the sense of more tenants, only the one instance holds the class
    mig_gain_full_card: bool = False
    routed_to: list[str] = []  # devices of the recommended fleet that run it (wait_p95_h: the worst of them)
    cards_per_job: int | None = None  # the fewest cards one job of the class takes where it is routed

    @property
    def mig_gain_basis_words(self) -> str | None:
        """What the MIG gain rests on, in words: the engine's time on the slice, or the measurements (and the
        engine's part of a mix) that set it (the planner's sentence and the kiosk's figure say it alike)."""
        if self.mig_gain is None:
            return None
        return "the engine's time on the slice" if is_estimate(self.mig_gain_basis) else str(self.mig_gain_basis)

    @property
    def mig_gain_tag(self) -> str | None:
        """The short tag beside the figure wherever it is shown: "engine estimate", or what the gain rests on."""
        return None if self.mig_gain is None else mig_gain_tag(self.mig_gain_basis)

    @property
    def mig_gain_status(self) -> Literal["fits", "tight"] | None:
        """Whether MIG pays for the class: more jobs per card-day than whole cards ("fits"), or not ("tight");
        None where no MIG instance holds it."""
        return None if self.mig_gain is None else ("fits" if self.mig_gain > 1 else "tight")


class DeviceInfo(Out):
    id: str  # "RTX PRO 6000 node / 1g.24gb"
    node: str  # node type name
    card: str  # catalog id
    kind: DeviceKind
    profile: str | None = None  # MIG profile
    cards: int = 1  # cards a job holds (a group's size)
    memory_gb: float  # per card or instance, as the driver shows it
    compute_share: float  # of one card: a MIG instance's SMs over the card's (engine/mig/layout.py profile_shares)
    card_fraction: float  # of one card's cost a device takes: max(compute share, grid share) x cards


class FitCell(Out):
    job_class: str
    device: str
    status: FitStatus  # memory engine's verdict
    fits: bool  # plannable: "fits" (or "tight" with service.accept_tight)
    peak_gb: float | None = None  # per card, peak reserved
    capacity_gb: float | None = None
    step_seconds: float | None = None
    service_hours: float | None = None  # one job, start to end; None when no compute rate is known
    jobs_per_day_per_device: float | None = None  # at the utilisation target and hours of operation
    # tenants one card holds at once: 1 for a whole card, the most instances of the profile a valid layout
    # places (4 x 1g.24gb on an RTX PRO 6000), 1 / cards for a group
    devices_per_card: float = 1.0
    jobs_per_day_per_card: float | None = None  # jobs_per_day_per_device x devices_per_card
    devices_needed: int | None = None  # for the class's demand in the sizing month (Erlang C where a target)
    mean_wait_hours: float | None = None  # M/M/c mean wait with devices_needed devices
    cost_per_job: float | None = None  # on this device alone: S x device cost per hour / U + busy energy
    estimated_rate: bool = False  # compute time uses the catalog's UNCONFIRMED estimate
    note: str | None = None
    wait_p95_hours: float | None = None  # the p95 wait in the peak hour with devices_needed devices
    # a MIG instance's jobs per card-day over the whole card's on the same node type (None on other devices)
    mig_gain: float | None = None
    basis: str = "engine"  # where service_hours comes from: "engine", or the measurement that replaced it
    # what mig_gain rests on, from this cell and the whole card's (mig_gain_basis above); None where no gain
    mig_gain_basis: str | None = None
    mig_gain_estimated: bool | None = None  # the gain rests on the engine's estimate, in whole or in part
    # service_hours is the engine's lower bound (a model given by its parameter count only: attention FLOPs left
    # out); False where a measurement set the time
    lower_bound: bool = False

    @property
    def estimated(self) -> bool:
        """What the cell shows rests on the engine's estimate: its MIG gain where it has one, else its time."""
        return is_estimate(self.basis) if self.mig_gain_estimated is None else self.mig_gain_estimated

    @property
    def mig_gain_tag(self) -> str | None:
        """The short tag beside the cell's MIG gain: "engine estimate", or what the gain rests on."""
        return None if self.mig_gain is None else mig_gain_tag(self.mig_gain_basis)


class Totals(Out):
    nodes: int
    cards: int
    power_kw: float  # IT power at every card's default power limit plus the chassis platform
    facility_kw: float  # x PUE
    idle_kw: float | None = None  # IT power with no job running (measured idle draw); None: not known
    racks: int | None = None  # at service.rack_kw per rack: whole nodes, one node type per rack
    energy_kwh_per_month: float  # idle for every operating hour plus the routed jobs' busy energy, x PUE
    capital: float | None = None
    capital_per_month: float | None = None  # straight-line over the service life
    energy_cost_per_month: float | None = None  # None when no power price is given
    kwh_per_job: float | None = None
    cost_per_month: float | None = None
    jobs_per_month: float
    cost_per_job: float | None = None


class Route(Out):
    job_class: str
    device: str  # where the class runs ("" when nowhere)
    devices: int  # devices given to the class
    share: float  # fraction of the class's jobs sent there
    service_hours: float | None = None
    mean_wait_hours: float | None = None  # in the peak hour (M/M/c); None when unstable
    cost_per_job: float | None = None
    wait_p95_hours: float | None = None  # in the peak hour; None when unstable
    peak_unstable: bool = False  # the peak hour's load reaches the devices: the queue grows through it
    lower_bound: bool = False  # service_hours is the engine's lower bound (FitCell.lower_bound)


class DeviceUse(Out):
    node: str
    card: str
    cards: int
    busy_card_hours_per_day: float
    capacity_card_hours_per_day: float
    utilisation: float  # busy / capacity


class MonthPoint(Out):
    month: int
    demand_card_hours_per_day: float  # the work routed, in card-hours (a 1g of four is a quarter card)
    capacity_card_hours_per_day: float
    fits_largest: bool  # every class has a device in the fleet that holds it
    enough_capacity: bool
    unserved: list[str] = []  # classes that do not fit, or have too few devices


class NodeCount(Out):
    node: str
    count: int
    cards_per_node: int
    mig_layout: list[str] = []  # the layout of the MIG'd cards; empty: whole cards
    mig_cards_per_node: int = 0


class FleetResult(Out):
    rank: int
    label: str
    nodes: list[NodeCount]
    feasible: bool  # every class fits and has capacity in the sizing month
    totals: Totals
    routes: list[Route]
    use: list[DeviceUse]
    packing: list[Packing] = []  # MIG instances the routing uses, packed onto valid layouts
    stops_fitting_month: int | None = None  # first roadmap month a class fits no device of the fleet
    out_of_capacity_month: int | None = None  # first roadmap month the fleet lacks devices
    months: list[MonthPoint] = []
    unserved: list[str] = []
    ranked_by: str = ""  # what ranks it: cost per job, or without prices cards then energy per job
    kinds: list[str] = []  # the node types it buys
    # the label in fewer characters, for a legend: '12×RTX (2 of 8 each as 4×1g.24gb)' (fleet_result.fleet_label)
    short_label: str = ""

    @property
    def roadmap_verdict(self) -> tuple[Literal["fits", "tight", "does-not-fit"], str]:
        """The fleet's status over the roadmap and the sentence that says why: the first problem the roadmap
        meets (a class it stops fitting, or too few devices) is the one to tell; none: it keeps up."""
        if not self.feasible:
            return "does-not-fit", f"Cannot serve {', '.join(self.unserved)}"
        stops, full = self.stops_fitting_month, self.out_of_capacity_month
        if stops is not None and (full is None or stops <= full):
            return "tight", f"Stops fitting the largest job in month {stops}"
        if full is not None:
            return "tight", f"Runs out of capacity in month {full}"
        return "fits", f"Keeps up for all {len(self.months)} months"


class Alternative(Out):
    """The best fleet of one mix of server kinds (each kind alone, and every mix the search tried)."""

    kinds: list[str]
    label: str
    feasible: bool
    cost_per_job: float | None = None
    kwh_per_job: float | None = None
    cards: int
    nodes: int


class Reversal(Out):
    """Where the recommended fleet changes along the roadmap, and the job class that makes it change."""

    month: int | None  # first roadmap month whose best fleet buys other server kinds; None: no change
    job_class: str | None = None
    before: list[str] = []  # server kinds recommended before that month
    after: list[str] = []
    words: str
    settled: bool = True  # False: the search was too large to search again at the other months
    # server kinds best at the sizing month, the recommended fleet's: the change at ``month`` need not last there
    sized: list[str] = []

    @property
    def undone_by_sizing(self) -> bool:
        """The change does not last: by the sizing month the best fleet buys other kinds than ``after``."""
        return self.month is not None and bool(self.sized) and self.sized != self.after

    @property
    def sized_as_before(self) -> bool:
        """By the sizing month the kinds best before the change are best again."""
        return self.undone_by_sizing and self.sized == self.before


class Recommendation(Out):
    fleet: str
    # False: no fleet within the search's bounds serves the sizing month; ``fleet`` is then the search's nearest,
    # not a recommendation, and ``why`` says what to raise
    serves: bool = True
    ranked_by: str
    why: list[str]  # what drives the ranking, in words a platform team reads
    alternatives: list[Alternative] = []  # pure fleets beside mixed ones, best first
    reversal: Reversal | None = None
    # seed B's criterion as sizes: the largest model one card of each node type holds, per training method
    one_card: list[str] = []
    # the rule of thumb that full fine-tuning above roughly 13B reverses the choice of server: tested (reached or
    # not, with the class's time and cost a job on each node type) or not tested, in words
    full_ft_test: str = ""


class SlowMix(Out):
    """The best fleet of one server mix (the search's, at the engine's times) grown in its proportions until it
    serves every class within its p95 target at the slow end of the step-time band."""

    kinds: list[str]
    fleet: str  # label at the slow end; "" where no count up to the bound serves
    servers: int | None  # None: not within the bound
    cost_per_job: float | None = None  # at the slow end (None without prices)


class SlowEnd(Out):
    """The recommended fleet at the slow end of the engine's step-time band (specs/steptime-band.yaml): every
    service time that is the engine's x ``factor``; a time an imported measurement set stays as measured."""

    factor: float  # the band's high end: actual step time over the engine's
    low: float  # the band's low end
    basis: str  # what the band rests on, in words (StepBandFile.basis)
    scaled: int  # cells (class x device) whose engine time was scaled
    measured: int  # cells whose time a measurement set, kept as measured
    # classes scaled alike though the engine gives their time no band of its own (parameter count only, the
    # utilisation model, RL: evaluate_job._step_band)
    unbanded: list[str] = []
    servers: int  # the recommended fleet's servers
    # the recommended fleet as bought, at the slow end: every class served within its p95 wait target
    targets_met: bool
    short: list[str] = []  # classes it then leaves without capacity within their target (its routing's order)
    # the fewest servers of the recommended fleet's own mix (same node types, MIG layouts and MIG'd cards per node,
    # counts in its proportions) that serve every class within its p95 target at the slow end; None: not within
    # ``grown_up_to`` servers (the search's nodes[].max_nodes do not bound it: over_bounds names the types it
    # exceeds)
    servers_needed: int | None
    fleet_needed: str | None = None  # that fleet's label
    needed_cost_per_job: float | None = None  # that fleet's at the slow end (None without prices)
    over_bounds: list[str] = []  # node types of it over nodes[].max_nodes
    over_bounds_max_nodes: list[int] = []  # their nodes[].max_nodes, in over_bounds' order
    # the most servers the mix was grown to at the slow end (0: not grown, the fleet as bought keeps its targets)
    grown_up_to: int = 0
    # the best fleet of each server mix the search found, grown the same way, best first by the search's ranking:
    # not a second search (too slow for a re-plan), so a mix whose best fleet changes shape at the slow end may rank
    # better than shown
    mixes: list[SlowMix] = []
    words: str = ""

    @property
    def best(self) -> SlowMix | None:
        """The best of ``mixes`` at the slow end."""
        return self.mixes[0] if self.mixes and self.mixes[0].servers is not None else None


class UnitPrice(Out):
    """One price the cost ranking uses, with where it comes from."""

    part: str  # catalog id (card or chassis); the node type's name for a whole-node price (nodes[].price)
    name: str  # in words: the catalog's name, or the node type's
    role: Literal["card", "chassis", "node"]
    price: float  # in PlanResult.currency, one unit
    source: str = ""  # the plan's price_sources entry, "price list <file>", or "" where the plan gives none


class NodeCapital(Out):
    """A node type's capital as the ranking counts it: its platform plus its cards, or its whole-node price."""

    node: str
    chassis: str  # catalog id
    card: str  # catalog id
    cards_per_node: int
    capital: float | None  # None: a part has no price, so no cost is ranked on it


class CostInputs(Out):
    """Every figure the cost ranking rests on, as numbers (cost per job = capital over the service life plus
    energy at the power price x PUE, over the jobs a month), so a reader can check a fleet's cost by hand."""

    currency: str | None
    unit_prices: list[UnitPrice] = []  # the parts the plan's node types buy
    nodes: list[NodeCapital] = []
    power_price_per_kwh: float | None = None  # None: energy has no cost, so no cost per job
    power_price_source: str = ""
    pue: float
    pue_source: str = ""
    service_life_years: float  # capital straight-line over this many years
    utilisation_target: float  # busy fraction planned per device
    hours_per_day: float  # hours of operation
    days_per_month: float
    other_sources: dict[str, str] = {}  # price_sources entries no node type of the plan uses


class SearchStats(Out):
    candidates: int
    feasible: int
    seconds: float
    processes: int


class PlanResult(Out):
    name: str
    currency: str | None
    size_for_month: int
    months: int
    classes: list[ClassInfo]
    devices: list[DeviceInfo]
    matrix: list[FitCell]
    fleets: list[FleetResult]  # ranked by cost per job (feasible first); without prices by cards, then energy
    search: SearchStats
    problems: list[PlanProblem] = []
    notes: list[str] = []
    peak_factor: float = 1.0  # the busiest hour's arrival rate over the mean rate across the operating hours
    recommendation: Recommendation | None = None
    slow_end: SlowEnd | None = None  # the recommended fleet at the slow end of the step-time band
    measurements: list[str] = []  # what each imported measurement file said and what it changed
    price_sources: dict[str, str] = {}
    costs: CostInputs | None = None  # the figures the cost ranking uses, as numbers with their sources

    def cell(self, job_class: str, device: str) -> FitCell:
        for c in self.matrix:
            if c.job_class == job_class and c.device == device:
                return c
        raise KeyError((job_class, device))

    @property
    def errors(self) -> list[PlanProblem]:
        return [p for p in self.problems if p.severity == "error"]
