"""The checks on one job's settings against its cards: which card references it can use, its parallel shape,
the settings its model or cards cannot honour, memory notes and PCIe warnings. Each returns (or appends) checks
in the order ``evaluate_job`` shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.catalog.cards import CardSpec
from configurator.catalog.models import ModelSpec
from configurator.engine.memory import moe
from configurator.engine.memory.breakdown import MemoryBreakdown
from configurator.engine.memory.estimate import effective_offload
from configurator.engine.mig.layout import LayoutCheck
from configurator.engine.model.build import Job
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.result import CardMemory, Check
from configurator.engine.model.stack import (
    NO_FLASH_TRAINING,
    NO_SDPA,
    TRANSFORMERS_STACKS,
    attention_run,
    passes_padding_mask,
)
from configurator.engine.time.steptime.efficiency import efficiency

Key = tuple[int, int | None]  # (slot, MIG instance or None for the whole card)


@dataclass(frozen=True)
class Shape:
    """What the job's cards make of it: the cards it may run on, how many, MIG or not, its TP degree."""

    keys: list[Key]
    on_mig: bool
    tp: int

    @property
    def n(self) -> int:
        return len(self.keys)

    @property
    def multi(self) -> bool:
        """Several whole cards: the only case with links between them."""
        return self.n > 1 and not self.on_mig

    @property
    def slots(self) -> list[int]:
        return [s for s, _ in self.keys]


def key_problem(job: Job, earlier: list[Key], key: Key, cards: dict[int, CardSpec], layouts: dict[int, LayoutCheck],
                job_card_ids: dict[int, str] | None = None) -> Check | None:  # fmt: skip
    """Why one of the job's card references (after ``earlier`` ones) cannot be used (repeated, empty slot, a card the
    catalog lacks (``job_card_ids``: the build's card id per slot), unknown MIG instance), or None."""
    job_card_ids = job_card_ids or {}
    name = job.name
    slot, instance = key
    if key in earlier:
        where = f"slot {slot}" + (f" instance {instance}" if instance is not None else "")
        return Check(severity="error", code="JOB_CARD_REPEATED", slot=slot, job=name, message=(
            f"Job '{name}' names {where} more than once: list each card once."))  # fmt: skip
    if slot not in cards and (unknown := job_card_ids.get(slot)) is not None:
        # a card the catalog does not know (CARD_UNKNOWN names it too): "holds no card" sent the user to an
        # occupied slot
        return Check(severity="error", code="JOB_CARD_UNKNOWN", slot=slot, job=name, message=(
            f"Job '{name}' names slot {slot}, whose card '{unknown}' is not in the catalog: the job is sized once "
            "the card is fixed or replaced."))  # fmt: skip
    if slot not in cards:
        return Check(
            severity="error",
            code="JOB_SLOT_EMPTY",
            slot=slot,
            job=name,
            message=(
                f"Job '{name}' names slot {slot}, which holds no card: place a card there or give the "
                "job an occupied slot."
            ),
        )
    layout = layouts.get(slot)
    if instance is not None:
        if layout is None:
            return Check(
                severity="error",
                code="MIG_INSTANCE_UNKNOWN",
                slot=slot,
                job=name,
                message=(
                    f"Job '{name}' names MIG instance {instance} of slot {slot}, which has no MIG layout: "
                    "add a layout to that card, or name the slot alone for the whole card."
                ),
            )
        if instance not in {i.index for i in layout.instances}:
            return Check(severity="error", code="MIG_INSTANCE_UNKNOWN", slot=slot, job=name, message=(
                f"Job '{name}' names MIG instance {instance} of slot {slot}; that layout has instances "
                f"{[i.index for i in layout.instances]}."))  # fmt: skip
    elif layout is not None:
        return Check(severity="error", code="MIG_CARD_WHOLE_JOB", slot=slot, job=name, message=(
            f"Slot {slot} is split into MIG instances; job '{name}' must name one "
            f"({{slot: {slot}, instance: N}}) or the layout must go."))  # fmt: skip
    return None


