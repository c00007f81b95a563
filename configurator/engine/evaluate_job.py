"""One job of a build, evaluated: its model, its cards, its memory per card, its checks, its step time.

``evaluate_job(job, ctx)`` is what ``evaluate`` calls (through the engine's cache) for each job, with the
evaluation's context; it returns the result with the checks and card uses it found (engine/context.py). The steps
below run in the order their checks appear in the result (the result sorts by severity only, keeping that order
within one).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from configurator.catalog.cards import CardSpec
from configurator.catalog.errors import plain_message
from configurator.catalog.models import ModelSpec
from configurator.catalog.units import GB
from configurator.engine.calibration import band as calibration
from configurator.engine.checks import rl as rl_result
from configurator.engine.checks.advice import fit_advice
from configurator.engine.checks.job import (
    Shape,
    job_shape,
    memory_notes,
    pcie_checks,
    setting_checks,
    valid_keys,
)
from configurator.engine.context import EvalContext, JobEvaluation
from configurator.engine.lowprecision.checks import (
    Capability,
    extra_bytes,
    job_capability,
    precision_checks,
    recipe_of,
    support_at,
    supported_recipes,
)
from configurator.engine.memory import rl, vision
from configurator.engine.memory.breakdown import MemoryBreakdown
from configurator.engine.memory.estimate import Parameters, effective_offload, job_parameters, memory_for_card, sharding
from configurator.engine.memory.host import job_host
from configurator.engine.memory.precision import trained_bytes
from configurator.engine.memory.states import trained_layout
from configurator.engine.mig.layout import LayoutCheck, profile_shares
from configurator.engine.model.build import Job
from configurator.engine.model.labels import band_words, method_name
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.resolver import RESOLVE_ERRORS, ModelResolver
from configurator.engine.model.result import (
    CardMemory,
    Check,
    Communication,
    Compute,
    FitStatus,
    JobResult,
    PrecisionInfo,
)
from configurator.engine.model.stack import PROFILES, describe, stack_of
from configurator.engine.time.communication import (
    NVLS_ARCHITECTURES,
    combined,
    communication,
    repeated,
    slowest_link,
)
from configurator.engine.time.compute import attention_kernel_word, compute
from configurator.engine.time.power_limit import power_limit_checks
from configurator.engine.time.steptime.band import step_band
from configurator.engine.topology.links import link_words


def _status(headroom: float, capacity: float, high: float, margin: float) -> FitStatus:
    """Tight whenever the band straddles capacity (its high end over it) or the margin is not left."""
    if headroom < 0:
        return "does-not-fit"
    if headroom < margin * capacity or high > capacity:
        return "tight"
    return "fits"


def _fits_clearly(peak: float, *, capacity: float, margin: float, band: calibration.Band | None = None) -> bool:
    """The verdict rule as a predicate on the peak: what the advice must reach ("fits", not "tight")."""
    high = (band or calibration.band_for(None)).around(peak)[1]
    return _status(capacity - peak, capacity, high, margin) == "fits"


def _fits_changed(peak: float, job: Job, *, capacity: float, margin: float) -> bool:
    """``_fits_clearly`` for a job as the advice would change it: with the band that job gets."""
    return _fits_clearly(peak, capacity=capacity, margin=margin, band=calibration.band_for(job))


def capacity_of(card: CardSpec, layout: LayoutCheck | None, instance: int | None) -> tuple[float, float, str | None]:
    """(driver-visible bytes, nominal bytes, MIG profile) of a card or one of its instances."""
    if instance is None or layout is None:
        return card.visible_gb * GB, (card.memory_gb.value or card.visible_gb) * GB, None
    for inst in layout.instances:
        if inst.index == instance:
            p = inst.profile
            return p.capacity_gb * GB, (p.memory_nominal_gb.value or p.capacity_gb) * GB, p.name
    raise KeyError(instance)


def _row(slot: int, card: CardSpec, mem: MemoryBreakdown, capacity: float, nominal: float, margin: float,
         mig: str | None = None, instance: int | None = None, band: calibration.Band | None = None,
         ) -> CardMemory:  # fmt: skip
    """One card's memory row. One constructor call of named fields: it reads best whole."""
    peak = mem.peak_reserved
    pools = mem.phase_reserved()
    at_peak = mem.peak_allocated_phase
    band = band or calibration.band_for(None)
    low, high = band.around(peak)
    headroom = capacity - peak
    # validated: pydantic-core's __init__ (~3 us) is faster than model_construct's Python loop over the fields (~6 us)
    return CardMemory(
        slot=slot, card=card.id, card_name=card.name, mig=mig, instance=instance,
        capacity_gb=capacity / GB, capacity_nominal_gb=nominal / GB,
        weights_gb=mem.weights / GB, adapters_gb=mem.adapters / GB, gradients_gb=mem.gradients / GB,
        optimizer_gb=mem.optimizer / GB, activations_gb=mem.activations / GB, transient_gb=mem.transient / GB,
        overhead_gb=mem.overhead / GB, model_states_gb=mem.model_states / GB,
        room_for_activations_gb=(capacity - mem.model_states) / GB,
        peak_allocated_gb=mem.peak_allocated / GB, allocator_reserved_gb=mem.allocator_reserved / GB,
        cuda_context_gb=mem.cuda_context / GB, peak_reserved_gb=peak / GB,
        peak_low_gb=low / GB, peak_high_gb=high / GB,
        headroom_gb=headroom / GB, headroom_nominal_gb=(nominal - mem.peak_allocated) / GB,
        fits=headroom >= 0, status=_status(headroom, capacity, high, margin),
        fixed_activation_budget=mem.fixed_budget, fsdp_setup_pool_gb=mem.setup_pool / GB,
        reserved_set_by="fsdp-setup" if mem.setup_bound else "step",
        peak_phase=max(pools, key=pools.__getitem__), band_low_gb=low / GB, band_high_gb=high / GB,
        band_basis=band.basis, phase_reserved_gb={k: (v + mem.cuda_context) / GB for k, v in pools.items() if v},
        at_peak_gb={k: v / GB for k, v in mem.parts_at(at_peak).items()}, at_peak_phase=at_peak,
    )  # fmt: skip


