"""The plan document: a multi-tenant fine-tuning service to size (``*.yaml``, like a build file).

Structural rules (types, ranges, allowed words) live here so a bad plan fails at load with file, line and
field; catalog references (cards, chassis, models, MIG profiles) are checked by the loader
(``planfile.py``) with the line of the offending key. GB = 10^9 bytes; money is in the plan's currency.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from configurator.catalog.currencies import check_currency
from configurator.catalog.limits import MAX_CANDIDATES, MAX_PLAN_CELLS, MAX_PLAN_CLASSES, MAX_PLAN_NODES
from configurator.catalog.sourced import Strict
from configurator.engine.model.build import (
    Assumptions,
    LoraSettings,
    Method,
    Objective,
    Optimizer,
    ParamsOnlyModel,
    Precision,
    RLSettings,
)

PLAN_SCHEMA_VERSION = 1
MAX_MONTHS = 120
MIN_WAIT_TARGET_HOURS = 1 / 60  # one minute
MAX_PART_PRICE = 1e9  # as a price list's (catalog/prices.py MAX_PRICE)
MAX_NODE_PRICE = 1e11  # 64 cards at the part maximum, and the chassis


class ClassMeasurement(Strict):
    """A measurement of one job of the class on one device of a node type.

    ``tokens_per_second`` (the whole job's rate, all its cards together) replaces the engine's service time on
    that device; ``sm_active`` (DCGM_FI_PROF_SM_ACTIVE on a whole card, 0-1) is the share of the card's SMs the
    job keeps busy, which bounds what a MIG slice can gain: a slice with a compute share s runs the job at
    min(1, s / sm_active) of the whole card's rate.
    """

    node: str = Field(min_length=1, max_length=200)  # the node type it ran on
    device: str = Field(default="whole card", min_length=1, max_length=200)  # "whole card", a MIG profile, "2 cards"
    tokens_per_second: float | None = Field(default=None, gt=0, le=1e9)
    sm_active: float | None = Field(default=None, gt=0, le=1)
    source: str = Field(default="measured", max_length=500)

    @model_validator(mode="after")
    def _something(self) -> ClassMeasurement:
        if self.tokens_per_second is None and self.sm_active is None:
            raise ValueError("give tokens_per_second, sm_active, or both")
        if self.sm_active is not None and self.device != "whole card":
            raise ValueError("sm_active is measured on a whole card (device: whole card)")
        return self


class JobClass(Strict):
    """One kind of job the service runs: what one job is, and how many arrive."""

    name: str = Field(min_length=1, max_length=200)
    # catalog id, a path to a Hugging Face config.json (relative to the plan), or {parameters: 30e9}
    model: str | ParamsOnlyModel
    method: Method = "lora"
    lora: LoraSettings = LoraSettings()
    # sft, or preference / RL post-training (engine/memory/rl.py): the models each keeps, generation and its time
    objective: Objective = "sft"
    rl: RLSettings = RLSettings()
    quantization: Literal["nf4-dq", "nf4"] = "nf4-dq"
    optimizer: Optimizer = "adamw"
    precision: Precision = "mixed-bf16"
    sequence_length: int = Field(default=2048, ge=1, le=2_097_152)
    micro_batch_size: int = Field(default=1, ge=1, le=4096)
    gradient_accumulation_steps: int = Field(default=1, ge=1, le=65536)
    gradient_checkpointing: bool = True
    attention: Literal["sdpa", "flash", "eager"] = "sdpa"
    # the class's batches are padded and the mask reaches the model (Job.padded_batches: SDPA's masked kernel)
    padded_batches: bool = False
    activation_memory_gb: float | None = Field(default=None, ge=0, le=10_000)
    # how a class that needs more than one card splits over a group of cards in one node
    multi_card_parallelism: Literal["fsdp", "ddp", "tp"] = "fsdp"
    # the size of one job: tokens processed (epochs x dataset tokens), or optimizer steps of
    # sequence_length x micro_batch_size x gradient_accumulation_steps tokens each
    tokens_per_job: float | None = Field(default=None, gt=0, le=1e15)
    steps: int | None = Field(default=None, ge=1, le=100_000_000)
    jobs_per_day: float | None = Field(default=None, ge=0, le=1_000_000)  # arrivals per day in its first month
    # or the roadmap month by month: arrivals per day in months 1, 2, ... (the last value holds after the list)
    jobs_per_day_by_month: list[Annotated[float, Field(ge=0, le=1_000_000)]] | None = Field(
        default=None, min_length=1, max_length=MAX_MONTHS
    )
    # optional: the time 95 % of jobs start within in the peak hour (Erlang C sizing, p95 of the wait)
    # at least a minute: a 1e-300 h target sized the fleet for ever (the planner window stayed on "planning…")
    wait_target_hours: float | None = Field(default=None, ge=MIN_WAIT_TARGET_HOURS, le=10_000)
    # measured throughput of this class, overriding the engine's time on the devices it names
    measured: list[ClassMeasurement] = Field(default=[], max_length=64)
    from_month: int = Field(default=1, ge=1, le=MAX_MONTHS)  # first roadmap month the class exists
    # compound monthly growth of jobs_per_day; None: the roadmap's growth_per_month
    growth_per_month: float | None = Field(default=None, ge=-0.9, le=10)

    @model_validator(mode="after")
    def _generation_on_its_cards(self) -> JobClass:
        # a vLLM server on cards of its own (rl.generation_cards) names slots of a build; the planner sizes a class
        # on the cards it places it on, so those cards would be neither counted nor timed: refused by name
        if self.objective in ("grpo", "ppo") and self.rl.generation == "vllm-server":
            raise ValueError(
                f"class '{self.name}': generation on a vLLM server of its own cards (vllm-server) cannot be planned: "
                "the planner places a class on its training cards only, so the server's cards would be neither "
                "counted nor timed. Use vllm-colocate (vLLM on the training cards) or transformers."
            )
        return self

    @model_validator(mode="after")
    def _one_size(self) -> JobClass:
        if (self.tokens_per_job is None) == (self.steps is None):
            raise ValueError("give the size of one job as either tokens_per_job or steps (one of them)")
        if (self.jobs_per_day is None) == (self.jobs_per_day_by_month is None):
            raise ValueError("give the demand as either jobs_per_day or jobs_per_day_by_month (one of them)")
        return self

    @property
    def tokens_per_step(self) -> int:
        return self.sequence_length * self.micro_batch_size * self.gradient_accumulation_steps

    @property
    def job_tokens(self) -> float:
        return self.tokens_per_job if self.tokens_per_job is not None else float(self.steps or 0) * self.tokens_per_step


class NodeType(Strict):
    """A kind of server the fleet may buy: a build file, or a chassis filled with one card type."""

    name: str = Field(min_length=1, max_length=200)
    build: str | None = None  # path to a build file (relative to the plan): its chassis, cards, bridges, MIG
    chassis: str | None = None
    card: str | None = None
    cards_per_node: int | None = Field(default=None, ge=1, le=64)  # default: every GPU position of the chassis
    # MIG layouts the search may give this node's cards: profile lists, or a card preset name ("all-1g")
    mig_layouts: list[list[str] | str] = []
    max_nodes: int = Field(default=8, ge=0, le=10_000)  # search bound for this node type
    price: float | None = Field(default=None, ge=0, le=MAX_NODE_PRICE)  # the whole node, overriding chassis + cards

    @model_validator(mode="after")
    def _one_source(self) -> NodeType:
        if self.build is None and (self.chassis is None or self.card is None):
            raise ValueError("give either build: PATH, or chassis and card")
        if self.build is not None and (self.chassis is not None or self.card is not None):
            raise ValueError("give either build: PATH, or chassis and card, not both")
        return self


class Service(Strict):
    """How the service runs and what it costs to run."""

    # plausible lower bounds: a 1e-300 utilisation or hour count printed 300-digit fleet sizes and costs
    utilisation_target: float = Field(default=0.7, ge=0.01, le=1)  # U: busy fraction planned per device
    hours_per_day: float = Field(default=24, ge=0.1, le=24)  # H: hours of operation per day
    days_per_month: float = Field(default=30.4, ge=1, le=31)  # 365 / 12 = 30.4
    service_life_years: float = Field(default=4, ge=0.1, le=30)  # capital amortised straight-line over this
    power_price_per_kwh: float | None = Field(default=None, ge=0, le=100)  # None: unknown, so no cost
    pue: float = Field(default=1.0, ge=1, le=5)  # facility power / IT power (The Green Grid's PUE)
    rack_kw: float | None = Field(default=None, ge=0.1, le=1000)  # power a rack may draw, for a rack count
    # The daily profile of arrivals: the busiest hour's arrivals over the day's mean hourly rate, or the
    # arrivals' weights hour by hour (24 values, any scale). None of either: arrivals even over hours_per_day.
    peak_hour_factor: float | None = Field(default=None, ge=1, le=24)
    hourly_arrivals: list[Annotated[float, Field(ge=0, le=1e9)]] | None = Field(
        default=None, min_length=24, max_length=24
    )

    @model_validator(mode="after")
    def _one_profile(self) -> Service:
        if self.peak_hour_factor is not None and self.hourly_arrivals is not None:
            raise ValueError("give the daily profile as peak_hour_factor or hourly_arrivals, not both")
        if self.hourly_arrivals is not None and not sum(self.hourly_arrivals) > 0:
            raise ValueError("hourly_arrivals: at least one hour has arrivals")
        return self

    @property
    def peak_share(self) -> float | None:
        """The fraction of a day's arrivals that come in its busiest hour; None without a daily profile."""
        if self.hourly_arrivals is not None:
            return max(self.hourly_arrivals) / sum(self.hourly_arrivals)
        if self.peak_hour_factor is not None:
            return min(1.0, self.peak_hour_factor / self.hours_per_day)
        return None

    @property
    def peak_factor(self) -> float:
        """The busiest hour's arrival rate over the mean rate across the hours of operation."""
        share = self.peak_share
        return 1.0 if share is None else share * self.hours_per_day

    accept_tight: bool = False  # count "tight" fits (inside the memory model's uncertainty) as fitting


class IdleDraw(Strict):
    """Measured power a card draws with no job (nvidia-smi "Pwr:Usage" at 0 % utilisation), with its source."""

    watts: float = Field(ge=0, le=2000)
    source: str = Field(min_length=1, max_length=500)


class DcgmRun(Strict):
    file: str = Field(min_length=1, max_length=1000)
    job_class: str = Field(min_length=1, max_length=200)  # the class whose job ran while the fields were exported


class NodeMeasurements(Strict):
    """Files measured on one node type, relative to the plan: ``nvidia-smi mig -lgip`` output, ``lspci -vv``
    output, and DCGM field exports (dcgm-exporter's Prometheus text or ``dcgmi dmon``) of a job class's runs."""

    node: str = Field(min_length=1, max_length=200)
    mig_lgip: str | None = None
    lspci: str | None = None
    dcgm: list[DcgmRun] = Field(default=[], max_length=64)


class Roadmap(Strict):
    months: int = Field(default=18, ge=1, le=MAX_MONTHS)
    growth_per_month: float = Field(default=0.0, ge=-0.9, le=10)  # compound growth of every class's jobs


class Search(Strict):
    size_for_month: int | None = Field(default=None, ge=1, le=MAX_MONTHS)  # default: month 1 (today)
    top: int = Field(default=10, ge=1, le=1000)  # fleets reported in full
    max_candidates: int = Field(default=MAX_CANDIDATES, ge=1, le=MAX_CANDIDATES)
    processes: int | None = Field(default=None, ge=1, le=256)  # default: all cores for large searches


class Plan(Strict):
    schema_version: int = Field(default=PLAN_SCHEMA_VERSION, ge=1, le=PLAN_SCHEMA_VERSION)
    name: str = Field(default="Untitled plan", max_length=200)
    assumptions: Assumptions = Assumptions()  # the build engine's: link and compute rates, MFU
    service: Service = Service()
    currency: str | None = None  # ISO 4217 (catalog/currencies.py); from the price list when not given
    price_list: str | None = None  # seller price list (issue 16 format), relative to the plan
    prices: dict[str, float] = {}  # catalog id (card, chassis) -> price; overrides the price list
    # where each price comes from: catalog id -> "street price, <source>, <date>"
    price_sources: dict[str, Annotated[str, Field(max_length=500)]] = {}
    # measured idle draw per card (catalog id); the shipped table (resources/plans/idle-power.yaml) fills the rest
    idle_power: dict[str, IdleDraw] = {}
    measurements: list[NodeMeasurements] = Field(default=[], max_length=64)
    classes: list[JobClass] = Field(min_length=1, max_length=MAX_PLAN_CLASSES)
    nodes: list[NodeType] = Field(min_length=1, max_length=MAX_PLAN_NODES)
    roadmap: Roadmap = Roadmap()
    search: Search = Search()

    @field_validator("prices")
    @classmethod
    def _non_negative(cls, prices: dict[str, float]) -> dict[str, float]:
        bad = sorted(k for k, v in prices.items() if not 0 <= v <= MAX_PART_PRICE)
        if bad:
            raise ValueError(f"prices must be numbers from 0 to {MAX_PART_PRICE:,.0f}: {', '.join(bad[:10])}")
        return {k: v + 0.0 for k, v in prices.items()}  # -0.0 + 0.0 is 0.0: never "-0.00"

    @field_validator("currency", mode="before")
    @classmethod
    def _iso_currency(cls, value: object) -> object:
        return None if value is None else check_currency(value)

    @model_validator(mode="after")
    def _matrix_size(self) -> Plan:
        devices = sum(1 + len(n.mig_layouts) for n in self.nodes)
        if len(self.classes) * devices > MAX_PLAN_CELLS:
            raise ValueError(f"{len(self.classes)} classes × {devices} devices (node types and their MIG layouts) "
                             f"is more than {MAX_PLAN_CELLS} sizings: plan fewer classes or node types")  # fmt: skip
        return self

    @model_validator(mode="after")
    def _names_once(self) -> Plan:
        for what, names in (("class", [c.name for c in self.classes]), ("node type", [n.name for n in self.nodes])):
            dup = sorted(n for n, k in Counter(names).items() if k > 1)  # one pass (count() per name was n²)
            if dup:
                raise ValueError(f"{what} name(s) {dup} used more than once")
        nodes = {n.name for n in self.nodes}
        for c in self.classes:
            for m in c.measured:
                if m.node not in nodes:
                    raise ValueError(
                        f"class '{c.name}': measured on node type '{m.node}', which the plan does not list"
                    )
        return self
