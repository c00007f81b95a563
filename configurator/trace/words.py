"""How a traced figure reads, the same in the window, the command line and the sheet. GB = 10^9 bytes."""

from __future__ import annotations

from configurator.catalog.units import GB
from configurator.trace.protocol import TraceResult

BREAKDOWN = (("parameters", "Parameters"), ("gradients", "Gradients"), ("optimizer_states", "Optimizer states"),
             ("activations", "Activations"), ("temporaries", "Temporaries"))  # fmt: skip


def traced_line(result: TraceResult) -> str:
    """'traced: 17.42 GB allocated, peak in backward at aten.mm.default (model.layers.31.mlp.down_proj)'."""
    if not result.ok:
        return f"not traced: {result.error or 'the tracer gave no reason'}"
    where = f", peak in {result.phase or 'an unnamed phase'}"
    if result.op:
        where += f" at {result.op}"
    if result.module:
        where += f" ({result.module})"
    return f"traced: {result.peak_gb:.2f} GB allocated{where}"


def breakdown_lines(result: TraceResult) -> list[str]:
    """The live bytes at the peak by kind, one line each ('Activations: 4.21 GB')."""
    b = result.breakdown
    return [f"{label}: {getattr(b, key) / GB:.2f} GB" for key, label in BREAKDOWN]


def difference_text(traced_gb: float, estimate_gb: float | None) -> str:
    """'estimate 18.10 GB; trace - estimate -0.68 GB (-3.8 % of the trace)', or why there is no estimate."""
    if estimate_gb is None:
        return "no engine estimate to compare"
    diff = estimate_gb - traced_gb
    pct = f" ({diff / traced_gb * 100:+.1f} % of the trace)" if traced_gb > 0 else ""
    return f"engine estimate {estimate_gb:.2f} GB allocated; estimate - trace {diff:+.2f} GB{pct}"
