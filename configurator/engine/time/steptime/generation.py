"""Generation time for RL post-training (GRPO, PPO) and the RL step's extra forward passes, from the per-op model's
device figures (ops.py Device, efficiency.py fractions).

One generation round per optimizer step (TRL: ``steps_per_generation`` = gradient_accumulation_steps, one round
for the step's micro-batches; verl / OpenRLHF: one rollout per PPO step):
- prefill: one forward over every prompt token, 2 x active parameters FLOPs per token, at the GEMM fraction of the
  device's peak (compute-bound: M = the round's prompt tokens);
- decode: one token per sequence per step, ``completion_length`` steps. Decode is memory-bound: each step reads
  every weight once (vLLM runs the batch's sequences together; an MoE layer reads the experts the batch's tokens
  are routed to, at most all of them) and the keys and values of every sequence so far (paged attention), at the
  achieved streaming bandwidth (efficiency.yaml bandwidth_fraction); its 2 x active parameters FLOPs per sequence
  at the GEMM fraction bound it from below when the batch is large. Sequences are taken to run to the full
  completion length (the round lasts as long as its longest completion).

The other passes (``extra_forwards``): DPO's, GRPO's and PPO's reference log-probs (a forward of the frozen model,
or of the base with its adapters disabled), PPO's reward model and the critic's values during the rollout: each a
forward over the training batch, 2 x active parameters FLOPs per token, timed at the training step's achieved
fraction of peak.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from configurator.catalog.model_spec import ModelSpec
from configurator.engine.memory import rl
from configurator.engine.memory.precision import BF16
from configurator.engine.model.build import Job
from configurator.engine.time.steptime.efficiency import efficiency
from configurator.engine.time.steptime.ops import Device


@dataclass(frozen=True)
class Generation:
    sequences: int  # per card (per vLLM tensor-parallel group: its share)
    prefill_seconds: float
    decode_seconds: float
    flops: float
    bytes: float  # read during decode

    @property
    def seconds(self) -> float:
        return self.prefill_seconds + self.decode_seconds


def decode_weight_bytes(model: ModelSpec, sequences: int) -> float:
    """bf16 weights one decode step reads: all but the input embedding (a row lookup); of an MoE layer's routed
    experts, the ones the step's ``sequences`` tokens reach (top-k each, at most every expert)."""
    counts = model.param_counts()
    dense = counts.total - counts.embedding - model.expert_params()
    experts: float = model.expert_params()
    if experts and model.num_experts:
        experts = experts * min(1.0, sequences * model.num_experts_per_tok / model.num_experts)
    return (dense + experts) * BF16


def generation_time(model: ModelSpec, job: Job, device: Device) -> Generation:
    """One generation round on ``device`` for the job's sequences of ``prompt_length`` + ``completion_length``
    tokens, vLLM tensor parallelism splitting weights, KV cache and FLOPs ``vllm_tensor_parallel`` ways."""
    eff = efficiency()
    arch = eff.arch(device.arch)
    tp = job.rl.vllm_tensor_parallel
    seqs = rl.generation_sequences(job)
    prompt, completion = job.rl.prompt_length, job.rl.completion_length
    active = 2.0 * model.active_params(embedding=False)  # FLOPs per token
    h = model.hidden_size or 1
    peak = device.peak_tflops * 1e12
    prefill_flops = active * seqs * prompt / tp
    prefill = prefill_flops / (peak * eff.gemm_fraction(arch, seqs * prompt, h, h, device.sms))
    bandwidth = device.bandwidth_gb_s * 1e9 * eff.bandwidth
    weights = decode_weight_bytes(model, seqs) / tp
    # keys and values read over the round: every step reads each sequence's cache so far (prompt + tokens made)
    kv = seqs * rl.kv_bytes_per_token(model) / tp * (completion * prompt + completion * (completion + 1) / 2)
    step_flops = active * seqs / tp
    compute_floor = step_flops / (peak * eff.gemm_fraction(arch, seqs, h, h, device.sms))
    decode = completion * max(weights / bandwidth, compute_floor) + kv / bandwidth
    return Generation(seqs, prefill, decode, prefill_flops + step_flops * completion, completion * weights + kv)


