"""Bytes per parameter for weights, gradients and optimizer states.

Conventions (seed A, "by the ZeRO count"; Rajbhandari et al. 2020, ZeRO §3):
- mixed-bf16 full fine-tune: 2 (bf16 weights) + 2 (bf16 gradients) + 12 (fp32 master weights, Adam m and v)
  = 16 B per parameter; with 8-bit Adam the two states take 1 B each: 2 + 2 + 4 + 2 = 10 B.
- pure-bf16: weights, gradients and torch AdamW states all in bf16 (measured-runs §2: 3.213e9 x (2+2+4) B
  matches PEFT's 24.28 GiB static) = 8 B; 8-bit Adam: 6 B.
- LoRA/QLoRA adapters under mixed-bf16 are kept in fp32 (PEFT's default), so 4 + 4 + 8 = 16 B per trained
  parameter, the seeds' figure; under pure-bf16 2 + 2 + 4 = 8 B (LitGPT bf16-true).
- The low-precision recipes (fp8, fp8-delayed, fp8-current, fp8-block, mxfp8, nvfp4) keep the mixed-bf16 states:
  Transformer Engine "by default stores weights in high precision and quantizes them to low precision before each
  GEMM", master weights FP32 in the optimizer (TE docs, low_precision_training/performance_considerations, "Memory
  usage"). What the recipe adds on top (quantized copies, scales, amax histories) is engine/lowprecision/checks.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

# bitsandbytes 8-bit blockwise optimizer states: 1 B per value plus one fp32 absmax per 2048-value block
# (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", §2).
ADAM8_STATE_BYTES = 1 + 4 / 2048

# bitsandbytes NF4 (Dettmers et al. 2023, QLoRA §2): 4 bits per weight, one fp32 absmax per 64-weight block;
# double quantisation stores that absmax in 8 bits with one fp32 constant per 256 absmax values.
NF4_BYTES = 0.5 + 4 / 64
NF4_DQ_BYTES = 0.5 + 1 / 64 + 4 / (64 * 256)


def nf4_bytes(quantization: str) -> float:
    """Bytes per 4-bit base weight as QLoRA stores it: with double quantisation ("nf4-dq", bitsandbytes'
    default in PEFT's recipes) or without ("nf4")."""
    return NF4_DQ_BYTES if quantization == "nf4-dq" else NF4_BYTES

BF16 = 2
FP32 = 4


@dataclass(frozen=True)
class TrainedBytes:
    """Bytes per trained parameter."""

    weight: float  # the parameter itself as stored for compute (bf16 copy, or fp32 adapter)
    gradient: float
    optimizer: float  # states (and fp32 master weights when the parameter itself is bf16)

    @property
    def total(self) -> float:
        return self.weight + self.gradient + self.optimizer


def keeps_mixed_states(precision: str) -> bool:
    """True where the trained states follow mixed-bf16 (BF16 weights, FP32 master weights): every precision but
    pure-bf16, the low-precision recipes included."""
    return precision != "pure-bf16"


def trained_bytes(method: str, optimizer: str, precision: str) -> TrainedBytes:
    eight_bit = optimizer.endswith("8bit")  # paged variants page to host under pressure: same GPU peak
    sgd = optimizer == "sgd"
    if keeps_mixed_states(precision):
        if method == "full":
            # bf16 working weights + bf16 grads; fp32 master + two states (ZeRO's 2 + 2 + 12)
            states = 0.0 if sgd else 2 * (ADAM8_STATE_BYTES if eight_bit else FP32)
            return TrainedBytes(BF16, BF16, FP32 + states)
        # adapters kept in fp32: fp32 weight, fp32 grad, fp32 (or 8-bit) states, no separate master copy
        states = 0.0 if sgd else 2 * (ADAM8_STATE_BYTES if eight_bit else FP32)
        return TrainedBytes(FP32, FP32, states)
    # pure-bf16: torch AdamW keeps states in the parameter dtype
    states = 0.0 if sgd else 2 * (ADAM8_STATE_BYTES if eight_bit else BF16)
    return TrainedBytes(BF16, BF16, states)
