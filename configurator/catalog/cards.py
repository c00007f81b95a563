"""GPU card specifications (``specs/cards.yaml``)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, model_validator

from configurator.catalog.sourced import Sourced, SourcedText, Strict
from configurator.catalog.units import MIB


class CardPower(Strict):
    tdp_w: Sourced  # default power limit
    min_w: Sourced  # lowest configurable power limit
    max_w: Sourced  # highest configurable power limit


class FormFactor(Strict):
    kind: Literal["pcie", "sxm"]
    slot_width: Sourced  # expansion-slot widths the card occupies (2 = double-width); SXM: 0
    length_mm: Sourced  # card length; PCIe full length is 312 mm (12.28")


class Cooling(Strict):
    kind: Literal["passive", "blower", "flow-through", "system"]  # system: SXM, cooled by the chassis
    source: str = Field(min_length=3)
    note: str | None = None


class NvlinkSpec(Strict):
    """NVLink on the card. ``bridge_sizes`` empty for SXM parts (NVSwitch fabric)."""

    fabric: Literal["bridge", "nvswitch"]
    bridge_sizes: list[int] = []  # cards one bridge may join, e.g. [2, 4] for H200 NVL
    gb_s_bidirectional: Sourced  # per GPU, both directions added (NVIDIA's quoted figure)
    measured_busbw_gb_s: Sourced  # typical nccl-tests all_reduce busbw over this fabric
    # NVLink links per GPU: the "NV#" nvidia-smi topo -m prints for a pair joined by all of them
    links: Sourced | None = None


class MigPlacement(Strict):
    starts: list[int]  # legal start positions on the card's placement grid
    size: int  # grid units the instance occupies


class MigProfile(Strict):
    name: str  # e.g. "1g.24gb"
    profile_id: int  # numeric id for `nvidia-smi mig -cgi`
    memory_gib: Sourced  # instance memory as `nvidia-smi mig -lgip` prints it (GiB)
    memory_nominal_gb: Sourced  # the product's marketing figure (e.g. 16.5 GB for H200 NVL 1g.18gb)
    sm_count: Sourced
    compute_slices: int
    max_count: int  # "Instances Total"
    placement: MigPlacement
    media_engines: bool = False  # +me style variants

    @property
    def capacity_gb(self) -> float:
        """Instance memory as the driver shows it, in GB (10^9 bytes)."""
        return self.memory_gib.require(f"MIG {self.name} memory") * 1024 * MIB / 1e9


class MigSpec(Strict):
    grid_units: int  # 8 memory slices (A100/Hopper) or 12 placement units (RTX PRO 6000)
    max_instances: int
    display_mode_required: bool  # WS / Max-Q: DisplayModeSelector --gpumode=compute first
    min_driver: str
    source: str = Field(min_length=3)
    profiles: list[MigProfile]
    presets: dict[str, list[str]] = {}  # e.g. all-balanced: [1g.18gb, 1g.18gb, 2g.35gb, 3g.71gb]

    @model_validator(mode="after")
    def _presets_name_profiles(self) -> MigSpec:
        names = {p.name for p in self.profiles}
        for preset, profiles in self.presets.items():
            bad = [p for p in profiles if p not in names]
            if bad:
                raise ValueError(f"preset {preset} names unknown profiles {bad}")
        for p in self.profiles:
            if any(s < 0 or s + p.placement.size > self.grid_units for s in p.placement.starts):
                raise ValueError(f"profile {p.name} placement runs off the {self.grid_units}-unit grid")
        return self

    def profile(self, name: str) -> MigProfile:
        for p in self.profiles:
            if p.name == name:
                return p
        raise KeyError(name)


class CardSpec(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")
    name: str
    vendor: str = "NVIDIA"
    architecture: str
    memory_gb: Sourced  # nominal (marketing) memory, GB
    memory_visible_mib: Sourced  # total as nvidia-smi shows it, MiB
    memory_type: str
    memory_bandwidth_gb_s: Sourced
    bf16_dense_tflops: Sourced  # dense (not 2:4 sparse) BF16 tensor rate, FP32 accumulate
    # Where no dense BF16 rate is published: a comparable figure with its reasoning, marked UNCONFIRMED in its
    # source. Used only when a build's assumptions ask for estimated compute rates, and always labelled so.
    bf16_dense_tflops_estimate: Sourced | None = None
    fp8_dense_tflops: Sourced
    # Dense FP4 (NVFP4 / MXFP4) tensor rate; null with a note where the card has no FP4 tensor cores or none is
    # published. Used for the nvfp4 recipe's roof, never to predict a step (see engine/lowprecision/checks.py).
    fp4_dense_tflops: Sourced
    # CUDA compute capability as major.minor (9.0 = Hopper, 12.0 = RTX Blackwell), from NVIDIA's CUDA GPUs page.
    # The low-precision support rules (engine/lowprecision/checks.py) compare it the way the software's checks do.
    compute_capability: Sourced
    # Streaming multiprocessors of the whole card (non-MIG): the per-op step model's wave quantisation and a MIG
    # instance's share of compute (its profile's sm_count over this). None where unpublished.
    sm_count: Sourced | None = None
    power: CardPower
    pcie_generation: Sourced
    pcie_lanes: Sourced
    form_factor: FormFactor
    cooling: Cooling
    power_connector: SourcedText
    nvlink: NvlinkSpec | None = None
    mig: MigSpec | None = None
    note: str | None = None

    @model_validator(mode="after")
    def _capability_is_major_minor(self) -> CardSpec:
        cc = self.compute_capability.value
        if cc is not None and (cc < 1 or round(cc * 10) != cc * 10):
            raise ValueError(f"compute_capability {cc} is not major.minor (e.g. 9.0, 12.0)")
        return self

    @property
    def capability(self) -> tuple[int, int] | None:
        """Compute capability as (major, minor), as torch.cuda.get_device_capability() returns it."""
        cc = self.compute_capability.value
        if cc is None:
            return None
        tenths = round(cc * 10)
        return tenths // 10, tenths % 10

    @property
    def visible_gb(self) -> float:
        """Memory the driver shows, in GB (10^9 bytes): nvidia-smi MiB x 2^20."""
        return self.memory_visible_mib.require(f"{self.id} visible memory") * MIB / 1e9

    @property
    def ops_per_byte(self) -> float:
        """Dense BF16 FLOP/s over memory bytes/s (NVIDIA performance guide's ops:byte ratio; seed A)."""
        rate, bandwidth = self.bf16_dense_tflops.value, self.memory_bandwidth_gb_s.value
        if rate is None or bandwidth is None:  # the error names the field (its message formatted only here)
            rate = self.bf16_dense_tflops.require(f"{self.id} BF16 rate")
            bandwidth = self.memory_bandwidth_gb_s.require(f"{self.id} bandwidth")
        return (rate * 1e12) / (bandwidth * 1e9)


def short_card_name(name: str, *, abbreviate: bool = True, bare: bool = False) -> str:
    """One shortening for every narrow label: 'NVIDIA RTX PRO 6000 Blackwell Server Edition' ->
    'RTX PRO 6000 Server' (abbreviated) or 'RTX PRO 6000 Server Edition'. ``bare`` also drops the memory
    size and a bracketed form factor, for the kiosk's big labels: 'H100 SXM 80GB' -> 'H100 SXM'."""
    short = name.removeprefix("NVIDIA ").replace(" Blackwell", "")
    if abbreviate:
        for long, abbrev in ((" Max-Q Workstation Edition", " Max-Q"), (" Workstation Edition", " WS"),
                             (" Server Edition", " Server")):  # fmt: skip
            short = short.replace(long, abbrev)
    if bare:
        short = re.sub(r"\s+\d+GB$", "", short.replace(" (SXM)", ""))
    return short