def _resolve(job: Job, models: ModelResolver) -> tuple[ModelSpec, Parameters] | JobEvaluation:
    """The job's model and its parameter counts, or the empty result an unknown model or bad targets leave."""
    name = job.name
    try:
        model = models.resolve(job.model)
    except RESOLVE_ERRORS as exc:
        check = (
            Check(
                severity="error",
                code="JOB_MODEL_UNKNOWN",
                job=name,
                message=f"Job '{name}': {plain_message(exc)}",
            ),
        )
        return JobEvaluation(JobResult(name=name, model=str(job.model), model_name="?", method=job.method,
                                       parallelism=job.parallelism, params_total=0, params_trainable=0),
                             check)  # fmt: skip
    try:
        params = job_parameters(model, job)
    except ValueError as exc:
        targets = Check(severity="error", code="JOB_LORA_TARGETS", job=name, message=f"Job '{name}': {exc}")
        return JobEvaluation(JobResult(
            name=name,
            model=model.id,
            model_name=model.name,
            method=job.method,
            parallelism=job.parallelism,
            params_total=model.total_params,
            params_trainable=0,
        ), (targets,))
    return model, params


def _critic(job: Job, model: ModelSpec, models: ModelResolver) -> tuple[ModelSpec | None, list[Check]]:
    """PPO's critic and reward checkpoint (rl.critic_model) and what is wrong with it: a reference that names
    nothing, or a model without an architecture, is sized as the policy's architecture with an error saying so; a
    vocabulary unlike the policy's cannot read its token ids; a critic named for a job that keeps none is unused."""
    name, ref = job.name, job.rl.critic_model
    if ref is None:
        return None, []
    if not rl.keeps_critic(job):
        return None, [Check(severity="warning", code="RL_CRITIC_UNUSED", job=name, message=(
            f"Job '{name}' names a critic model ({ref}) but trains with {job.objective.upper()}, which keeps no "
            "critic: only PPO trains a value model. Remove it, or choose PPO."))]  # fmt: skip
    try:
        critic = rl.critic_model(job, models)
    except RESOLVE_ERRORS as exc:
        return None, [Check(severity="error", code="RL_CRITIC_UNKNOWN", job=name, message=(
            f"Job '{name}': the critic model {ref} cannot be used ({plain_message(exc)}); its value and reward "
            f"models are sized as copies of {model.name} until it names a catalog model or a readable "
            "config.json."))]  # fmt: skip
    assert critic is not None  # named, for a job that keeps a critic
    checks: list[Check] = []
    if critic.vocab_size and model.vocab_size and critic.vocab_size != model.vocab_size:
        # TRL's PPOTrainer scores the policy's own token ids with both models (ppo_trainer.py get_reward on
        # query_responses), so their embeddings must cover the policy's vocabulary
        checks.append(Check(severity="warning", code="RL_CRITIC_TOKENIZER", job=name, message=(
            f"Job '{name}': the critic model {critic.name} has a vocabulary of {critic.vocab_size:,} tokens and "
            f"the policy {model.name} one of {model.vocab_size:,}. TRL's PPO trainer feeds the policy's token ids to "
            "the value and reward models, so they need the policy's tokenizer: train the reward model from the "
            "policy's family.")))  # fmt: skip
    return critic, checks


