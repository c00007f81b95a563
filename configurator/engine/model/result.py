"""The engine's output: one immutable pydantic model the CLI, GUI and PDF all read. GB = 10^9 bytes."""

from __future__ import annotations

from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr, computed_field

from configurator.engine.mig.layout import MigSetup
from configurator.engine.model.codes import CheckCode, LinkKind

Severity = Literal["error", "warning", "info"]
FitStatus = Literal["fits", "tight", "does-not-fit", "unknown"]
# Fit statuses ranked worst first: the build's verdict is its worst job's status, and a comparison of two builds
# calls the higher one better. Not sized ranks above does-not-fit: nothing says it cannot fit.
FIT_RANK: dict[str, int] = {"does-not-fit": 0, "unknown": 1, "tight": 2, "fits": 3}


def worst_status(statuses: list[FitStatus]) -> FitStatus:
    """The worst of ``statuses`` by FIT_RANK ("unknown" for none)."""
    return min(statuses, key=FIT_RANK.__getitem__, default="unknown")


class Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class Check(Out):
    severity: Severity
    code: CheckCode
    message: str  # a plain sentence with the fix, in words a buyer understands
    detail: str | None = None  # for the engineer: API calls, settings and sources (a details view shows it)
    slot: int | None = None  # the slot it concerns, for the GUI to select
    job: str | None = None  # the job it concerns


class CardMemory(Out):
    slot: int
    card: str
    card_name: str
    mig: str | None = None  # MIG profile when the job runs in an instance
    instance: int | None = None
    capacity_gb: float  # memory the driver shows (whole card, or the MIG instance)
    capacity_nominal_gb: float  # the product's headline figure (96 GB, 141 GB, a 24 GB slice)
    weights_gb: float
    adapters_gb: float
    gradients_gb: float
    optimizer_gb: float
    activations_gb: float
    transient_gb: float
    overhead_gb: float  # CUDA context + caching-allocator reserve
    model_states_gb: float  # weights + adapters + gradients + optimizer (the seeds' "model states")
    room_for_activations_gb: float  # capacity - model states (the seeds' "left for activations")
    peak_allocated_gb: float  # torch.cuda.max_memory_allocated
    allocator_reserved_gb: float  # torch.cuda.max_memory_reserved
    cuda_context_gb: float
    peak_reserved_gb: float  # allocator pool + CUDA context: what nvidia-smi shows
    peak_low_gb: float  # uncertainty band of peak_reserved from the calibration runs
    peak_high_gb: float
    headroom_gb: float  # capacity - peak reserved
    headroom_nominal_gb: float  # nominal capacity - peak allocated (seed B's simplified "spare")
    fits: bool
    status: FitStatus
    fixed_activation_budget: bool = False
    fsdp_setup_pool_gb: float = 0.0  # allocator pool left from FSDP set-up (0 without FSDP)
    reserved_set_by: Literal["step", "fsdp-setup"] = "step"  # which phase sets allocator_reserved_gb
    # The phase of the run that sets peak reserved: load, wrap, forward, backward-start, backward-end,
    # optimizer-step (engine/memory/estimate.py MemoryBreakdown.phase_reserved)
    peak_phase: str = "backward-start"
    phase_reserved_gb: dict[str, float] = {}  # allocator pool + CUDA context each phase needs
    # What is alive at the peak, by kind (weights, adapters, gradients, optimizer, activations, transient): with
    # overhead_gb they add up to peak_reserved_gb, where the kinds' own fields above are each one's largest over
    # the run and add up to more (MemoryBreakdown.parts_at). Charts stack these; tables may list both.
    at_peak_gb: dict[str, float] = {}
    at_peak_phase: str = "backward-start"  # the phase of peak allocated these parts are of
    # Cross-validated band around peak_reserved_gb (calibration.py: leave-one-source-out errors)
    band_low_gb: float = 0.0
    band_high_gb: float = 0.0
    band_basis: str = ""  # which runs the band comes from (a framework's, all runs, or widened: no measured run)


class Collective(Out):
    name: str  # e.g. "forward all-gather of the frozen base"
    kind: Literal["all-reduce", "all-gather", "reduce-scatter"]
    count_per_step: int  # how many times it runs per optimizer step
    payload_bytes: float  # size of the buffer (S in nccl-tests terms)
    bytes_per_card: float  # what each card sends (and receives) per step: ring factor x payload x count
    link: LinkKind  # the slowest link on the ring
    rate_gb_s: float  # per direction, GB/s
    rate_basis: str  # nominal (datasheet), measured (typical busbw), calibrated (user's nccl-tests), or NVLS
    seconds: float  # count x (latency + bytes / rate)
    latency_s: float = 0.0  # of which NCCL's per-call latency (engine/time/communication.py latency_s)


