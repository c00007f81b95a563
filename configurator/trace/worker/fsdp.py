"""FSDP2 (``fully_shard``) on meta tensors, over PyTorch's fake process group: one rank of an N-card job.

The fake backend (torch/testing/_internal/distributed/fake_pg.py) answers every collective without moving data, so
one process runs rank 0 of a ``world_size`` group: its parameters, gradients and optimizer states are its 1/N
shards (DTensor local tensors, counted as such), and the all-gathered units exist for the time FSDP2 keeps them.
fully_shard itself shards meta parameters as it would real ones; three of its checks assume a GPU or real
storage and are bypassed here (tracing.md: "FSDP2: try fully_shard with a fake process group"):

- ``FSDPParamGroup._validate_no_meta_params`` refuses meta parameters at the first forward;
- the device handle (``_get_device_handle``) of "meta" is None: FSDP2's streams and events are taken from
  torch.cpu's, whose Stream and Event do nothing (one stream: the side streams' pools are not told apart);
- the states' device is set to meta, so the all-gather outputs and the inputs FSDP moves stay on meta.

Wrapping follows Accelerate's FSDP2 path (TRANSFORMER_BASED_WRAP over the model's ``_no_split_modules``, then the
root), with ``reshard_after_forward=True`` (FULL_SHARD) and, under mixed-bf16, ``MixedPrecisionPolicy(param_dtype=
bf16, reduce_dtype=fp32)``.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from configurator.trace.worker.request import Job, RequestError

META = torch.device("meta")
_PATCHED = False
# the run's MemoryCounter (trace.py sets it): FSDP2 frees and re-allocates the unsharded parameters by resizing their
# storages in place (_fsdp_param.py free_storage / alloc_storage: storage.resize_), which no op and no storage death
# shows, so the two functions tell the counter
COUNTER: Any = None
_WORLD: int | None = None


class FsdpNotTraced(RequestError):
    """fully_shard (or its step) did not run on meta tensors; the message says where."""


def _patch() -> None:
    global _PATCHED
    if _PATCHED:
        return
    # torch.distributed and FSDP2's internals load for fsdp2 jobs only (trace.py imports this module for every job)
    from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_param, _fsdp_param_group, _fsdp_state

    _fsdp_param_group.FSDPParamGroup._validate_no_meta_params = lambda self: None  # type: ignore[method-assign]
    free, alloc = _fsdp_param.free_storage, _fsdp_param.alloc_storage

    def free_storage(tensor: torch.Tensor) -> None:
        sized = tensor.untyped_storage().size() != 0
        free(tensor)
        if sized and COUNTER is not None:
            COUNTER.release(tensor)

    def alloc_storage(tensor: torch.Tensor) -> None:
        alloc(tensor)
        if COUNTER is not None:
            COUNTER.track(tensor)

    _fsdp_param.free_storage = free_storage  # type: ignore[assignment]
    _fsdp_param.alloc_storage = alloc_storage  # type: ignore[assignment]
    _fsdp_param_group.alloc_storage = alloc_storage  # type: ignore[attr-defined]
    for module in (_fsdp_param_group, _fsdp_state, _fsdp_collectives):
        original = module._get_device_handle

        def handle(device_type: str, _original: Any = original) -> Any:
            return torch.cpu if device_type == "meta" else _original(device_type)

        module._get_device_handle = handle  # type: ignore[attr-defined]
    _PATCHED = True


def _process_group(world_size: int) -> None:
    global _WORLD
    # as _patch: the fake process group for fsdp2 jobs only
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore

    if dist.is_initialized():
        if world_size == _WORLD:
            return
        dist.destroy_process_group()
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world_size)
    _WORLD = world_size


def _layer_classes(model: nn.Module) -> set[str]:
    names: set[str] = set()
    for m in model.modules():
        names |= set(getattr(m, "_no_split_modules", None) or ())
    return names


def shard(model: nn.Module, job: Job, notes: list[str]) -> None:
    """Apply fully_shard to each decoder layer and to the root, as rank 0 of ``job.world_size`` cards."""
    # as _patch: FSDP2 for fsdp2 jobs only
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    _patch()
    _process_group(job.world_size)
    policy = (MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
              if job.precision == "mixed-bf16" else MixedPrecisionPolicy())  # fmt: skip
    classes = _layer_classes(model)
    layers = [m for m in model.modules() if type(m).__name__ in classes]
    if not layers:
        raise FsdpNotTraced("FSDP2 did not trace: the model names no decoder layer class (_no_split_modules) to "
                            "wrap as units")  # fmt: skip
    try:
        for layer in layers:
            fully_shard(layer, mp_policy=policy, reshard_after_forward=True)
        fully_shard(model, mp_policy=policy, reshard_after_forward=True)
    except Exception as exc:
        raise FsdpNotTraced(f"FSDP2 did not trace on meta: fully_shard failed ({type(exc).__name__}: "
                            f"{str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ''})") from None
    for module in model.modules():
        state = fully_shard.state(module) if hasattr(module, "_get_fsdp_state") else None  # type: ignore[attr-defined]
        if state is None:
            continue
        state._device = META
        group = state._fsdp_param_group
        if group is not None:
            group.device = META
            for param in group.fsdp_params:
                param.device = META
    notes.append(f"FSDP2: fully_shard on {len(layers)} decoder layers and the root, rank 0 of {job.world_size} over "
                 "PyTorch's fake process group (collectives move no data); FULL_SHARD"
                 + (", MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32)" if job.precision == "mixed-bf16"
                    else "") + "; FSDP's side streams are not told apart from the compute stream")  # fmt: skip

