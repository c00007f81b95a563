"""A DPO / GRPO / PPO job's RL summary (``JobResult.rl``) and the checks of its generation engine on cards of its
own: what each model costs per card, where generation runs with its memory and KV cache, and the step split into
training, generation and the extra passes. Every figure comes from engine/memory/rl.py and
time/steptime/generation.py."""

from __future__ import annotations

from configurator.catalog.models import ModelSpec
from configurator.catalog.units import GB
from configurator.engine.memory import rl
from configurator.engine.memory.breakdown import MemoryBreakdown
from configurator.engine.memory.precision import BF16
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.result import CardMemory, Check, Compute, RLModel, RLResult
from configurator.engine.model.stack import PROFILES

_GENERATION_OP = "generation"  # the op row of the generation round (time/steptime/generation.py RLStep.rows)


# the op rows of an RL step's further training passes (time/steptime/generation.py RLStep.rows): their gradients
# are synchronised like the first pass's (evaluate_job._step_time)
SYNCED_PASSES = ("critic training", "policy epochs 2+")


def _extra(name: str) -> bool:
    return name.endswith(" forward") or name in SYNCED_PASSES


def _step_split(comp: Compute | None) -> tuple[float | None, float | None, dict[str, float]]:
    """(training, generation, extra passes) seconds: the training step as compute.py carries it (after a
    recipe's speed-up), the rest from the compute's op rows (time/steptime/generation.py rows)."""
    if comp is None or not comp.ops or comp.seconds_per_step is None:
        return None, None, {}
    gen = sum(o.seconds for o in comp.ops if o.name == _GENERATION_OP)
    extra = {o.name: o.seconds for o in comp.ops if _extra(o.name)}
    training = comp.training_seconds
    if training is None:
        training = sum(o.seconds for o in comp.ops if o.name != _GENERATION_OP and not _extra(o.name))
    return training, gen or None, extra


def card_bytes(row: CardMemory, share: float) -> float:
    """The whole card under a training row that a colocated vLLM's ``share`` was taken from (rows carry the
    training's capacity, the card's less the share): the one place that undoes it."""
    return rl.vllm_card_bytes(row.capacity_gb * GB, share)


def generation_cards(job: Job) -> list[int]:
    return job.rl.generation_cards if rl.generates(job) and rl.generation_engine(job) == "vllm-server" else []


def rl_result(model: ModelSpec, job: Job, mem: MemoryBreakdown, rows: list[CardMemory], comp: Compute | None,
              shards: int, tp: int, server: dict[int, tuple[str, float]], ep: int = 1,
              critic: ModelSpec | None = None) -> RLResult | None:  # fmt: skip
    """The job's RL summary; ``server``: slot -> (card name, capacity bytes) of the build's cards (for
    generation cards of its own)."""
    if not rl.is_rl(job) or model.is_params_only:
        return None
    strategy = PARALLELISM[job.parallelism]
    stage = strategy.stage if strategy.shards_states else 3
    states = mem.weights + mem.adapters + mem.gradients + mem.optimizer
    models = [RLModel(role=m.role, held=m.held, gb_per_card=m.gb_per_card, source=m.source)
              for m in rl.kept_models(model, job, states, shards=shards, stage=stage, tp=tp, ep=ep,
                                      on_card=(mem.weights > 0, mem.gradients > 0, mem.optimizer > 0),
                                      critic=critic)]  # fmt: skip
    training, gen_s, extra = _step_split(comp)
    out = RLResult(objective=job.objective, models=models, training_seconds=training, generation_seconds=gen_s,
                   generation_bound=comp.generation_bound if comp is not None and gen_s else None,
                   extra_seconds=extra)  # fmt: skip
    if not rl.generates(job):
        return out
    ranks = max(len(rows), 1)
    seqs = rl.group_sequences(job, ranks)
    needed = rl.generation_kv_needed(model, job, ranks)
    fields: dict[str, object] = {"sequences": seqs, "kv_needed_gb": needed / GB}
    share = rl.colocated_share(job)
    if share:
        fields["colocated_share"] = share
    if share and rows:
        row = min(rows, key=lambda r: r.capacity_gb)
        budget, weights, kv = rl.generation_budget(model, job, card_bytes(row, share))
        fields |= {"generation": f"vLLM colocated on the training cards, {share:.0%} of each (TRL vllm_mode colocate)",
                   "generation_share_gb": budget / GB, "generation_weights_gb": weights / GB,
                   "kv_cache_gb": max(kv, 0.0) / GB}  # fmt: skip
    elif rl.generation_engine(job) == "vllm-server" and (slots := [s for s in generation_cards(job) if s in server]):
        slot = min(slots, key=lambda s: server[s][1])
        util = job.rl.server_gpu_memory_utilization
        budget, weights, kv = rl.generation_budget(model, job, server[slot][1], util)
        fields |= {"generation": f"vLLM on its own cards (slots {', '.join(map(str, slots))}), {util:.0%} of each",
                   "generation_share_gb": budget / GB, "generation_weights_gb": weights / GB,
                   "kv_cache_gb": max(kv, 0.0) / GB}  # fmt: skip
    elif rl.generation_engine(job) == "vllm-server":
        fields["generation"] = "vLLM server on cards outside this build (trl vllm-serve)"
    else:
        fields["generation"] = ("transformers generate in the training process (TRL PPO's default; its KV cache is "
                                "freed before the training forward)")  # fmt: skip
    return out.model_copy(update=fields)


