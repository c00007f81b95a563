"""The contracts the engine's results speak in: check codes and link kinds, as string enums.

They are ``StrEnum``s, so a result written as JSON or compared with a plain string reads exactly as before
("PSU_TIGHT", "nvlink"), while a misspelt code is an error where it is written, not a silent miss in a
lookup table. Tables keyed by them (messages, colours) use ``.get`` with a fallback: a code added here
never raises KeyError in a view that has no words for it yet.
"""

from __future__ import annotations

from enum import StrEnum


class CheckCode(StrEnum):
    """Every ``Check.code`` the engine emits."""

    BRIDGE_EMPTY_SLOT = "BRIDGE_EMPTY_SLOT"
    BRIDGE_MIXED_CARDS = "BRIDGE_MIXED_CARDS"
    BRIDGE_NOT_ADJACENT = "BRIDGE_NOT_ADJACENT"
    BRIDGE_NO_NVLINK = "BRIDGE_NO_NVLINK"
    BRIDGE_ON_SXM = "BRIDGE_ON_SXM"
    BRIDGE_OVERLAP = "BRIDGE_OVERLAP"
    BRIDGE_SIZE = "BRIDGE_SIZE"
    CARD_SHARED = "CARD_SHARED"
    CARD_TOO_LONG = "CARD_TOO_LONG"
    CARD_TOO_WIDE = "CARD_TOO_WIDE"
    CARD_UNKNOWN = "CARD_UNKNOWN"
    CHASSIS_UNKNOWN = "CHASSIS_UNKNOWN"
    COMM_DOMINATES = "COMM_DOMINATES"
    FLOW_THROUGH_NO_GAP = "FLOW_THROUGH_NO_GAP"
    FSDP_SETUP_FLOOR = "FSDP_SETUP_FLOOR"
    HOST_MEMORY = "HOST_MEMORY"
    HOST_MEMORY_UNKNOWN = "HOST_MEMORY_UNKNOWN"
    HOST_NVME_SHORT = "HOST_NVME_SHORT"
    HOST_PARTS_DONT_FIT = "HOST_PARTS_DONT_FIT"
    HOST_RAM_SHORT = "HOST_RAM_SHORT"
    HOST_STORAGE = "HOST_STORAGE"
    JOB_ATTENTION_EAGER = "JOB_ATTENTION_EAGER"
    JOB_ATTENTION_NO_BACKWARD = "JOB_ATTENTION_NO_BACKWARD"
    JOB_CARD_REPEATED = "JOB_CARD_REPEATED"
    JOB_DOES_NOT_FIT = "JOB_DOES_NOT_FIT"
    JOB_EXPERT_PARALLEL = "JOB_EXPERT_PARALLEL"
    JOB_IMAGES = "JOB_IMAGES"
    JOB_LORA_TARGETS = "JOB_LORA_TARGETS"
    JOB_MIXED_CARDS = "JOB_MIXED_CARDS"
    JOB_MODEL_UNKNOWN = "JOB_MODEL_UNKNOWN"
    JOB_MXFP4_NOT_TRAINABLE = "JOB_MXFP4_NOT_TRAINABLE"
    JOB_NO_ACTIVATION_MODEL = "JOB_NO_ACTIVATION_MODEL"
    JOB_NO_CARDS = "JOB_NO_CARDS"
    JOB_OFFLOAD_IGNORED = "JOB_OFFLOAD_IGNORED"
    JOB_PARALLELISM = "JOB_PARALLELISM"
    JOB_SETTING = "JOB_SETTING"
    JOB_SLOT_EMPTY = "JOB_SLOT_EMPTY"
    JOB_TIGHT = "JOB_TIGHT"
    JOB_TP_DEGREE = "JOB_TP_DEGREE"
    MIG_CARD_WHOLE_JOB = "MIG_CARD_WHOLE_JOB"
    MIG_DISPLAY_MODE = "MIG_DISPLAY_MODE"
    MIG_INSTANCE_UNKNOWN = "MIG_INSTANCE_UNKNOWN"
    MIG_LAYOUT_INVALID = "MIG_LAYOUT_INVALID"
    MIG_MULTI_CARD_JOB = "MIG_MULTI_CARD_JOB"
    MIG_UNSUPPORTED = "MIG_UNSUPPORTED"
    PASSIVE_CARD_NEEDS_SERVER_AIRFLOW = "PASSIVE_CARD_NEEDS_SERVER_AIRFLOW"
    PCIE_IN_SXM_SOCKET = "PCIE_IN_SXM_SOCKET"
    PCIE_P2P = "PCIE_P2P"
    POWER_LIMIT_NOT_TIMED = "POWER_LIMIT_NOT_TIMED"
    PRECISION_DEFAULT_DIFFERS = "PRECISION_DEFAULT_DIFFERS"
    PRECISION_NOTE = "PRECISION_NOTE"
    PRECISION_UNSUPPORTED = "PRECISION_UNSUPPORTED"
    PSU_OVERLOAD = "PSU_OVERLOAD"
    RL_GENERATION = "RL_GENERATION"
    RL_CRITIC_UNKNOWN = "RL_CRITIC_UNKNOWN"
    RL_CRITIC_TOKENIZER = "RL_CRITIC_TOKENIZER"
    RL_CRITIC_UNUSED = "RL_CRITIC_UNUSED"
    PSU_TIGHT = "PSU_TIGHT"
    PSU_TRANSIENT = "PSU_TRANSIENT"
    PSU_UNKNOWN = "PSU_UNKNOWN"
    SLOT_BLOCKED = "SLOT_BLOCKED"
    SLOT_COVERED = "SLOT_COVERED"
    SLOT_SLOWER_THAN_CARD = "SLOT_SLOWER_THAN_CARD"
    SLOT_UNKNOWN = "SLOT_UNKNOWN"
    SXM_IN_PCIE_SLOT = "SXM_IN_PCIE_SLOT"
    TP_OVER_PCIE = "TP_OVER_PCIE"
    WALL_CIRCUIT_OVERLOAD = "WALL_CIRCUIT_OVERLOAD"


class LinkKind(StrEnum):
    """The slowest link a collective crosses (``nvidia-smi topo -m`` classes; topology.Link.name)."""

    NVLINK = "nvlink"
    NVSWITCH = "nvswitch"
    PCIE_PIX = "pcie-pix"  # through one PCIe switch
    PCIE_PXB = "pcie-pxb"  # through several PCIe switches
    PCIE_NODE = "pcie-node"  # through one CPU's root complex
    PCIE_SYS = "pcie-sys"  # across CPUs (the socket interconnect)

    @property
    def is_nvlink(self) -> bool:
        """NVLink (a bridge or an NVSwitch baseboard) rather than PCIe."""
        return self in (LinkKind.NVLINK, LinkKind.NVSWITCH)
