"""Communication per step, collective by collective.

Ring algorithms (nccl-tests doc/PERFORMANCE.md): each card sends and receives
all-reduce 2(N-1)/N x S, all-gather and reduce-scatter (N-1)/N x S, where S is the whole buffer.
Time = bytes per card / per-direction rate of the slowest link on the ring; with measured rates the
typical nccl-tests busbw stands in for that rate (busbw is defined so that this holds).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Literal

import yaml
from pydantic import Field

from configurator.catalog.fileio import safe_read_text
from configurator.catalog.loader import specs_dir
from configurator.catalog.sourced import Strict
from configurator.engine.memory.estimate import Parameters
from configurator.engine.memory.precision import BF16, TrainedBytes, nf4_bytes
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.result import Collective, Communication
from configurator.engine.topology.links import Link

ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER = "all-reduce", "all-gather", "reduce-scatter"


# third-generation NVSwitch and later reduce in the fabric (NVLink SHARP); A100's NVSwitch does not
NVLS_ARCHITECTURES = ("Hopper", "Blackwell")


class _Latency(Strict):
    source: str = Field(min_length=1)
    quote: str = Field(min_length=1)
    base_us: float = Field(ge=0)
    per_step_us: dict[Literal["nvlink", "pci"], float]


class _Nvls(Strict):
    busbw_gb_s: float = Field(gt=0)
    source: str = Field(min_length=1)
    measured_cards: int = Field(ge=2)
    architectures: list[str]
    note: str | None = None


class _PairFactor(Strict):
    value: float = Field(gt=0)
    source: str = Field(min_length=1)
    note: str | None = None


class CollectivesSpec(Strict):
    """specs/collectives.yaml, validated at load: NCCL's latency model, NVLink SHARP's bus bandwidth, the PCIe pair
    factor, each with its source."""

    schema_version: Literal[1]
    latency: _Latency
    nvls: _Nvls
    pcie_pair_factor: _PairFactor


@functools.lru_cache(maxsize=1)
def collectives_spec() -> CollectivesSpec:
    """specs/collectives.yaml: NCCL's latency model, NVLink SHARP's bus bandwidth, the PCIe pair factor."""
    return CollectivesSpec.model_validate(yaml.safe_load(safe_read_text(specs_dir() / "collectives.yaml")))


def latency_s(kind: str, n: int, family: str) -> float:
    """One collective's latency (NCCL src/graph/tuning.cc, Ring/Simple): baseLat + steps x hwLat, steps 2(n-1)
    for an all-reduce and n-1 for an all-gather or reduce-scatter; hwLat by NVLink or PCI."""
    lat = collectives_spec().latency
    steps = 2 * (n - 1) if kind == ALL_REDUCE else n - 1
    hw = lat.per_step_us["nvlink" if family in ("nvlink", "nvswitch") else "pci"]
    return (lat.base_us + steps * hw) * 1e-6


def collective_rate(kind: str, n: int, family: str, rate_gb_s: float, basis: str, nvls: bool) -> tuple[float, str]:
    """The bus bandwidth one collective runs at: NVLink SHARP's for an all-reduce on an NVSwitch system that has it
    (unless the user calibrated the link), the PCIe pair factor on a 2-card measured PCIe ring, else the link's."""
    spec = collectives_spec()
    if kind == ALL_REDUCE and nvls and family == "nvswitch" and basis != "calibrated":
        sharp = spec.nvls
        # The switch reduces: each card sends its buffer once and receives the result once, so NVLS's algorithm
        # bandwidth does not depend on n; the measured 480 GB/s busbw on 8 cards is algbw 480 x 8 / 14. As busbw
        # on n cards that is algbw x 2(n-1)/n: above the ring's from about 4 cards, below it on a pair.
        at = sharp.measured_cards
        algbw = sharp.busbw_gb_s * at / (2 * (at - 1))
        busbw = algbw * 2 * (n - 1) / n
        if busbw > rate_gb_s:
            return busbw, "NVLink SHARP (NVLS)"
    if family == "pcie" and n == 2 and basis == "measured":
        return rate_gb_s * spec.pcie_pair_factor.value, "measured (2-card pair)"
    return rate_gb_s, basis


