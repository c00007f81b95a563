"""``nvidia-smi --query-gpu=... --format=csv`` and ``nvidia-smi -q``: what each GPU is and how it is set.

CSV (``nvidia-smi --help-query-gpu``): a header of the queried field names, with units in brackets unless
``nounits`` (``memory.total [MiB]``), then one row per GPU; fields the driver cannot read print ``[N/A]`` or
``[Not Supported]``. ``-q``: indented ``Key : Value`` sections, one ``GPU 00000000:41:00.0`` block per GPU.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from configurator.engine.acceptance.parse.common import ParseError, bus_id, clean_text, number

# the fields the burn-in kit queries (order does not matter to the parser)
QUERY_FIELDS = (
    "index",
    "pci.bus_id",
    "name",
    "memory.total",
    "power.limit",
    "power.max_limit",
    "pcie.link.gen.current",
    "pcie.link.gen.max",
    "pcie.link.width.current",
    "pcie.link.width.max",
    "mig.mode.current",
    "driver_version",
    "vbios_version",
    "serial",
)


@dataclass
class SmiGpu:
    index: int
    bus_id: str | None = None
    name: str = ""
    memory_total_mib: float | None = None
    power_limit_w: float | None = None
    power_max_limit_w: float | None = None
    gen_current: int | None = None
    gen_max: int | None = None
    width_current: int | None = None
    width_max: int | None = None
    mig_mode: str | None = None
    driver: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


def _int(v: str) -> int | None:
    n = number(v)
    return int(n) if n is not None else None


def _set(gpu: SmiGpu, key: str, value: str) -> None:
    value = value.strip()
    if key == "pci.bus_id":
        gpu.bus_id = bus_id(value)
    elif key == "name":
        gpu.name = value[:100]
    elif key == "memory.total":
        gpu.memory_total_mib = number(value)
    elif key == "power.limit":
        gpu.power_limit_w = number(value)
    elif key == "power.max_limit":
        gpu.power_max_limit_w = number(value)
    elif key == "pcie.link.gen.current":
        gpu.gen_current = _int(value)
    elif key == "pcie.link.gen.max":
        gpu.gen_max = _int(value)
    elif key == "pcie.link.width.current":
        gpu.width_current = _int(value)
    elif key == "pcie.link.width.max":
        gpu.width_max = _int(value)
    elif key == "mig.mode.current":
        gpu.mig_mode = value if not value.startswith("[") else None
    elif key == "driver_version":
        gpu.driver = value[:40]
    else:
        gpu.extra[key[:60]] = value[:200]


def parse_query_csv(text: str) -> list[SmiGpu]:
    lines = [ln for ln in clean_text(text, "nvidia-smi --query-gpu CSV") if ln.strip()]
    try:
        rows = list(csv.reader(io.StringIO("\n".join(lines)), skipinitialspace=True))
    except csv.Error as exc:
        raise ParseError(f"nvidia-smi --query-gpu CSV: not CSV ({exc})") from None
    if not rows:
        raise ParseError("nvidia-smi --query-gpu CSV: no rows")
    header = [re.sub(r"\s*\[.*\]\s*$", "", h.strip()).lower() for h in rows[0]]
    if "index" not in header and "pci.bus_id" not in header:
        raise ParseError(
            "nvidia-smi --query-gpu CSV: the first line must name the fields (index, pci.bus_id, name, "
            "memory.total, ...); run with --format=csv, not csv,noheader"
        )
    out: list[SmiGpu] = []
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ParseError(f"nvidia-smi --query-gpu CSV line {n}: {len(row)} fields for {len(header)} names")
        values = dict(zip(header, row, strict=True))
        index = _int(values.get("index", str(len(out))))
        if index is None:
            raise ParseError(
                f"nvidia-smi --query-gpu CSV line {n}: index '{values.get('index', '')[:20]}' is not a number"
            )
        gpu = SmiGpu(index=index)
        for k, v in values.items():
            _set(gpu, k, v)
        out.append(gpu)
    if not out:
        raise ParseError("nvidia-smi --query-gpu CSV: a header but no GPU rows (no GPU visible to the driver?)")
    return out


_Q_KEYS = {
    ("", "product name"): "name",
    ("fb memory usage", "total"): "memory.total",
    ("", "driver version"): "driver_version",
    ("gpu power readings", "current power limit"): "power.limit",
    ("power readings", "power limit"): "power.limit",
    ("power readings", "current power limit"): "power.limit",
    ("gpu power readings", "max power limit"): "power.max_limit",
    ("power readings", "max power limit"): "power.max_limit",
    ("pcie generation", "max"): "pcie.link.gen.max",
    ("pcie generation", "current"): "pcie.link.gen.current",
    ("link width", "max"): "pcie.link.width.max",
    ("link width", "current"): "pcie.link.width.current",
    ("mig mode", "current"): "mig.mode.current",
}


def parse_smi_q(text: str) -> list[SmiGpu]:
    """``nvidia-smi -q``: one SmiGpu per ``GPU dddd:bb:dd.f`` block, in the order printed (the index)."""
    lines = clean_text(text, "nvidia-smi -q")
    gpus: list[SmiGpu] = []
    driver: str | None = None
    section: list[tuple[int, str]] = []  # (indent, name) of the open sections inside a GPU block
    for line in lines:
        if not line.strip() or line.strip().startswith("="):
            continue
        m = re.match(r"^GPU\s+([0-9A-Fa-f:.]{7,20})\s*$", line)
        if m:
            gpus.append(SmiGpu(index=len(gpus), bus_id=bus_id(m.group(1)), driver=driver))
            section = []
            continue
        indent = len(line) - len(line.lstrip())
        key, sep, value = line.strip().partition(":")
        key = key.strip().lower()
        while section and section[-1][0] >= indent:
            section.pop()
        if not sep or not value.strip():
            section.append((indent, key))
            continue
        if key == "driver version" and not gpus:
            driver = value.strip()[:40]
            continue
        if not gpus:
            continue
        parent = section[-1][1] if section else ""
        field_name = _Q_KEYS.get((parent, key)) or (_Q_KEYS.get(("", key)) if indent <= 4 else None)
        if field_name:
            _set(gpus[-1], field_name, value)
    if not gpus:
        raise ParseError("nvidia-smi -q: no 'GPU 00000000:xx:00.0' block; save the whole output of `nvidia-smi -q`")
    for g in gpus:
        g.driver = g.driver or driver
    return gpus
