"""QLoRA's bytes per 4-bit base weight come from one rule (precision.nf4_bytes), read by the memory, the
communication, the compute and the step-time models alike."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from configurator.engine.memory.precision import NF4_BYTES, NF4_DQ_BYTES, nf4_bytes

ROOT = Path(__file__).resolve().parents[2]
CHOICE = re.compile(r"NF4_(DQ_)?BYTES\s+if\b")


def test_nf4_bytes_per_weight() -> None:
    # 4 bits + an fp32 absmax per 64 weights; double quantisation: an 8-bit absmax + an fp32 per 256 blocks
    assert nf4_bytes("nf4") == pytest.approx(0.5625) == NF4_BYTES
    assert nf4_bytes("nf4-dq") == pytest.approx(0.5 + 1 / 64 + 4 / 16384) == NF4_DQ_BYTES


def test_the_choice_is_made_in_one_place() -> None:
    found = []
    for path in sorted((ROOT / "configurator").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in CHOICE.finditer(text)]
    assert len(found) == 1 and found[0].endswith("precision.py: NF4_DQ_BYTES if"), found
    assert CHOICE.search('nf4 = NF4_DQ_BYTES if job.quantization == "nf4-dq" else NF4_BYTES')
