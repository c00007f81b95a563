"""Every check code the engine can emit: a minimal build that triggers it, and a clean build that triggers none.

Each row says which check must appear (code and severity), the slot or job it must point at, and words its
message must contain: the slot or job it concerns and how to fix it. ``test_table_covers_every_code`` greps
the engine source, so a new ``code="..."`` without a row here fails.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.sourced import Sourced
from configurator.engine import Build, evaluate
from configurator.engine.model.result import BuildResult

ENGINE_DIR = Path(__file__).resolve().parents[2] / "configurator" / "engine"

SERVER = "generic-server-8"  # 8 x Gen5 x16, two slots per PCIe switch, slots 1-4 on CPU 0, 5-8 on CPU 1
WS = "generic-workstation-4"  # desk airflow, 4 x Gen5 x16 side by side, one ATX 3.x 2000 W PSU
HGX = "hgx-8"  # 8 SXM sockets on NVSwitch

# Test-only catalog entries for rules no shipped card or chassis can break (every shipped card is at most
# double width and every chassis fits the cards it is meant for).
WIDE_CARD = "test-triple-width"
SHORT_CHASSIS = "test-short-server"  # takes cards up to 250 mm
GEN4_CHASSIS = "test-gen4-server"  # slot 1 is PCIe Gen4 x16
DENSE_CHASSIS = "test-dense-server"  # positions one slot pitch apart: a double-width card covers the next
SMALL_HOST_CHASSIS = "test-small-host-server"  # takes at most 64 GB of system memory
UNPUBLISHED_CHASSIS = "test-unpublished-server"  # publishes no PSU rating, DIMM slots or DIMM size


@functools.cache
def extended_catalog() -> Catalog:
    """The shipped catalog plus the test-only entries above, made with model_copy."""
    base = default_catalog()
    h200 = base.cards["h200-nvl"]
    wide = h200.model_copy(
        update={
            "id": WIDE_CARD,
            "name": "Triple-width test card",
            "form_factor": h200.form_factor.model_copy(
                update={"slot_width": Sourced(value=3, source="test: a triple-width card")}
            ),
        }
    )
    server = base.chassis[SERVER]
    short = server.model_copy(
        update={
            "id": SHORT_CHASSIS,
            "name": "Short test server",
            "max_card_length_mm": Sourced(value=250, source="test: short slots"),
        }
    )
    gen4_positions = [p.model_copy(update={"pcie_generation": 4}) if p.slot == 1 else p for p in server.positions]
    gen4 = server.model_copy(update={"id": GEN4_CHASSIS, "name": "Gen4 test server", "positions": gen4_positions})
    dense_positions = [p.model_copy(update={"x": i}) for i, p in enumerate(server.positions)]
    dense = server.model_copy(update={"id": DENSE_CHASSIS, "name": "Dense test server", "positions": dense_positions})
    small_host = server.model_copy(update={"id": SMALL_HOST_CHASSIS, "name": "Small-memory test server",
                                           "host_memory_max_gb": Sourced(value=64, source="test: 64 GB host")})
    unknown = Sourced(value=None, source="test: unpublished", note="test: the vendor publishes no figure")
    assert server.host is not None
    unpublished = server.model_copy(update={
        "id": UNPUBLISHED_CHASSIS, "name": "Unpublished test server",
        "psu": server.psu.model_copy(update={"watts_each": unknown}),
        "host": server.host.model_copy(update={"dimm_slots": unknown, "max_dimm_gb": unknown})})
    return Catalog(
        cards={**base.cards, WIDE_CARD: wide},
        chassis={**base.chassis, SHORT_CHASSIS: short, GEN4_CHASSIS: gen4, DENSE_CHASSIS: dense,
                 SMALL_HOST_CHASSIS: small_host, UNPUBLISHED_CHASSIS: unpublished},
        models=base.models,
    )


def cards(card: str, *slots: int, **extra: object) -> list[dict]:
    return [{"slot": s, "card": card, **extra} for s in slots]


def job(name: str = "t", **kw: object) -> dict:
    return {"name": name, "model": "llama-3.1-8b", "method": "lora", **kw}


@dataclass(frozen=True)
class Case:
    id: str
    code: str
    severity: str
    build: dict
    slot: int | None = None  # the check's slot field (what the GUI selects)
    job: str | None = None  # the check's job field
    says: tuple[str, ...] = ()  # words the message must contain: where, and how to fix it
    custom_catalog: bool = False
    extra: dict = field(default_factory=dict)


MIG4 = ["1g.24gb"] * 4

CASES: list[Case] = [
    # ---- ids: chassis, slots, cards -------------------------------------------------------------------------
    Case("chassis-unknown", "CHASSIS_UNKNOWN", "error", {"chassis": "generic-server-9"},
         says=("unknown chassis 'generic-server-9'", "did you mean generic-server-8")),
    Case("slot-unknown", "SLOT_UNKNOWN", "error", {"chassis": WS, "cards": cards("rtx-pro-6000-ws", 9)},
         slot=9, says=("no slot 9", "slots: [1, 2, 3, 4]")),
    Case("card-unknown", "CARD_UNKNOWN", "error", {"chassis": SERVER, "cards": cards("rtx-pro-9000", 3)},
         slot=3, says=("Slot 3", "unknown card 'rtx-pro-9000'", "did you mean")),
    # ---- physical fit -----------------------------------------------------------------------------------------
    Case("sxm-in-pcie-slot", "SXM_IN_PCIE_SLOT", "error", {"chassis": SERVER, "cards": cards("h100-sxm", 2)},
         slot=2, says=("slot 2", "choose an HGX chassis")),
    Case("pcie-in-sxm-socket", "PCIE_IN_SXM_SOCKET", "error", {"chassis": HGX, "cards": cards("h200-nvl", 3)},
         slot=3, says=("Slot 3", "Use H100 SXM or H200 SXM here")),
    Case("sxm-board-mixed", "SXM_BOARD_MIXED", "error",  # review 2 item 5: an HGX board is one GPU model
         {"chassis": HGX, "cards": cards("h100-sxm", 1) + cards("h200-sxm", 2)},
         slot=2, says=("Slot 2 holds NVIDIA H200 SXM", "this HGX board holds NVIDIA H100 SXM")),
    Case("card-too-wide", "CARD_TOO_WIDE", "error", {"chassis": SERVER, "cards": cards(WIDE_CARD, 1)},
         slot=1, says=("3 slots wide", "slot 1 takes cards up to 2 wide"), custom_catalog=True),
    Case("card-too-long", "CARD_TOO_LONG", "error", {"chassis": SHORT_CHASSIS, "cards": cards("h200-nvl", 2)},
         slot=2, says=("in slot 2", "267 mm", "up to 250 mm", "Pick a shorter card"), custom_catalog=True),
    Case("passive-card-desk-airflow", "PASSIVE_CARD_NEEDS_SERVER_AIRFLOW", "error",
         {"chassis": WS, "cards": cards("h200-nvl", 1)},
         slot=1, says=("in slot 1", "passive", "Choose a server chassis")),
    Case("slot-slower-than-card", "SLOT_SLOWER_THAN_CARD", "warning",
         {"chassis": GEN4_CHASSIS, "cards": cards("rtx-pro-6000-server", 1)},
         slot=1, says=("Slot 1 is PCIe Gen4 x16", "Move it to a Gen5 x16 slot"), custom_catalog=True),
    Case("slot-blocked", "SLOT_BLOCKED", "error", {"chassis": DENSE_CHASSIS, "cards": cards("h200-nvl", 1, 2)},
         slot=2, says=("slot 1", "covers slot 2", "move one of them"), custom_catalog=True),
    Case("slot-covered", "SLOT_COVERED", "info", {"chassis": DENSE_CHASSIS, "cards": cards("h200-nvl", 1)},
         slot=2, says=("Slot 2 is covered by the card in slot 1", "cannot take another card"), custom_catalog=True),
    Case("flow-through-no-gap", "FLOW_THROUGH_NO_GAP", "warning",
         {"chassis": WS, "cards": cards("rtx-pro-6000-ws", 1, 2)},
         slot=1, says=("in slot 1", "card in slot 2", "leave a free slot", "Max-Q")),
    # ---- NVLink bridges ---------------------------------------------------------------------------------------
    Case("bridge-empty-slot", "BRIDGE_EMPTY_SLOT", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1), "bridges": [{"slots": [1, 2]}]},
         slot=2, says=("slot(s) [2]", "place cards there or remove the bridge")),
    Case("bridge-overlap", "BRIDGE_OVERLAP", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2, 3), "bridges": [{"slots": [1, 2]}, {"slots": [2, 3]}]},
         slot=2, says=("Slot 2 is in bridges 1 and 2", "remove it from one of them")),
    Case("bridge-mixed-cards", "BRIDGE_MIXED_CARDS", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1) + cards("h100-nvl", 2), "bridges": [{"slots": [1, 2]}]},
         # the cards' names, as a buyer reads them (the wording is the fix: it named "h100-nvl, h200-nvl")
         slot=1, says=("slots [1, 2]", "NVIDIA H100 NVL, NVIDIA H200 NVL", "joins identical cards")),
    Case("bridge-on-sxm", "BRIDGE_ON_SXM", "error",
         {"chassis": HGX, "cards": cards("h100-sxm", 1, 2), "bridges": [{"slots": [1, 2]}]},
         slot=1, says=("slots [1, 2]", "NVSwitch", "Remove the bridge")),
    Case("bridge-no-nvlink", "BRIDGE_NO_NVLINK", "error",
         {"chassis": SERVER, "cards": cards("rtx-pro-6000-server", 1, 2), "bridges": [{"slots": [1, 2]}]},
         slot=1, says=("slots [1, 2]", "no NVLink", "Remove the bridge")),
    Case("bridge-size", "BRIDGE_SIZE", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2, 3), "bridges": [{"slots": [1, 2, 3]}]},
         slot=1, says=("slots [1, 2, 3]", "takes a 2-way or 4-way NVLink bridge, not 3 cards")),
    Case("bridge-not-adjacent", "BRIDGE_NOT_ADJACENT", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 3), "bridges": [{"slots": [1, 3]}]},
         slot=1, says=("slots [1, 3] are not adjacent", "Move the cards next to each other")),
    # ---- power ------------------------------------------------------------------------------------------------
    # 600 W + 1,700 W platform
    Case("psu-unknown", "PSU_UNKNOWN", "warning",
         {"chassis": UNPUBLISHED_CHASSIS, "cards": cards("h200-nvl", 1)},
         says=("PSU rating not published", "2,300 W", "check the vendor's configuration"), custom_catalog=True),
    # 4 x 600 W + 1,700 W platform = 4,100 W of 2 x 2,000 W (2+2 redundant)
    Case("psu-overload", "PSU_OVERLOAD", "error", {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2, 3, 4)},
         says=("4,100 W", "4,000 W with 2 redundant unit(s) held back", "Lower card power limits")),
    # 4 x 500 W + 1,700 W = 3,700 W: over 90 % of 4,000 W
    Case("psu-tight", "PSU_TIGHT", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2, 3, 4, power_limit_w=500)},
         says=("3,700 W of 4,000 W", "Consider lower card power limits")),
    # 600 W + 3 x 1,200 W = 4,200 W excursion against 2 x 2,000 W for 100 µs (ATX 3.x)
    Case("psu-transient", "PSU_TRANSIENT", "warning", {"chassis": WS, "cards": cards("rtx-pro-6000-ws", 1, 3)},
         says=("4,200 W", "4,000 W for 100 µs", "Lower power limits or fit a larger PSU")),
    # 1,700 W platform + 4 x 3 x 600 W = 8,900 W of excursions past the 4 x 2,000 W installed (redundant units share
    # the load, so seed A's two cards, 5,300 W, raise nothing); server PSUs publish no excursion rating (the sheet
    # said so, no view's checks did)
    Case("psu-transient-unrated", "PSU_TRANSIENT_UNRATED", "info",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2, 3, 4)},
         says=("8,900 W", "8,000 W its 4 PSUs are rated for continuously", "publish no excursion rating",
               "check with their maker")),
    # 4 x 600 W + 600 W platform = 3,000 W / 0.89 PSU efficiency = 3,371 W at the wall; 120 V x 15 A x 80 % = 1,440 W
    Case("wall-circuit-overload", "WALL_CIRCUIT_OVERLOAD", "error",
         {"chassis": WS, "cards": cards("rtx-pro-6000-ws", 1, 2, 3, 4), "site": "us-120v-15a"},
         says=("3,371 W", "1,440 W continuously", "120 V × 15 A × 80%", "NEC 210.19(A)(1)", "Lower card power limits")),
    # ---- MIG --------------------------------------------------------------------------------------------------
    Case("mig-unsupported", "MIG_UNSUPPORTED", "error", {"chassis": SERVER, "cards": cards("l40s", 1, mig=["1g.24gb"])},
         slot=1, says=("does not support MIG", "remove the layout from slot 1")),
    Case("mig-layout-invalid", "MIG_LAYOUT_INVALID", "error",
         {"chassis": WS, "cards": cards("rtx-pro-6000-ws", 1, mig=["1g.24gb"] * 5)},
         slot=1, says=("Slot 1", "at most 4", "remove 1 instance")),
    Case("mig-display-mode", "MIG_DISPLAY_MODE", "warning",
         {"chassis": WS, "cards": cards("rtx-pro-6000-ws", 1, mig=MIG4)},
         slot=1, says=("slot 1", "DisplayModeSelector --gpumode=compute")),
    Case("mig-instance-without-layout", "MIG_INSTANCE_UNKNOWN", "error",
         {"chassis": SERVER, "cards": cards("rtx-pro-6000-server", 1),
          "jobs": [job(cards=[{"slot": 1, "instance": 0}])]},
         slot=1, job="t", says=("Job 't'", "slot 1", "has no MIG layout", "add a layout")),
    Case("mig-instance-index-unknown", "MIG_INSTANCE_UNKNOWN", "error",
         {"chassis": SERVER, "cards": cards("rtx-pro-6000-server", 1, mig=["2g.48gb", "2g.48gb"]),
          "jobs": [job(cards=[{"slot": 1, "instance": 5}])]},
         slot=1, job="t", says=("Job 't'", "instance 5 of slot 1", "that layout has instances [0, 1]")),
    Case("mig-card-whole-job", "MIG_CARD_WHOLE_JOB", "error",
         {"chassis": SERVER, "cards": cards("rtx-pro-6000-server", 1, mig=MIG4), "jobs": [job(cards=[1])]},
         slot=1, job="t", says=("Slot 1", "job 't' must name one", "{slot: 1, instance: N}")),
    Case("mig-multi-card-job", "MIG_MULTI_CARD_JOB", "error",
         {"chassis": SERVER, "cards": cards("rtx-pro-6000-server", 1, mig=MIG4),
          "jobs": [job(method="qlora", parallelism="ddp",
                       cards=[{"slot": 1, "instance": 0}, {"slot": 1, "instance": 1}])]},
         job="t", says=("Job 't'", "NCCL is not supported with MIG", "Give the job whole cards, or one instance")),
    # ---- jobs -------------------------------------------------------------------------------------------------
    Case("job-card-repeated", "JOB_CARD_REPEATED", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2), "jobs": [job(parallelism="ddp", cards=[1, 1, 2])]},
         slot=1, job="t", says=("Job 't'", "slot 1", "list each card once")),
    Case("job-model-unknown", "JOB_MODEL_UNKNOWN", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1), "jobs": [job(model="llama-3.1-9b", cards=[1])]},
         job="t", says=("Job 't'", "unknown model 'llama-3.1-9b'", "did you mean")),
    Case("job-lora-targets", "JOB_LORA_TARGETS", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1),
          "jobs": [job(lora={"targets": ["foo_proj"]}, cards=[1])]},
         job="t", says=("Job 't'", "no linear module 'foo_proj'", "its modules: ")),
    Case("job-no-cards", "JOB_NO_CARDS", "warning", {"chassis": SERVER, "cards": cards("h200-nvl", 1), "jobs": [job()]},
         job="t", says=("Job 't'", "assign it to a card or a MIG instance")),
    Case("job-slot-empty", "JOB_SLOT_EMPTY", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1), "jobs": [job(cards=[2])]},
         slot=2, job="t", says=("Job 't'", "slot 2", "place a card there")),
    # a card the catalog lacks: the job says so and names it ("holds no card" sent the user to an occupied slot)
    Case("job-card-unknown", "JOB_CARD_UNKNOWN", "error",
         {"chassis": SERVER, "cards": cards("rtx-pro-9000", 2), "jobs": [job(cards=[2])]},
         slot=2, job="t", says=("Job 't'", "slot 2", "whose card 'rtx-pro-9000' is not in the catalog")),
    Case("job-single-on-two-cards", "JOB_PARALLELISM", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2), "jobs": [job(cards=[1, 2])]},
         job="t", says=("Job 't'", "names 2", "choose DDP, FSDP or tensor parallel")),
    Case("job-ddp-on-one-card", "JOB_PARALLELISM", "info",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1), "jobs": [job(parallelism="ddp", cards=[1])]},
         job="t", says=("Job 't'", "runs as a single-card job")),
    Case("job-tp-degree", "JOB_TP_DEGREE", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2),
          "jobs": [job(parallelism="tp", tensor_parallel=4, cards=[1, 2])]},
         job="t", says=("Job 't'", "tensor_parallel 4 on 2 cards", "must equal the number of cards")),
    Case("job-expert-parallel-dense", "JOB_EXPERT_PARALLEL", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2), "jobs": [job(parallelism="ep", cards=[1, 2])]},
         job="t", says=("Job 't'", "has none", "Choose fsdp")),
    Case("job-expert-parallel-uneven", "JOB_EXPERT_PARALLEL", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2, 3),
          "jobs": [job(model="qwen3-30b-a3b", parallelism="ep", cards=[1, 2, 3])]},
         job="t", says=("Job 't'", "128 experts do not divide over 3 cards", "divides 128")),
    Case("job-mxfp4-not-trainable", "JOB_MXFP4_NOT_TRAINABLE", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1),
          "jobs": [job(model="gpt-oss-20b", base_weights="mxfp4", cards=[1])]},
         job="t", says=("Job 't'", "will not train gpt-oss-20b", "Mxfp4Config(dequantize=True)", "BF16")),
    Case("rl-no-trainer", "JOB_SETTING", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1),
          "jobs": [job(objective="dpo", framework="litgpt", cards=[1])]},
         job="t", says=("Job 't'", "has no DPO trainer", "Use hf-trainer or axolotl")),
    Case("job-attention-eager", "JOB_ATTENTION_EAGER", "info",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1), "jobs": [job(model="gemma-2-9b", cards=[1])]},
         job="t", says=("Job 't'", "runs eager attention, not SDPA", "soft-capping", "Choose FlashAttention")),
    Case("job-attention-padded", "JOB_ATTENTION_PADDED", "info",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1), "jobs": [job(padded_batches=True, cards=[1])]},
         job="t", says=("Job 't' pads its batches", "memory-efficient kernel", "every tile", "padding-free collator")),
    Case("job-attention-no-backward", "JOB_ATTENTION_NO_BACKWARD", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1),
          "jobs": [job(model="gpt-oss-20b", attention="flash", cards=[1])]},
         job="t", says=("Job 't'", "FlashAttention cannot train gpt-oss-20b", "forward-only", "Choose eager")),
    Case("job-images-on-text-model", "JOB_IMAGES", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1), "jobs": [job(images_per_sample=2, cards=[1])]},
         job="t", says=("Job 't'", "no vision tower", "set images per sample to 0")),
    Case("rl-generation-share", "RL_GENERATION", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1),
          "jobs": [job(objective="grpo", rl={"vllm_gpu_memory_utilization": 0.1}, cards=[1])]},
         slot=1, job="t", says=("Job 't'", "slot 1", "Raise vllm_gpu_memory_utilization")),
    Case("rl-critic-unknown", "RL_CRITIC_UNKNOWN", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1),
          "jobs": [job(objective="ppo", rl={"critic_model": "no-such-rm"}, cards=[1])]},
         job="t", says=("Job 't'", "no-such-rm", "cannot be used", "sized as copies of")),
    Case("rl-critic-tokenizer", "RL_CRITIC_TOKENIZER", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1),
          "jobs": [job(objective="ppo", rl={"critic_model": "qwen3-8b"}, cards=[1])]},
         job="t", says=("Job 't'", "vocabulary", "the policy's tokenizer")),
    Case("rl-critic-unused", "RL_CRITIC_UNUSED", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1),
          "jobs": [job(objective="dpo", rl={"critic_model": "llama-3.2-1b"}, cards=[1])]},
         job="t", says=("Job 't'", "keeps no critic", "choose PPO")),
    Case("job-no-activation-model", "JOB_NO_ACTIVATION_MODEL", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1), "jobs": [job(model={"parameters": 7e9}, cards=[1])]},
         job="t", says=("Job 't'", "set activation_memory_gb")),
    Case("job-does-not-fit", "JOB_DOES_NOT_FIT", "error",
         {"chassis": SERVER, "cards": cards("rtx-pro-6000-server", 1), "jobs": [job(model="llama-3.3-70b", cards=[1])]},
         slot=1, job="t", says=("Job 't'", "slot 1", "short by", "Smallest change that fits")),
    # seed B: 30B LoRA at 77.4 GB is "not comfortably on an 80 GB H100"
    Case("job-tight", "JOB_TIGHT", "warning",
         {"chassis": HGX, "cards": cards("h100-sxm", 1),
          "jobs": [job(model={"parameters": 30e9}, activation_memory_gb=15, cards=[1])]},
         slot=1, job="t", says=("Job 't'", "slot 1", "too little to plan on", "Use a larger card")),
    Case("job-mixed-cards", "JOB_MIXED_CARDS", "info",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1) + cards("h100-nvl", 2),
          "jobs": [job(parallelism="ddp", cards=[1, 2])]},
         job="t", says=("Job 't'", "bound by the smallest card and the slowest link")),
    Case("card-shared-warning", "CARD_SHARED", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1), "jobs": [job("a", cards=[1]), job("b", cards=[1])]},
         slot=1, says=("Jobs a, b share slot 1", "Run them one after another")),
    Case("card-shared-over-capacity", "CARD_SHARED", "error",
         {"chassis": SERVER, "cards": cards("rtx-pro-6000-server", 1),
          "jobs": [job("a", model="llama-3.3-70b", method="qlora", cards=[1]),
                   job("b", model="llama-3.3-70b", method="qlora", cards=[1])]},
         slot=1, says=("Jobs a, b share slot 1", "give each its own card or MIG instance")),
    # ---- precision (engine/lowprecision/checks.py) -------------------------------------------------------------------
    Case("precision-unsupported", "PRECISION_UNSUPPORTED", "error",
         {"chassis": SERVER, "cards": cards("rtx-pro-6000-server", 1), "jobs": [job(precision="mxfp8", cards=[1])]},
         slot=1, job="t", says=("Job 't'", "compute capability 12.0", "not supported on 12.0+ architectures yet",
                                "_compute_mxfp8_support", "Choose a supported recipe")),
    Case("precision-note", "PRECISION_NOTE", "info",
         {"chassis": SERVER, "cards": cards("rtx-pro-6000-server", 1), "jobs": [job(precision="nvfp4", cards=[1])]},
         slot=1, job="t", says=("Job 't'", "compute capability 12.0", "SM 10.0 and SM 10.3 only")),
    Case("precision-default-differs", "PRECISION_DEFAULT_DIFFERS", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1) + cards("rtx-pro-6000-server", 2),
          "jobs": [job(precision="fp8", parallelism="ddp", cards=[1, 2])]},
         job="t", says=("Job 't'", "fp8-current, fp8-delayed", "name one recipe")),
    # ---- links ------------------------------------------------------------------------------------------------
    Case("comm-dominates", "COMM_DOMINATES", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2),
          "jobs": [job(model="llama-3.3-70b", parallelism="fsdp", cards=[1, 2])]},
         job="t", says=("Job 't'", "over PCIe, one switch (PIX)", "Bridge the cards (NVLink)")),
    # a 300 W cap on a 600 W RTX PRO 6000: half its power, where the measured GB202 sweep ran at about 0.50
    Case("power-limit-not-timed", "POWER_LIMIT_NOT_TIMED", "warning",
         {"chassis": WS, "cards": cards("rtx-pro-6000-ws", 1, power_limit_w=300), "jobs": [job(cards=[1])]},
         slot=1, job="t", says=("slot 1 is capped at 300 W (50% of its 600 W default)",
                                "step time of job 't' assumes full power", "up to 2.0× as long",
                                "Where the power supply has room, raising the limit shortens the step")),
    Case("tp-over-pcie", "TP_OVER_PCIE", "warning",
         {"chassis": SERVER, "cards": cards("rtx-pro-6000-server", 1, 2),
          "jobs": [job(parallelism="tp", cards=[1, 2])]},
         job="t", says=("Job 't'", "tensor parallel over PCIe", "Prefer FSDP, or NVLink-bridged cards")),
    # ---- memory phases ----------------------------------------------------------------------------------------
    Case("fsdp-setup-floor", "FSDP_SETUP_FLOOR", "info",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2), "bridges": [{"slots": [1, 2]}],
          "jobs": [job(model="llama-2-7b", method="qlora", parallelism="fsdp", fsdp_version=1, sequence_length=512,
                       cards=[1, 2])]},
         job="t", says=("Job 't'", "loading and sharding", "FSDP set-up", "torch.cuda.empty_cache()")),
    # ---- training stack and host memory ------------------------------------------------------------------
    Case("offload-ignored", "JOB_OFFLOAD_IGNORED", "warning",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2), "jobs": [job(parallelism="ddp", offload="cpu",
                                                                             cards=[1, 2])]},
         job="t", says=("Job 't'", "cpu offload with ddp", "zero1-3 for CPU offload")),
    Case("host-memory-over", "HOST_MEMORY", "error",
         {"chassis": SMALL_HOST_CHASSIS, "cards": cards("h200-nvl", 1, 2),
          "jobs": [job(method="full", parallelism="zero3", offload="cpu", cards=[1, 2])]},
         says=("Jobs t", "more than the 64 GB"), custom_catalog=True),
    Case("host-memory-unknown", "HOST_MEMORY_UNKNOWN", "info",
         {"chassis": UNPUBLISHED_CHASSIS, "cards": cards("h200-nvl", 1, 2),
          "jobs": [job(method="full", parallelism="zero3", offload="cpu", cards=[1, 2])]},
         says=("Jobs t", "unknown", "check its specification"), custom_catalog=True),
    Case("host-storage", "HOST_STORAGE", "error",
         {"chassis": WS, "cards": cards("rtx-pro-6000-ws", 1),
          "jobs": [job(checkpoints_kept=1000, cards=[1], method="full")]},
         says=("Jobs t", "TB of NVMe", "4 bays", "keep fewer checkpoints")),
    Case("host-ram-short", "HOST_RAM_SHORT", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1, 2), "host": {"dimms": {"count": 2, "size_gb": 16}},
          "jobs": [job(method="full", parallelism="zero3", offload="cpu", cards=[1, 2])]},
         says=("2 × 16 GB DIMMs (32 GiB)", "less than", " GB = ", "Install at least ")),
    Case("host-nvme-short", "HOST_NVME_SHORT", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1), "host": {"drives": {"count": 1, "tb": 0.1}},
          "jobs": [job(method="full", cards=[1])]},
         says=("1 × 0.1 TB", "add drives")),
    Case("host-parts-dont-fit", "HOST_PARTS_DONT_FIT", "error",
         {"chassis": SERVER, "cards": cards("h200-nvl", 1), "host": {"dimms": {"count": 40, "size_gb": 64}},
          "jobs": [job(cards=[1])]},
         says=("40 × 64 GB", "32 DIMM slots")),
    Case("pcie-p2p", "PCIE_P2P", "info",
         {"chassis": SERVER, "cards": cards("rtx-pro-6000-server", 1, 2),
          "jobs": [job(parallelism="ddp", cards=[1, 2])]},
         job="t", says=("Job 't'", "IOMMU off", "ACS disabled")),
]  # fmt: skip


def run(case: Case) -> BuildResult:
    build = Build.model_validate(case.build)
    return evaluate(build, catalog=extended_catalog() if case.custom_catalog else None)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_check_is_emitted(case: Case) -> None:
    result = run(case)
    found = [c for c in result.checks if c.code == case.code]
    assert found, f"{case.code} not emitted; got {[(c.code, c.message) for c in result.checks]}"
    hits = [c for c in found if c.severity == case.severity and c.slot == case.slot and c.job == case.job]
    assert hits, f"{case.code}: no check with severity {case.severity}, slot {case.slot}, job {case.job}: {found}"
    message = hits[0].message + " " + (hits[0].detail or "")
    for words in case.says:
        assert words in message, f"{case.code} message lacks {words!r}: {message}"
    # the first line is for a buyer: API calls and kernel settings belong in the detail
    assert "torch." not in hits[0].message and "()" not in hits[0].message and "IOMMU" not in hits[0].message


def engine_codes() -> set[str]:
    codes: set[str] = set()
    for path in ENGINE_DIR.rglob("*.py"):  # the build's checks, in the subpackages by subject (memory/, checks/ ...)
        if path.relative_to(ENGINE_DIR).parts[0] in {"planner", "editing", "acceptance"}:  # their own codes
            continue
        codes |= set(re.findall(r'code="([A-Z0-9_]+)"', path.read_text(encoding="utf-8")))
    return codes


def test_table_covers_every_code() -> None:
    codes = engine_codes()
    assert len(codes) >= 40  # the grep itself works
    missing = codes - {c.code for c in CASES}
    assert not missing, f"check codes without a row in CASES: {sorted(missing)}"
    stale = {c.code for c in CASES} - codes
    assert not stale, f"rows for codes the engine no longer emits: {sorted(stale)}"


def test_ids_are_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


def test_custom_catalog_leaves_the_shipped_one_alone() -> None:
    assert WIDE_CARD not in default_catalog().cards
    assert extended_catalog().cards[WIDE_CARD].form_factor.slot_width.value == 3
    assert default_catalog().cards["h200-nvl"].form_factor.slot_width.value == 2


def test_clean_build_has_no_checks() -> None:
    """Seed A's two bridged H200 NVL: 70B QLoRA on one card, 8B LoRA on the other, 8B QLoRA over both."""
    build = Build.model_validate(
        {
            "name": "clean",
            "chassis": SERVER,
            "cards": cards("h200-nvl", 1, 2),
            "bridges": [{"slots": [1, 2]}],
            "jobs": [
                job("70B QLoRA", model="llama-3.3-70b", method="qlora", cards=[1]),
                job("8B LoRA", cards=[2]),
            ],
        }
    )
    result = evaluate(build)
    assert result.checks == []
    assert all(j.fits and j.status == "fits" for j in result.jobs)
    assert result.topology is not None and result.topology.nvlink_domains == [[1, 2]]