def forward_passes(job: Job) -> dict[str, int]:
    """Forwards over the training batch the method adds to each step, by model: DPO's, GRPO's and PPO's
    reference (dpo_trainer.py compute_ref_log_probs / concatenated_forward under ``disable_adapter``;
    grpo_trainer.py ref_per_token_logps when beta > 0; ppo_trainer.py ref_logprob in the rollout loop), and
    PPO's rollout scores: the reward model and the critic's values (ppo_trainer.py get_reward for both), and the
    policy's own log-probs of its rollout (ppo_trainer.py forward(model.policy, ...))."""
    passes: dict[str, int] = {}
    if rl.uses_reference(job):
        passes["reference"] = 1
    if job.objective == "ppo":
        passes["policy log-probs"] = 1
        passes["critic values"] = 1
        if rl.keeps_reward_model(job):
            passes["reward"] = 1
    return passes


def extra_forward_seconds(model: ModelSpec, job: Job, achieved_tflops: float, tp: int = 1) -> dict[str, float]:
    """Seconds of each extra forward (``forward_passes``) per optimizer step on one card: 2 x active parameters
    FLOPs per token of the training batch (``rl.training_view``: DPO's pairs, prompt + completion) at
    ``achieved_tflops``, the training step's achieved rate."""
    if achieved_tflops <= 0:
        return {}
    view = rl.training_view(job)
    tokens = view.sequence_length * view.micro_batch_size * view.gradient_accumulation_steps
    flops = 2.0 * model.active_params(embedding=False) * tokens / max(tp, 1)
    return {name: n * flops / (achieved_tflops * 1e12) for name, n in forward_passes(job).items()}


@dataclass(frozen=True)
class RLStep:
    """An RL optimizer step on one card beyond the policy's training step: the generation round, the extra
    forwards, and PPO's critic update and further policy epochs."""

    generation: Generation | None
    forwards: dict[str, float]  # seconds per extra forward
    critic_seconds: float  # PPO: the value model's training passes
    policy_epochs_seconds: float  # PPO: the policy's passes after the first (ppo_epochs - 1)

    @property
    def seconds(self) -> float:
        gen = self.generation.seconds if self.generation is not None else 0.0
        return gen + sum(self.forwards.values()) + self.critic_seconds + self.policy_epochs_seconds

    def rows(self) -> tuple[tuple[str, float, float, float, Literal["compute", "memory"]], ...]:
        """(name, seconds, FLOPs, bytes, bound) per part, as compute.py's op rows."""
        out: list[tuple[str, float, float, float, Literal["compute", "memory"]]] = []
        if self.generation is not None:
            out.append(("generation", self.generation.seconds, self.generation.flops, self.generation.bytes, "memory"))
        out += [(f"{name} forward", s, 0.0, 0.0, "compute") for name, s in self.forwards.items()]
        if self.critic_seconds:
            out.append(("critic training", self.critic_seconds, 0.0, 0.0, "compute"))
        if self.policy_epochs_seconds:
            out.append(("policy epochs 2+", self.policy_epochs_seconds, 0.0, 0.0, "compute"))
        return tuple(out)


def rl_step(model: ModelSpec, job: Job, device: Device, policy_seconds: float, critic_seconds: float,
            achieved_tflops: float, tp: int = 1) -> RLStep:  # fmt: skip
    """The RL parts of one optimizer step: one generation round (GRPO, PPO; timed on ``device``, the training
    card's, also where the engine has cards of its own), the extra forwards at ``achieved_tflops``, and for PPO
    the critic's training (``critic_seconds``: one pass) and the policy's and critic's further ``ppo_epochs``."""
    gen = generation_time(model, job, device) if rl.generates(job) and not model.is_params_only else None
    epochs = job.rl.ppo_epochs if job.objective == "ppo" else 1
    critic = critic_seconds * epochs if rl.keeps_critic(job) else 0.0
    return RLStep(gen, extra_forward_seconds(model, job, achieved_tflops, tp), critic, policy_seconds * (epochs - 1))
