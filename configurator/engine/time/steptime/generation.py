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
    sequences: int  # the engine's: one vLLM tensor-parallel group's (rl.group_sequences)
    prefill_seconds: float
    decode_seconds: float
    flops: float
    bytes: float  # read during decode
    bound: Literal["memory", "compute", "launch"] = "memory"  # what sets a decode step's time

    @property
    def seconds(self) -> float:
        return self.prefill_seconds + self.decode_seconds


def decode_weight_bytes(model: ModelSpec, sequences: int) -> float:
    """bf16 weights one decode step reads: all but the input embedding (a row lookup), unless the embedding is tied
    to the LM head (``tie_word_embeddings``: the same matrix is the head's GEMM, read every step); of an MoE layer's
    routed experts, the ones the step's ``sequences`` tokens reach (top-k each, at most every expert)."""
    counts = model.param_counts()
    lookup = 0 if model.tie_word_embeddings else counts.embedding
    dense = counts.total - lookup - model.expert_params()
    # the experts as vLLM holds them: as shipped (gpt-oss MXFP4, rl.generation_budget)
    experts: float = model.weight_bytes_as_shipped() - (counts.total - model.expert_params()) * BF16
    if experts and model.num_experts:
        experts = experts * min(1.0, sequences * model.num_experts_per_tok / model.num_experts)
    return dense * BF16 + experts


def matmul_params(model: ModelSpec) -> int:
    """Parameters a token's forward multiplies through: the active ones less the input embedding, whose lookup is
    no GEMM, except when it is tied to the LM head (then it is the head's GEMM)."""
    return model.active_params(embedding=model.tie_word_embeddings)


def decode_launch_seconds(model: ModelSpec) -> float:
    """Host time to issue one decode step's kernels in the training process (transformers ``generate``, PyTorch
    eager: no CUDA graphs): the layer's kernels x layers at the eager launch cost (efficiency.yaml ``launch``, the
    per-op model's ops.py launch bound). vLLM captures decode in CUDA graphs and is not launch-bound."""
    eff = efficiency()
    return eff.kernels_per_layer * (model.num_layers or 1) * eff.launch_us["eager"] * 1e-6


def generation_time(model: ModelSpec, job: Job, device: Device, sequences: int | None = None,
                    tp: int | None = None) -> Generation:  # fmt: skip
    """One generation round on one card of an engine (one vLLM tensor-parallel group of ``tp`` cards) that
    generates ``sequences`` (rl.group_sequences: the group's, default one rank's) of ``prompt_length`` +
    ``completion_length`` tokens. Tensor parallelism splits the weights, the KV heads and every GEMM ``tp`` ways
    over the group's sequences; colocated, the group serves ``tp`` ranks' sequences, so per card the KV and FLOPs
    are one rank's whatever ``tp``. ``transformers`` generation (in the training process, no TP) takes each
    decode step as the larger of its memory time and its eager launch time."""
    eff = efficiency()
    arch = eff.arch(device.arch)
    tp = job.rl.vllm_tensor_parallel if tp is None else tp
    seqs = rl.generation_sequences(job) if sequences is None else sequences
    in_process = rl.generation_engine(job) == "transformers"
    if in_process:
        tp, seqs = 1, rl.generation_sequences(job)
    prompt, completion = job.rl.prompt_length, job.rl.completion_length
    active = 2.0 * matmul_params(model)  # FLOPs per token
    h = model.hidden_size or 1
    peak = device.peak_tflops * 1e12
    prefill_flops = active * seqs * prompt / tp
    prefill = prefill_flops / (peak * eff.gemm_fraction(arch, seqs * prompt, h, h, device.sms, device.card))
    bandwidth = device.bandwidth_gb_s * 1e9 * eff.bandwidth
    weights = decode_weight_bytes(model, seqs) / tp
    # keys and values read over the round: every step reads each sequence's cache so far (prompt + tokens made)
    kv = seqs * rl.kv_bytes_per_token(model) / tp * (completion * prompt + completion * (completion + 1) / 2)
    step_flops = active * seqs / tp
    compute_floor = step_flops / (peak * eff.gemm_fraction(arch, seqs, h, h, device.sms, device.card))
    decode = completion * max(weights / bandwidth, compute_floor) + kv / bandwidth
    bound: Literal["memory", "compute", "launch"] = "compute" if compute_floor > weights / bandwidth else "memory"
    if in_process and decode_launch_seconds(model) > decode / completion:
        # per step: at least the host's launches (the KV reads are spread evenly over the steps)
        decode, bound = completion * decode_launch_seconds(model), "launch"
    return Generation(seqs, prefill, decode, prefill_flops + step_flops * completion, completion * weights + kv,
                      bound)


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


