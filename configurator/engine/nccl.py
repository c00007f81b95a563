"""Read an nccl-tests ``all_reduce_perf`` output: its large-message bus bandwidth calibrates a link."""

from __future__ import annotations

import re

_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")

LARGE_MESSAGE_BYTES = 64 * 2**20  # NCCL reaches its plateau above tens of MB (nccl-tests PERFORMANCE.md)


def large_message_busbw(text: str) -> float:
    """The highest out-of-place busbw (GB/s) among messages of at least 64 MiB.

    Rows: size count type redop root time algbw busbw #wrong | in-place ... (nccl-tests columns).
    Raises ValueError with a plain sentence when the text holds no usable rows.
    """
    rates = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        m = _ROW.match(line)
        if m and int(m.group(1)) >= LARGE_MESSAGE_BYTES:
            rates.append(float(m.group(8)))
    if not rates:
        raise ValueError(
            "no all_reduce_perf rows of 64 MiB or more found: run nccl-tests with -e 1G (or larger) and paste "
            "its whole output"
        )
    return max(rates)