class Communication(Out):
    collectives: list[Collective] = []
    seconds_per_step: float = 0.0
    bytes_per_card_per_step: float = 0.0
    bound_by: LinkKind | None = None  # the slowest link kind
    ratio_to_compute: float | None = None
    hidden_behind_compute: bool | None = None
    tp_forward_bytes_per_token: float | None = None  # seed B's per-token figure (forward only)
    notes: list[str] = []

    @property
    def all_gather_gb_per_card(self) -> float:
        """What each card receives in all-gathers per optimizer step, in GB (10^9 bytes): FSDP's and ZeRO-3's
        parameter gathers (seed A: 141 GB per card for a 70B LoRA on two cards); 0 without an all-gather."""
        return sum(c.bytes_per_card for c in self.collectives if c.kind == "all-gather") / 1e9

    @property
    def dominates(self) -> bool:
        """Communication takes longer than compute (ratio_to_compute above 1): the step waits on the links
        whatever overlaps, so views flag it."""
        return self.ratio_to_compute is not None and self.ratio_to_compute > 1


class MatmulIntensity(Out):
    name: str
    flops: float
    bytes: float
    intensity: float  # FLOPs per byte
    bound: dict[str, Literal["compute", "memory"]]  # per card id in the job
    # per card id, what bounds it under the roof of the job's low-precision recipe (its dense FP8 / FP4 rate at
    # the card's bandwidth; the roofline places the op there); empty for BF16 compute
    recipe_bound: dict[str, Literal["compute", "memory"]] = {}


class OpTime(Out):
    """One op class of a step (engine/time/steptime/ops.py): its time, FLOPs and bytes, and what bounds it."""

    name: str  # projections, mlp, attention, elementwise, lora, dequant, loss, recompute, optimizer, host
    seconds: float
    flops: float
    bytes: float
    bound: Literal["compute", "memory"]  # host (kernel launches) reads as memory-side: not the tensor cores


class Compute(Out):
    tokens_per_step: int  # tokens each card processes per step (tensor parallel: the group shares them)
    flops_per_step: float  # per card
    matmul_seconds: float | None
    memory_bound_seconds: float | None  # optimizer step, QLoRA dequantisation
    seconds_per_step: float | None
    # RL (DPO / GRPO / PPO): the policy's training passes alone, without generation and the extra passes: what the
    # training's communication overlaps (None: the whole step is training)
    training_seconds: float | None = None
    generation_bound: Literal["memory", "compute", "launch"] | None = None  # RL: the generation round's decode
    utilization: float  # per-op: the achieved model FLOPs utilisation; utilization model: the assumption
    # a model given by its parameter count only: its dense FLOPs at the utilisation constant, attention left out
    # (its shapes are unknown), so the time is a lower bound, and every view says so (present/job_words step_words)
    lower_bound: bool = False
    bf16_tflops: float | None  # of the slowest card in the job (MIG: its share)
    memory_bandwidth_gb_s: float | None = None  # the job's narrowest card memory bandwidth (MIG: its share)
    bf16_rate_estimated: bool = False  # a card's rate is the catalog's UNCONFIRMED estimate (assumptions)
    card_ops_per_byte: dict[str, float] = {}  # ridge per card id at the rate the step uses
    estimated_ridge_cards: list[str] = []  # card ids whose ridge (and matmuls' bound) uses the catalog's estimate
    matmuls: list[MatmulIntensity] = []
    notes: list[str] = []
    # low precision (engine/lowprecision/checks.py): the recipe run, its rate, and the roofline's FP8 / FP4 roofs
    recipe: str | None = None  # None: BF16 compute
    recipe_tflops: float | None = None  # slowest card's dense rate for the recipe
    recipe_peak_matmul_seconds: float | None = None  # matmuls at that peak: a bound, not the prediction
    speedup: float | None = None  # published whole-step speed-up the step time uses (None: unknown or BF16)
    speedup_source: str | None = None
    card_fp8_tflops: dict[str, float] = {}  # per card id, published dense FP8 (the roofline's FP8 roof)
    card_fp4_tflops: dict[str, float] = {}  # per card id, dense FP4 where one is given
    # the per-op model (issue 24): which model timed the step, its split by op class, whether kernel launches
    # (the host) bound it, and the cards whose rate is an estimate (labelled "estimated" wherever shown)
    step_model: Literal["per-op", "utilization"] = "utilization"
    launch_bound: bool = False
    estimated_cards: list[str] = []
    # the kernel the per-op model times the step's attention at (engine/time/steptime/efficiency.py attention_kernel)
    attention_kernel: str | None = None
    # (name, seconds, flops, bytes, bound) per op class; ``ops`` is built from it when first read (a view or a
    # dump reads it; an evaluation that nobody reads does not pay for ten models): issue 24's time budget
    _op_rows: tuple[tuple[str, float, float, float, Literal["compute", "memory"]], ...] = PrivateAttr(default=())

    @classmethod
    def of(cls, op_rows: tuple[tuple[str, float, float, float, Literal["compute", "memory"]], ...],
           **fields: object) -> Compute:  # fmt: skip
        comp = cls.model_validate(fields)  # from the dict: ~0.6 us less than cls(**fields) (pydantic-core)
        comp._op_rows = op_rows
        return comp

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def ops(self) -> list[OpTime]:
        """The step split by op class (engine/time/steptime/ops.py), each compute- or memory-bound; [] for the
        utilization model."""
        return [OpTime.model_construct(name=n, seconds=t, flops=f, bytes=b, bound=bd)
                for n, t, f, b, bd in self._op_rows]  # fmt: skip

    def step_ops(self) -> list[OpTime]:
        """The op classes as the step time counts them: each op's seconds scaled so that they sum to
        ``seconds_per_step`` (a low-precision recipe's published whole-step speed-up shortens every op alike);
        [] without the per-op split or a step time."""
        if not self.ops or not self.seconds_per_step:
            return []
        total = sum(o.seconds for o in self.ops)
        scale = self.seconds_per_step / total if total else 1.0
        return [o.model_copy(update={"seconds": o.seconds * scale}) for o in self.ops]


