"""nccl-tests ``all_reduce_perf`` output: which GPUs ran and the large-message bus bandwidth.

Format (NVIDIA/nccl-tests, src/common.cu and doc/PERFORMANCE.md): a ``# nThread 1 nGpus 2 ...`` line, one
``#  Rank  0 Group  0 Pid 1234 on host device  0 [0x41] NVIDIA H200 NVL`` line per rank (newer versions print
the bus id as ``[0000:41:00]``), then rows ``size count type redop root time algbw busbw #wrong`` out of
place and in place. The busbw reading is :func:`configurator.engine.time.nccl.large_message_busbw`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from configurator.engine.acceptance.parse.common import ParseError, bus_id, clean_text
from configurator.engine.time.nccl import large_message_busbw

_RANK = re.compile(r"^#\s*Rank\s+(\d{1,4}).{0,200}?device\s+(\d{1,3})\s+\[([0-9a-fA-Fx:.]{3,16})\]\s*(.{0,100})$")
_WRONG = re.compile(r"^\s*\d{1,20}\s+\d{1,20}\s+\w+\s+\w+\s+-?\d{1,20}(?:\s+\S+){3}\s+(\d{1,12}|N/A)")


@dataclass(frozen=True)
class NcclRun:
    busbw_gb_s: float
    ranks: int
    bus_ids: list[str]  # per rank, as printed (may be only the bus number: 0000:41:00.0)
    names: list[str]
    wrong: int  # sum of the #wrong column over the out-of-place rows (data errors: a failed run)


def parse_nccl(text: str) -> NcclRun:
    lines = clean_text(text, "nccl-tests all_reduce_perf")
    ranks: dict[int, tuple[str, str]] = {}
    for line in lines:
        m = _RANK.match(line.strip())
        if m:
            b = m.group(3)
            if re.fullmatch(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}", b):
                b += ".0"
            ranks[int(m.group(1))] = (bus_id(b) or b, m.group(4).strip())
    try:
        busbw = large_message_busbw("\n".join(lines))
    except ValueError as exc:
        raise ParseError(f"nccl-tests all_reduce_perf: {exc}") from None
    wrong = 0
    for line in lines:
        m = _WRONG.match(line)
        if m and m.group(1).isdigit():
            wrong += int(m.group(1))
    n = len(ranks) or _gpus_from_header(lines)
    order = sorted(ranks)
    return NcclRun(busbw, n, [ranks[r][0] for r in order], [ranks[r][1] for r in order], wrong)


def _gpus_from_header(lines: list[str]) -> int:
    for line in lines:
        m = re.search(r"nGpus\s+(\d{1,3})", line)
        if m:
            return int(m.group(1))
    return 0