def server_checks(model: ModelSpec, job: Job, server: dict[int, tuple[str, float]],
                  training_slots: set[int], ranks: int = 1) -> list[Check]:  # fmt: skip
    """Generation on cards of its own (vllm-server with ``generation_cards``): the slots exist and do not train,
    vLLM's weights fit its share and its KV cache holds one round of every one of the ``ranks`` training ranks'
    sequences, spread over its replicas (rl.group_sequences)."""
    slots = generation_cards(job)
    if not slots or model.is_params_only:
        return []
    name = job.name
    missing = [s for s in slots if s not in server]
    if missing:
        return [Check(severity="error", code="RL_GENERATION", job=name, message=(
            f"Job '{name}': generation cards {', '.join(map(str, missing))} are not slots with a card in this "
            "build. Put cards there, or name the slots that hold the generation engine."))]  # fmt: skip
    shared = sorted(set(slots) & training_slots)
    if shared:
        return [Check(severity="error", code="RL_GENERATION", job=name, message=(
            f"Job '{name}': slots {', '.join(map(str, shared))} both train and run the vLLM server; a server "
            "takes its share of the whole card. Use vllm-colocate for shared cards, or separate slots."))]  # fmt: skip
    util = job.rl.server_gpu_memory_utilization
    slot = min(slots, key=lambda s: server[s][1])
    budget, weights, kv = rl.generation_budget(model, job, server[slot][1], util)
    needed = rl.generation_kv_needed(model, job, ranks)
    where = f"slot {slot} ({server[slot][0]})"
    if kv <= 0:
        return [Check(severity="error", code="RL_GENERATION", slot=slot, job=name, message=(
            f"Job '{name}': the vLLM server's {util:.0%} of {where} is {budget / GB:.1f} GB, less than its weights "
            f"({weights / GB:.1f} GB) and activations. Raise vllm_tensor_parallel or use larger cards."))]  # fmt: skip
    ok = kv >= needed
    return [Check(severity="info" if ok else "warning", code="RL_GENERATION", slot=slot, job=name, message=(
        f"Job '{name}': generation on its own cards; the vLLM server takes {util:.0%} of {where}: "
        f"{weights / GB:.1f} GB of weights and a {kv / GB:.1f} GB KV cache for one round of "
        f"{rl.group_sequences(job, ranks)} sequences per replica ({ranks} training ranks' prompts), which needs "
        f"{needed / GB:.1f} GB per card." + ("" if ok else " vLLM will preempt and queue sequences (slower "
                                   "generation); add cards or raise vllm_tensor_parallel.")))]  # fmt: skip


def group_checks(job: Job, cards: int) -> list[Check]:
    """GRPO's generation batch must hold whole prompt groups (engine/memory/rl.py groups_whole): TRL refuses to
    start otherwise."""
    if rl.groups_whole(job, cards):
        return []
    batch = rl.generation_sequences(job) * cards
    return [Check(severity="error", code="RL_GENERATION", job=job.name, message=(
        f"Job '{job.name}': its generation batch ({job.micro_batch_size} × {job.gradient_accumulation_steps} "
        f"steps × {cards} cards = {batch} completions) is not a multiple of its {job.rl.generations} generations "
        "per prompt: TRL's GRPOConfig refuses it. Make micro-batch × accumulation × cards a multiple of the "
        "generations."))]  # fmt: skip


def trainer_checks(job: Job) -> list[Check]:
    """A DPO / GRPO / PPO job on a framework without a preference or RL trainer (specs/frameworks.yaml
    rl_trainer: none) cannot run as written."""
    profile = PROFILES[job.framework]
    if not rl.is_rl(job) or profile.rl_trainer != "none":
        return []
    return [Check(severity="error", code="JOB_SETTING", job=job.name, message=(
        f"Job '{job.name}': {profile.label} has no {job.objective.upper()} trainer "
        f"({profile.sources['rl_trainer']}). Use hf-trainer or axolotl (TRL's trainers), or torchtune's own "
        "recipes."))]  # fmt: skip