def test_clean_multi_card_build_has_no_errors() -> None:
    """FSDP over a bridged pair: no error, no warning (the link is NVLink, so no PCIe notes either)."""
    build = Build.model_validate(
        {
            "chassis": SERVER,
            "cards": cards("h200-nvl", 1, 2),
            "bridges": [{"slots": [1, 2]}],
            # QLoRA: well inside the cross-validated band of an FSDP2 stack (no measured run: widened)
            "jobs": [job("70B LoRA", model="llama-3.3-70b", method="qlora", parallelism="fsdp", cards=[1, 2])],
        }
    )
    result = evaluate(build)
    assert result.errors == []
    assert [c for c in result.checks if c.severity == "warning"] == []
    assert result.jobs[0].communication.bound_by == "nvlink"


def _capped(card: str, limit: float | None, chassis: str = WS) -> BuildResult:
    placed = cards(card, 1) if limit is None else cards(card, 1, power_limit_w=limit)
    return evaluate(Build.model_validate({"name": "cap", "chassis": chassis, "cards": placed,
                                          "jobs": [job(cards=[1])]}))  # fmt: skip


def test_a_power_cap_says_what_it_rests_on_and_only_below_the_default() -> None:
    """The step time assumes full power: a cap below the default says how much slower compute may run, citing the
    measured sweep (and that it is another architecture's where it is); the default itself, or no cap, says
    nothing; the job's memo keys on the cap, so changing only the cap changes the checks."""
    assert not [c for c in _capped("rtx-pro-6000-ws", None).checks if c.code == "POWER_LIMIT_NOT_TIMED"]
    assert not [c for c in _capped("rtx-pro-6000-ws", 600).checks if c.code == "POWER_LIMIT_NOT_TIMED"]
    (capped,) = [c for c in _capped("rtx-pro-6000-ws", 480).checks if c.code == "POWER_LIMIT_NOT_TIMED"]
    assert "up to 1.2×" in capped.message and capped.detail is not None
    assert "82% of its full-power throughput at 80%" in capped.detail
    assert "github.com/1a1a11a/gpu_power" in capped.detail
    assert "indicative" not in capped.detail
    (low,) = [c for c in _capped("rtx-pro-6000-ws", 150).checks if c.code == "POWER_LIMIT_NOT_TIMED"]
    assert "at least 2.6×" in low.message and "below the sweep's lowest point" in (low.detail or "")
    (hopper,) = [c for c in _capped("h100-nvl", 200, SERVER).checks if c.code == "POWER_LIMIT_NOT_TIMED"]
    assert "No such sweep is published for Hopper cards: indicative only" in (hopper.detail or "")
    assert "(measured on a Blackwell card; indicative)" in hopper.message and "up to" not in hopper.message