def valid_keys(job: Job, cards: dict[int, CardSpec], layouts: dict[int, LayoutCheck],
               placed: dict[int, str] | None = None) -> tuple[list[Key], list[Check]]:  # fmt: skip
    """The job's card references that name a card (or MIG instance) it can run on; a check for each other."""
    valid: list[Key] = []
    checks: list[Check] = []
    keys = job.card_keys
    for k, key in enumerate(keys):
        problem = key_problem(job, keys[:k], key, cards, layouts, placed)
        if problem is None:
            valid.append(key)
        else:
            checks.append(problem)
    return valid, checks


def job_shape(job: Job, keys: list[Key]) -> tuple[Shape, list[Check]]:
    """The job's parallel shape on its cards, with a check where the settings disagree with the cards."""
    name = job.name
    checks: list[Check] = []
    n = len(keys)
    on_mig = any(i is not None for _, i in keys)
    if on_mig and n > 1:
        checks.append(Check(severity="error", code="MIG_MULTI_CARD_JOB", job=name, message=(
            f"Job '{name}' spans {n} MIG instances: NCCL is not supported with MIG (NVIDIA MIG user guide), "
            "so an instance runs a single-GPU job. Give the job whole cards, or one instance.")))  # fmt: skip
    parallelism = job.parallelism
    strategy = PARALLELISM[parallelism]
    if not strategy.multi_card and n > 1:
        checks.append(
            Check(
                severity="error",
                code="JOB_PARALLELISM",
                job=name,
                message=(f"Job '{name}' is set to a single card but names {n}: choose DDP, FSDP or tensor parallel."),
            )
        )
    if strategy.multi_card and n == 1:
        checks.append(
            Check(
                severity="info",
                code="JOB_PARALLELISM",
                job=name,
                message=(f"Job '{name}' is set to {parallelism} on one card: it runs as a single-card job."),
            )
        )
    if not strategy.splits_layers and job.tensor_parallel > 1:  # was ignored without a word
        checks.append(
            Check(
                severity="warning",
                code="JOB_TP_DEGREE",
                job=name,
                message=(
                    f"Job '{name}' sets tensor_parallel {job.tensor_parallel} but its parallelism is {parallelism}: "
                    "the degree is not used. Choose tensor parallel, or remove tensor_parallel."
                ),
            )
        )
    tp = (job.tensor_parallel if job.tensor_parallel > 1 else n) if strategy.splits_layers else 1
    if strategy.splits_layers and tp != n:
        checks.append(
            Check(
                severity="error",
                code="JOB_TP_DEGREE",
                job=name,
                message=(
                    f"Job '{name}' has tensor_parallel {tp} on {n} cards: the degree must equal the number of cards."
                ),
            )
        )
        tp = n
    return Shape(keys=keys, on_mig=on_mig, tp=tp), checks


def setting_checks(job: Job, model: ModelSpec, shape: Shape) -> list[Check]:
    """Settings the job's model or cards cannot honour: activations with no architecture, an ignored offload."""
    name = job.name
    checks: list[Check] = []
    if model.is_params_only and job.activation_memory_gb is None:
        checks.append(Check(severity="warning", code="JOB_NO_ACTIVATION_MODEL", job=name, message=(
            f"Job '{name}': {model.name} has no architecture, so activations cannot be derived; set "
            "activation_memory_gb (e.g. 15 GB) or import its config.json.")))  # fmt: skip
    if job.offload != "none" and effective_offload(job) == "none":
        has = ("FSDP (CPU) and DeepSpeed ZeRO-1/2/3 (CPU; NVMe only with ZeRO-3; the optimizer alone only with "
               "DeepSpeed: FSDP's CPU offload moves the parameters too)"
               if job.offload in ("nvme", "cpu-optimizer") or shape.n > 1
               else "a sharding engine, and this job runs on one card")  # fmt: skip
        checks.append(Check(severity="warning", code="JOB_OFFLOAD_IGNORED", job=name, message=(
            f"Job '{name}' asks for {job.offload} offload with {job.parallelism}: offload exists in {has}. The job "
            "is sized without offload; choose zero3 for NVMe, or fsdp / zero1-3 for CPU offload.")))  # fmt: skip
    checks += _moe_checks(job, model, shape)
    checks += _image_checks(job, model)
    checks += _attention_checks(job, model)
    return checks