def _base_result(job: Job, model: ModelSpec, params: Parameters) -> dict[str, Any]:
    """The fields every result of a resolved job carries, whether or not it has cards."""
    trains = rl.training_view(job)  # the stack as the trainer runs it (TRL's RL trainers: bf16 log-probs)
    stack = stack_of(trains)
    return dict(
        name=job.name,
        model=model.id,
        model_name=model.name,
        method=job.method,
        parallelism=job.parallelism,
        params_total=params.total,
        params_trainable=params.trainable,
        framework=job.framework,
        stack=describe(trains),
        loss=stack.loss,
        fsdp_version=job.fsdp_version,
        offload=effective_offload(job),
        vision=vision.info(model, job),
    )


def _memory_rows(job: Job, mem: MemoryBreakdown, shape: Shape, cards: dict[int, CardSpec],
                 layouts: dict[int, LayoutCheck], margin: float) -> list[CardMemory]:  # fmt: skip
    """A memory row per card or instance the job runs on."""
    band = calibration.band_for(job)
    rows: list[CardMemory] = []
    same: dict[tuple[Any, ...], CardMemory] = {}  # cards of one kind differ by slot only
    for slot, instance in shape.keys:
        card = cards[slot]
        capacity, nominal, profile = capacity_of(card, layouts.get(slot), instance)
        capacity *= 1 - rl.colocated_share(job)  # a colocated vLLM's share is not the training's (engine/memory/rl.py)
        kind = (id(card), capacity, nominal, profile, instance)
        if kind in same:
            rows.append(same[kind].model_copy(update={"slot": slot}))
        else:
            rows.append(_row(slot, card, mem, capacity, nominal, margin, profile, instance, band))
            same[kind] = rows[-1]
    return rows


def _fit_checks(job: Job, model: ModelSpec, mem: MemoryBreakdown, rows: list[CardMemory], shape: Shape,
                cc: Capability | None, margin: float, critic: ModelSpec | None = None) -> list[Check]:  # fmt: skip
    """Does-not-fit (with the advice that would make it fit) or tight, per row."""
    name = job.name
    checks: list[Check] = []
    advice_for: dict[float, str] = {}  # capacity -> advice sentence, so cards of one kind share one search
    for row in rows:
        where = f"slot {row.slot}" + (f" ({row.mig} instance {row.instance})" if row.mig else "")
        if not row.fits:
            capacity = row.capacity_gb * GB
            if capacity not in advice_for:
                advice_for[capacity] = fit_advice(
                    model, job, shape.n, shape.on_mig, mem.peak_reserved, capacity,
                    partial(_fits_changed, capacity=capacity, margin=margin), cc, critic,
                ).sentence()  # fmt: skip
            checks.append(Check(severity="error", code="JOB_DOES_NOT_FIT", slot=row.slot, job=name, message=(
                f"Job '{name}' needs {row.peak_reserved_gb:.1f} GB on {where} ({row.card_name}) of "
                f"{row.capacity_gb:.1f} GB: short by {-row.headroom_gb:.1f} GB. "
                f"{advice_for[capacity]}")))  # fmt: skip
        elif row.status == "tight":
            checks.append(Check(severity="warning", code="JOB_TIGHT", slot=row.slot, job=name, message=(
                f"Job '{name}' leaves {row.headroom_gb:.1f} GB on {where} of {row.capacity_gb:.1f} GB: inside the "
                f"model's uncertainty (peak {band_words(row.peak_low_gb, row.peak_high_gb, 'GB', 1)}) or under the "
                f"{margin:.0%} safety margin; too little to plan on. Use a larger card or instance, "
                "or lower the peak (QLoRA, a shorter sequence, FSDP over more cards).")))  # fmt: skip
    return checks