class PrecisionInfo(Out):
    """What a job's precision means on its cards (engine/lowprecision/checks.py)."""

    precision: str  # as the job names it
    recipe: str | None  # the recipe it runs; fp8 resolved as TE's get_default_fp8_recipe on the lowest capability
    base_weights: str  # LoRA frozen base: bf16 or fp8
    supported: list[str]  # recipes every card of the job supports (Transformer Engine): the intersection
    source: str | None = None  # the support rule's source (file and function)
    copies_gb: float = 0.0  # per card: quantized weight copies, included in weights_gb
    scales_gb: float = 0.0  # per card: scales and amax histories, included in weights_gb
    transient_gb: float = 0.0  # per card: copies of gathered units or a dequantised FP8 weight, in transient_gb


class HostTerm(Out):
    """One term of the host's need (engine/memory/host.py): what it is for, for which job, and its source."""

    job: str
    what: str
    gb: float  # GB = 10^9 B, the job's whole node (all its ranks)
    source: str
    # terms with the same key are one copy on the server (a model's files, shared by its jobs); None: the job's own
    shared_key: str | None = None
    # a later job's term of a shared copy (counted at 0 GB): the job whose term counts the copy; None: counted here
    shared_with: str | None = None


class VisionInfo(Out):
    """What a vision-language job's images add (engine/vision.py), for the report and the window."""

    images_per_sample: int
    image_resolution: int  # the side given, in pixels
    resized: tuple[int, int]  # (width, height) the processor resizes an image to
    tokens_per_image: int  # in the language model's sequence (0: cross-attended, Llama 3.2 Vision)
    encoder_tokens_per_image: int  # the vision encoder's sequence
    text_tokens: int
    sequence_tokens: int  # the language model's: text + image tokens
    tower_params: int  # encoder + projector
    tower: str  # frozen, LoRA or full
    tower_trainable: int  # parameters the tower adds to what trains
    pixel_gb: float  # per card, in activations_gb
    tower_activations_gb: float  # per card, in activations_gb
    sources: list[str] = []


class RLModel(Out):
    """One model an RL / preference job keeps on each training card (engine/memory/rl.py kept_models)."""

    role: str  # policy | reference | critic | reward
    held: str  # how, in words
    gb_per_card: float
    source: str  # the code the behaviour is read from


