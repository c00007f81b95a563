"""One job's memory on one card, phase by phase: the result engine/memory/estimate.py computes.

GB = 10^9 bytes. Three counters, as PyTorch and the driver report them: peak allocated (live tensors,
``torch.cuda.max_memory_allocated``), allocator reserved (the caching allocator's pool,
``torch.cuda.max_memory_reserved``) and peak reserved (the pool plus the CUDA context: nvidia-smi).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Phase = Literal["load", "wrap", "forward", "backward-start", "backward-layers", "backward-end", "optimizer-step"]


@dataclass(frozen=True)
class MemoryBreakdown:
    """Bytes on one card (or MIG instance) for one job."""

    weights: float  # base model weights as stored on this card (bf16, NF4 or a shard)
    adapters: float  # LoRA adapter weights
    gradients: float
    optimizer: float  # optimizer states, and fp32 master weights for mixed precision
    activations: float  # saved for backward: layers, head, logits and loss
    transient: float  # at the peak only: recomputed layer, gathered FSDP unit, dequantised weights, grads
    cuda_context: float
    fragmentation: float  # caching-allocator block rounding over the compute stream's live tensors
    gradients_at_peak: float  # gradients alive at the activation peak (0 with zero_grad(set_to_none))
    fixed_budget: bool  # activations + transients replaced by the job's activation_memory_gb
    # FSDP only: bytes of the peak allocated on FSDP's own CUDA streams (gathered units on the unshard
    # stream, reduce-scattered gradient shards on the post-backward stream). The caching allocator keeps
    # one pool per stream, so these blocks never serve the compute stream (PyTorch "CUDA semantics",
    # memory management) and add to whichever compute-stream pool is larger.
    side_stream: float = 0.0
    setup_pool: float = 0.0  # pool the allocator still holds from FSDP / ZeRO-3 set-up (the wrap phase)
    load_pool: float = 0.0  # pool after loading (and quantising at load): the load phase
    optimizer_temp: float = 0.0  # temporaries the optimizer step allocates (foreach AdamW's sqrt of v)
    optimizer_pool: float = 0.0  # pool the optimizer step needs on the compute stream
    loss_backward: float = 0.0  # part of activations made only when backward starts (loss gradients)
    gathered: float = 0.0  # FSDP / ZeRO-3 units gathered at once (in transient)
    # part of activations freed by the loss's backward before any layer's backward runs: logits, log-probabilities
    # and their gradients, the final norm's and lm_head's inputs. Autograd runs the loss and head backward first;
    # a checkpointed layer is recomputed only when its own backward unpacks the saved input
    # (torch/utils/checkpoint.py), so the recompute and the layers' gradient buffers never meet those buffers.
    head_and_loss: float = 0.0
    head_gradient: float = 0.0  # full fine-tune: lm_head's gradient, alive while the layers' backward runs
    # ... and already from the loss on where a fused loss makes it in forward: Liger's
    # fused_linear_cross_entropy_forward allocates `grad_weight = torch.zeros_like(weight)` when the weight needs
    # a gradient, accumulates it chunk by chunk and saves it for backward (src/liger_kernel/ops/
    # fused_linear_cross_entropy.py), where it becomes the head's gradient
    head_gradient_from_loss: float = 0.0
    load_transient: float = 0.0  # bytes alive only while loading: the weight being quantised or cast
    forward_extra: float = 0.0  # bytes alive only in the forward (autocast's weight cast cache, the loss's copies)
    backward_end_extra: float = 0.0  # bytes alive only at the end of backward (a tied embedding's gradient sum)
    # a trained, untied input embedding's gradient: made by the embedding's backward, the last op of backward, when
    # the last layer's transients are gone; until then it is not among the gradients
    embedding_gradient: float = 0.0
    host: float | None = 0.0  # bytes this card's rank keeps in host memory (offload); None: unknown (NVMe)

    # derived once in __post_init__ (the engine reads them many times per evaluation)
    _phases: dict[str, float] = field(init=False, repr=False, compare=False)
    _step_phase: tuple[str, float] = field(init=False, repr=False, compare=False)
    _pool: float = field(init=False, repr=False, compare=False)
    _peak: float = field(init=False, repr=False, compare=False)  # peak_allocated
    _reserved: float = field(init=False, repr=False, compare=False)  # allocator_reserved

    def __post_init__(self) -> None:
        phases = self._phase_bytes()
        object.__setattr__(self, "_phases", phases)
        step: tuple[str, float] | None = None  # the first largest of the step's phases (max's rule), in one loop
        for k, v in phases.items():
            if k != "load" and k != "optimizer-step" and (step is None or v > step[1]):
                step = (k, v)
        assert step is not None
        object.__setattr__(self, "_step_phase", step)
        object.__setattr__(self, "_pool", self._compute_stream_pool())
        object.__setattr__(self, "_peak", max(phases.values()))
        # every allocated block lives in a reserved segment (c10/cuda/CUDACachingAllocator.cpp): reserved is never
        # below allocated, whatever the pools' estimate says (it was for one ZeRO-3 offload job)
        pools = max(self._pool, self.setup_pool, self.load_pool, self.optimizer_pool) + self.side_stream
        object.__setattr__(self, "_reserved", max(pools, self._peak))

    def parts_at(self, phase: str) -> dict[str, float]:
        """The live bytes of ``phase`` (phase_allocated's) split into the breakdown's kinds: they add up to that
        phase's total exactly, where the kinds' own fields are each one's largest, reached in different phases
        (the loss's buffers are gone before the last layer's transients exist), so they add up to more."""
        w, a, o = self.weights, self.adapters, self.optimizer
        if phase == "load":
            return {"weights": w, "adapters": a, "transient": self.load_transient}
        static = {"weights": w, "adapters": a, "optimizer": o}
        g_held = self.gradients_at_peak
        if phase == "backward-start" and self.fixed_budget:  # the budget's one step phase (_phase_bytes)
            return {**static, "gradients": self.gradients, "activations": self.activations}
        if phase == "backward-start":
            return {**static, "gradients": g_held + self.head_gradient_from_loss, "activations": self.activations,
                    "transient": self.gathered}  # fmt: skip
        if phase == "forward":
            return {**static, "gradients": g_held + self.head_gradient_from_loss,
                    "activations": self.activations - self.loss_backward,
                    "transient": self.gathered + self.forward_extra}  # fmt: skip
        if phase == "backward-layers":
            return {**static, "gradients": g_held + self.head_gradient,
                    "activations": self.activations - self.head_and_loss, "transient": self.transient}  # fmt: skip
        if phase == "backward-end":
            end = max(self.transient - self.embedding_gradient, self.backward_end_extra, 0.0)
            return {**static, "gradients": self.gradients, "transient": end}
        if phase == "optimizer-step":
            return {**static, "gradients": self.gradients, "transient": self.optimizer_temp}
        raise KeyError(phase)

    @property
    def peak_allocated_phase(self) -> str:
        """The phase whose live bytes are the peak allocated (the first named, on a tie)."""
        return max(self._phases, key=self._phases.__getitem__)

    def phase_allocated(self) -> dict[str, float]:
        """Live bytes at each phase of the run (torch.cuda.memory_allocated at that point)."""
        return dict(self._phases)

    def _phase_bytes(self) -> dict[str, float]:
        static = self.weights + self.adapters + self.optimizer
        if self.fixed_budget:
            step = {"backward-start": static + self.gradients + self.activations}
        else:
            held = static + self.gradients_at_peak
            step = {
                "forward": held + self.head_gradient_from_loss + self.activations - self.loss_backward + self.gathered
                + self.forward_extra,
                "backward-start": held + self.head_gradient_from_loss + self.activations + self.gathered,
                "backward-layers": held + self.head_gradient + self.activations - self.head_and_loss + self.transient,
                # the last layer's backward (its transients; an untied embedding's gradient not made yet), or the
                # embedding's backward after it (a tied embedding's gradient sum)
                "backward-end": static + self.gradients
                + max(self.transient - self.embedding_gradient, self.backward_end_extra, 0.0),
            }
        return {"load": self.weights + self.adapters + self.load_transient, **step,
                "optimizer-step": static + self.gradients + self.optimizer_temp}  # fmt: skip

    @property
    def model_states(self) -> float:
        """The seeds' "model states": weights, gradients and optimizer states (adapters included)."""
        return self.weights + self.adapters + self.gradients + self.optimizer

    @property
    def peak_allocated(self) -> float:
        return self._peak

    @property
    def step_peak_allocated(self) -> float:
        """Peak live bytes of forward and backward (the step's compute-stream peak)."""
        return self._step_phase[1]

    @property
    def compute_stream_pool(self) -> float:
        """Pool the training step needs on the compute stream: its segments plus block rounding."""
        return self._pool

    def _compute_stream_pool(self) -> float:
        """The compute-stream pool (compute_stream_pool), computed once.

        The pool holds the layers' and the loss's buffers together although they are never alive at once
        (phase_allocated): the forward's per-layer temporaries are freed into segments sized for one layer,
        and the logits-sized tensors made after the last layer fit none of them, so the allocator maps new
        segments (c10/cuda/CUDACachingAllocator.cpp: best-fit over cached free blocks, a segment's blocks
        coalesce only within it, cached segments go back to the driver only on empty_cache or an OOM retry).
        The backward's recompute then finds its exact sizes among the layer segments. Answer.AI's LoRA 1x2048
        rows show both counters: allocated 9.16 GiB, reserved 10.22 GiB."""
        static = self.weights + self.adapters + self.optimizer
        if not self.side_stream:
            union = static + self.gradients_at_peak + self.activations + self.transient
            return max(self.step_peak_allocated, union) + self.fragmentation
        # gradients live on FSDP's post-backward stream (in side_stream), so they are left out here
        compute_transient = self.transient - (self.side_stream - self.gradients)
        return static + self.activations + compute_transient + self.fragmentation

    @property
    def setup_bound(self) -> bool:
        """True when the pool left from FSDP set-up, not the training step, sets the peak reserved."""
        return self.setup_pool > self.compute_stream_pool

    def phase_reserved(self) -> dict[str, float]:
        """Allocator pool each phase needs (torch.cuda.memory_reserved); the pool only grows, so the peak
        reserved is the largest of them. Forward and backward share one pool (the step's)."""
        pools = {"load": self.load_pool, "wrap": self.setup_pool, self._step_phase[0]: self.compute_stream_pool,
                 "optimizer-step": self.optimizer_pool}  # fmt: skip
        return {k: v + self.side_stream for k, v in pools.items()}

    @property
    def peak_phase(self) -> str:
        """The phase that sets the peak reserved memory (the first named, on a tie)."""
        pools = self.phase_reserved()
        return max(pools, key=lambda k: pools[k])

    @property
    def allocator_reserved(self) -> float:
        """The largest pool any phase needs (derived once in __post_init__: read many times per evaluation)."""
        return self._reserved

    @property
    def allocator_reserve(self) -> float:
        """The pool beyond live tensors at the peak: fragmentation, per-stream pools, set-up leftovers."""
        return self.allocator_reserved - self.peak_allocated

    @property
    def peak_reserved(self) -> float:
        return self.allocator_reserved + self.cuda_context

    @property
    def overhead(self) -> float:
        return self.cuda_context + self.allocator_reserve