def _compute_shares(shape: Shape, cards: dict[int, CardSpec], layouts: dict[int, LayoutCheck],
                    ) -> tuple[list[tuple[CardSpec, float]], list[float]]:  # fmt: skip
    """Each card the job runs on with the share of its compute the job gets (1, or a MIG instance's SMs over the
    card's: the catalog's -lgip SM counts), and the share of its memory bandwidth (a MIG instance's memory slices
    over the card's; NVIDIA MIG User Guide 'Concepts': memory slices carry their share of the memory controllers)."""
    shares: list[tuple[CardSpec, float]] = []
    memory: list[float] = []
    for slot, instance in shape.keys:
        card = cards[slot]
        share, mem = 1.0, 1.0
        if instance is not None and card.mig is not None:
            name = capacity_of(card, layouts.get(slot), instance)[2]
            if name:
                share, mem = profile_shares(card, card.mig.profile(name))
        shares.append((card, share))
        memory.append(mem)
    return shares, memory


def _step_time(job: Job, comm: Communication, comp: Compute,
               ) -> tuple[Communication, float | None, list[Check]]:  # fmt: skip
    """The step: compute plus the communication it does not hide; the link's ratio to compute on ``comm``."""
    step = None
    checks: list[Check] = []
    if comp.seconds_per_step is not None:
        strategy = PARALLELISM[job.parallelism]
        overlap = strategy.overlaps_compute
        # RL: the training's collectives overlap its training passes only, not the generation round or the extra
        # passes around them (compute.py training_seconds); those add in full
        training = comp.training_seconds if comp.training_seconds is not None else comp.seconds_per_step
        if rl.keeps_critic(job):  # PPO's further epochs and its critic's passes hide their own collectives
            training += sum(o.seconds for o in comp.ops if o.name in rl_result.SYNCED_PASSES)
        rest = comp.seconds_per_step - training
        step = strategy.step_seconds(training, comm.seconds_per_step) + rest
        if comm.collectives and training > 0:
            ratio = comm.seconds_per_step / training
            comm = comm.model_copy(
                update={"ratio_to_compute": ratio, "hidden_behind_compute": overlap and ratio <= 1.0}
            )
            if ratio > 1.0:
                checks.append(Check(severity="warning", code="COMM_DOMINATES", job=job.name, message=(
                    f"Job '{job.name}' spends {comm.seconds_per_step:.2f} s per step communicating over "
                    f"{link_words(comm.bound_by)} against {training:.2f} s computing ({ratio:.2f}× compute): the cards "
                    "wait on the link. Bridge the cards (NVLink), use fewer cards, or a method that moves "
                    "less (LoRA on one card, QLoRA).")))  # fmt: skip
    return comm, step, checks


def _timing(job: Job, model: ModelSpec, params: Parameters, shape: Shape, ctx: EvalContext,
            critic: ModelSpec | None = None,
            ) -> tuple[Communication, Compute, float | None, list[Check]]:  # fmt: skip
    """Communication over the slowest link between the job's cards, compute on them, and the step they make."""
    a = ctx.assumptions
    tb = trained_bytes(job.method, job.optimizer, job.precision)
    comm_link = None
    rate, basis = 0.0, str(a.link_rates)  # the rate's basis: nominal, measured, or calibrated for the link
    if shape.multi:
        comm_link, rate, basis = slowest_link(shape.slots, ctx.topo.link, a.link_rates, ctx.calib)
    nvls = comm_link is not None and comm_link.family == "nvswitch" and all(
        ctx.cards[sl].architecture in NVLS_ARCHITECTURES for sl in shape.slots)
    # RL: the payloads of the batch the trainer runs (rl.training_view: DPO's pairs, prompt + completion tokens)
    view = rl.training_view(job)
    comm = communication(view, params, tb, shape.slots, comm_link, rate, basis, model.hidden_size,
                         model.num_layers, nvls=nvls)  # fmt: skip
    shares, memory = _compute_shares(shape, ctx.cards, ctx.layouts)
    estimates = a.compute_rates == "estimated"
    seen = vision.language_view(model, job)  # a VLM's language model runs on text + image tokens
    # a parameter-count-only model is timed too (compute.py: its dense FLOPs at the utilisation constant, a lower
    # bound), as the service planner times it: an "unknown" beside the planner's hours read as a contradiction
    comp = compute(seen, model, params, tb, shares, a.utilization, shape.tp, estimates, memory_shares=memory,
                   step_model=a.step_model, critic=critic, generation_cards=[
                       ctx.cards[s] for s in rl_result.generation_cards(job) if s in ctx.cards])  # fmt: skip
    if rl.keeps_critic(job) and comp.training_seconds is not None:
        # PPO's further epochs and critic passes are in the per-op compute only (compute.py training_seconds): their
        # collectives are added where the compute they overlap is. The critic, trained in full, is stepped with the
        # policy: its gradients move too, once per epoch.
        values = critic or model  # the critic's own checkpoint (rl.critic_model), or the policy's architecture
        critic_run = rl.critic_job(view)
        ctb, _ = trained_layout(critic_run)
        critic_comm = communication(critic_run, rl.critic_counts(values, critic_run), ctb, shape.slots, comm_link, rate,
                                    basis, values.hidden_size, values.num_layers, nvls=nvls)  # fmt: skip
        comm = combined(comm, critic_comm, "critic")
        epochs = rl.synced_epochs(job)
        comm = repeated(comm, epochs, f"PPO synchronises the policy's and the critic's gradients in each of its "
                        f"{epochs} epochs over the rollout: {epochs}× one epoch's collectives per step.")
    comm, step, checks = _step_time(job, comm, comp)
    checks += pcie_checks(job, shape.multi and comm_link is not None and comm_link.family == "pcie")
    return comm, comp, step, checks


