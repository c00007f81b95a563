"""Readable names of a step's op classes (engine OpTime.name: engine/time/steptime/ops.py) and collectives, for a
chart's segment labels. The engine's names are identifiers ('mlp', 'lora', 'dequant'); the Roofline tab already reads
'MLP up-projection' (engine/time/compute.py), so the step time reads the same way."""

from __future__ import annotations

import re

OP_NAMES = {
    "projections": "Attention projections",
    "mlp": "MLP",
    "attention": "Attention",
    "elementwise": "Norms, activations",
    "lora": "LoRA",
    "dequant": "4-bit dequantisation",
    "loss": "Loss (logits)",
    "recompute": "Recompute",
    "optimizer": "Optimizer step",
    "vision": "Vision tower",
    "host": "Kernel launches",
}


def op_name(name: str) -> str:
    """'mlp' -> 'MLP'; an op class the table does not know is shown as the engine names it, capitalised."""
    return OP_NAMES.get(name, name[:1].upper() + name[1:])


def collective_name(name: str) -> str:
    """'forward all-gather of the frozen base' -> 'Forward all-gather' (the rest is in the segment's tooltip)."""
    short = re.sub(r" \(.*\)", "", name.split(" of the ")[0]).strip()
    return short[:1].upper() + short[1:]