def test_a_capped_h100_pcie_reads_its_own_350_w_default() -> None:
    """The H100 PCIe's default is its 350 W TDP, not the SXM's 700 W: 300 W (the low end of NVIDIA's 300-350 W
    range) reads as 86 % of it, and with no Hopper sweep published the message says the figure is indicative."""
    (capped,) = [c for c in _capped("h100-pcie", 300).checks if c.code == "POWER_LIMIT_NOT_TIMED"]
    assert "NVIDIA H100 PCIe 80GB in slot 1 is capped at 300 W (86% of its 350 W default)" in capped.message
    assert "No such sweep is published for Hopper cards: indicative only" in (capped.detail or "")
    assert not [c for c in _capped("h100-pcie", 350).checks if c.code == "POWER_LIMIT_NOT_TIMED"]


def test_cards_capped_alike_read_as_one_check_per_job() -> None:
    """Seed A's tensor-parallel build caps four H200 NVL at 450 W for its PSU: one check names the four slots."""
    placed = cards("h200-nvl", 1, 2, 3, 4, power_limit_w=450)
    result = evaluate(Build.model_validate({"name": "tp", "chassis": SERVER, "cards": placed,
                                            "jobs": [job(parallelism="fsdp", cards=[1, 2, 3, 4])]}))  # fmt: skip
    (capped,) = [c for c in result.checks if c.code == "POWER_LIMIT_NOT_TIMED"]
    assert capped.slot == 1 and "slots 1, 2, 3 and 4 are capped at 450 W (75% of its 600 W default)" in capped.message