def ring_factor(kind: str, n: int) -> float:
    """Bytes each card sends per byte of buffer in a ring collective over ``n`` cards."""
    if n <= 1:
        return 0.0
    return 2 * (n - 1) / n if kind == ALL_REDUCE else (n - 1) / n


def slowest_link(slots: list[int], link_of: Callable[[int, int], Link], basis: str, calibration: dict[str, float],
                 ) -> tuple[Link, float, str]:  # fmt: skip
    """The ring over the job's cards in slot order; the slowest hop bounds every collective."""
    hops = [link_of(slots[i], slots[(i + 1) % len(slots)]) for i in range(len(slots))]
    # Equal rates (nominal PCIe is 64 GB/s on every hop) tie-break to the farther hop: SYS before NODE
    # before PIX, so the report names the link that really bounds the ring.
    distance = {"SYS": 0, "NODE": 1, "PXB": 2, "PIX": 3, "nvlink": 4, "nvswitch": 5}
    return min(((h, *h.rate(basis, calibration)) for h in hops), key=lambda t: (t[1], distance.get(t[0].kind, 9)))


def frozen_base_bytes(job: Job, p: Parameters) -> float:
    """The base weights as stored: what FSDP gathers (bf16, or NF4 storage under QLoRA)."""
    if job.method == "qlora":
        nf4 = nf4_bytes(job.quantization)
        return p.frozen_linear * nf4 + p.frozen_other * BF16
    return p.total * BF16


Planned = tuple[str, str, float, int]  # (name, kind, payload bytes, count per step) of one collective


def _data_parallel(job: Job, p: Parameters, tb: TrainedBytes) -> list[Planned]:
    """DDP's and FSDP's collectives per step (the strategy's record says which plan times it)."""
    accum = job.gradient_accumulation_steps
    grad_bytes = p.trainable * tb.gradient  # gradients in their training dtype (BF16 for a full fine-tune)
    timing = PARALLELISM[job.parallelism].timing
    if timing == "gradient-all-reduce":
        # ZeRO paper §5: data parallelism all-reduces the gradients once per step ("2 Psi data movement");
        # gradient accumulation uses no_sync, so one all-reduce per optimizer step.
        return [("gradient all-reduce", ALL_REDUCE, grad_bytes, 1)]
    if timing == "gather-and-scatter":
        # FSDP / ZeRO-3 gathers the sharded weights before the forward and again before the backward
        # pass and reduce-scatters the gradients, every micro-batch. For LoRA and QLoRA the frozen base is
        # what is gathered (seed A: 141 GB per card per micro-batch for a 70B LoRA on 2 cards).
        base = frozen_base_bytes(job, p) if job.method != "full" else p.total * tb.weight
        what = "frozen base" if job.method != "full" else "weights"
        return [
            (f"forward all-gather of the {what}", ALL_GATHER, base, accum),
            (f"backward all-gather of the {what}", ALL_GATHER, base, accum),
            ("gradient reduce-scatter", REDUCE_SCATTER, grad_bytes, accum),
        ]
    return []


def _tensor_parallel(job: Job, n: int, hidden_size: int, num_layers: int) -> tuple[list[Planned], float, list[str]]:
    """Tensor parallelism's collectives per step, the bytes per card per token of its forward pass, and notes."""
    accum = job.gradient_accumulation_steps
    # Megatron tensor parallelism (Shoeybi et al. 2019, §3): two all-reduces per layer in the forward
    # pass (after attention and after the MLP) and two in the backward pass, of tokens x hidden in bf16.
    tokens = job.sequence_length * job.micro_batch_size
    payload = tokens * hidden_size * BF16
    planned: list[Planned] = [
        ("forward all-reduces (2 per layer)", ALL_REDUCE, payload, 2 * num_layers * accum),
        ("backward all-reduces (2 per layer)", ALL_REDUCE, payload, 2 * num_layers * accum),
    ]
    tp_token = num_layers * 2 * hidden_size * BF16 * ring_factor(ALL_REDUCE, n)
    notes = [
        f"Forward pass moves {tp_token / 1e3:,.1f} KB per card per token (2 all-reduces per layer of hidden × 2 B "
        "each); the backward pass moves as much again, so a training step moves twice that.",
        "NVLink's quoted 900 GB/s adds both directions; an all-reduce sends and receives at once, so the "
        "per-direction 450 GB/s applies: against PCIe Gen5's 64 GB/s each way that is 7×, not the 14× "
        "that dividing by the two-direction total would give.",
    ]
    return planned, tp_token, notes