# the forwards PPO runs on the critic's checkpoint (rl.critic_model): the reward model and the critic's values
CRITIC_PASSES = frozenset({"critic values", "reward"})


def extra_forward_seconds(model: ModelSpec, job: Job, achieved_tflops: float, tp: int = 1,
                          critic: ModelSpec | None = None) -> dict[str, float]:  # fmt: skip
    """Seconds of each extra forward (``forward_passes``) per optimizer step on one card: 2 x active parameters
    FLOPs per token of the training batch (``rl.training_view``: DPO's pairs, prompt + completion) at
    ``achieved_tflops``, the training step's achieved rate; the reward and value forwards on ``critic``'s
    parameters (PPO's critic checkpoint; None: the policy's)."""
    if achieved_tflops <= 0:
        return {}
    view = rl.training_view(job)
    tokens = view.sequence_length * view.micro_batch_size * view.gradient_accumulation_steps
    per_param = 2.0 * tokens / max(tp, 1) / (achieved_tflops * 1e12)
    policy, values = matmul_params(model), matmul_params(critic or model)
    return {name: n * per_param * (values if name in CRITIC_PASSES else policy)
            for name, n in forward_passes(job).items()}  # fmt: skip


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
            bound: Literal["compute", "memory"] = "compute" if self.generation.bound == "compute" else "memory"
            out.append(("generation", self.generation.seconds, self.generation.flops, self.generation.bytes, bound))
        out += [(f"{name} forward", s, 0.0, 0.0, "compute") for name, s in self.forwards.items()]
        if self.critic_seconds:
            out.append(("critic training", self.critic_seconds, 0.0, 0.0, "compute"))
        if self.policy_epochs_seconds:
            out.append(("policy epochs 2+", self.policy_epochs_seconds, 0.0, 0.0, "compute"))
        return tuple(out)


def rl_step(model: ModelSpec, job: Job, device: Device, policy_seconds: float, critic_seconds: float,
            achieved_tflops: float, tp: int = 1, *, generation_device: Device | None = None,
            training_ranks: int = 1, critic: ModelSpec | None = None) -> RLStep:  # fmt: skip
    """The RL parts of one optimizer step: one generation round (GRPO, PPO; timed on ``generation_device``, a
    vLLM server's slowest card, else the training card's ``device``, for the sequences one engine serves:
    rl.group_sequences over ``training_ranks``), the extra forwards at ``achieved_tflops``, and for PPO the critic's
    training (``critic_seconds``: one pass) and the policy's and critic's further ``ppo_epochs``."""
    gen = None
    if rl.generates(job) and not model.is_params_only:
        gen = generation_time(model, job, generation_device or device, rl.group_sequences(job, training_ranks))
    epochs = rl.ppo_epochs(job) if job.objective == "ppo" else 1
    critic_s = critic_seconds * epochs if rl.keeps_critic(job) else 0.0
    return RLStep(gen, extra_forward_seconds(model, job, achieved_tflops, tp, critic), critic_s,
                  policy_seconds * (epochs - 1))