def test_changing_only_a_cap_is_not_served_from_the_jobs_memo() -> None:
    first = Build.model_validate({"name": "cap", "chassis": WS, "cards": cards("rtx-pro-6000-ws", 1),
                                  "jobs": [job(cards=[1])]})  # fmt: skip
    assert not [c for c in evaluate(first).checks if c.code == "POWER_LIMIT_NOT_TIMED"]
    capped = first.model_copy(update={"cards": [first.cards[0].model_copy(update={"power_limit_w": 300.0})]})
    assert capped.jobs[0] is first.jobs[0]  # the same job object: only the cap changed
    assert [c for c in evaluate(capped).checks if c.code == "POWER_LIMIT_NOT_TIMED"]


def test_a_cap_moved_to_another_slot_is_not_served_from_the_jobs_memo() -> None:
    """Two alike cards, the cap moved from slot 1 to slot 3 by reordering the card list: the memo keys each cap on
    its slot (found in review: a key of the caps' values alone served slot 1's check)."""
    a = Build.model_validate({"name": "cap", "chassis": WS, "cards": [
        {"slot": 1, "card": "rtx-pro-6000-ws", "power_limit_w": 300}, {"slot": 3, "card": "rtx-pro-6000-ws"}],
        "jobs": [job(parallelism="fsdp", cards=[1, 3])]})  # fmt: skip
    (first,) = [c for c in evaluate(a).checks if c.code == "POWER_LIMIT_NOT_TIMED"]
    b = a.model_copy(update={"cards": [a.cards[1].model_copy(update={"power_limit_w": 300.0}),
                                       a.cards[0].model_copy(update={"power_limit_w": None})]})  # fmt: skip
    assert b.jobs[0] is a.jobs[0]
    (moved,) = [c for c in evaluate(b).checks if c.code == "POWER_LIMIT_NOT_TIMED"]
    assert (first.slot, moved.slot) == (1, 3)
