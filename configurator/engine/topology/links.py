"""Links between cards, derived from the chassis slot map and the build's bridges.

Kinds follow ``nvidia-smi topo -m``: NV# (NVLink, # links), PIX (one PCIe switch), PXB (several
switches, no host bridge), NODE (through one CPU's root complex), SYS (across the CPU interconnect).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from configurator.catalog.cards import CardSpec
from configurator.catalog.chassis import ChassisSpec
from configurator.catalog.loader import specs_dir
from configurator.catalog.sourced import Strict
from configurator.catalog.yamlio import parse_yaml, read_text, validate_as
from configurator.engine.model.build import Build, LinkCalibration
from configurator.engine.model.codes import LinkKind

# Per-direction PCIe x16 payload rates by generation: PCIe Gen5 x16 is "128 GB/s" both directions
# (NVIDIA H100/H200 tables), 64 each way; Gen4 64 GB/s total (A100 datasheet); Gen3 half of Gen4.
PCIE_X16_GB_S = {3: 16.0, 4: 32.0, 5: 64.0, 6: 128.0}


class _PcieBusbw(Strict):
    """By path kind (nvidia-smi topo -m's PIX, PXB, NODE, SYS, in lower case), at most the Gen5 x16 payload rate."""

    pix: float = Field(gt=0, le=PCIE_X16_GB_S[5])
    pxb: float = Field(gt=0, le=PCIE_X16_GB_S[5])
    node: float = Field(gt=0, le=PCIE_X16_GB_S[5])
    sys: float = Field(gt=0, le=PCIE_X16_GB_S[5])


class PcieRatesFile(Strict):
    """specs/pcie.yaml: the typical measured PCIe busbw by path kind, with its source and the quoted figures."""

    schema_version: Literal[1]
    gen5_x16_busbw_gb_s: _PcieBusbw
    source: str = Field(min_length=1)
    quote: str = Field(min_length=1)


def load_pcie_rates(path: Path | None = None) -> PcieRatesFile:
    """The measured PCIe rates of specs/pcie.yaml, validated (a FileError names the file, line and field)."""
    path = path if path is not None else specs_dir() / "pcie.yaml"
    data, lines = parse_yaml(read_text(path), str(path))
    return validate_as(PcieRatesFile, data, lines, str(path))


# Typical nccl-tests all_reduce busbw on PCIe Gen5 x16 by path kind (specs/pcie.yaml, measured: 8x RTX PRO 6000
# 37.6-41.7 GB/s tuned; cross-NUMA P2P about 20 % below same-NUMA). Scaled by generation for others. Read once.
MEASURED_PCIE_GEN5_GB_S: dict[str, float] = {
    kind.upper(): rate for kind, rate in load_pcie_rates().gen5_x16_busbw_gb_s.model_dump().items()
}

# NVLink links per GPU (NVLink 4: 18 links; a 2-way bridge carries all 18 between the pair). A 4-way bridge
# splits them over three peers: NV6 each (hardware-facts §3.1, UNCONFIRMED per-peer split).
NVLINK4_LINKS = 18

LEGEND = {
    "X": "self",
    "NV#": "NVLink with # links (bridge or NVSwitch)",
    "PIX": "PCIe through one switch",
    "PXB": "PCIe through several switches, no host bridge",
    "NODE": "PCIe through one CPU's root complex",
    "SYS": "PCIe across CPU sockets (UPI / Infinity Fabric)",
}


@dataclass(frozen=True)
class Link:
    kind: str  # "nvlink", "nvswitch", "PIX", "PXB", "NODE", "SYS"
    label: str  # matrix label
    nominal_gb_s: float  # per direction, per GPU, for collectives
    measured_gb_s: float  # typical all_reduce busbw over this link

    @property
    def family(self) -> str:
        """Calibration key: nvlink, nvswitch or pcie."""
        return self.kind if self.kind in ("nvlink", "nvswitch") else "pcie"

    @property
    def name(self) -> LinkKind:
        return LinkKind(self.kind if self.kind in ("nvlink", "nvswitch") else f"pcie-{self.kind.lower()}")

    def rate(self, basis: str, calibration: dict[str, float]) -> tuple[float, str]:
        if self.family in calibration:
            return calibration[self.family], "calibrated"
        return (self.nominal_gb_s, "nominal") if basis == "nominal" else (self.measured_gb_s, "measured")


# Link kinds as the engine names them (Link.name, Collective.link, Communication.bound_by) in the words a buyer
# reads: the engine's own check messages and every view (present/link_words.py) say the same
LINK_WORDS = {
    "nvlink": "NVLink",
    "nvswitch": "NVSwitch",
    "pcie": "PCIe",
    "pcie-pix": "PCIe, one switch (PIX)",
    "pcie-pxb": "PCIe, switches (PXB)",
    "pcie-node": "PCIe, one CPU (NODE)",
    "pcie-sys": "PCIe across CPUs (SYS)",
}


def link_words(kind: str | None) -> str:
    """'PCIe across CPUs (SYS)' for the engine's 'pcie-sys'; a kind missing here as it is."""
    return LINK_WORDS.get(kind or "", kind or "")


# A collective's rate basis (Link.rate's second value, Assumptions.link_rates) in words, for every view and the
# result's notes: the catalog's rates are typical published nccl-tests runs, never a measurement of the machine being
# configured, so "measured" alone is never printed for them
RATE_BASIS_WORDS = {
    "measured": "typical measured (nccl-tests busbw, published)",
    "measured (2-card pair)": "typical measured on a 2-card pair (nccl-tests busbw, published)",
    "nominal": "nominal (datasheet, per direction)",
    "calibrated": "calibrated (your nccl-tests)",
}


def bridge_groups(build: Build) -> dict[int, tuple[int, ...]]:
    """Slot -> the slots of its bridge group (only bridges that name occupied slots)."""
    groups: dict[int, tuple[int, ...]] = {}
    for bridge in build.bridges:
        members = tuple(s for s in bridge.slots if build.card_in(s) is not None)
        for s in members:
            groups.setdefault(s, members)
    return groups


def _pcie_gen(card: CardSpec, chassis: ChassisSpec, slot: int) -> tuple[int, int]:
    pos = chassis.position(slot)
    gen = min(int(card.pcie_generation.value or pos.pcie_generation), pos.pcie_generation)
    lanes = min(int(card.pcie_lanes.value or pos.lanes), pos.lanes)
    return gen, lanes


def _links(card: CardSpec) -> int:
    """NVLink links per GPU from the catalog (H100 NVL: 12, so a bridged pair reads NV12 as in nvidia-smi)."""
    if card.nvlink is not None and card.nvlink.links is not None and card.nvlink.links.value:
        return int(card.nvlink.links.value)
    return NVLINK4_LINKS


def board_card(cards: dict[int, CardSpec], chassis: ChassisSpec) -> str | None:
    """The one GPU model an HGX baseboard holds: the SXM module in its lowest-numbered socket (None: no NVSwitch
    board, or no module on it). An HGX board is sold as one part with its GPUs mounted, one SKU for all eight
    (NVIDIA, "Introducing NVIDIA HGX H100": "The HGX H100 8-GPU ... hosts eight H100 Tensor Core GPUs and four
    third-generation NVSwitch", https://developer.nvidia.com/blog/introducing-nvidia-hgx-h100-an-accelerated-
    server-platform-for-ai-and-high-performance-computing/; the HGX H200 8-GPU is a board of its own), so an H200
    SXM beside an H100 SXM is on no board with it: a module of another model is flagged (SXM_BOARD_MIXED) and
    joins no NVSwitch domain."""
    if not chassis.nvswitch:
        return None
    sxm = sorted(s for s, c in cards.items() if chassis.position(s).kind == "sxm" and c.form_factor.kind == "sxm")
    return cards[sxm[0]].id if sxm else None


def link_between(
    a: int, b: int, cards: dict[int, CardSpec], chassis: ChassisSpec, groups: dict[int, tuple[int, ...]],
    board: str | None = None,
) -> Link:  # fmt: skip
    """``board``: the model the HGX board holds (board_card); only its modules meet over the NVSwitches."""
    ca, cb = cards[a], cards[b]
    pa, pb = chassis.position(a), chassis.position(b)
    on_board = board is None or ca.id == cb.id == board
    if chassis.nvswitch and pa.kind == "sxm" and pb.kind == "sxm" and ca.nvlink and cb.nvlink and on_board:
        nominal = min(ca.nvlink.gb_s_bidirectional.value or 0, cb.nvlink.gb_s_bidirectional.value or 0) / 2
        measured = min(ca.nvlink.measured_busbw_gb_s.value or 0, cb.nvlink.measured_busbw_gb_s.value or 0)
        return Link("nvswitch", f"NV{min(_links(ca), _links(cb))}", nominal, measured or nominal)
    if a in groups and groups[a] == groups.get(b) and ca.nvlink and cb.nvlink:
        size = len(groups[a])
        links = min(_links(ca), _links(cb)) // max(size - 1, 1)
        # A bridge gives each GPU its quoted total (900 GB/s on H200 NVL) over all its peers; ring
        # collectives use every peer at once (NCCL runs several rings), so per GPU per direction = total / 2.
        nominal = min(ca.nvlink.gb_s_bidirectional.value or 0, cb.nvlink.gb_s_bidirectional.value or 0) / 2
        measured = min(ca.nvlink.measured_busbw_gb_s.value or 0, cb.nvlink.measured_busbw_gb_s.value or 0)
        return Link("nvlink", f"NV{links}", nominal, measured or nominal)
    gen_a, lanes_a = _pcie_gen(ca, chassis, a)
    gen_b, lanes_b = _pcie_gen(cb, chassis, b)
    gen, lanes = min(gen_a, gen_b), min(lanes_a, lanes_b)
    nominal = PCIE_X16_GB_S.get(gen, 64.0) * lanes / 16
    scale = nominal / PCIE_X16_GB_S[5]
    if pa.cpu != pb.cpu:
        kind = "SYS"
    elif pa.switch and pa.switch == pb.switch:
        kind = "PIX"
    elif {pa.switch, pa.upstream_switch} & {pb.switch, pb.upstream_switch} - {None}:
        kind = "PXB"  # through a switch both paths share (leaf -> upstream -> leaf), never the host bridge
    else:
        kind = "NODE"
    return Link(kind, kind, nominal, MEASURED_PCIE_GEN5_GB_S[kind] * scale)


@dataclass(frozen=True)
class TopologyModel:
    slots: list[int]
    links: dict[tuple[int, int], Link]
    domains: list[list[int]]

    def link(self, a: int, b: int) -> Link:
        return self.links[(min(a, b), max(a, b))]

    def matrix(self) -> list[list[str]]:
        return [["X" if a == b else self.link(a, b).label for b in self.slots] for a in self.slots]


def build_topology(build: Build, cards: dict[int, CardSpec], chassis: ChassisSpec) -> TopologyModel:
    slots = sorted(cards)
    groups = bridge_groups(build)
    board = board_card(cards, chassis)
    links = {(a, b): link_between(a, b, cards, chassis, groups, board) for i, a in enumerate(slots)
             for b in slots[i + 1 :]}  # fmt: skip
    domains: list[list[int]] = []
    if chassis.nvswitch:
        sxm = [s for s in slots if chassis.position(s).kind == "sxm" and cards[s].nvlink
               and (board is None or cards[s].id == board)]  # fmt: skip
        if len(sxm) > 1:
            domains.append(sxm)
    for members in {g for g in groups.values() if len(g) > 1}:
        domains.append(sorted(members))
    return TopologyModel(slots, links, sorted(domains))


def calibration_map(calibrations: list[LinkCalibration]) -> dict[str, float]:
    return {c.link: c.busbw_gb_s for c in calibrations}
