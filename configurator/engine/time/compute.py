"""Compute per step: the per-op model (engine/time/steptime/) or FLOPs at a utilisation, and arithmetic intensity for
the roofline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from configurator.catalog.cards import CardSpec
from configurator.catalog.models import ModelSpec
from configurator.engine.cache import CACHE
from configurator.engine.lowprecision.checks import FP8, Recipe, job_capability, recipe_of, recipe_rate, recipe_time
from configurator.engine.memory import rl, vision
from configurator.engine.memory.estimate import Parameters
from configurator.engine.memory.precision import BF16, TrainedBytes, nf4_bytes
from configurator.engine.memory.states import trained_layout
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.result import Compute, MatmulIntensity
from configurator.engine.model.stack import attention_run, passes_padding_mask
from configurator.engine.time.steptime import Device, OpRow, job_step, scaled_class, tower_step
from configurator.engine.time.steptime.efficiency import efficiency
from configurator.engine.time.steptime.generation import RLStep, rl_step
from configurator.engine.time.steptime.ops import attention_groups, routed_share


def flops_per_token(job: Job, model: ModelSpec, p: Parameters) -> float:
    """Training FLOPs per token (MoE: by the active parameters).

    Full fine-tune: 6N (2N forward, 4N backward: activation and weight gradients; Kaplan et al. 2020,
    §2.1), 8N with activation recomputation. LoRA/QLoRA: the frozen base needs no weight gradients, so
    forward 2N + backward 2N, + 2N when recomputing, + 6 per adapter parameter. Attention scores add
    6 x layers x sequence x query width per token (causal: half of the 12 of Narayanan et al. 2021).
    """
    n: float = p.total
    t = p.trainable
    if model.is_moe and model.num_experts:
        # MoE: a token runs through its top-k experts only, so FLOPs count the ACTIVE parameters (Mixtral:
        # ~12.9 B of 46.7 B; Jiang et al. 2024), while memory holds every expert
        experts = sum(m.weights for m in model.linear_modules() if m.group == "expert")
        n = n - experts + experts * model.num_experts_per_tok / model.num_experts
    recompute = 2 * n if job.gradient_checkpointing else 0
    if job.method == "full":
        dense = 6 * n + recompute
    else:
        dense = 4 * n + recompute + 6 * t
    attention = 0.0
    if model.num_layers and model.num_attention_heads and model.head_dim:
        width = model.num_attention_heads * model.head_dim
        passes = 4 if job.gradient_checkpointing else 3  # forward, backward (x2), recompute
        attention = 2 * model.num_layers * job.sequence_length * width * passes
    return dense + attention


def ridge_intensity(peak_tflops: float, bandwidth_gb_s: float) -> float:
    """FLOP/byte where a card stops being memory-bound: its ops:byte ratio (NVIDIA performance guide; seed A)."""
    return peak_tflops * 1e12 / (bandwidth_gb_s * 1e9)


def attainable_tflops(peak_tflops: float, bandwidth_gb_s: float, intensity: float) -> float:
    """Roofline model (Williams, Waterman and Patterson 2009): min(peak, intensity x bandwidth), in TFLOPS."""
    return min(peak_tflops, intensity * bandwidth_gb_s * 1e9 / 1e12)


def matmul_intensity(tokens: float, d_in: int, d_out: int) -> tuple[float, float]:
    """(FLOPs, bytes) of a BF16 matmul of tokens x d_in by d_in x d_out: NVIDIA's performance guide,
    arithmetic intensity = 2MNK / 2(MK + KN + MN) (seed A: ~1,250 for 8B's up-projection on 2,048 tokens)."""
    flops = 2.0 * tokens * d_in * d_out
    moved = BF16 * (tokens * d_in + d_in * d_out + tokens * d_out)
    return flops, moved


def bf16_rate(card: CardSpec, estimates: bool = False) -> float | None:
    """The card's dense BF16 TFLOPS: published, or with ``estimates`` the catalog's UNCONFIRMED estimate."""
    if card.bf16_dense_tflops.value:
        return float(card.bf16_dense_tflops.value)
    if estimates and card.bf16_dense_tflops_estimate is not None and card.bf16_dense_tflops_estimate.value:
        return float(card.bf16_dense_tflops_estimate.value)
    return None


def _rates(cards: list[tuple[CardSpec, float]], estimates: bool) -> tuple[float | None, bool, list[str], list[str]]:
    """(the slowest known BF16 TFLOPS, whether every card has a rate, notes on missing or estimated rates, the
    cards whose rate is estimated)."""
    notes: list[str] = []
    rates = [(c, (bf16_rate(c, estimates) or 0) * share) for c, share in cards]
    known = [r for _, r in rates if r > 0]
    slowest = min(known) if known else None
    missing = [c.name for c, r in rates if r <= 0]
    # an estimate matters only where it sets the job's rate (the slowest card's); elsewhere it changes nothing
    estimated = sorted({c.name for c, r in rates if not c.bf16_dense_tflops.value and r > 0 and r == slowest})
    if missing:
        notes.append(f"No published dense BF16 rate for {', '.join(sorted(set(missing)))}: compute time unknown.")
    for name in estimated:
        card = next(c for c, _ in cards if c.name == name)
        assert card.bf16_dense_tflops_estimate is not None
        notes.append(f"Compute time for {name} uses an UNCONFIRMED estimate of "
                     f"{card.bf16_dense_tflops_estimate.value:g} dense BF16 TFLOPS: no rate is published.")  # fmt: skip
    return slowest, not missing, notes, estimated


def _memory_bound_bytes(job: Job, p: Parameters, tb: TrainedBytes, split: int, recipe: str | None) -> float:
    """Bytes the memory-bound parts of a step move (seed A): the optimizer step touches every trained state
    once; QLoRA dequantises every 4-bit weight before each multiplication (forward, backward, and the recompute)."""
    optimizer_bytes = 2 * p.trainable * tb.total / split  # read and write weights, grads and states
    dequant_bytes = 0.0
    if job.method == "qlora":
        nf4 = nf4_bytes(job.quantization)
        passes = 3 if job.gradient_checkpointing else 2  # per micro-batch, whatever its size
        dequant_bytes = p.frozen_linear * (nf4 + 2 * BF16) * passes * job.gradient_accumulation_steps
    if job.method == "lora" and job.base_weights == "fp8" and recipe is None:
        # an FP8 base under BF16 compute is dequantised before each matmul, as QLoRA's NF4 above
        passes = 3 if job.gradient_checkpointing else 2
        dequant_bytes = p.frozen_linear * (FP8 + 2 * BF16) * passes * job.gradient_accumulation_steps
    return optimizer_bytes + dequant_bytes


def _matmuls(job: Job, model: ModelSpec, p: Parameters, tb: TrainedBytes, ops: dict[str, float],
             recipe_ops: dict[str, float]) -> list[MatmulIntensity]:  # fmt: skip
    """The roofline's points: the step's main matmuls at one micro-batch, the optimizer step, NF4 dequantisation;
    each classed at BF16 (``ops``: ridge per card) and under the recipe's roof (``recipe_ops``)."""
    matmuls = _matmul_points(job, model, p, tb, ops)
    return [m.model_copy(update={"recipe_bound": {cid: ("compute" if m.intensity >= r else "memory")
                                                  for cid, r in recipe_ops.items()}})
            for m in matmuls] if recipe_ops else matmuls  # fmt: skip


def _matmul_points(job: Job, model: ModelSpec, p: Parameters, tb: TrainedBytes, ops: dict[str, float],
                   ) -> list[MatmulIntensity]:  # fmt: skip
    """The BF16-classed points, memoised by what they depend on (the model by identity, the rest by value:
    issue 24, "memoize by shapes"), so a job edited in any other setting reuses them (the pydantic records are
    frozen and shared)."""
    micro_tokens = job.sequence_length * job.micro_batch_size
    # the model by identity holds its experts and top-k, so the MoE rows (routed_share) need no key of their own
    key = (job.method, job.lora.rank, job.quantization, micro_tokens, p.trainable, p.frozen_linear, tb.total,
           tuple(ops.items()))  # fmt: skip
    return CACHE.memo("matmul-points", (model,), key, lambda: _make_matmuls(job, model, p, tb, ops, micro_tokens))


def _make_matmuls(job: Job, model: ModelSpec, p: Parameters, tb: TrainedBytes, ops: dict[str, float],
                  micro_tokens: int) -> list[MatmulIntensity]:  # fmt: skip
    matmuls: list[MatmulIntensity] = []
    if model.hidden_size and model.intermediate_size:
        h, f = model.hidden_size, model.tokens_ffn_width if not model.is_moe else model.moe_intermediate_size
        assert f
        # MoE: each expert's up / down GEMM sees only its routed tokens (gpt-oss-20b at 2,048 tokens, top-4 of 32:
        # 256 rows, ~217 FLOP/byte, below an H100's ridge)
        mlp_rows = micro_tokens * routed_share(model)  # the per-op model's rows for an expert's GEMM
        shapes = [("MLP up-projection", mlp_rows, h, f), ("MLP down-projection", mlp_rows, f, h)]
        if model.num_attention_heads and model.head_dim:
            shapes.append(("attention q-projection", micro_tokens, h, model.num_attention_heads * model.head_dim))
        if job.method in ("lora", "qlora"):
            shapes.append((f"LoRA A (rank {job.lora.rank})", micro_tokens, h, job.lora.rank))
        for name, rows, d_in, d_out in shapes:
            fl, by = matmul_intensity(rows, d_in, d_out)
            ai = fl / by
            matmuls.append(MatmulIntensity.model_construct(
                name=name, flops=fl, bytes=by, intensity=ai,
                bound={cid: ("compute" if ai > r else "memory") for cid, r in ops.items()},
            ))  # fmt: skip
    # Optimizer step: ~1 FLOP per 16+ bytes touched; dequantisation: a few FLOPs per byte.
    if p.trainable:
        fl, moved = 10.0 * p.trainable, 2 * p.trainable * tb.total
        matmuls.append(MatmulIntensity.model_construct(
            name="optimizer step (AdamW)", flops=fl, bytes=moved, intensity=fl / moved,
            bound={cid: "memory" for cid in ops},
        ))  # fmt: skip
    if job.method == "qlora":
        nf4 = nf4_bytes(job.quantization)
        per = nf4 + BF16
        matmuls.append(MatmulIntensity.model_construct(
            name="NF4 dequantisation", flops=4.0 * p.frozen_linear, bytes=per * p.frozen_linear,
            intensity=4.0 / per, bound={cid: "memory" for cid in ops},
        ))  # fmt: skip
    return matmuls


def _devices(cards: list[tuple[CardSpec, float]], memory_shares: list[float] | None, estimates: bool,
             ) -> list[tuple[CardSpec, Device]]:  # fmt: skip
    """Each distinct card or MIG instance of the job as the per-op model sees it: its SMs' share of the dense
    BF16 rate, its memory slices' share of the bandwidth (MIG), its SM count."""
    out: dict[tuple[str, float, float], tuple[CardSpec, Device]] = {}
    for i, (c, share) in enumerate(cards):
        mem = memory_shares[i] if memory_shares is not None and i < len(memory_shares) else share
        dev = card_device(c, share, mem, estimates)
        if dev is not None:
            out.setdefault((c.id, share, mem), (c, dev))
    return list(out.values())


def card_device(c: CardSpec, share: float = 1.0, memory_share: float | None = None,
                estimates: bool = False) -> Device | None:  # fmt: skip
    """A card, or ``share`` of its SMs and ``memory_share`` of its bandwidth (a MIG instance), as the per-op model
    sees it; None without a dense BF16 rate."""
    rate = bf16_rate(c, estimates)
    if not rate:
        return None
    mem = share if memory_share is None else memory_share
    sms = (c.sm_count.value if c.sm_count is not None and c.sm_count.value else 100.0) * share
    return Device(c.architecture, rate * share, (c.memory_bandwidth_gb_s.value or 0) * mem, sms,
                  c.compute_capability.value or 0.0, c.id)


# the attention kernels (efficiency.py attention_kernel): their short word, and how the step times them where that
# is not the kernel's own measured rate; a step's tooltip, report and sheet show word + how
ATTENTION_KERNELS = {"cudnn": ("cuDNN", ""), "flash": ("FlashAttention-2", ""),
                     "efficient": ("memory-efficient", ", every tile, at {ratio:.2f} of FlashAttention-2's rate"),
                     "eager": ("eager", " (s × s matmuls and softmax)")}
_KERNEL_WORDS = tuple(word for word, _ in ATTENTION_KERNELS.values())


def _kernel_words(kernel: str) -> tuple[str, str]:
    """A kernel's word and how it is timed (the memory-efficient kernel at its measured ratio, from the table in
    use)."""
    word, how = ATTENTION_KERNELS[kernel]
    return word, how.format(ratio=efficiency().efficient_attention_ratio)


def attention_kernel_word(name: str | None) -> str | None:
    """The short word ("cuDNN", "eager", ...) of a Compute's ``attention_kernel`` name, "memory-efficient and cuDNN"
    for a model whose layers run two (attention_kernel_label); None without one."""
    if not name:
        return None
    words = (next((w for w in _KERNEL_WORDS if part.startswith(w)), None) for part in name.split("; "))
    known = list(dict.fromkeys(w for w in words if w))
    return " and ".join(known) if known else None


def attention_kernel_parts(name: str) -> tuple[str, str]:
    """A Compute's ``attention_kernel`` name as its short word and how it is timed, if said: "eager (s × s matmuls
    and softmax)" -> ("eager", "s × s matmuls and softmax"); a label of two kernels (attention_kernel_label) keeps
    its whole sentence as the how."""
    word = attention_kernel_word(name) or name
    how = name.removeprefix(word).strip().removeprefix(",").strip()
    if how.startswith("(") and how.endswith(")"):
        how = how[1:-1]
    return word, how


def attention_kernel_label(model: ModelSpec, attention: str, device: Device, seq: int, padded: bool = False) -> str:
    """The attention kernel(s) a step is timed at, in words: one kernel's name and how it is timed, or, where a
    sliding-window model's layers run two (steptime/ops.py attention_groups), each with its layers:
    "memory-efficient, every tile, at 0.48 of FlashAttention-2's rate, on 40 sliding-window layers; cuDNN on 8
    full-attention layers"; ``padded``: the batch's padding mask reaches every layer (Job.padded_batches)."""
    groups = attention_groups(model, attention, device, seq, padded)
    kernels = {k for _, k, _ in groups}
    if len(kernels) == 1:
        return "".join(_kernel_words(kernels.pop()))
    parts = []
    for n, k, sliding in groups[::-1]:
        word, how = _kernel_words(k)
        parts.append(f"{word}{how}{',' if how else ''} on {n} {'sliding-window' if sliding else 'full-attention'} "
                     "layers")
    return "; ".join(parts)


def _tower_notes(model: ModelSpec, job: Job, rows: tuple[OpRow, ...]) -> list[str]:
    """What the step time assumes of a vision-language job's tower (its op class "vision", steptime/vision.py)."""
    tower = next((r for r in rows if r[0] == "vision"), None)
    if tower is None or model.vision is None:
        return []
    patches = vision.encoder_tokens(model, job) * job.micro_batch_size * job.gradient_accumulation_steps
    kind = "" if model.vision.kind == "qwen2_5_vl" else (
        "; its norms and activations at a Llama block's elementwise bytes (ASSUMPTION: LayerNorm and GELU blocks)")
    return [f"the vision tower is timed as its own op class: {tower[2] / 1e12:,.1f} TFLOP and {tower[1]:.2f} s a "
            f"step over {patches:,} patches{kind}"]


def _rl_parts(job: Job, model: ModelSpec, device: Device, policy_seconds: float, achieved_tflops: float, cards: int,
              tp: int, generation_device: Device | None, critic: ModelSpec | None = None) -> RLStep:  # fmt: skip
    """The generation round, the extra forwards and PPO's critic training of an RL job's step (rl_job: as
    written, before training_view); the round on ``generation_device`` (a vLLM server's card) when given; the
    critic on its own checkpoint (``critic``; None: the policy's architecture)."""
    critic_seconds = 0.0
    if rl.keeps_critic(job):
        values = critic or model
        critic_run = rl.critic_job(rl.training_view(job))
        ctb, _ = trained_layout(critic_run)
        # the value model's head is a hidden x 1 score (rl.critic_parameters), not the vocabulary: its step
        # without the policy's logits GEMMs and loss (op class "loss")
        critic_step = job_step(critic_run, values, rl.critic_counts(values, critic_run), ctb, device, cards=cards,
                               tp=tp)  # fmt: skip
        critic_seconds = scaled_class(critic_step, "loss", 0.0).seconds
    return rl_step(model, job, device, policy_seconds, critic_seconds, achieved_tflops, tp,
                   generation_device=generation_device, training_ranks=cards, critic=critic)


@dataclass(frozen=True)
class JobCards:
    """What ``compute`` reads of a job's cards alone (their rates, bandwidth, ridges, recipe and per-op devices):
    a fact of the catalog's cards, their shares and the job's precision, so made once per set of them
    (``job_cards``) and shared by every job on those cards, as the per-model plan is by every job of a model
    (issue 24, "precompute per-model tables")."""

    slowest: float | None  # the slowest known dense BF16 TFLOPS (a MIG instance: its share)
    complete: bool  # every card has a rate
    notes: tuple[str, ...]  # on missing or estimated rates
    estimated: list[str]  # the cards whose (setting) rate is an estimate
    bandwidth: float  # B/s of the slowest card or instance
    recipe: Recipe | None
    ops: dict[str, float]  # ridge (FLOP/byte) per card id at BF16, at the rate the step uses (published or estimate)
    estimated_ops: list[str]  # the card ids of ``ops`` whose ridge uses the catalog's UNCONFIRMED estimate
    recipe_ops: dict[str, float]  # ridge under the recipe's roof
    devices: list[tuple[CardSpec, Device]]
    fp8_tflops: dict[str, float]
    fp4_tflops: dict[str, float]


# flops_per_token needs the model's layers and heads for attention: a parameter count alone gives the dense part
LOWER_BOUND_NOTE = ("The model is given by its parameter count only: its step is timed on the dense FLOPs at the "
                    "utilisation constant, attention left out (its shapes are unknown): a lower bound at that "
                    "utilisation. Name the model's config for the per-op step time.")  # fmt: skip


def job_cards(cards: list[tuple[CardSpec, float]], memory_shares: list[float] | None, estimates: bool,
              precision: str) -> JobCards:  # fmt: skip
    """``JobCards`` for ``cards`` (with their compute shares), memoised on the card specs (by identity) and the
    shares, the estimates choice and the precision (by value)."""
    key = (tuple(s for _, s in cards), tuple(memory_shares) if memory_shares is not None else None, estimates,
           precision)  # fmt: skip
    return CACHE.memo("job-cards", tuple(c for c, _ in cards), key,
                      lambda: _make_job_cards(cards, memory_shares, estimates, precision))  # fmt: skip


def _make_job_cards(cards: list[tuple[CardSpec, float]], memory_shares: list[float] | None, estimates: bool,
                    precision: str) -> JobCards:  # fmt: skip
    slowest, complete, notes, estimated = _rates(cards, estimates)
    mem_shares = memory_shares if memory_shares is not None else [share for _, share in cards]
    pairs = zip(cards, mem_shares, strict=False)
    bandwidth = min((c.memory_bandwidth_gb_s.value or 0) * m for (c, _), m in pairs) * 1e9 if cards else 0
    recipe = recipe_of(precision, job_capability([c for c, _ in cards]))
    # the ridge at the rate the step is timed with (bf16_rate: published, or with ``estimates`` the catalog's
    # estimate, as card_device gives the per-op model), so every op the step times is classed
    ops = {c.id: ridge_intensity(r, bw) for c, _ in cards
           if (r := bf16_rate(c, estimates)) and (bw := c.memory_bandwidth_gb_s.value)}  # fmt: skip
    estimated_ops = sorted({c.id for c, _ in cards if c.id in ops and not c.bf16_dense_tflops.value})
    # the ridge under the recipe's roof: its dense FP8 / FP4 rate at the card's bandwidth
    recipe_ops = {c.id: ridge_intensity(r, bw) for c, _ in cards
                  if recipe and (r := recipe_rate(c, recipe)) and (bw := c.memory_bandwidth_gb_s.value)}  # fmt: skip
    return JobCards(
        slowest=slowest, complete=complete, notes=tuple(notes), estimated=estimated, bandwidth=bandwidth,
        recipe=recipe, ops=ops, estimated_ops=estimated_ops, recipe_ops=recipe_ops,
        devices=_devices(cards, memory_shares, estimates),
        fp8_tflops={c.id: r for c, _ in cards if (r := recipe_rate(c, "fp8-current"))},
        fp4_tflops={c.id: r for c, _ in cards if (r := recipe_rate(c, "nvfp4"))},
    )  # fmt: skip


def compute(
    job: Job,
    model: ModelSpec,
    p: Parameters,
    tb: TrainedBytes,
    cards: list[tuple[CardSpec, float]],  # (card, share of its compute: 1, or a MIG instance's SMs over the card's)
    utilization: float,
    tp: int,
    estimates: bool = False,
    *,
    memory_shares: list[float] | None = None,  # per card: share of its memory bandwidth (MIG: memory slices)
    step_model: str = "per-op",
    generation_cards: list[CardSpec] | None = None,  # RL vllm-server: the cards of its own the engine runs on
    critic: ModelSpec | None = None,  # PPO: the critic and reward checkpoint (rl.critic_model; None: the policy's)
) -> Compute:
    """Compute per step: the per-op model (engine/time/steptime/) on the slowest card or instance of the job, or
    with ``step_model="utilization"`` the old single constant (matmul FLOPs at ``utilization`` of the dense peak).
    DPO / GRPO / PPO: the training on the batch as the trainer runs it (engine/memory/rl.py training_view), plus
    the generation round and the extra passes (engine/time/steptime/generation.py)."""
    rl_job, job = job, rl.training_view(job)
    tokens = job.sequence_length * job.micro_batch_size * job.gradient_accumulation_steps
    split = tp if PARALLELISM[job.parallelism].splits_layers else 1
    flops = flops_per_token(job, model, p) * tokens / split
    on = job_cards(cards, memory_shares, estimates, job.precision)
    slowest, complete, estimated, bandwidth, recipe = on.slowest, on.complete, on.estimated, on.bandwidth, on.recipe
    notes = list(on.notes)
    op_rows: tuple[OpRow, ...] = ()
    launch_bound = False
    attention_kernel: str | None = None
    training_s: float | None = None  # RL: the policy's training step (BF16), before the recipe's speed-up
    rl_seconds = 0.0  # RL: generation and the extra passes
    generation_bound: Literal["memory", "compute", "launch"] | None = None
    per_op = step_model == "per-op" and not model.is_params_only and complete and slowest is not None
    if per_op and slowest is not None:
        fp8_base = job.method == "lora" and job.base_weights == "fp8" and recipe is None
        # a vision-language job's tower runs beside the language model (steptime/vision.py: op class "vision")
        steps = [(tower_step(job_step(job, model, p, tb, dev, cards=len(cards), tp=split, fp8_base_dequant=fp8_base),
                             model, job, dev), dev)
                 for _, dev in on.devices]  # fmt: skip
        step, device = max(steps, key=lambda s: s[0].seconds)
        # GRPO makes logits for the completion only (logits_to_keep, rl.logit_fraction): its loss class in proportion
        step = scaled_class(step, "loss", rl.logit_fraction(rl_job))
        # the step's FLOPs and its achieved rate count a vision-language job's tower too (its op class "vision")
        flops += sum(c.flops for c in step.classes if c.name == "vision")
        op_rows = step.rows
        launch_bound = step.launch_bound
        attention = attention_run(model.architecture, job)  # as job_step timed it (Gemma 2, gpt-oss: stack.py)
        padded = passes_padding_mask(job)
        attention_kernel = attention_kernel_label(model, attention, device, job.sequence_length, padded)
        seconds: float | None = step.seconds
        achieved = flops / (slowest * 1e12 * step.seconds) if step.seconds else utilization
        matmul_s: float | None
        memory_s: float | None
        matmul_s, memory_s = step.split
        if rl.is_rl(rl_job) and step.seconds:  # training + generation + the extra passes (time/steptime/generation.py)
            # the recipe's measured whole-step speed-up is of the training step (speed.py MEASUREMENTS): applied to
            # the policy's passes (and so to PPO's further epochs), not to vLLM's bf16 generation
            training_s = step.seconds
            trained = recipe_time(job, cards, flops, utilization, step.seconds).seconds
            gen_devs = _devices([(c, 1.0) for c in generation_cards or []], None, estimates)
            gen_device = min((d for _, d in gen_devs), key=lambda d: d.bandwidth_gb_s) if gen_devs else None
            policy_s = trained if trained is not None else step.seconds
            parts = _rl_parts(rl_job, model, device, policy_s, flops / step.seconds / 1e12, len(cards), split,
                              gen_device, critic)  # fmt: skip
            extra = parts.rows()
            op_rows += extra
            rl_seconds = parts.seconds
            generation_bound = parts.generation.bound if parts.generation is not None else None
            seconds = step.seconds + parts.seconds
            achieved = flops / (slowest * 1e12 * seconds)  # the training's FLOPs over the whole RL step
            matmul_s = (matmul_s or 0.0) + sum(r[1] for r in extra if r[4] == "compute")
            memory_s = (memory_s or 0.0) + sum(r[1] for r in extra if r[4] == "memory")
    else:
        if rl.is_rl(rl_job):
            notes.append("The RL generation round and extra passes are timed by the per-op model only: this step "
                         "time is the training's alone.")  # fmt: skip
        memory_s = _memory_bound_bytes(job, p, tb, split, recipe) / bandwidth if bandwidth else None
        matmul_s = flops / (slowest * 1e12 * utilization) if slowest and complete else None
        seconds = matmul_s + memory_s if matmul_s is not None and memory_s is not None else None
        achieved = utilization
    low = recipe_time(job, cards, flops, utilization, seconds)  # measured whole-step speed-up, or unknown
    seconds = low.seconds
    if training_s is not None:  # RL: the recipe on the training step, then the RL parts added
        low = recipe_time(job, cards, flops, utilization, training_s)
        seconds = low.seconds + rl_seconds if low.seconds is not None else None
    notes += low.notes
    notes += _tower_notes(model, job, op_rows)
    if model.is_params_only and seconds is not None:
        notes.append(LOWER_BOUND_NOTE)
    return Compute.of(
        op_rows,
        tokens_per_step=tokens, flops_per_step=flops, matmul_seconds=matmul_s,
        memory_bound_seconds=memory_s, seconds_per_step=seconds, utilization=achieved, bf16_tflops=slowest,
        bf16_rate_estimated=bool(estimated), card_ops_per_byte=on.ops, estimated_ridge_cards=on.estimated_ops,
        matmuls=_matmuls(job, model, p, tb, on.ops, on.recipe_ops),
        notes=notes, recipe=recipe, recipe_tflops=low.recipe_tflops,
        recipe_peak_matmul_seconds=low.peak_matmul_seconds, speedup=low.speedup, speedup_source=low.speedup_source,
        card_fp8_tflops=on.fp8_tflops, card_fp4_tflops=on.fp4_tflops,
        memory_bandwidth_gb_s=bandwidth / 1e9 if bandwidth else None,
        training_seconds=low.seconds if training_s is not None else None, generation_bound=generation_bound,
        step_model="per-op" if per_op else "utilization", launch_bound=launch_bound,
        estimated_cards=estimated, attention_kernel=attention_kernel,
        lower_bound=model.is_params_only and seconds is not None,
    )  # fmt: skip
