"""What a CUDA run does that meta tensors do not, put back in Python.

- Autocast is a no-op on meta: :class:`RunMode` casts the ops of CUDA autocast's lower-precision list to bf16 and
  of its fp32 list to fp32 (aten/src/ATen/autocast_mode.cpp, the KERNEL_CUDA lists), caching the casts of leaf
  tensors that require grad per region as ``cached_cast`` does, and is re-entered in checkpoint recompute.
- Dropout on meta keeps a noise tensor in the input's dtype (aten/src/ATen/native/Dropout.cpp ``_dropout_impl``);
  on CUDA ``is_fused_kernel_acceptable`` sends it to ``native_dropout``, which keeps a 1-byte bool mask.
- SDPA on meta falls back to the math backend (b*h*s*s scores): :func:`routed_sdpa` calls the aten kernel the card
  would run (flash on sm80/sm89/sm120, cuDNN on sm90/sm100, memory-efficient with an explicit mask), whose meta
  kernels give the real saved tensors (output and fp32 logsumexp).
- The module at the peak: ops in the forward are tagged with the module that ran them (the autograd node's
  metadata), so an op of the backward names the module whose forward made its node.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from configurator.trace.worker.counter import Context

# CUDA autocast's lower-precision list (autocast_mode.cpp, "lower_precision_fp"), as the Python-level functions that
# reach them; einsum and matmul are composites whose inner mm/bmm autocast would cast.
_LOWP = frozenset({
    "linear", "matmul", "__matmul__", "__rmatmul__", "mm", "bmm", "addmm", "addbmm", "baddbmm", "addmv", "mv",
    "einsum", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "prelu", "chain_matmul",
    "scaled_dot_product_attention", "_grouped_mm", "grouped_mm", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_cudnn_attention", "_scaled_dot_product_efficient_attention",
})
# Its fp32 list (casts lower-precision inputs up) and the fp32_set_opt_dtype ops run without an explicit dtype.
_FP32 = frozenset({
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt",
    "sinh", "tan", "pow", "softplus", "layer_norm", "group_norm", "norm", "nll_loss", "cross_entropy", "mse_loss",
    "l1_loss", "smooth_l1_loss", "kl_div", "binary_cross_entropy_with_logits", "logsumexp", "cosine_similarity",
    "softmax", "log_softmax", "cumsum", "cumprod", "prod", "sum",
})
_OPT_DTYPE = frozenset({"softmax", "log_softmax", "cumsum", "cumprod", "prod", "sum"})
_LOW = (torch.bfloat16, torch.float16)


class RunMode(TorchFunctionMode):
    """One function mode for the whole run: autocast emulation, GPU dropout, module tags on autograd nodes."""

    def __init__(self, ctx: Context, *, autocast_dtype: torch.dtype | None) -> None:
        super().__init__()
        self.ctx = ctx
        self.autocast_dtype = autocast_dtype
        self.autocast_on = False
        self._cache: dict[int, torch.Tensor] = {}

    # ---- autocast regions ----
    def region(self, enabled: bool) -> _Region:
        return _Region(self, enabled)

    def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name == "dropout" and func is torch.nn.functional.dropout:
            return _gpu_dropout(*args, **kwargs)
        if func is torch.Tensor.backward:  # a handler runs with its mode off: back on for checkpoint recompute
            with self:
                return torch.autograd.backward(args[0], kwargs.get("gradient"), kwargs.get("retain_graph"),
                                               kwargs.get("create_graph", False), inputs=kwargs.get("inputs"))
        if self.autocast_on and self.autocast_dtype is not None:
            if name in _LOWP:
                args, kwargs = self._cast_all(args, kwargs, self.autocast_dtype)
            elif name in _FP32 and not (name in _OPT_DTYPE and kwargs.get("dtype") is not None):
                if name in _OPT_DTYPE:
                    first = args[0] if args else None
                    if isinstance(first, torch.Tensor) and first.dtype in _LOW:
                        kwargs = {**kwargs, "dtype": torch.float32}
                else:
                    args, kwargs = self._cast_all(args, kwargs, torch.float32, only=_LOW)
        out = func(*args, **kwargs)
        if self.ctx.modules and self.ctx.phase == "forward":
            self._tag(out)
        return out

    def _tag(self, out: Any) -> None:
        if isinstance(out, torch.Tensor):
            node = out.grad_fn
            if node is None or "module" in node.metadata:
                return
            # the new nodes of this call (a composite makes several): back to the first already tagged
            name = self.ctx.modules[-1]
            todo = [node]
            while todo and len(todo) < 64:
                n = todo.pop()
                md = n.metadata
                if "module" in md:
                    continue
                md["module"] = name
                todo.extend(nxt for nxt, _ in n.next_functions if nxt is not None)
        elif isinstance(out, (tuple, list)):
            for item in out[:4]:
                if isinstance(item, torch.Tensor):
                    self._tag(item)

    def _cast(self, t: Any, dtype: torch.dtype, only: tuple[torch.dtype, ...] | None) -> Any:
        if not isinstance(t, torch.Tensor) or not t.is_floating_point() or t.dtype == dtype:
            return t
        if only is not None and t.dtype not in only:
            return t
        if only is None and t.dtype != torch.float32:
            return t  # autocast casts fp32 (and fp64) down; other low types pass
        if t.is_leaf and t.requires_grad:  # cached_cast: weights are cast once per autocast region
            hit = self._cache.get(id(t))
            if hit is None:
                hit = t.to(dtype)
                self._cache[id(t)] = hit
            return hit
        return t.to(dtype)

    def _cast_all(self, args: tuple, kwargs: dict, dtype: torch.dtype,  # type: ignore[type-arg]
                  only: tuple[torch.dtype, ...] | None = None) -> tuple[tuple, dict]:  # type: ignore[type-arg]
        new_args = tuple(
            [self._cast(x, dtype, only) for x in a]
            if isinstance(a, (list, tuple)) and a and isinstance(a[0], torch.Tensor)
            else self._cast(a, dtype, only)
            for a in args
        )
        new_kwargs = {k: self._cast(v, dtype, only) for k, v in kwargs.items()}
        return new_args, new_kwargs


class _Region:
    """``torch.autocast(enabled=...)`` for the emulation: the cast cache lives as long as the outermost region."""

    def __init__(self, mode: RunMode, enabled: bool) -> None:
        self.mode = mode
        self.enabled = enabled

    def __enter__(self) -> None:
        self.prev = self.mode.autocast_on
        self.prev_cache = self.mode._cache
        if self.enabled and not self.prev:
            self.mode._cache = {}
        self.mode.autocast_on = self.enabled

    def __exit__(self, *exc: object) -> None:
        self.mode.autocast_on = self.prev
        if self.enabled and not self.prev:
            self.mode._cache = self.prev_cache


def _gpu_dropout(input: torch.Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> torch.Tensor:
    """F.dropout as CUDA runs it: native_dropout (a 1-byte mask saved for backward) when 0 < p < 1."""
    if not training or p == 0.0:
        return input
    if p >= 1.0:
        return input * 0.0
    return torch.ops.aten.native_dropout(input, p, True)[0]


# ---- attention ----------------------------------------------------------------------------------------------

AUTO_KERNEL = {"sm80": "flash", "sm89": "flash", "sm120": "flash", "sm90": "cudnn", "sm100": "cudnn"}
KERNEL_OP = {
    "flash": "aten._scaled_dot_product_flash_attention",
    "cudnn": "aten._scaled_dot_product_cudnn_attention",
    "efficient": "aten._scaled_dot_product_efficient_attention",
}


class AttentionRoute:
    """Which fused kernel SDPA would pick on the card; records the kernels actually used."""

    def __init__(self, kernel: str) -> None:
        self.kernel = kernel  # flash | cudnn | efficient
        self.used: set[str] = set()
        self.fp32_inputs = False

    def __call__(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                 attn_mask: torch.Tensor | None = None, dropout_p: float = 0.0, is_causal: bool = False,
                 scale: float | None = None,
                 enable_gqa: bool = False) -> torch.Tensor:  # fmt: skip
        kernel = self.kernel
        if query.dtype == torch.float32:
            self.fp32_inputs = True
        if attn_mask is not None:
            # flash and (here) cuDNN take no arbitrary mask: SDPA's dispatcher moves to the memory-efficient kernel
            # (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp check_for_attn_mask), which takes a float bias:
            # a boolean mask is converted first (convert_boolean_attn_mask in attention.cpp).
            kernel = "efficient"
            if attn_mask.dtype == torch.bool:
                bias = torch.zeros(attn_mask.shape, dtype=query.dtype, device=query.device)
                attn_mask = bias.masked_fill(attn_mask.logical_not(), float("-inf"))
            if key.shape[1] != query.shape[1]:  # the efficient kernel takes no GQA: expanded as the math path would
                rep = query.shape[1] // key.shape[1]
                key = key.repeat_interleave(rep, dim=1)
                value = value.repeat_interleave(rep, dim=1)
        self.used.add(KERNEL_OP[kernel])
        if kernel == "flash":
            return torch.ops.aten._scaled_dot_product_flash_attention(query, key, value, dropout_p, is_causal,
                                                                      scale=scale)[0]  # fmt: skip
        if kernel == "cudnn":
            return torch.ops.aten._scaled_dot_product_cudnn_attention(query, key, value, None, True, dropout_p,
                                                                      is_causal, scale=scale)[0]  # fmt: skip
        return torch.ops.aten._scaled_dot_product_efficient_attention(query, key, value, attn_mask, True, dropout_p,
                                                                      is_causal, scale=scale)[0]  # fmt: skip