_NO_COLLECTIVES = Communication()  # one card, or a strategy without collectives (frozen: shared, ~2 us each saved)


def communication(
    job: Job,
    p: Parameters,
    tb: TrainedBytes,
    slots: list[int],
    link: Link | None,
    rate_gb_s: float,
    basis: str,
    hidden_size: int | None,
    num_layers: int | None,
    *,
    nvls: bool = False,
) -> Communication:
    """The job's collectives per step over the ring of its cards, timed on the slowest link ``link``: each call
    pays NCCL's latency plus its bytes over the bus bandwidth (alpha + bytes / beta), so the ~21 MB messages of
    tensor parallelism run below the large-message rate. ``nvls``: the cards' NVSwitch has NVLink SHARP."""
    n = len(slots)
    strategy = PARALLELISM[job.parallelism]
    if n <= 1 or link is None or not strategy.multi_card:
        return _NO_COLLECTIVES
    notes: list[str] = []
    tp_token = None
    planned = _data_parallel(job, p, tb)
    if strategy.timing == "per-layer-all-reduce" and hidden_size and num_layers:
        planned, tp_token, notes = _tensor_parallel(job, n, hidden_size, num_layers)
    collectives: list[Collective] = []
    for name, kind, payload, count in planned:
        per_card = ring_factor(kind, n) * payload * count
        bw, how = collective_rate(kind, n, link.family, rate_gb_s, basis, nvls)
        alpha = latency_s(kind, n, link.family)
        collectives.append(
            Collective(
                name=name, kind=kind, count_per_step=count, payload_bytes=payload, bytes_per_card=per_card,
                link=link.name, rate_gb_s=bw, rate_basis=how, seconds=count * alpha + per_card / (bw * 1e9),
                latency_s=count * alpha,
            )
        )  # fmt: skip
    total_s = sum(c.seconds for c in collectives)
    total_b = sum(c.bytes_per_card for c in collectives)
    return Communication(
        collectives=collectives, seconds_per_step=total_s, bytes_per_card_per_step=total_b, bound_by=link.name,
        tp_forward_bytes_per_token=tp_token, notes=notes,
    )  # fmt: skip


def combined(first: Communication, second: Communication, label: str) -> Communication:
    """Two models' collectives in one step (PPO's policy and its critic, stepped together): ``second``'s named
    with ``label``, the totals summed."""
    if not second.collectives:
        return first
    named = [c.model_copy(update={"name": f"{label}: {c.name}"}) for c in second.collectives]
    return first.model_copy(update={
        "collectives": [*first.collectives, *named],
        "seconds_per_step": first.seconds_per_step + second.seconds_per_step,
        "bytes_per_card_per_step": first.bytes_per_card_per_step + second.bytes_per_card_per_step,
        "bound_by": first.bound_by or second.bound_by,
        "notes": [*first.notes, *(n for n in second.notes if n not in first.notes)],
    })  # fmt: skip


def repeated(comm: Communication, times: int, why: str) -> Communication:
    """``comm`` run ``times`` in one step (PPO's epochs: rl.synced_epochs): every collective's count, bytes and
    seconds, and the step's totals, ``times`` over, with ``why`` among the notes."""
    if times <= 1 or not comm.collectives:
        return comm
    collectives = [c.model_copy(update={"count_per_step": c.count_per_step * times,
                                        "bytes_per_card": c.bytes_per_card * times, "seconds": c.seconds * times,
                                        "latency_s": c.latency_s * times}) for c in comm.collectives]  # fmt: skip
    return comm.model_copy(update={
        "collectives": collectives, "seconds_per_step": comm.seconds_per_step * times,
        "bytes_per_card_per_step": comm.bytes_per_card_per_step * times, "notes": [*comm.notes, why],
    })  # fmt: skip
