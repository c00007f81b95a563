"""The load phase of a QLoRA job: bytes alive while the base is quantised, and the pool that phase leaves.

Two paths, read from the code that runs them:
- bitsandbytes (Transformers' quantizer, LitGPT, Answer.AI's train.py): each bf16 weight is moved to the GPU
  and quantised there one at a time (bitsandbytes Params4bit._quantize: quantize_4bit on the device copy);
  PEFT's prepare_model_for_kbit_training makes an fp32 copy of each bf16 parameter before the bf16 one is freed
  (peft/src/peft/utils/other.py, `param.data = param.data.to(torch.float32)`).
- torchao NF4 (torchtune): LoRALinear._create_weight_and_bias builds each adapted linear as a bf16 nn.Linear on
  the GPU and calls to_nf4 on it (torchtune/modules/peft/lora.py), then load_state_dict re-quantises every
  weight the same way (torchtune's NF4 copy_ dispatch: `to_nf4(args[0][1].to(dest_tensor.device))`).
  torchao's NF4Tensor.convert_to_norm_float_weight (torchao/dtypes/nf4tensor.py) keeps the bf16 weight and its
  scaled copy, then quantize_tensor_nearest builds `(value.unsqueeze(-1) - nf4).abs()`: a (numel, 16) bf16
  difference and its absolute value, 64 B per weight at once. torchao 0.1 (pinned by torchtune in April 2024)
  did that over the whole weight; from 0.2 ("perform in chunks", pytorch/ao 6081796) over CHUNK_SIZE = 1024**2
  values at a time, writing each chunk's indices into a uint8 tensor.

The pool the load leaves: the caching allocator cannot serve a request from a smaller cached segment, so each
weight shape larger than every one quantised before it maps new segments, and those stay cached
(c10/cuda/CUDACachingAllocator.cpp). A Llama-style layer quantises its attention projections before its larger
MLP ones, so the pool holds both shapes' transients (a smaller shape that comes later reuses the larger ones).
Nothing here is fitted: the byte counts are the tensors those functions allocate.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.catalog.models import ModelSpec
from configurator.engine.memory.precision import BF16

TORCHAO_NF4_CHUNK = 1024**2  # torchao CHUNK_SIZE, values quantised at once from 0.2
# bf16 weight + bf16 scaled blocks + the (numel, 16) bf16 difference and its absolute value
TORCHAO_NF4_WHOLE_BYTES = BF16 + BF16 + 2 * 16 * BF16
# bf16 weight + bf16 scaled blocks + the uint8 indices, plus one chunk's two (chunk, 16) bf16 tensors
TORCHAO_NF4_CHUNKED_BYTES = BF16 + BF16 + 1
TORCHAO_NF4_CHUNK_FIXED = 2 * 16 * BF16 * TORCHAO_NF4_CHUNK


@dataclass(frozen=True)
class LoadBytes:
    transient: float  # alive at the load's peak, beside the weights
    segments: float  # what the load leaves in the allocator's pool beyond the weights


def bnb_load(largest_linear: int, largest_other_bf16: float, tp: int) -> LoadBytes:
    """bitsandbytes quantise-at-load (and PEFT's fp32 cast of the largest non-quantised parameter)."""
    transient = max(largest_linear * BF16, largest_other_bf16) / tp
    return LoadBytes(transient, transient)


def _torchao_bytes(numel: int, chunked: bool) -> float:
    if chunked:
        return numel * TORCHAO_NF4_CHUNKED_BYTES + min(numel, TORCHAO_NF4_CHUNK) * 2 * 16 * BF16
    return numel * TORCHAO_NF4_WHOLE_BYTES


def torchao_nf4_load(model: ModelSpec, chunked: bool, tp: int) -> LoadBytes:
    """torchao NF4 quantisation of the block linears, in the order the decoder builds them."""
    transient = segments = 0.0
    running = 0
    for module in model.linear_modules():
        numel = module.in_features * module.out_features // tp
        need = _torchao_bytes(numel, chunked)
        transient = max(transient, need)
        if numel > running:  # a new largest shape: fresh segments, kept with the earlier ones
            # (whole-weight quantisation: its bf16 weight and scaled copy fit the earlier (numel, 16) segments,
            # the two (numel, 16) tensors do not)
            segments += need if not running or chunked else numel * 2 * 16 * BF16
            running = numel
    return LoadBytes(transient, segments)