class RLResult(Out):
    """What a DPO / GRPO / PPO job keeps and generates, and its step split (engine/memory/rl.py,
    time/steptime/generation.py)."""

    objective: str
    models: list[RLModel] = []
    generation: str = ""  # where generation runs, in words ("" for DPO: no generation)
    # the fraction of each training card a colocated vLLM holds (engine/memory/rl.py colocated_share; 0: none):
    # the rows' capacity and headroom are the training's rest, which every view says
    colocated_share: float = 0.0
    generation_share_gb: float | None = None  # the engine's memory on one of its cards
    generation_weights_gb: float | None = None
    kv_cache_gb: float | None = None  # what the share leaves for the KV cache
    kv_needed_gb: float | None = None  # one round: sequences x (prompt + completion) tokens
    sequences: int = 0  # per vLLM engine (one tensor-parallel group) per generation round
    training_seconds: float | None = None  # the policy's training passes
    generation_seconds: float | None = None
    # what bounds the round's decode (time/steptime/generation.py Generation.bound): memory, compute, or launch
    # (transformers generate issuing kernels from the host)
    generation_bound: Literal["memory", "compute", "launch"] | None = None
    extra_seconds: dict[str, float] = {}  # extra forwards, PPO's critic training and further epochs


class JobResult(Out):
    name: str
    model: str
    model_name: str
    method: str
    parallelism: str
    params_total: int
    params_trainable: int
    framework: str = "hf-trainer"
    stack: str = ""  # the training stack in words (engine/model/stack.py describe)
    loss: str = "standard"  # the loss path in use (the framework's default when the job names none)
    fsdp_version: int = 2
    offload: str = "none"  # offload in effect (none where the sharding engine has no such offload)
    # host memory the job's offloaded states take on its node (all its ranks); None: unknown (NVMe staging)
    host_memory_gb: float | None = 0.0
    # the job's host RAM and NVMe by term (engine/memory/host.py): offloaded states, pinned buffers, data loading,
    # checkpoint staging; ZeRO-Infinity swap, checkpoints kept, the model's files
    host_ram: list[HostTerm] = []
    host_nvme: list[HostTerm] = []
    cards: list[CardMemory] = []
    communication: Communication = Communication()
    compute: Compute | None = None
    step_seconds: float | None = None  # compute + communication that is not hidden
    # the band around it: how far published runs held apart from the per-op model fell from it
    # (time/steptime/band.py); None for the utilisation model and for RL steps (no run measured either)
    step_low_seconds: float | None = None
    step_high_seconds: float | None = None
    step_band_basis: str | None = None
    # the kinds of job it is that no run in the band is ('QLoRA', 'on a MIG slice'), which step_band_basis ends
    # with in a sentence for this job; present/job_words.band_caveat_words says them for several jobs at once
    step_band_outside: list[str] = []
    precision: PrecisionInfo | None = None
    vision: VisionInfo | None = None  # a vision-language job's images and tower
    rl: RLResult | None = None  # objective dpo / grpo / ppo
    fits: bool = False
    status: FitStatus = "unknown"


class MigInstanceResult(Out):
    index: int
    profile: str
    start: int
    size: int
    capacity_gb: float
    capacity_nominal_gb: float
    jobs: list[str] = []


class MigCard(Out):
    slot: int
    card: str
    valid: bool
    display_mode_required: bool
    instances: list[MigInstanceResult] = []
    problems: list[str] = []
    # what the setup is written from; the commands and the file are computed when first read (issue 11: not on
    # every evaluation) and are in model_dump / the JSON like fields
    _setup: MigSetup | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, setup: MigSetup | None, **fields: object) -> MigCard:
        card = cls(**fields)
        card._setup = setup
        return card

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def commands(self) -> list[str]:
        """The nvidia-smi sequence for this card (lines starting with '#' are notes); [] when invalid."""
        return self._setup.commands() if self._setup is not None else []

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def mig_parted_yaml(self) -> str | None:
        """A mig-parted config for this layout; None when invalid."""
        return self._setup.parted_yaml() if self._setup is not None else None


class Topology(Out):
    slots: list[int]
    matrix: list[list[str]]  # nvidia-smi topo -m style: X, NV#, PIX, PXB, NODE, SYS
    nvlink_domains: list[list[int]]
    legend: dict[str, str]


