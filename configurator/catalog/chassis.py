"""Chassis specifications (``specs/chassis.yaml``): slot maps, PCIe roots, PSU and airflow."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from configurator.catalog.sourced import Sourced, Strict
from configurator.catalog.units import GB, GIB


class SlotPosition(Strict):
    """One place a GPU can go.

    ``x`` is the position along the slot axis in expansion-slot pitches (20.32 mm each),
    so a double-width card at x=0 covers x=0 and x=1; a position at x=1 is then blocked.
    """

    slot: int = Field(ge=1)  # the number the user sees (1-based)
    kind: Literal["pcie", "sxm"] = "pcie"
    x: int = Field(ge=0)
    pcie_generation: int = Field(ge=3, le=6)
    lanes: int = Field(ge=1, le=16)
    cpu: int = Field(ge=0)  # CPU socket whose root complex the slot hangs on
    switch: str | None = None  # PCIe switch name, when the slot sits behind one
    # cascaded switches: the switch ``switch`` hangs on, when that is another switch rather than the CPU
    # (Supermicro's "cascaded switches" root option, chassis-power.md section 1.2); nvidia-smi shows PXB
    upstream_switch: str | None = None
    max_width: int = Field(default=2, ge=0)  # widest card (in slot pitches) the position takes
    label: str | None = None  # vendor's slot name, e.g. "SLOT7 PCIe5 x16"

    def root_label(self, sep: str = " · ") -> str:
        """Where the slot hangs, host side first: 'CPU0 · sw0', or 'CPU0 · sw-root › sw0' when cascaded."""
        switches = " › ".join(s for s in (self.upstream_switch, self.switch) if s)
        return f"CPU{self.cpu}" + (f"{sep}{switches}" if switches else "")


class PsuSpec(Strict):
    units: int = Field(ge=1)
    watts_each: Sourced
    redundant_units: int = Field(default=0, ge=0)  # units held in reserve (N+M: M)
    atx3_excursion: bool = False  # ATX 3.x PSU rated for 200 % for 100 us (Intel ATX12VO guide table 3-3)


class HostSpec(Strict):
    """The host's memory and drive bays: what the chassis can hold for offload, data and checkpoints.

    DIMM sizes are as vendors label them (binary GB: a "64 GB" RDIMM holds 64 GiB); drive sizes in TB (10^12 B).
    """

    dimm_slots: Sourced  # memory slots on the board, all sockets together
    max_dimm_gb: Sourced  # largest DIMM the board takes
    dimm_type: str = "DDR5 RDIMM"
    # memory channels per CPU socket: filling each with one DIMM gives the socket its full bandwidth (None: unknown)
    memory_channels_per_socket: Sourced | None = None
    drive_bays: Sourced  # bays that take an NVMe data drive (M.2 / U.2 / E1.S / E3.S)
    drive_form_factor: str  # e.g. "2.5in U.2 NVMe", "M.2 2280"


class ChassisSpec(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")
    name: str
    vendor: str
    kind: Literal["workstation", "server", "hgx"]
    form_factor: str  # e.g. "tower", "4U rack"
    generic: bool = False  # a typical build, not a product
    source: str = Field(min_length=3)
    cpu_sockets: int = Field(ge=1)
    airflow: Literal["desk", "server"]  # desk: tower fans; server: front-to-rear high static pressure
    airflow_source: str = Field(min_length=3)
    max_card_length_mm: Sourced
    platform_power_w: Sourced  # CPUs, memory, drives, fans: everything but the GPUs
    psu: PsuSpec
    nvswitch: bool = False  # SXM baseboard with NVSwitch (HGX)
    # Most system memory the chassis takes (DIMM slots x largest supported DIMM), for CPU offload checks;
    # absent: unknown, and the check says so
    host_memory_max_gb: Sourced | None = None
    host: HostSpec | None = None  # DIMM slots and drive bays (engine/memory/host.py); absent: unknown
    positions: list[SlotPosition]
    note: str | None = None

    @model_validator(mode="after")
    def _slots_unique(self) -> ChassisSpec:
        slots = [p.slot for p in self.positions]
        if len(slots) != len(set(slots)):
            raise ValueError("slot numbers must be unique")
        if any(p.cpu >= self.cpu_sockets for p in self.positions):
            raise ValueError("a position names a CPU socket the chassis does not have")
        return self

    def position(self, slot: int) -> SlotPosition:
        for p in self.positions:
            if p.slot == slot:
                return p
        raise KeyError(slot)

    @property
    def max_host_memory_gb(self) -> float | None:
        """The most system memory (GB = 10^9 B) the chassis takes: the stated maximum, else DIMM slots x the largest
        DIMM (binary GB labels, converted); None when neither is published."""
        if self.host_memory_max_gb is not None and self.host_memory_max_gb.value is not None:
            return self.host_memory_max_gb.value
        h = self.host
        if h is None or h.dimm_slots.value is None or h.max_dimm_gb.value is None:
            return None
        return h.dimm_slots.value * h.max_dimm_gb.value * GIB / GB

    @property
    def psu_capacity_w(self) -> float:
        """Continuous PSU capacity with the redundant units removed."""
        watts = self.psu.watts_each.value
        if watts is None:  # the error names the field (its message formatted only here)
            watts = self.psu.watts_each.require(f"{self.id} PSU rating")
        return watts * (self.psu.units - self.psu.redundant_units)
