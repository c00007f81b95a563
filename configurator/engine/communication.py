"""Communication per step, collective by collective.

Ring algorithms (nccl-tests doc/PERFORMANCE.md): each card sends and receives
all-reduce 2(N-1)/N x S, all-gather and reduce-scatter (N-1)/N x S, where S is the whole buffer.
Time = bytes per card / per-direction rate of the slowest link on the ring; with measured rates the
typical nccl-tests busbw stands in for that rate (busbw is defined so that this holds).
"""

from __future__ import annotations

from collections.abc import Callable

from configurator.engine.build import Job
from configurator.engine.memory import Parameters
from configurator.engine.parallelism import PARALLELISM
from configurator.engine.precision import BF16, NF4_BYTES, NF4_DQ_BYTES, TrainedBytes
from configurator.engine.result import Collective, Communication
from configurator.engine.topology import Link

ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER = "all-reduce", "all-gather", "reduce-scatter"


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
        nf4 = NF4_DQ_BYTES if job.quantization == "nf4-dq" else NF4_BYTES
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
        f"Forward pass moves {tp_token / 1e3:,.1f} KB per card per token (2 all-reduces per layer of hidden x 2 B "
        "each); the backward pass moves as much again, so a training step moves twice that.",
        "NVLink's quoted 900 GB/s adds both directions; an all-reduce sends and receives at once, so the "
        "per-direction 450 GB/s applies: against PCIe Gen5's 64 GB/s each way that is 7x, not the 14x "
        "that dividing by the two-direction total would give.",
    ]
    return planned, tp_token, notes


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
) -> Communication:
    """The job's collectives per step over the ring of its cards, timed on the slowest link ``link``."""
    n = len(slots)
    strategy = PARALLELISM[job.parallelism]
    if n <= 1 or link is None or not strategy.multi_card:
        return Communication()
    rate = rate_gb_s * 1e9
    notes: list[str] = []
    tp_token = None
    planned = _data_parallel(job, p, tb)
    if strategy.timing == "per-layer-all-reduce" and hidden_size and num_layers:
        planned, tp_token, notes = _tensor_parallel(job, n, hidden_size, num_layers)
    collectives: list[Collective] = []
    for name, kind, payload, count in planned:
        per_card = ring_factor(kind, n) * payload * count
        collectives.append(
            Collective(
                name=name, kind=kind, count_per_step=count, payload_bytes=payload, bytes_per_card=per_card,
                link=link.name, rate_gb_s=rate_gb_s, rate_basis=basis, seconds=per_card / rate,
            )
        )  # fmt: skip
    total_s = sum(c.seconds for c in collectives)
    total_b = sum(c.bytes_per_card for c in collectives)
    return Communication(
        collectives=collectives, seconds_per_step=total_s, bytes_per_card_per_step=total_b, bound_by=link.name,
        tp_forward_bytes_per_token=tp_token, notes=notes,
    )  # fmt: skip