def evaluate_job(job: Job, ctx: EvalContext) -> JobEvaluation:
    """The job's result, the checks it raises and its peak on each card or instance it runs on."""
    a, cards, layouts = ctx.assumptions, ctx.cards, ctx.layouts
    resolved = _resolve(job, ctx.models)
    if isinstance(resolved, JobEvaluation):
        return resolved
    model, params = resolved
    critic, critic_checks = _critic(job, model, ctx.models)
    base_result = _base_result(job, model, params)
    if not job.card_keys:
        return JobEvaluation(JobResult(**base_result), (
            Check(
                severity="warning",
                code="JOB_NO_CARDS",
                job=job.name,
                message=(f"Job '{job.name}' runs on no card yet: assign it to a card or a MIG instance."),
            ),
        ))  # fmt: skip
    keys, checks = valid_keys(job, cards, layouts, {p.slot: p.card for p in ctx.build.cards})
    if not keys:
        return JobEvaluation(JobResult(**base_result), tuple(checks))
    shape, shape_checks = job_shape(job, keys)
    checks += shape_checks
    checks += setting_checks(job, model, shape) + critic_checks
    split = sharding(job, shape.n, shape.on_mig)
    job_cards = [cards[s] for s in shape.slots]
    cc = job_capability(job_cards)  # the lowest: its recipe and copies (Hopper transposes) set the memory
    checks += precision_checks(job, [(s, cards[s]) for s in shape.slots])
    mem = memory_for_card(model, job, shards=split.shards, tp=split.tp, ddp=split.ddp, ep=split.ep,
                          capability=cc, critic=critic)
    precision = _precision_info(model, job, params, job_cards, cc, split.shards, split.tp)
    rows = _memory_rows(job, mem, shape, cards, layouts, a.safety_margin_fraction)
    checks += _fit_checks(job, model, mem, rows, shape, cc, a.safety_margin_fraction, critic)
    checks += memory_notes(job, mem, rows, shape, cards)
    is_rl = rl.is_rl(job)  # an SFT job raises none of the RL checks and has no RL summary: skipped, not asked
    server: dict[int, tuple[str, float]] = {}
    if is_rl:
        checks += rl_result.colocated_checks(job, model, rows) + rl_result.tensor_parallel_checks(job, shape.n)
        checks += rl_result.trainer_checks(job)
        server = ({s: (c.name, capacity_of(c, layouts.get(s), None)[0]) for s, c in cards.items()}
                  if rl_result.generation_cards(job) else {})  # fmt: skip
        checks += rl_result.group_checks(job, shape.n)
        checks += rl_result.server_checks(model, job, server, set(shape.slots), shape.n)
        checks += rl_result.in_process_checks(model, job, mem, rows, split.shards, critic)
    comm, comp, step, timing_checks = _timing(job, model, params, shape, ctx, critic)
    checks += timing_checks
    if comp.seconds_per_step:  # a capped card: the time assumes its default power
        # its own cards and an RL job's vLLM server cards, whose generation round is in the step too
        timed = [*shape.slots, *rl_result.generation_cards(job)]
        checks += power_limit_checks(job.name, timed, cards, ctx.power_limits)
    rl_summary = (rl_result.rl_result(model, job, mem, rows, comp, split.shards, split.tp, server, split.ep, critic)
                  if is_rl else None)  # fmt: skip
    fits = all(r.fits for r in rows)
    status: FitStatus = "does-not-fit" if not fits else ("tight" if any(r.status == "tight" for r in rows) else "fits")
    # every rank of the job sits in this chassis: its host RAM and NVMe (engine/memory/host.py)
    need = job_host(job, params, len(rows), base_result["offload"], mem.host, split.shards, model)
    host = sum(t.gb for t in need.ram if t.what in ("offloaded states", "ZeRO-Infinity pinned buffers"))
    band = _step_band(job, comp, step, shape.on_mig, images=vision.tower(model, job) is not None,
                      windowed=model.window_cuts(job.sequence_length))  # fmt: skip
    result = JobResult(**base_result, cards=rows, communication=comm, compute=comp, step_seconds=step,
                       step_low_seconds=band[0], step_high_seconds=band[1], step_band_basis=band[2],
                       step_band_outside=band[3],
                       fits=fits, status=status, precision=precision, host_memory_gb=host, rl=rl_summary,
                       host_ram=list(need.ram), host_nvme=list(need.nvme))  # fmt: skip
    engine = rl_result.engine_uses(job, rows, server, set(shape.slots)) if rl.generates(job) else {}
    uses = {key: mem.peak_reserved + engine.pop(key, 0.0) for key in shape.keys}  # + a colocated vLLM's share
    return JobEvaluation(result, tuple(checks), (*uses.items(), *engine.items()))  # + a vLLM server's cards


