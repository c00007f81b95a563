"""Counts what the CUDA caching allocator would hold, from the storages a meta-tensor run creates.

A ``TorchDispatchMode`` sees every op's outputs; each new storage is counted rounded up to 512 bytes (the
caching allocator's ``round_size``, c10/cuda/CUDACachingAllocator.cpp: kMinBlockSize) and released from a
weakref callback when its last reference dies, the moment the GPU run would free it (the same bookkeeping as
torch/distributed/_tools/mem_tracker.py MemTracker, without its cuda-only rounding and grad hooks).
Every allocation is logged, so the live set at the peak can be classified afterwards.
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

BLOCK = 512


def _local(t: torch.Tensor) -> torch.Tensor:
    inner = getattr(t, "_local_tensor", None)  # torch.distributed.tensor.DTensor
    return inner if isinstance(inner, torch.Tensor) else t


def rounded(nbytes: int) -> int:
    return (nbytes + BLOCK - 1) // BLOCK * BLOCK


@dataclass
class Record:
    """One storage's life: its bytes, the events that allocated and freed it, and where it was made."""

    nbytes: int
    born: int
    phase: str
    step: int
    recompute: bool
    died: int | None = None


@dataclass
class Peak:
    bytes: int = 0
    event: int = -1
    phase: str = ""
    step: int = 0
    op: str = ""
    module: str = ""


@dataclass
class Context:
    """Where the run is: set by the driver (phase, step) and the module hooks (module stack)."""

    phase: str = "load"
    step: int = 0
    recompute: bool = False
    modules: list[str] = field(default_factory=list)


class MemoryCounter(TorchDispatchMode):
    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        self.records: list[Record] = []
        self.live: dict[int, int] = {}  # storage key -> record index
        self._refs: dict[int, Any] = {}
        self.total = 0
        self.event = 0
        self.peak = Peak()
        self._op = ""

    # ---- dispatch ----
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        out = func(*args, **(kwargs or {}))
        self._op = str(func)
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                self.track(t)
        return out

    def track(self, t: torch.Tensor) -> None:
        """Count ``t``'s storage if it is new (views and in-place results share a counted one); a DTensor (FSDP2)
        by its local shard, what this rank's card holds."""
        t = _local(t)
        st = t.untyped_storage()
        key = st._cdata
        if key in self.live:
            return
        nbytes = st.nbytes()
        if nbytes == 0:
            return
        size = rounded(nbytes)
        self.event += 1
        self.records.append(Record(size, self.event, self.ctx.phase, self.ctx.step, self.ctx.recompute))
        self.live[key] = len(self.records) - 1
        self._refs[key] = weakref.ref(st, functools.partial(self._released, key))
        self.total += size
        if self.total > self.peak.bytes:
            self.peak = Peak(self.total, self.event, self.ctx.phase, self.ctx.step, self._op, self._module())

    def _released(self, key: int, _ref: object) -> None:
        """The weakref callback: the storage's last reference died."""
        self._free(key)

    def release(self, t: torch.Tensor) -> None:
        """``t``'s storage was resized to nothing (FSDP2 frees an unsharded parameter so, keeping the tensor)."""
        self._free(_local(t).untyped_storage()._cdata)

    def _free(self, key: int) -> None:
        index = self.live.pop(key, None)
        self._refs.pop(key, None)
        if index is None:
            return
        self.event += 1
        rec = self.records[index]
        rec.died = self.event
        self.total -= rec.nbytes

    def _module(self) -> str:
        if self.ctx.modules:
            return self.ctx.modules[-1]
        node = torch._C._current_autograd_node()
        if node is not None:
            name = node.metadata.get("module")
            if name:
                return str(name)
        return ""

    def index_of(self, t: torch.Tensor) -> int | None:
        """The record of ``t``'s storage, if it is live and counted."""
        return self.live.get(_local(t).untyped_storage()._cdata)

    def live_indices(self) -> list[int]:
        return list(self.live.values())
