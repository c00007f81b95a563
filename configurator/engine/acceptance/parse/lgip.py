"""``nvidia-smi mig -lgip``: the GPU instance profiles each GPU offers.

Format (NVIDIA MIG User Guide, "Getting Started with MIG"): a boxed table, two lines per profile; the first
``|   0  MIG 1g.18gb       19     7/7        16.00      No     16     1     0   |`` gives GPU, name, profile
id, instances free/total, memory GiB, P2P and SM count. ``No MIG-enabled devices found.`` when MIG is off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from configurator.engine.acceptance.parse.common import ParseError, clean_text

_ROW = re.compile(
    r"^\|?\s*(\d{1,3})\s+MIG\s+(\S{1,40})\s+(\d{1,4})\s+(\d{1,3})/(\d{1,3})\s+(\d{1,6}(?:\.\d{1,3})?)"
    r"\s+(\S{1,5})\s+(\d{1,5})"
)


@dataclass(frozen=True)
class LgipProfile:
    gpu: int
    name: str  # e.g. 1g.18gb, 1g.24gb+me
    profile_id: int
    free: int
    total: int
    memory_gib: float
    sm: int


def parse_lgip(text: str) -> tuple[list[LgipProfile], bool]:
    """(profiles, mig_enabled). MIG off (``No MIG-enabled devices found``) gives ([], False)."""
    lines = clean_text(text, "nvidia-smi mig -lgip")
    joined = " ".join(lines).lower()
    out = [
        LgipProfile(
            int(m.group(1)),
            m.group(2),
            int(m.group(3)),
            int(m.group(4)),
            int(m.group(5)),
            float(m.group(6)),
            int(m.group(8)),
        )
        for line in lines
        if (m := _ROW.match(line.strip()))
    ]
    if out:
        return out, True
    if "no mig-enabled devices" in joined or "no mig-supported devices" in joined or "not supported" in joined:
        return [], False
    raise ParseError(
        "nvidia-smi mig -lgip: no profile rows ('|  0  MIG 1g.18gb  19  7/7 ...') and no 'No MIG-enabled "
        "devices found' line; save the whole output"
    )
