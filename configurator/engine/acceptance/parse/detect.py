"""Which tool printed a file: by its content (file names from the burn-in kit are only a hint)."""

from __future__ import annotations

import re
from typing import Literal

Kind = Literal["topo", "query-csv", "smi-q", "lgip", "lspci", "nccl", "dcgm", "measure", "gemm", "unknown"]


def detect(text: str, name: str = "") -> Kind:
    head = text[:20000]
    low = head.lower()
    if '"tool"' in head and "configurator-measure" in head:
        return "measure"
    if '"tool"' in head and "configurator-gemm" in head:
        return "gemm"
    if "all_reduce_perf" in low or re.search(r"#\s+size\s+count\s+type", low) or "avg bus bandwidth" in low:
        return "nccl"
    if "gpu instance profiles" in low or re.search(r"mig\s+\d+g\.\d+gb", low) or "no mig-enabled devices" in low:
        return "lgip"
    if "nvsmi log" in low or re.search(r"^gpu [0-9a-f]{8}:[0-9a-f]{2}:", low, re.M):
        return "smi-q"
    if re.search(r"^\s*index\s*,|pci\.bus_id", low, re.M):
        return "query-csv"
    if "#entity" in low.replace(" ", "") or "dcgm_fi_" in low:
        return "dcgm"
    if "lnkcap:" in low or "lnksta:" in low or re.search(r"^[0-9a-f]{2}:[0-9a-f]{2}\.[0-7] ", low, re.M):
        return "lspci"
    if (re.search(r"^\s*gpu0(\s|$)", low, re.M) and "legend" in low) or re.search(r"^gpu0\s+x\s", low, re.M):
        return "topo"
    return "unknown"