def tensor_parallel_checks(job: Job, cards: int) -> list[Check]:
    """vLLM's tensor-parallel groups must tile the cards they run on: colocated, TRL splits the training ranks into
    groups of ``vllm_tensor_parallel`` and refuses a size that does not divide the world size
    (trl/generation/vllm_generation.py:316-322); a server needs at least that many cards of its own."""
    tp = job.rl.vllm_tensor_parallel
    if not rl.generates(job) or tp == 1:
        return []
    if rl.generation_engine(job) == "vllm-colocate" and cards % tp:
        return [Check(severity="error", code="RL_GENERATION", job=job.name, message=(
            f"Job '{job.name}': vllm_tensor_parallel {tp} does not divide its {cards} training cards: TRL splits "
            "the ranks into tensor-parallel groups and refuses a size that does not divide the world size. Pick a "
            f"divisor of {cards}."))]  # fmt: skip
    if rl.generation_engine(job) == "vllm-server" and job.rl.generation_cards and tp > len(job.rl.generation_cards):
        return [Check(severity="error", code="RL_GENERATION", job=job.name, message=(
            f"Job '{job.name}': vllm_tensor_parallel {tp} needs {tp} cards, but the vLLM server has "
            f"{len(job.rl.generation_cards)} (generation_cards). Add cards or lower vllm_tensor_parallel."
        ))]  # fmt: skip
    return []


def colocated_checks(job: Job, model: ModelSpec, rows: list[CardMemory]) -> list[Check]:
    """A colocated vLLM's share of each card (GRPO, PPO): what it holds, whether its weights fit it and whether its
    KV cache holds one generation round (engine/memory/rl.py)."""
    share = rl.colocated_share(job)
    if not share or not rows or model.is_params_only:
        return []
    name, row = job.name, min(rows, key=lambda r: r.capacity_gb)
    card = card_bytes(row, share)
    budget, weights, kv = rl.generation_budget(model, job, card)
    needed = rl.generation_kv_needed(model, job)
    where = f"slot {row.slot} ({row.card_name})"
    if kv <= 0:
        return [Check(severity="error", code="RL_GENERATION", slot=row.slot, job=name, message=(
            f"Job '{name}': the colocated vLLM's {share:.0%} of {card / GB:.1f} GB on {where} is "
            f"{budget / GB:.1f} GB, less than its own copy of the weights ({weights / GB:.1f} GB) and activations: "
            "vLLM cannot allocate a KV cache. Raise vllm_gpu_memory_utilization, or generate on separate cards "
            "(vllm-server)."))]  # fmt: skip
    severity = "info" if kv >= needed else "warning"
    more = "" if kv >= needed else (" vLLM will preempt and queue sequences (slower generation); raise "
                                    "vllm_gpu_memory_utilization or shorten completions.")  # fmt: skip
    return [Check(severity=severity, code="RL_GENERATION", slot=row.slot, job=name, message=(
        f"Job '{name}': a colocated vLLM takes {share:.0%} of each card ({budget / GB:.1f} GB on {where}): "
        f"{weights / GB:.1f} GB of weights and a {kv / GB:.1f} GB KV cache for "
        f"{rl.generation_sequences(job)} sequences of {job.rl.prompt_length} + {job.rl.completion_length} tokens "
        f"per card, which need {needed / GB:.1f} GB; training is sized in the other {1 - share:.0%}.{more}"
    ))]  # fmt: skip


def engine_uses(job: Job, rows: list[CardMemory], server: dict[int, tuple[str, float]],
                training_slots: set[int]) -> dict[tuple[int, int | None], float]:  # fmt: skip
    """Bytes the generation engine holds on each card, beside the training's peak: a colocated vLLM's share of each
    training card, a server's share of each of its own cards (so jobs sharing a card are summed with it)."""
    share = rl.colocated_share(job)
    if share:
        return {(r.slot, r.instance): card_bytes(r, share) * share for r in rows}
    util = job.rl.server_gpu_memory_utilization
    return {(s, None): util * server[s][1] for s in generation_cards(job) if s in server and s not in training_slots}


TRL_ROLLOUT_CHUNK = 64  # trl/experimental/ppo/ppo_config.py local_rollout_forward_batch_size default


