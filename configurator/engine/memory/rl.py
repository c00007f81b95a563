"""Preference and RL post-training memory (``Job.objective`` dpo / grpo), as TRL's trainers run them.

Read from github:huggingface/trl (trl/trainer/dpo_trainer.py, grpo_trainer.py, grpo_config.py, at f2cd577):
- The reference model. DPOTrainer.__init__ ("Reference model"): with a PEFT model, or with
  ``precompute_ref_log_probs``, ``self.ref_model = None``: the reference log-probs come from the same model with
  its adapters disabled (``disable_adapter``), so a LoRA job keeps no second copy. Otherwise it builds a second
  model from the same checkpoint (``create_model_from_path``), prepared like the policy (``prepare_deepspeed`` /
  ``prepare_fsdp``: sharded under ZeRO-3 / FSDP). GRPOTrainer.__init__: ``beta == 0.0`` (GRPOConfig's default:
  "the reference model is not loaded") or a PEFT model: no reference; otherwise the same second copy.
- The batch. DPO concatenates each pair: the chosen and the rejected sequences run as one batch of twice the
  micro-batch (``ref_logps.chunk(2, dim=0)`` splits them back). GRPO's per_device_train_batch_size counts
  completions, each of prompt + completion tokens (max_completion_length, default 512; num_generations 8 per
  prompt).
- Generation. ``use_vllm`` with ``vllm_mode="colocate"`` starts vLLM in the training process with
  ``gpu_memory_utilization=args.vllm_gpu_memory_utilization`` (default 0.3) and ``max_num_seqs =
  per_device_train_batch_size x vllm_tensor_parallel_size x steps_per_generation``. vLLM holds that share of the
  whole card (vllm/v1/worker/gpu_worker.py: requested memory = total memory x gpu_memory_utilization) for its own
  copy of the weights, its activations and the KV cache; the training gets the rest.
"""

from __future__ import annotations

from configurator.catalog.models import ModelSpec
from configurator.engine.memory.precision import BF16
from configurator.engine.model.build import Job

DPO_DEFAULT_BETA = 0.1  # trl/trainer/dpo_config.py DPOConfig.beta
GRPO_DEFAULT_BETA = 0.0  # trl/trainer/grpo_config.py GRPOConfig.beta
# vLLM's own activation peak during its memory profiling, beside weights and KV cache: estimated (a few hundred
# MB for 8B-class models at the default max_num_batched_tokens); named here, not fitted.
VLLM_ACTIVATION_BYTES = 1e9


def beta(job: Job) -> float:
    if job.rl.beta is not None:
        return job.rl.beta
    return DPO_DEFAULT_BETA if job.objective == "dpo" else GRPO_DEFAULT_BETA


def keeps_reference(job: Job) -> bool:
    """Whether the trainer holds a second, frozen model: only full fine-tunes (a PEFT model disables its adapters
    instead), DPO unless its reference log-probs are precomputed, GRPO only with beta > 0."""
    if job.objective == "sft" or job.method != "full":
        return False
    if job.objective == "dpo":
        return not job.rl.precompute_ref_log_probs
    return beta(job) > 0


def reference_bytes(model: ModelSpec, job: Job, *, shards: int, stage: int, tp: int) -> float:
    """The reference copy on one card: bf16 weights, sharded as the policy's parameters are (ZeRO-3 / FSDP)."""
    if not keeps_reference(job):
        return 0.0
    return model.total_params * BF16 / ((shards if stage == 3 else 1) * tp)


def training_view(job: Job) -> Job:
    """The job as the training forward sees it: DPO's pairs concatenated (2 x micro-batch), GRPO's completions of
    prompt + completion tokens. Conservative for GRPO: the logits are kept for every position here, where TRL keeps
    them for the completion only (``logits_to_keep``)."""
    if job.objective == "dpo":
        return job.model_copy(update={"micro_batch_size": 2 * job.micro_batch_size})
    if job.objective == "grpo":
        return job.model_copy(update={"sequence_length": job.rl.prompt_length + job.rl.completion_length})
    return job


def colocated_share(job: Job) -> float:
    """The fraction of each card a colocated vLLM takes (0: no generation engine on the training cards)."""
    if job.objective == "grpo" and job.rl.generation == "vllm-colocate":
        return job.rl.vllm_gpu_memory_utilization
    return 0.0


def kv_bytes_per_token(model: ModelSpec) -> int:
    """bf16 keys and values of every layer for one token (vLLM's default kv-cache dtype is the model's)."""
    assert model.num_layers and model.num_key_value_heads and model.head_dim
    return 2 * model.num_layers * model.num_key_value_heads * model.head_dim * BF16


def generation_kv_needed(model: ModelSpec, job: Job) -> float:
    """KV cache for one generation round on one card: max_num_seqs sequences (per_device_train_batch_size x
    steps_per_generation, the latter gradient_accumulation_steps by default) of prompt + completion tokens."""
    seqs = job.micro_batch_size * job.gradient_accumulation_steps
    return seqs * (job.rl.prompt_length + job.rl.completion_length) * kv_bytes_per_token(model)


def generation_budget(model: ModelSpec, job: Job, card_bytes: float, tp: int = 1) -> tuple[float, float, float]:
    """(vLLM's share, its weights, the KV cache left) on a card of ``card_bytes`` (bytes): the weights are vLLM's
    own bf16 copy (TRL loads merged LoRA weights into it), split by vLLM tensor parallelism."""
    share = colocated_share(job) * card_bytes
    weights = model.total_params * BF16 / tp
    return share, weights, share - weights - VLLM_ACTIVATION_BYTES
