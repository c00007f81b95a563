"""The byte units every layer counts in, defined once (imported by the catalog, the engine, the trace, the views).

GB = 10^9 bytes: the seeds' unit and every figure the configurator prints (ARCHITECTURE.md, "GB = 10^9 bytes").
GiB = 2^30 bytes and MiB = 2^20 bytes: what nvidia-smi, the MIG profiles and PyTorch's allocator print, read in
when a source states them so. The acceptance kit's measure.py keeps its own GB: it runs on the customer's machine
as a standard-library script that cannot import this package.
"""

from __future__ import annotations

GB = 1e9
GIB = 2**30
MIB = 2**20


def gb_to_gib(gb: float) -> float:
    """GB (10^9 bytes) in GiB (2^30 bytes)."""
    return gb * GB / GIB