# why a family's Transformers class has no SDPA path (engine/model/stack.py NO_SDPA)
_NO_SDPA_WHY = {"gemma2": "attention logit soft-capping", "gpt_oss": "attention sinks"}

# what a family can train with instead of eager attention (a fused kernel, where one takes its attention)
_FUSED_ADVICE = {
    # flash-attn >= 2.6 flash_attn_func takes softcap, forward and backward (flash_bwd_launch_template.h:
    # SOFTCAP_SWITCH, the dq/dk/dv kernel's Is_softcap); transformers 5.24 integrations/flash_attention.py passes
    # the module's softcap (Gemma2Attention: attn_logit_softcapping)
    "gemma2": "Choose FlashAttention for a fused kernel: FlashAttention-2 applies the soft-cap itself.",
    # transformers 5.24 swaps flash_attention_2 for the hub kernel kernels-community/vllm-flash-attn3
    # (GptOssPreTrainedModel._compatible_flash_implementations); its sinks are forward-only
    # (nvidia-cosmos/cosmos-rl#219, citing the kernel's hub discussion 3); FlashAttention-2 has no sinks at all
    # (Dao-AILab/flash-attention#1797)
    "gpt_oss": ("Keep eager attention to train it: Transformers swaps a FlashAttention-2 request for a kernel whose "
                "sinks are forward-only; a shorter sequence or micro-batch shrinks the s × s scores."),
}

# why FlashAttention asked of a NO_FLASH_TRAINING family cannot train it (the check's detail)
_NO_FLASH_DETAIL = (
    "transformers 5.24 modeling_utils.py _check_and_adjust_attn_implementation: a flash request outside "
    "GptOssPreTrainedModel._compatible_flash_implementations falls back to its first CUDA entry, "
    "kernels-community/vllm-flash-attn3; its backward does not support the sinks (nvidia-cosmos/cosmos-rl#219) and "
    "its sinks need Hopper (huggingface/kernels-community#313). FlashAttention-2 has no learnable sinks "
    "(Dao-AILab/flash-attention#1797); only FlashAttention-4's CuTe kernels gained a sink backward, on SM90 and "
    "SM100 (Dao-AILab/flash-attention#2706), which a flash job here does not name. transformers#42736 first "
    "blocked flash_attention_2/3 for gpt-oss after silent garbage output."
)


def _attention_checks(job: Job, model: ModelSpec) -> list[Check]:
    """SDPA asked of a model whose Transformers class runs eager instead (stack.py attention_run): the job is sized
    and timed as eager attention, and the check says so with what the family can train with instead. FlashAttention
    asked of gpt-oss on a Transformers stack: the kernel Transformers loads instead cannot train its sinks."""
    if model.is_params_only:
        return []
    if job.attention == "flash" and model.architecture in NO_FLASH_TRAINING and job.framework in TRANSFORMERS_STACKS:
        return [Check(severity="warning", code="JOB_ATTENTION_NO_BACKWARD", job=job.name, message=(
            f"Job '{job.name}': FlashAttention cannot train {model.name}: Transformers swaps flash_attention_2 for "
            "the vLLM FlashAttention-3 kernel from the Hub, whose attention sinks are forward-only (and Hopper-only). "
            "The job is sized and timed as FlashAttention-2 regardless. Choose eager attention."),
            detail=_NO_FLASH_DETAIL)]  # fmt: skip
    if attention_run(model.architecture, job) == job.attention:
        return _padded_checks(job)
    why = _NO_SDPA_WHY.get(model.architecture, "its attention")
    advice = _FUSED_ADVICE.get(model.architecture, "Choose FlashAttention for a fused kernel.")
    return [Check(severity="info", code="JOB_ATTENTION_EAGER", job=job.name, message=(
        f"Job '{job.name}': {model.name} runs eager attention, not SDPA: Transformers has no SDPA path for its "
        f"{why}, so the job is sized and timed with eager attention (s × s scores in memory). {advice}"), detail=(
        f"transformers 5.24 {NO_SDPA[model.architecture]}._supports_sdpa is False: an unset attn_implementation "
        "falls back from sdpa to eager (modeling_utils.py get_correct_attn_implementation); an explicit "
        "attn_implementation='sdpa' raises."))]  # fmt: skip


