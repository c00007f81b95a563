"""Preference and RL post-training (``Job.objective`` dpo / grpo / ppo): the models each method keeps, the batch it
trains on, and the generation engine beside it, as TRL, verl and OpenRLHF run them.

Read from github:huggingface/trl at f2cd577 (trl/trainer/dpo_trainer.py, grpo_trainer.py, grpo_config.py,
trl/experimental/ppo/ppo_trainer.py, trl/scripts/vllm_serve.py), github:volcengine/verl at b178a3c
(verl/trainer/main_ppo.py, verl/trainer/ppo/utils.py, ray_trainer.py) and github:OpenRLHF/OpenRLHF at 3c3be62
(openrlhf/cli/train_ppo_ray.py):
- The reference model. DPOTrainer.__init__ ("Reference model", dpo_trainer.py:894): with a PEFT model, or with
  ``precompute_ref_log_probs``, ``self.ref_model = None``: the reference log-probs come from the same model with
  its adapters disabled, so a LoRA job keeps no second copy. Otherwise a second model from the same checkpoint,
  prepared like the policy (``prepare_deepspeed`` / ``prepare_fsdp``: sharded under ZeRO-3 / FSDP). GRPOTrainer:
  ``beta == 0.0`` (GRPOConfig's default) loads no reference, a PEFT model uses ``use_adapter`` with adapters
  disabled (grpo_trainer.py:2645). PPOTrainer.__init__ (ppo_trainer.py:439): a PEFT policy -> ``ref_model =
  None`` (``null_ref_context`` disables the adapter), otherwise ``create_reference_model`` (a frozen copy). verl:
  ``ref_in_actor = lora_rank > 0`` (main_ppo.py:140, ray_trainer.py:302: "the reference policy will be actor
  without lora applied"); a reference only when ``use_kl_in_reward or use_kl_loss`` (ppo/utils.py
  need_reference_policy), here: PPO with a KL coefficient above 0.
- PPO's critic and reward model. PPOTrainer trains ``PolicyAndValueWrapper(policy, value_model)`` with one optimizer
  (ppo_trainer.py:492): the value model is a whole sequence-classification model (the LM head replaced by a
  ``score`` head of hidden x 1) trained in full whatever the policy's method, sharded like the policy; both
  forwards feed one loss, so their activations live together. The reward model is frozen, ``prepare_deepspeed``
  (ZeRO-3 shards it) or moved whole to each card (ppo_trainer.py:555). verl: ``need_critic`` for GAE (ppo/utils.py);
  OpenRLHF may place critic and reward on cards of their own (``--train.colocate_critic_reward``): here every model
  sits on the job's cards, the colocated layout TRL and verl's ``global_pool`` use. The critic and the reward model
  are made from one checkpoint (TRL's examples/scripts/ppo/ppo.py loads both ``AutoModelForSequenceClassification``
  from ``--reward_model_path``): ``job.rl.critic_model``, or by default the policy's architecture. TRL feeds them the
  policy's token ids (ppo_trainer.py get_reward on the policy's query_responses), so they share its tokenizer.
- The batch. DPO concatenates each pair: the chosen and the rejected sequences run as one batch of twice the
  micro-batch (``concatenated_forward``). GRPO and PPO train on completions of prompt + completion tokens; GRPO's
  per_device_train_batch_size counts completions, and the generation batch (per_device_train_batch_size x processes
  x steps_per_generation) must hold whole prompt groups of num_generations (grpo_config.py:1110).
- Generation. ``vllm_mode="colocate"`` starts vLLM in the training process with ``gpu_memory_utilization`` (default
  0.3) and ``max_num_seqs = per_device_train_batch_size x vllm_tensor_parallel_size x steps_per_generation``
  (grpo_trainer.py:1089). vLLM holds that share of the whole card (vllm/v1/worker/gpu_worker.py: requested memory =
  total x gpu_memory_utilization) for its own bf16 weights, its activations and the KV cache; the training gets the
  rest. ``vllm_mode="server"`` (``trl vllm-serve``, default gpu_memory_utilization 0.9, vllm_serve.py:248) and
  verl / OpenRLHF rollout engines on their own cards leave the training cards whole.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from configurator.catalog.models import ModelSpec
from configurator.engine.memory.precision import BF16
from configurator.engine.memory.states import Parameters, job_parameters, trained_layout
from configurator.engine.model.build import Job
from configurator.engine.model.resolver import ModelResolver
from configurator.engine.model.stack import PROFILES

DPO_DEFAULT_BETA = 0.1  # trl/trainer/dpo_config.py DPOConfig.beta
GRPO_DEFAULT_BETA = 0.0  # trl/trainer/grpo_config.py GRPOConfig.beta
PPO_DEFAULT_KL = 0.05  # trl/experimental/ppo/ppo_config.py PPOConfig.kl_coef
# ASSUMPTION (not derived in full, not fitted to any run): what vLLM keeps beside its weights and KV cache, its
# profile run's activation peak and its non-torch memory. The activation part can be bounded from the profile run:
# TRL's colocated LLM runs it on max_num_batched_tokens=4096 (trl/generation/vllm_generation.py:363; vLLM's own
# default for the LLM class is 8192 or 16384, vllm/engine/arg_utils.py EngineArgs.get_batch_defaults), whose
# largest tensors for Llama 3.1 8B are the MLP's gate/up output and activation, 4,096 x 3 x 14,336 x 2 B = 0.35 GB.
# The CUDA-graph pool and the cuBLAS / NCCL workspaces vLLM also counts outside the KV cache are not derived here:
# 1 GB is a round figure for both at 8B scale, an assumption that grows no smaller or larger with the model.
VLLM_ACTIVATION_BYTES = 1e9


TRL_PPO_EPOCHS = 4  # trl/experimental/ppo/ppo_config.py num_ppo_epochs default (verl's ppo_epochs: 1)


def generation_engine(job: Job) -> str:
    """Where the job generates: as set, else the objective's default: PPO ``transformers`` (TRL's PPOTrainer
    generates with ``unwrap_model_for_generation`` + ``generate``, ppo_trainer.py:683; it has no vLLM path), GRPO
    ``vllm-colocate`` (the common recipe and the issue's; TRL's GRPOConfig defaults to use_vllm False)."""
    if job.rl.generation is not None:
        return job.rl.generation
    return "transformers" if job.objective == "ppo" else "vllm-colocate"


def ppo_epochs(job: Job) -> int:
    """PPO's passes over each rollout: as set, else TRL's num_ppo_epochs."""
    return job.rl.ppo_epochs if job.rl.ppo_epochs is not None else TRL_PPO_EPOCHS


def is_rl(job: Job) -> bool:
    return job.objective != "sft"


def beta(job: Job) -> float:
    if job.rl.beta is not None:
        return job.rl.beta
    return {"dpo": DPO_DEFAULT_BETA, "grpo": GRPO_DEFAULT_BETA, "ppo": PPO_DEFAULT_KL}.get(job.objective, 0.0)


def uses_reference(job: Job) -> bool:
    """Whether the method computes reference log-probs at all (from a copy or from the base without adapters)."""
    if job.objective == "dpo":
        return not job.rl.precompute_ref_log_probs
    return job.objective in ("grpo", "ppo") and beta(job) > 0


def keeps_reference(job: Job) -> bool:
    """Whether the trainer holds a second, frozen model: only full fine-tunes (a PEFT model disables its adapters
    instead) whose method computes reference log-probs."""
    return job.method == "full" and uses_reference(job)


def keeps_critic(job: Job) -> bool:
    return job.objective == "ppo"


def synced_epochs(job: Job) -> int:
    """Optimizer steps per RL step whose gradients are synchronised across the job's cards: one, or PPO's epochs
    over the rollout (TRL's PPO trainer: ``for ppo_epoch_idx in range(args.num_ppo_epochs)``, one backward and
    optimizer step per mini-batch under ``accelerator.accumulate(model)`` of its PolicyAndValueWrapper, so the
    critic's gradients go with the policy's; num_mini_batches defaults to 1)."""
    return ppo_epochs(job) if job.objective == "ppo" else 1


def keeps_reward_model(job: Job) -> bool:
    return job.objective == "ppo" and job.rl.reward_model


def critic_model(job: Job, models: ModelResolver) -> ModelSpec | None:
    """PPO's critic and reward checkpoint (``job.rl.critic_model``) as a spec; None where the job keeps no critic
    or names none (the policy's architecture). Raises one of resolver.RESOLVE_ERRORS for a reference that names
    nothing, and ValueError (one of them) for a model without the architecture its layers are sized from."""
    if not keeps_critic(job) or job.rl.critic_model is None:
        return None
    critic = models.resolve(job.rl.critic_model)
    if critic.is_params_only or not (critic.hidden_size and critic.num_layers):
        raise ValueError(f"{critic.name} has no architecture to size a value model's layers from")
    return critic


def expert_share(model: ModelSpec, params: int, ep: int) -> float:
    """The share of a model copy of ``params`` parameters one card holds under expert parallelism: its 1/ep of the
    routed experts and all of the rest (memory/moe.py expert_split, for a bf16 copy)."""
    if ep <= 1 or not model.is_moe or not params:
        return 1.0
    return 1 - model.expert_params() * (1 - 1 / ep) / params


def reference_bytes(model: ModelSpec, job: Job, *, shards: int, stage: int, tp: int, ep: int = 1) -> float:
    """The reference copy on one card: bf16 weights, sharded as the policy's parameters are (ZeRO-3 / FSDP, and
    the experts over expert parallelism)."""
    if not keeps_reference(job):
        return 0.0
    split = (shards if stage == 3 else 1) * tp
    return model.total_params * BF16 * expert_share(model, model.total_params, ep) / split


def critic_parameters(model: ModelSpec) -> int:
    """The value model's parameters: the policy's architecture with the LM head replaced by a hidden x 1 score head
    (transformers' *ForSequenceClassification ``score``); a tied head is the embedding and stays."""
    if model.is_params_only or model.tie_word_embeddings or not (model.vocab_size and model.hidden_size):
        return model.total_params
    return model.total_params - model.vocab_size * model.hidden_size + model.hidden_size


def critic_counts(model: ModelSpec, critic: Job) -> Parameters:
    """The critic's parameter counts (``critic``: critic_job's): the policy's, trained in full, with the vocabulary
    head replaced by the hidden x 1 score head (critic_parameters), so its gradients, collectives and optimizer step
    count the score head, not an LM head it does not have."""
    p = job_parameters(model, critic)
    drop = p.total - critic_parameters(model)
    if drop <= 0:
        return p
    return replace(p, total=p.total - drop, trainable=p.trainable - drop, frozen_other=p.frozen_other - drop,
                   embedding_and_head=p.embedding_and_head - drop)  # fmt: skip


def critic_job(job: Job) -> Job:
    """The critic as a job: a full fine-tune of the policy's architecture in the job's precision and optimizer."""
    return job.model_copy(update={"method": "full", "objective": "sft", "base_weights": "bf16"})


@dataclass(frozen=True)
class ExtraStates:
    """Model states PPO adds on one card beyond the policy (and its reference): the critic trained in full, the
    frozen reward model."""

    critic_weights: float = 0.0
    critic_gradients: float = 0.0
    critic_optimizer: float = 0.0
    critic_trained: int = 0  # parameters
    reward_weights: float = 0.0


_NO_EXTRA_STATES = ExtraStates()  # every job but PPO's (shared: the record is frozen)

def extra_states(model: ModelSpec, job: Job, *, shards: int, stage: int, tp: int, ep: int = 1,
                 critic: ModelSpec | None = None) -> ExtraStates:  # fmt: skip
    """The critic's weights, gradients and optimizer states and the reward model's bf16 weights on one card, split
    as the policy's are (weights under ZeRO-3 / FSDP, gradients from ZeRO-2, optimizer states from ZeRO-1; the
    experts over expert parallelism). ``critic``: their checkpoint (critic_model; None: the policy's)."""
    if not keeps_critic(job):
        return _NO_EXTRA_STATES
    made_from = critic or model
    w_split = (shards if stage == 3 else 1) * tp
    g_split = (shards if stage >= 2 else 1) * tp
    o_split = shards * tp
    n = critic_parameters(made_from)
    tb, _ = trained_layout(critic_job(job))
    c = expert_share(made_from, n, ep)  # trained in full: weights and states split alike
    reward = (made_from.total_params * BF16 * expert_share(made_from, made_from.total_params, ep) / w_split
              if keeps_reward_model(job) else 0.0)  # fmt: skip
    return ExtraStates(n * tb.weight * c / w_split, n * tb.gradient * c / g_split, n * tb.optimizer * c / o_split,
                       n, reward)  # fmt: skip


def training_view(job: Job) -> Job:
    """The job as the training forward sees it: DPO's pairs concatenated (2 x micro-batch), GRPO's and PPO's
    completions of prompt + completion tokens, TRL's log-probs on bf16 logits (GRPO makes logits for the completion
    only: ``logit_fraction``, applied by memory/estimate.py)."""
    if job.objective == "sft":
        return job
    update: dict[str, object] = {}
    if job.loss is None and PROFILES[job.framework].rl_trainer == "trl":
        # TRL's trainers (hf-trainer, axolotl: specs/frameworks.yaml rl_trainer) take log-probs of the model's own
        # bf16 logits with selective_log_softmax (trl/trainer/utils.py: a log_softmax per sequence, gathered;
        # dpo_trainer.py:1347, grpo_trainer.py:1521, ppo_trainer.py:703), not the causal-LM loss's fp32 upcast:
        # the bf16 loss path
        update["loss"] = "bf16"
    if job.objective == "dpo":
        update["micro_batch_size"] = 2 * job.micro_batch_size
    else:
        update["sequence_length"] = job.rl.prompt_length + job.rl.completion_length
    return job.model_copy(update=update)


def logit_fraction(job: Job) -> float:
    """The share of the training sequence the model makes logits for: GRPO passes ``logits_to_keep`` = the
    completion's length + 1 (grpo_trainer.py:1376), so the head runs on the completion only; PPO slices the full
    logits (ppo_trainer.py forward), DPO and SFT keep every position."""
    if job.objective != "grpo":
        return 1.0
    return min(1.0, (job.rl.completion_length + 1) / (job.rl.prompt_length + job.rl.completion_length))


def generates(job: Job) -> bool:
    return job.objective in ("grpo", "ppo")


def colocated_share(job: Job) -> float:
    """The fraction of each card a colocated vLLM takes (0: no generation engine on the training cards)."""
    if generates(job) and generation_engine(job) == "vllm-colocate":
        return job.rl.vllm_gpu_memory_utilization
    return 0.0


def kv_bytes_per_token(model: ModelSpec) -> int:
    """bf16 keys and values of every layer for one token (vLLM's default kv-cache dtype is the model's)."""
    assert model.num_layers and model.num_key_value_heads and model.head_dim
    return 2 * model.num_layers * model.num_key_value_heads * model.head_dim * BF16


def generation_sequences(job: Job) -> int:
    """Sequences one card generates per optimizer step: per_device_train_batch_size x steps_per_generation (the
    gradient accumulation steps by default), every one of them a completion of a prompt group of
    ``generations``."""
    return job.micro_batch_size * job.gradient_accumulation_steps


def group_sequences(job: Job, training_ranks: int = 1) -> int:
    """Sequences one vLLM engine (one tensor-parallel group of ``vllm_tensor_parallel`` cards) generates per round.
    Colocated: the group's ranks gather their prompts and each generates the group's (trl
    generation/vllm_generation.py:636-641, ``all_gather_object(..., group=self.tp_group)``), so a group serves
    ``vllm_tensor_parallel`` ranks' sequences. A server (``trl vllm-serve``): every training rank's prompts go to it
    (vllm_generation.py:552 ``gather_object``) and its ``generation_cards`` / ``vllm_tensor_parallel`` replicas
    share them (vllm_serve.py data_parallel_size); the busiest replica's share, rounded up."""
    seqs = generation_sequences(job)
    tp = job.rl.vllm_tensor_parallel
    if generation_engine(job) == "vllm-server":
        if not job.rl.generation_cards:  # a server outside the build, of unknown size: a card per training rank
            return seqs
        replicas = max(len(job.rl.generation_cards) // tp, 1)
        return -(-seqs * max(training_ranks, 1) // replicas)
    return seqs * tp


def generation_kv_needed(model: ModelSpec, job: Job, training_ranks: int = 1) -> float:
    """KV cache one generation round needs on one vLLM card: its group's sequences (``group_sequences``) of prompt
    + completion tokens, the KV heads split ``vllm_tensor_parallel`` ways. Colocated, a group of t cards holds t
    ranks' sequences split t ways: one rank's sequences per card, whatever t."""
    tokens = group_sequences(job, training_ranks) * (job.rl.prompt_length + job.rl.completion_length)
    return tokens * kv_bytes_per_token(model) / job.rl.vllm_tensor_parallel


def vllm_card_bytes(capacity_bytes: float, share: float) -> float:
    """A colocated card's whole memory from a training row's capacity (the card less vLLM's ``share``)."""
    return capacity_bytes / (1 - share)


def generation_budget(model: ModelSpec, job: Job, card_bytes: float, share: float | None = None,
                      ) -> tuple[float, float, float]:  # fmt: skip
    """(vLLM's share, its weights, the KV cache left) on a card of ``card_bytes`` (bytes): the weights are vLLM's
    own copy as the checkpoint ships (TRL loads merged LoRA weights into it), split by vLLM tensor parallelism."""
    budget = (colocated_share(job) if share is None else share) * card_bytes
    # as shipped: gpt-oss's experts stay MXFP4 in vLLM (vllm/model_executor/layers/quantization/mxfp4.py
    # Mxfp4Config, chosen by the checkpoint's quantization_config), the rest bf16
    weights = model.weight_bytes_as_shipped() / job.rl.vllm_tensor_parallel
    return budget, weights, budget - weights - VLLM_ACTIVATION_BYTES


def groups_whole(job: Job, cards: int) -> bool:
    """GRPO's generation batch holds whole prompt groups (grpo_config.py: generation_batch_size must be divisible
    by num_generations); on separate generation cards TRL gathers the prompts and the rule is the same."""
    if job.objective != "grpo":
        return True
    return (generation_sequences(job) * max(cards, 1)) % job.rl.generations == 0


@dataclass(frozen=True)
class KeptModel:
    role: str  # policy | reference | critic | reward
    held: str  # how, in words
    gb_per_card: float
    source: str  # where the behaviour is read from


def kept_models(model: ModelSpec, job: Job, states: float, *, shards: int, stage: int, tp: int, ep: int = 1,
                on_card: tuple[bool, bool, bool] = (True, True, True),
                critic: ModelSpec | None = None) -> tuple[KeptModel, ...]:  # fmt: skip
    """The models the method keeps on each training card and what each costs there (weights, and for a trained
    model its gradients and optimizer states), each with the code it is read from. ``states``: the card's model
    states as the memory table has them (every model together); the policy is what the others leave of it.
    ``on_card``: whether the card still holds (weights, gradients, optimizer states) after offload
    (estimate.py _offload moves each kind whole, every model's together: TRL prepares the reference and reward
    models with the policy's DeepSpeed config, models/utils.py prepare_deepspeed)."""
    w, g, o = (1.0 if kept else 0.0 for kept in on_card)
    ref = reference_bytes(model, job, shards=shards, stage=stage, tp=tp, ep=ep) * w
    extra = extra_states(model, job, shards=shards, stage=stage, tp=tp, ep=ep, critic=critic)
    checkpoint_name = f", {critic.name}" if critic is not None else ""  # named where not the policy's architecture
    critic_bytes = extra.critic_weights * w + extra.critic_gradients * g + extra.critic_optimizer * o
    reward = extra.reward_weights * w
    extra = ExtraStates(critic_weights=extra.critic_weights * w, critic_gradients=extra.critic_gradients * g,
                        critic_optimizer=extra.critic_optimizer * o, critic_trained=extra.critic_trained,
                        reward_weights=reward)  # fmt: skip
    policy = max(states - ref - critic_bytes - reward, 0.0)
    adapters = "QLoRA" if job.method == "qlora" else "LoRA"
    held = "trained in full" if job.method == "full" else f"frozen base + trained {adapters} adapters"
    rows = [KeptModel("policy", held, policy / 1e9, "the trainer's model")]
    if keeps_reference(job):
        ref_src = {"dpo": "trl dpo_trainer.py:894 (a second model, prepared like the policy)",
                   "grpo": "trl grpo_trainer.py (beta > 0: a second model)",
                   "ppo": "trl ppo_trainer.py:444 create_reference_model; verl need_reference_policy"}  # fmt: skip
        rows.append(KeptModel("reference", "frozen bf16 copy", ref / 1e9, ref_src[job.objective]))
    elif uses_reference(job):
        rows.append(
            KeptModel(
                "reference",
                "the policy with its adapters disabled (no copy)",
                0.0,
                "trl PEFT: ref_model None, disable_adapter; verl ref_in_actor (main_ppo.py:140)",
            )
        )
    else:
        why, src = (("precomputed log-probs", "trl dpo_config.py precompute_ref_log_probs") if job.objective == "dpo"
                    else ("beta 0: no KL term", "trl grpo_config.py beta (0.0: no reference loaded)"))  # fmt: skip
        rows.append(KeptModel("reference", f"none ({why})", 0.0, src))
    if keeps_critic(job):
        rows.append(
            KeptModel(
                "critic",
                f"value model trained in full (score head){checkpoint_name}",
                critic_bytes / 1e9,
                "trl ppo_trainer.py:492 PolicyAndValueWrapper; verl need_critic (GAE)",
            )
        )
        if keeps_reward_model(job):
            rows.append(
                KeptModel(
                    "reward",
                    f"frozen bf16 copy{checkpoint_name}",
                    extra.reward_weights / 1e9,
                    "trl ppo_trainer.py:555 prepare_deepspeed(reward_model)",
                )
            )
        else:
            rows.append(KeptModel("reward", "none (rule-based reward functions)", 0.0, "verl need_reward_model"))
    moved = [kind for kind, kept in zip(("weights", "gradients", "optimizer states"), on_card, strict=True)
             if not kept]  # fmt: skip
    if moved:  # what offload moved is host memory (the job's host RAM line), not this card's
        note = f"; {', '.join(moved)} offloaded to the host"
        rows = [KeptModel(r.role, r.held + note, r.gb_per_card, r.source) for r in rows]
    return tuple(rows)