class WallCircuitDraw(Out):
    """The build's sustained draw at the wall against its site's circuit (engine/model/wall.py): every figure the
    sheet's wall paragraph and the WALL_CIRCUIT_OVERLOAD check print."""

    circuit: str  # the site preset's label, e.g. "North America, 120 V / 15 A (NEMA 5-15)"
    basis: str  # the rule the continuous rating follows (NEC 80 %, IEC, BS 1363)
    volts: float
    breaker_amps: float
    continuous_fraction: float  # share of the breaker rating carried continuously (NEC: 0.8)
    psu_efficiency: float  # the DC budget is drawn at the wall through PSUs of this efficiency
    sustained_w: float  # at the wall
    amps: float  # at the wall, at ``volts``
    continuous_w: float  # the circuit's continuous rating
    transient_w: float  # DC-side transient demand (carried by the PSU's capacitors)
    overloaded: bool  # sustained_w > continuous_w


class Power(Out):
    cards_w: float
    platform_w: float
    total_w: float
    psu_capacity_w: float | None  # continuous, redundant units removed; None when the PSU rating is unpublished
    margin_w: float | None
    tight_above_w: float | None = None  # draw above this is PSU_TIGHT (physical.PSU_TIGHT_FRACTION)
    transient_demand_w: float
    transient_capacity_w: float | None
    wall: WallCircuitDraw | None = None  # None: the build names no site

    @property
    def psu_state(self) -> Literal["over", "tight", "ok", "unpublished"]:
        """The supply's verdict: over its continuous capacity (PSU_OVERLOAD), above the PSU_TIGHT line, within
        it, or not known (the PSU rating is unpublished)."""
        if not self.psu_capacity_w or self.margin_w is None:
            return "unpublished"
        if self.margin_w < 0:
            return "over"
        return "tight" if self.tight_above_w is not None and self.total_w > self.tight_above_w else "ok"


class HostPart(Out):
    """One line of host parts: ``count`` DIMMs of ``size`` GB or drives of ``size`` TB, with the price-list id."""

    kind: Literal["dimm", "drive"]
    count: int
    size: float  # DIMM: binary GB as labelled; drive: TB (10^12 B)
    description: str
    part_id: str  # the price-list key: dimm-64gb, nvme-7.68tb
    stated: bool  # from the build's ``host:``; False: picked here to hold the need
    capacity_gb: float  # count x size in GB (10^9 B)


class HostResult(Out):
    """The host around the cards: RAM and NVMe the jobs need (they run at the same time), what is installed, and
    what the chassis can hold."""

    ram_terms: list[HostTerm] = []
    nvme_terms: list[HostTerm] = []
    ram_need_gb: float = 0.0
    nvme_need_gb: float = 0.0
    ram_max_gb: float | None = None  # DIMM slots x largest DIMM (None: unknown)
    dimm_slots: int | None = None
    drive_bays: int | None = None
    dimms: HostPart | None = None  # installed or picked; None where no DIMM holds the need in the slots
    drives: HostPart | None = None
    # what the engine picks for the need, stated parts or not: the default a stated part replaces (the window's
    # "pick for me"); None where nothing is needed or no part holds it
    picked_dimms: HostPart | None = None
    picked_drives: HostPart | None = None


class BuildResult(Out):
    name: str
    chassis: str | None
    chassis_name: str | None = None
    link_rates: str
    utilization: float
    compute_rates: str = "published"  # or "estimated": UNCONFIRMED catalog estimates stand in for missing rates
    jobs: list[JobResult] = []
    checks: list[Check] = []
    topology: Topology | None = None
    mig: list[MigCard] = []
    power: Power | None = None
    notes: list[str] = []
    host: HostResult | None = None

    def job(self, name: str) -> JobResult | None:
        """The result of the job called ``name`` (job names are unique in a build)."""
        return next((j for j in self.jobs if j.name == name), None)

    @property
    def status_counts(self) -> dict[FitStatus, int]:
        """How many jobs have each fit status (every status present, zero where none)."""
        statuses: tuple[FitStatus, ...] = ("fits", "tight", "does-not-fit", "unknown")
        return {s: sum(1 for j in self.jobs if j.status == s) for s in statuses}

    @property
    def status(self) -> FitStatus:
        """The build's fit: its worst job's status (FIT_RANK; "unknown" with no job)."""
        return worst_status([j.status for j in self.jobs])

    @property
    def errors(self) -> list[Check]:
        return [c for c in self.checks if c.severity == "error"]