def _padded_checks(job: Job) -> list[Check]:
    """Padded batches under SDPA (Job.padded_batches): the mask takes SDPA off its fused causal kernel to the
    memory-efficient one over every tile (steptime/ops.py attention_groups), which the step time includes; the check
    says what it costs and how to keep the fused kernel. FlashAttention unpads and eager builds the mask anyway."""
    if not passes_padding_mask(job) or job.attention != "sdpa":
        return []  # FlashAttention unpads, eager builds the mask anyway, other stacks pass no padding mask
    ratio = efficiency().efficient_attention_ratio
    return [Check(severity="info", code="JOB_ATTENTION_PADDED", job=job.name, message=(
        f"Job '{job.name}' pads its batches: the padding mask takes SDPA to its memory-efficient kernel, which "
        f"computes every tile of the attention at about {ratio:.2f} of FlashAttention-2's rate, about "
        f"{2 / ratio:.0f}× FlashAttention-2's time for causal attention; the step time includes it. Pack the "
        "sequences (a padding-free collator) or choose FlashAttention to keep a fused kernel."), detail=(
        "transformers masking_utils.py _ignore_causal_mask_sdpa drops the mask (is_causal) only for a padding mask "
        "of all ones; with one, sdpa_attention_forward passes attn_mask and is_causal=False, which rules out "
        "SDPA's flash kernel; the memory-efficient kernel visits every key block for an additive bias "
        "(ATen mem_eff_attention kernel_forward.h advance_to_block). Rate: efficiency.yaml "
        "efficient_attention_ratio (FlashAttention-2 paper, Figure 4). UNCONFIRMED on H100, H200 and B200: a "
        "PyTorch that prefers cuDNN there (2.13 and later, cuDNN 9.15.1 and later) may run the masked call on cuDNN, "
        "which takes a bias too (sdp_utils.cpp can_use_cudnn_attention checks the mask's shape only), faster than "
        "timed here; the engine times it as the tracer routes it (trace/worker/emulation.py)."))]  # fmt: skip


def _image_checks(job: Job, model: ModelSpec) -> list[Check]:
    """Images on a model without a vision tower; what the engine does not size of a VLM (engine/vision.py)."""
    name, checks = job.name, []
    if job.images_per_sample and model.vision is None and not model.is_params_only:
        checks.append(Check(severity="warning", code="JOB_IMAGES", job=name, message=(
            f"Job '{name}': {job.images_per_sample} image(s) per sample, but {model.name} has no vision tower; the "
            "job is sized as text only. Choose a vision-language model (Qwen2.5-VL, Gemma 3, Llama 3.2 Vision) "
            "or set images per sample to 0.")))  # fmt: skip
    elif job.images_per_sample and model.vision is not None and model.vision.kind == "mllama":
        checks.append(Check(severity="info", code="JOB_IMAGES", job=name, message=(
            f"Job '{name}': {model.name}'s text cross-attends to the image tiles; the keys and values its "
            "cross-attention layers make of them are not counted (its tower and tiles are). Keep a few GB of "
            "headroom, or trace the job.")))  # fmt: skip
    return checks