def _step_band(job: Job, comp: Compute, step: float | None, on_mig: bool, images: bool = False,
               windowed: bool = False) -> tuple[float | None, float | None, str | None, list[str]]:  # fmt: skip
    """(low, high, basis, outside) of the step time: the held-apart runs' band (time/steptime/band.py) around a
    per-op step time, saying so (a caveat ending the basis) where the job is of kinds no run in it is (``outside``:
    QLoRA, FP8 or FP4 compute, a MIG slice, images);
    none for the utilisation model, whose constant no run validates, nor for an RL step (generation and the extra
    passes: no measured RL throughput among the runs)."""
    if step is None or comp.step_model != "per-op" or rl.is_rl(job):
        return None, None, None, []
    band = step_band()
    low, high = band.around(step)
    kernel = attention_kernel_word(comp.attention_kernel)  # the runs were all timed with FlashAttention-2
    outside = [*([method_name(job.method)] if job.method not in band.band.methods else []),
               *([f"on {PROFILES[job.framework].label}"] if job.framework not in band.band.frameworks else []),
               *([f"in {comp.recipe} compute"] if comp.recipe else []),
               *(["on a MIG slice"] if on_mig else []),
               *(["a vision-language job"] if images else []),
               *([f"timed with {kernel} attention"] if kernel not in (None, "FlashAttention-2") else []),
               # FlashAttention-2 skips the tiles outside a window (ops.py local_attention_share): no run is windowed
               *(["a sliding-window model under FlashAttention-2"] if windowed and kernel == "FlashAttention-2"
                 else [])]  # fmt: skip
    # this job's wording; several jobs with one caveat are said together in present/job_words.band_caveat_words
    caveat = f"; none of the runs is {' or '.join(outside)} as this job is" if outside else ""
    return low, high, band.basis + caveat, outside


def _precision_info(model: ModelSpec, job: Job, params: Parameters, cards: list[CardSpec], cc: Capability | None,
                    shards: int, tp: int) -> PrecisionInfo:  # fmt: skip
    """The job's precision recipe, what its cards support, and the bytes low precision adds."""
    recipe = recipe_of(job.precision, cc)
    layer_linear = params.frozen_linear // (model.num_layers or 1)
    low = extra_bytes(model, job, params.frozen_linear, params.largest_linear, layer_linear, cc, shards=shards, tp=tp)
    return PrecisionInfo(
        precision=job.precision, recipe=recipe, base_weights=job.base_weights,
        supported=list(supported_recipes(cards)),
        source=support_at(cc, recipe or "fp8-current").source if recipe or job.base_weights == "fp8" else None,
        copies_gb=low.copies / GB, scales_gb=low.scales / GB,
        transient_gb=0.0 if job.activation_memory_gb is not None or model.is_params_only else low.transient / GB,
    )  # fmt: skip