def gathered_bytes(model: ModelSpec, job: Job, shards: int, critic: ModelSpec | None = None) -> float:
    """Weights ZeRO-3 gathers onto each card to generate in the training process, beyond the card's own shard:
    TRL's ``unwrap_model_for_generation`` enters ``deepspeed.zero.GatheredParameters(model.parameters())``
    (trl/models/utils.py:145, ds3_gather_for_generation True by default) on the trained model, for PPO the
    PolicyAndValueWrapper of policy and critic (ppo_trainer.py:683-686): their whole bf16 weights, less the
    1/shards already held."""
    strategy = PARALLELISM[job.parallelism]
    if not (strategy.deepspeed and strategy.stage == 3) or shards <= 1:  # DeepSpeed ZeRO-3 only
        return 0.0
    params = model.total_params + (rl.critic_parameters(critic or model) if rl.keeps_critic(job) else 0)
    return params * BF16 * (1 - 1 / shards)


def in_process_checks(model: ModelSpec, job: Job, mem: MemoryBreakdown, rows: list[CardMemory],
                      shards: int = 1, critic: ModelSpec | None = None) -> list[Check]:  # fmt: skip
    """Generation inside the training process (``transformers``: TRL PPO's ``unwrap_model_for_generation`` +
    ``generate`` in chunks of local_rollout_forward_batch_size): its KV cache, and under ZeRO-3 the gathered
    weights, sit beside the model states before the training forward; an error when they exceed the card."""
    if not rl.generates(job) or rl.generation_engine(job) != "transformers" or not rows or model.is_params_only:
        return []
    seqs = min(rl.generation_sequences(job), TRL_ROLLOUT_CHUNK)
    kv = seqs * (job.rl.prompt_length + job.rl.completion_length) * rl.kv_bytes_per_token(model)
    states = mem.weights + mem.adapters + mem.gradients + mem.optimizer + mem.cuda_context
    gathered = gathered_bytes(model, job, shards, critic)
    row = min(rows, key=lambda r: r.capacity_gb)
    if states + kv + gathered <= row.capacity_gb * GB:
        return []
    also = f" and {gathered / GB:.1f} GB of weights ZeRO-3 gathers to generate" if gathered else ""
    return [Check(severity="error", code="RL_GENERATION", slot=row.slot, job=job.name, message=(
        f"Job '{job.name}': generating in the training process keeps a {kv / GB:.1f} GB KV cache for {seqs} "
        f"sequences of {job.rl.prompt_length} + {job.rl.completion_length} tokens{also} beside "
        f"{states / GB:.1f} GB of model states: more than the {row.capacity_gb:.1f} GB of slot {row.slot}. "
        "Generate in smaller chunks (local_rollout_forward_batch_size), shorten completions, set "
        "ds3_gather_for_generation False, or generate with vLLM."))]  # fmt: skip


def form_fields(job: Job, model: ModelSpec | None) -> frozenset[str]:
    """The job form's visibility rule: the RL and MoE settings that apply to ``job`` (the form shows only these):
    the sequence length unless the method generates; the KL coefficient; GRPO's generations per prompt; prompt
    and completion lengths and the generation engine where the method generates; the colocated share, or the
    server's cards and share; PPO's reward model, its critic's checkpoint and epochs; the MoE capacity factor for an
    MoE model (and the critic's checkpoint for any job that names one, so a stale choice can be cleared); the LoRA
    settings unless the job trains every weight, the quantization only for QLoRA (a plain-LoRA job showed a greyed
    "NF4 + double quant" it does not use)."""
    fields: set[str] = {"objective"}
    if job.method != "full":
        fields.add("lora")
    if job.method == "qlora":
        fields.add("quantization")
    if not rl.generates(job):  # GRPO / PPO train on prompt + completion tokens instead
        fields.add("sequence_length")
    if job.objective in ("dpo", "grpo", "ppo"):
        fields.add("beta")
    if job.objective == "grpo":
        fields.add("generations")
    if rl.generates(job):
        fields |= {"prompt_length", "completion_length", "generation"}
        if rl.generation_engine(job) == "vllm-colocate":
            fields |= {"vllm_gpu_memory_utilization", "vllm_tensor_parallel"}
        elif rl.generation_engine(job) == "vllm-server":
            fields |= {"generation_cards", "server_gpu_memory_utilization", "vllm_tensor_parallel"}
    if job.objective == "ppo" or job.rl.critic_model is not None:
        fields.add("critic_model")
    if job.objective == "ppo":
        fields |= {"reward_model", "ppo_epochs"}
    if model is not None and model.is_moe:
        fields.add("moe_capacity_factor")
    return frozenset(fields)