def _moe_checks(job: Job, model: ModelSpec, shape: Shape) -> list[Check]:
    """Expert parallelism without experts to split or with experts that do not divide over the cards; an MXFP4
    base on a model that does not ship its experts so (engine/memory/moe.py)."""
    name, checks = job.name, []
    if PARALLELISM[job.parallelism].shards_experts and shape.n > 1 and not model.is_params_only:
        if not model.is_moe:
            checks.append(Check(severity="warning", code="JOB_EXPERT_PARALLEL", job=name, message=(
                f"Job '{name}': expert parallelism splits the experts of a mixture-of-experts model, and "
                f"{model.name} has none; it is sized as replicas (DDP). Choose fsdp to split a dense model.")))
        elif model.num_experts % shape.n:
            checks.append(Check(severity="warning", code="JOB_EXPERT_PARALLEL", job=name, message=(
                f"Job '{name}': {model.num_experts} experts do not divide over {shape.n} cards; expert-parallel "
                "frameworks need an equal share per card (torchtitan, Megatron-Core). Use a card count that "
                f"divides {model.num_experts}.")))  # fmt: skip
    if moe.stores_mxfp4(model, job) and job.framework in TRANSFORMERS_STACKS:
        # transformers 5.24 quantizers/quantizer_mxfp4.py Mxfp4HfQuantizer.is_trainable returns False, and
        # Trainer.__init__ calls trainer_utils.validate_quantization_for_training, which raises for such a model even
        # with PEFT adapters attached ("... that quantization method do not support training")
        checks.append(Check(severity="error", code="JOB_MXFP4_NOT_TRAINABLE", job=name, message=(
            f"Job '{name}': Transformers' Trainer will not train {model.name} with its experts kept in MXFP4: it "
            "stops at start-up ('that quantization method do not support training'). Load the base dequantised, "
            "as OpenAI's fine-tuning recipe does (Mxfp4Config(dequantize=True)): set the base weights to BF16, "
            "which the engine then sizes."), detail=(
            "transformers 5.24 quantizer_mxfp4.py Mxfp4HfQuantizer.is_trainable is False; trainer_utils.py "
            "validate_quantization_for_training raises for a quantised model whose method cannot train, adapters "
            "or not.")))  # fmt: skip
    if job.base_weights == "mxfp4" and job.method == "lora" and model.expert_format != "mxfp4":
        checks.append(Check(severity="info", code="PRECISION_NOTE", job=name, message=(
            f"Job '{name}': base_weights mxfp4 keeps experts that ship in MXFP4 (gpt-oss); {model.name} ships "
            "none, so its base is sized in BF16.")))  # fmt: skip
    return checks


def memory_notes(job: Job, mem: MemoryBreakdown, rows: list[CardMemory], shape: Shape,
                  cards: dict[int, CardSpec]) -> list[Check]:  # fmt: skip
    """What sets the peak when the FSDP set-up pool does, and a note when the job mixes card kinds."""
    name = job.name
    checks: list[Check] = []
    if mem.setup_bound and rows:
        checks.append(Check(severity="info", code="FSDP_SETUP_FLOOR", job=name, message=(
            f"Job '{name}': memory left over from loading and sharding the model "
            f"({rows[0].fsdp_setup_pool_gb:.1f} GB per card) sets this job's peak, so a shorter sequence or "
            "a smaller batch will not lower it."), detail=(
            "FSDP set-up copies each unit into a flat parameter before sharding; the caching allocator keeps that "
            "pool. Calling torch.cuda.empty_cache() after wrapping the model releases what it holds beyond the "
            "sharded weights.")))  # fmt: skip
    if len({cards[s].id for s in shape.slots}) > 1:
        checks.append(
            Check(
                severity="info",
                code="JOB_MIXED_CARDS",
                job=name,
                message=(
                    f"Job '{name}' runs on different cards: it is bound by the smallest card and the slowest link."
                ),
            )
        )
    return checks


def pcie_checks(job: Job, over_pcie: bool) -> list[Check]:
    """Tensor parallel over PCIe, and the system settings card-to-card PCIe traffic needs."""
    if not over_pcie:
        return []
    name = job.name
    checks: list[Check] = []
    if PARALLELISM[job.parallelism].splits_layers:
        checks.append(
            Check(
                severity="warning",
                code="TP_OVER_PCIE",
                job=name,
                message=(
                    f"Job '{name}' runs tensor parallel over PCIe: two all-reduces per layer sit on the critical "
                    "path (PCIe Gen5 x16 moves 64 GB/s per direction, NVLink 450 GB/s: 7× slower). Prefer FSDP, or "
                    "NVLink-bridged cards."
                ),
            )
        )
    checks.append(Check(severity="info", code="PCIE_P2P", job=name, message=(
        f"Job '{name}' sends data card to card over PCIe: two system settings decide whether that runs at full "
        "speed; check them before blaming the cards."), detail=(
        "PCIe peer-to-peer needs the IOMMU off (or in passthrough) and ACS disabled on PCIe switches "
        "(NCCL documentation, troubleshooting).")))  # fmt: skip
    return checks

