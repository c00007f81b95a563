"""Read an nccl-tests ``all_reduce_perf`` output: its large-message bus bandwidth calibrates a link.

The value printed is one the build file accepts: it is checked against the same bounds as
``assumptions.calibration[].busbw_gb_s`` (``engine.model.build.LinkCalibration``), so a row of 0, 99999 or
``inf`` GB/s is reported as unusable instead of being suggested.
"""

from __future__ import annotations

import math
import re

from pydantic import ValidationError

from configurator.engine.model.build import LinkCalibration

# size count type redop root time algbw busbw #wrong | in-place ... (nccl-tests columns); numbers bounded in
# length so a hostile file's 5,000-digit "size" is just not a row
_NUMBER = re.compile(r"(?:\d{1,20}(?:\.\d{0,20})?|inf|nan|N/A)")
# the busbw column is taken whole (up to the next blank) and must then be a number as a whole: "41.2.3" was read
# as 41.2 by a pattern that stopped where the number did
_ROW = re.compile(r"^\s*(\d{1,20})\s+(\d{1,20})\s+(\w+)\s+(\w+)\s+(-?\d{1,20})\s+(\S{1,40})\s+(\S{1,40})"
                  r"\s+(\S{1,40})(?:\s|$)")  # fmt: skip

LARGE_MESSAGE_BYTES = 64 * 2**20
# The fastest one direction of a link can carry, GB/s: a ring all_reduce's busbw cannot exceed it (nccl-tests
# PERFORMANCE.md: busbw is comparable to the hardware's peak bandwidth, per direction). PCIe x16: 32 GT/s (Gen5) and
# 64 GT/s (Gen6) per lane x 16 lanes / 8 bits, 128b/130b and FLIT encodings left out: 64 and 128 GB/s (PCI-SIG PCIe
# 5.0 / 6.0 base specification rates). NVLink: 900 GB/s per GPU per direction, NVLink 5 (B200: 1.8 TB/s both
# directions, https://www.nvidia.com/en-us/data-center/dgx-b200/), the fastest in the catalog's generations.
PCIE_GEN5_X16_GB_S = 64.0
LINK_CEILING_GB_S = {"pcie": 128.0, "nvlink": 900.0, "nvswitch": 900.0}
LINK_CEILING_WORDS = {
    "pcie": "PCIe Gen6 x16 carries 128 GB/s per direction (Gen5 x16: 64)",
    "nvlink": "NVLink 5 carries 900 GB/s per GPU per direction",
    "nvswitch": "NVLink 5 through NVSwitch carries 900 GB/s per GPU per direction",
}


def link_check(link: str, busbw: float) -> str | None:
    """A warning for a busbw above what ``link`` usually carries (PCIe above Gen5 x16: only a Gen6 link does), or
    None. ValueError above what the link can physically carry: another link's figure (an NVLink run given as PCIe)."""
    if busbw > LINK_CEILING_GB_S[link]:
        others = " or ".join(f"--link {k}" for k in LINK_CEILING_GB_S if k != link and busbw <= LINK_CEILING_GB_S[k])
        hint = f"; if the run went over another link, give {others}" if others else ""
        raise ValueError(f"{busbw:.1f} GB/s is more than a {link} link can carry ({LINK_CEILING_WORDS[link]}): "
                         f"not a {link} figure{hint}")  # fmt: skip
    if link == "pcie" and busbw > PCIE_GEN5_X16_GB_S:
        return (f"{busbw:.1f} GB/s is above PCIe Gen5 x16's {PCIE_GEN5_X16_GB_S:.0f} GB/s per direction: only a Gen6 "
                "x16 link carries it; check that the run went over PCIe (nvidia-smi topo -m shows NV# for NVLink)")
    return None  # NCCL reaches its plateau above tens of MB (nccl-tests PERFORMANCE.md)


def _usable(busbw: float) -> bool:
    """The build file's own rule for a calibration value (LinkCalibration.busbw_gb_s)."""
    if not math.isfinite(busbw):
        return False
    try:
        LinkCalibration(link="pcie", busbw_gb_s=busbw)
    except ValidationError:
        return False
    return True


def large_message_busbw(text: str) -> float:
    """The highest out-of-place busbw (GB/s) among messages of at least 64 MiB that the build file accepts.

    Raises ValueError with a plain sentence when the text holds no usable rows, saying whether it held
    large-message rows whose busbw was out of bounds.
    """
    rates: list[float] = []
    refused: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        m = _ROW.match(line)
        if not m or int(m.group(1)) < LARGE_MESSAGE_BYTES:
            continue
        cell = m.group(8)
        if not _NUMBER.fullmatch(cell):  # a damaged file is refused whole, never half-read
            raise ValueError(f"line {number}: the busbw column holds {cell[:40]!r}, which is not a number: "
                             "paste nccl-tests' all_reduce_perf output as it printed it")  # fmt: skip
        try:
            busbw = float(cell)
        except ValueError:  # N/A
            busbw = math.nan
        if _usable(busbw):
            rates.append(busbw)
        else:
            refused.append(f"{cell} (line {number})")
    if not rates:
        bounds = LinkCalibration.model_fields["busbw_gb_s"].metadata
        limit = next((getattr(b, "le", None) for b in bounds if getattr(b, "le", None) is not None), 5000)
        if refused:
            shown = ", ".join(refused[:5]) + (f" and {len(refused) - 5} more" if len(refused) > 5 else "")
            raise ValueError(
                f"no usable large-message row: the all_reduce_perf rows of 64 MiB or more give busbw {shown} GB/s, "
                f"and a calibration must be above 0 and at most {limit:g} GB/s. Rerun nccl-tests and check the "
                "#wrong column and the GPU count"
            )
        raise ValueError(
            "no all_reduce_perf rows of 64 MiB or more found: run nccl-tests with -e 1G (or larger) and paste "
            "its whole output"
        )
    return max(rates)
