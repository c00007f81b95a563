"""From a build's job to the tracer's request (:class:`~configurator.trace.protocol.TraceRequest`).

The model becomes a Hugging Face ``config.json`` dict: a job that names a config.json passes that file's dict
as it is (so any family Transformers can build is traceable, modelled by the engine or not); a catalog model is
written back from its normalised fields (:func:`config_from_spec`, which the catalog's own reader reads back to
the same model: ``tests/trace/test_request.py``). The run's settings come from the job and its training stack
(``engine/model/stack.py``), the card architecture from the cards the job runs on.

A job the tracer cannot express (DeepSpeed, DDP, tensor parallel, FSDP1, offload, FP8 and FP4 recipes,
frameworks with their own model code, fused or chunked losses) is refused with :class:`TraceRefused`, whose
message names why, before any process starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from configurator.catalog.errors import FileError, Problem, shorten
from configurator.catalog.hf_config import model_from_hf_config, names_file, read_config_object
from configurator.catalog.loader import Catalog
from configurator.catalog.model_spec import SUPPORTED_MODEL_TYPES, ModelSpec
from configurator.engine.model.build import Build, Job, ParamsOnlyModel
from configurator.engine.model.resolver import ModelResolver
from configurator.engine.model.result import BuildResult
from configurator.engine.model.stack import PROFILES, stack_of
from configurator.engine.time.steptime.step_protocol import checkpointing_kind
from configurator.trace.cache import CachedTrace, TraceCache
from configurator.trace.protocol import ARCHES, ImagesRequest, LoraRequest, Parallel, TraceRequest

# PEFT's LoraConfig.lora_alpha default (peft/src/peft/tuners/lora/config.py): used when the job names none.
# The scale alpha/rank changes no tensor's size; it is passed so the traced run is the run described.
PEFT_DEFAULT_ALPHA = 8.0

# Frameworks whose step is the Transformers model's own forward and loss (engine/model/stack.py PROFILES): the
# tracer runs exactly that. torchtune, torchtitan and LitGPT have their own model code; Answer.AI's loop builds
# its own 4-bit layers under FSDP1.
TRACEABLE_FRAMEWORKS = ("hf-trainer", "axolotl")

# checkpointing_kind (the reentrancy a framework runs by default) is the engine's step protocol's
# (engine/time/steptime/step_protocol.py): the tracer, the burn-in kit's measure.py and the device kit run the same.


class TraceRefused(ValueError):
    """The job cannot be traced; the message says why and, where there is one, what would trace."""


@dataclass(frozen=True)
class PreparedTrace:
    """A job's request, and what the product says beside the traced figure."""

    job: str
    request: TraceRequest
    model_label: str
    analytic: bool  # the engine models this family (its estimate stands beside the trace)
    analytic_reason: str | None = None  # why the engine cannot size the config, when it cannot
    notes: list[str] = field(default_factory=list)


# ---- the model as a config.json ------------------------------------------------------------------------


VISION_LANGUAGE_TYPES = ("gemma3_text", "mllama_text_model", "qwen2_5_vl")
TRACED_VISION = ("qwen2_5_vl", "siglip")  # towers the worker builds and feeds (configurator/trace/worker/vision.py)
# the config classes with attn_logit_softcapping (Gemma2Config, Gemma3TextConfig; catalog/hf_config.py reads it)
SOFTCAP_TYPES = ("gemma2", "gemma3_text")


def config_from_spec(spec: ModelSpec) -> dict[str, Any]:
    """A catalog model as the config.json fields it was read from (verbatim Hugging Face names).

    Keys the catalog does not hold (rope_theta, max_position_embeddings, final logit soft-capping ...) are left
    out, so Transformers' defaults for the model type apply; none of them sizes a tensor except where the
    result's notes say so. The attention soft-cap it holds is written, null included: it picks the attention
    the worker runs (eager, no SDPA) and the scores' tanh the trace counts, and a config class's default (Gemma2Config:
    50.0) must not stand in for a model that sets none.
    """
    if spec.is_params_only:
        raise TraceRefused(f"model {spec.name} is given by its parameter count only: there is no architecture to "
                           "trace; name a catalog model or a config.json")  # fmt: skip
    mt = spec.architecture
    v = spec.vision
    if (v is not None and v.kind not in TRACED_VISION) or (v is None and mt in VISION_LANGUAGE_TYPES):
        raise TraceRefused(f"model {spec.name} is a vision-language model whose vision tower and cross-attention "
                           "the tracer does not build yet (it builds Qwen2.5-VL and Gemma 3)")  # fmt: skip
    cfg: dict[str, Any] = {
        "model_type": mt,
        "hidden_size": spec.hidden_size,
        "num_hidden_layers": spec.num_layers,
        "intermediate_size": spec.intermediate_size,
        "num_attention_heads": spec.num_attention_heads,
        "num_key_value_heads": spec.num_key_value_heads,
        "head_dim": spec.head_dim,
        "vocab_size": spec.vocab_size,
        "tie_word_embeddings": spec.tie_word_embeddings,
    }
    if mt in ("llama", "qwen3", "qwen3_moe", "gemma2", "gpt_oss"):
        cfg["attention_bias"] = spec.qkv_bias  # q, k, v and o follow attention_bias (hf_config._layout_fields)
    if mt == "llama":
        cfg["mlp_bias"] = spec.mlp_bias
    if mt in SOFTCAP_TYPES:
        cfg["attn_logit_softcapping"] = spec.attn_logit_softcapping
    if spec.sliding_window is not None:
        cfg["sliding_window"] = spec.sliding_window
        cfg["layer_types"] = ["sliding_attention" if i in spec.sliding_layers else "full_attention"
                              for i in range(spec.num_layers or 0)]  # fmt: skip
        if mt in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
            cfg["use_sliding_window"] = True
    if mt in ("mixtral", "gpt_oss"):
        cfg["num_local_experts"] = spec.num_experts
        cfg["num_experts_per_tok"] = spec.num_experts_per_tok
    if spec.expert_format == "mxfp4":
        cfg["quantization_config"] = {"quant_method": "mxfp4"}
    if mt in ("qwen2_moe", "qwen3_moe"):
        cfg["num_experts"] = spec.num_experts
        cfg["num_experts_per_tok"] = spec.num_experts_per_tok
        cfg["moe_intermediate_size"] = spec.moe_intermediate_size
        cfg["decoder_sparse_step"] = spec.decoder_sparse_step
        cfg["mlp_only_layers"] = list(spec.mlp_only_layers)
    if mt == "qwen2_moe":
        cfg["shared_expert_intermediate_size"] = spec.shared_expert_intermediate_size
    if v is not None and v.kind == "qwen2_5_vl":
        # Qwen2.5-VL: the language model's fields at the top, the tower in vision_config (modeling_qwen2_5_vl.py)
        cfg["vision_config"] = {"depth": v.num_layers, "hidden_size": v.hidden_size,
                                "intermediate_size": v.intermediate_size, "num_heads": v.num_heads,
                                "out_hidden_size": v.out_hidden_size, "patch_size": v.patch_size,
                                "spatial_merge_size": v.spatial_merge_size, "in_chans": v.num_channels,
                                "temporal_patch_size": v.temporal_patch_size, "window_size": v.window_size}  # fmt: skip
        if spec.head_dim == 128:  # the shipped configs' multimodal rotary split of the 64 frequencies
            cfg["rope_scaling"] = {"type": "mrope", "mrope_section": [16, 24, 24]}
    elif v is not None:  # Gemma 3: the language model in text_config, the SigLIP tower in vision_config
        cfg = {"model_type": "gemma3", "mm_tokens_per_image": v.mm_tokens_per_image, "text_config": cfg,
               "vision_config": {"model_type": "siglip_vision_model", "hidden_size": v.hidden_size,
                                 "intermediate_size": v.intermediate_size, "num_hidden_layers": v.num_layers,
                                 "num_attention_heads": v.num_heads, "patch_size": v.patch_size,
                                 "image_size": v.image_size, "vision_use_head": False}}  # fmt: skip
    return cfg


def read_config_json(path: Path) -> dict[str, Any]:
    """A config.json file's dict, as the tracer passes it; FileError when it is not one JSON object."""
    _, config = read_config_object(path)
    if not isinstance(config.get("model_type"), str):
        raise FileError(str(path), [Problem("model_type", "required key is missing (Transformers needs it to "
                                             "pick the model class)")])  # fmt: skip
    return config


def engine_models_family(config: dict[str, Any]) -> bool:
    """Whether the engine's reader models this config's family (its model_type, or a multimodal config's
    text_config): a config of such a family that it refuses is broken, not a family to trace instead."""
    text = config.get("text_config")
    inner = text.get("model_type") if isinstance(text, dict) else None
    return config.get("model_type") in SUPPORTED_MODEL_TYPES or inner in SUPPORTED_MODEL_TYPES


@dataclass(frozen=True)
class ModelSource:
    config: dict[str, Any]
    label: str
    spec: ModelSpec | None  # the engine's model, None when the engine cannot size the family
    reason: str | None  # why the engine cannot, when it cannot
    from_catalog: bool


def model_source(job: Job, resolver: ModelResolver) -> ModelSource:
    """The job's model as a config.json dict, and whether the engine models it (deliverable 5: any config
    Transformers can build is traceable; the engine's reader says which families it sizes)."""
    ref = job.model
    if isinstance(ref, ParamsOnlyModel):
        raise TraceRefused("the job's model is a parameter count only: there is no architecture to trace; name a "
                           "catalog model or a config.json")  # fmt: skip
    if ref in resolver.catalog.models:
        spec = resolver.catalog.models[ref]
        return ModelSource(config_from_spec(spec), spec.name, spec, None, True)
    if not names_file(ref):
        raise TraceRefused(f"unknown model {ref!r}: name a catalog model (configurator catalog models) or a "
                           "config.json path")  # fmt: skip
    path = resolver.path_of(ref)
    config = read_config_json(path)
    label = str(config.get("_name_or_path") or path.parent.name or path.name)
    try:
        spec = model_from_hf_config(config, id="traced", name=label, source=str(path))
    except ValueError as exc:  # ConfigError names the key: "model_type: unsupported model type 'deepseek_v3'; ..."
        return ModelSource(config, label, None, shorten(str(exc), 300), False)
    return ModelSource(config, label, spec, None, False)


# ---- the run's settings --------------------------------------------------------------------------------


def engine_estimate_gb(result: BuildResult, job_name: str) -> float | None:
    """The engine's allocated peak a trace of ``job_name`` is compared with: its first card's (the job's cards share
    one architecture, arch_of, and a trace is one rank's), or None when the job has no sized card."""
    jr = result.job(job_name)
    return jr.cards[0].peak_allocated_gb if jr is not None and jr.cards else None


def arch_of(build: Build, job: Job, catalog: Catalog) -> str:
    """The SM architecture of the cards the job runs on: 'sm90' for compute capability 9.0."""
    archs: dict[str, str] = {}
    for slot, _ in job.card_keys:
        placement = build.card_in(slot)
        card = catalog.cards.get(placement.card) if placement else None
        if card is None:
            continue
        cap = card.capability
        if cap is None:
            raise TraceRefused(f"{card.name} has no published compute capability: give the architecture "
                               "(--arch sm90)")  # fmt: skip
        arch = f"sm{cap[0]}{cap[1]}"
        if arch not in ARCHES:
            raise TraceRefused(f"{card.name} is compute capability {cap[0]}.{cap[1]}; the tracer knows the kernels "
                               f"of {', '.join(ARCHES)}")  # fmt: skip
        archs[arch] = card.name
    if not archs:
        raise TraceRefused("the job runs on no card: assign it to a card first (the card's architecture picks the "
                           "attention kernel), or give one (--arch sm90)")  # fmt: skip
    if len(archs) > 1:
        raise TraceRefused(f"the job runs on cards of different architectures ({', '.join(sorted(archs))}); "
                           "a trace is of one kind of card")  # fmt: skip
    return next(iter(archs))


def _refusal(job: Job) -> str | None:
    """Why the tracer cannot run this job's step, or None."""
    stack = stack_of(job)
    if job.framework not in TRACEABLE_FRAMEWORKS:
        return (f"the tracer runs the Transformers model with PEFT; {PROFILES[job.framework].label} runs its own "
                "model code, which a trace of Transformers would not measure")  # fmt: skip
    if job.parallelism.startswith("zero"):
        return f"DeepSpeed ZeRO-{job.parallelism[-1]} is not traced (the tracer runs one card or FSDP2)"
    if job.objective != "sft":
        return (f"{job.objective.upper()} is not traced: the tracer runs one supervised step (no reference model, "
                "no generation engine)")  # fmt: skip
    if job.parallelism in ("ddp", "tp", "ep"):
        kind = {"ddp": "DDP", "tp": "tensor parallelism", "ep": "expert parallelism"}[job.parallelism]
        return f"{kind} is not traced (the tracer runs one card or FSDP2)"
    if job.parallelism == "fsdp" and job.fsdp_version != 2:
        return "FSDP1 (flat parameters) is not traced; FSDP2 (fully_shard) is"
    if stack.offload != "none":
        return f"offload to {stack.offload} is not traced (the trace counts what stays on the card without it)"
    if job.precision not in ("mixed-bf16", "pure-bf16"):
        return (
            f"the {job.precision} recipe (Transformer Engine low precision) is not traced; mixed-bf16 and pure-bf16 are"
        )
    if job.method == "lora" and job.base_weights != "bf16":
        return f"LoRA on an {job.base_weights.upper()} base is not traced"
    if job.optimizer not in ("adamw", "adamw-8bit"):
        return f"the {job.optimizer} optimizer is not traced; AdamW (foreach or fused) and 8-bit AdamW are"
    if stack.optimizer_impl not in ("fused", "foreach"):
        return f"the {stack.optimizer_impl} AdamW implementation is not traced; fused and foreach are"
    if stack.loss != "standard":
        return (f"the {stack.loss} loss path is not traced: the tracer runs the model's own loss "
                "(Transformers' cross-entropy), not a fused or chunked replacement")  # fmt: skip
    if job.gradient_checkpointing and stack.checkpointing != "full":
        return "activation offloading (checkpointed inputs on the host) is not traced"
    return None


def _lora(job: Job, spec: ModelSpec | None, notes: list[str]) -> LoraRequest | None:
    if job.method == "full":
        return None
    lora = job.lora
    targets: str | list[str]
    if isinstance(lora.targets, list):
        targets = list(lora.targets)
    elif lora.targets == "all-linear":
        if spec is not None and spec.is_moe:
            # The engine's all-linear leaves the router out; PEFT's would wrap it (and, on Transformers 5, the
            # 3-D expert weights): the same modules are named here so the trace adapts what the estimate counts.
            targets = sorted({m.short_name for m in spec.lora_modules("all-linear")})
            notes.append(f"all-linear on a mixture of experts named as {', '.join(targets)} (the router is left "
                         "out, as the engine counts it)")  # fmt: skip
        else:
            targets = "all-linear"
    elif spec is not None:
        try:
            targets = [m.short_name for m in spec.lora_modules(lora.targets)]
        except ValueError as exc:
            raise TraceRefused(str(exc)) from None
    else:  # a family the engine does not model: the usual projection names
        targets = ["q_proj", "k_proj", "v_proj", "o_proj"] if lora.targets == "attention" else ["q_proj", "v_proj"]
        notes.append(f"LoRA targets '{lora.targets}' taken as {', '.join(targets)} (this family's module names "
                     "are not known to the engine)")  # fmt: skip
    alpha = lora.alpha if lora.alpha is not None else PEFT_DEFAULT_ALPHA
    return LoraRequest(rank=lora.rank, alpha=alpha, dropout=lora.dropout, targets=targets)


def _images(job: Job, spec: ModelSpec | None, notes: list[str]) -> ImagesRequest | None:
    """A vision-language job's images as the worker feeds them (square, the job's resolution a side)."""
    if not job.images_per_sample:
        return None
    if spec is None or spec.vision is None:
        notes.append("the job's images are left out: its model has no vision tower")
        return None
    side = job.image_resolution
    return ImagesRequest(per_sample=job.images_per_sample, width=side, height=side,
                         train_vision_tower=job.train_vision_tower)  # fmt: skip


def prepare_trace(
    build: Build,
    job: Job | str,
    catalog: Catalog,
    *,
    base_dir: Path | None = None,
    resolver: ModelResolver | None = None,
    arch: str | None = None,
) -> PreparedTrace:
    """The tracer's request for ``job`` (a job of ``build`` or its name); TraceRefused says why it cannot be
    traced, FileError when the job's config.json cannot be read."""
    if isinstance(job, str):
        index = build.job_index(job)
        if index is None:
            names = ", ".join(repr(j.name) for j in build.jobs) or "none"
            raise TraceRefused(f"no job called {job!r} in this build (its jobs: {names})")
        job = build.jobs[index]
    resolver = resolver or ModelResolver(catalog, base_dir)
    reason = _refusal(job)
    if reason:
        raise TraceRefused(f"cannot trace '{job.name}': {reason}")
    source = model_source(job, resolver)
    notes: list[str] = []
    if source.from_catalog:
        notes.append("config.json written from the catalog's fields; keys it does not hold take Transformers' "
                     f"defaults for {source.config['model_type']}")  # fmt: skip
    if job.method == "qlora" and job.quantization == "nf4":
        notes.append("the job asks NF4 without double quantization; the tracer quantizes as its NF4 default")
    if job.activation_memory_gb is not None:
        notes.append("the job's fixed activation budget is not used: the trace counts the activations")
    if arch is not None:
        if arch not in ARCHES:
            raise TraceRefused(f"unknown architecture {arch!r}; give one of {', '.join(ARCHES)}")
        chosen = arch
    else:
        chosen = arch_of(build, job, catalog)
    stack = stack_of(job)
    parallel = Parallel()
    if job.parallelism == "fsdp":
        world = len(job.cards)
        if world < 1:
            raise TraceRefused(f"cannot trace '{job.name}': an FSDP2 job needs its cards assigned (the world size)")
        parallel = Parallel(kind="fsdp2", world_size=world)
    attention = {"sdpa": "auto", "flash": "flash_attention_2", "eager": "eager"}[job.attention]
    request = TraceRequest(
        config=source.config,
        method=job.method,
        lora=_lora(job, source.spec, notes),
        precision="mixed-bf16" if job.precision == "mixed-bf16" else "bf16",
        optimizer=job.optimizer,  # checked by _refusal
        optimizer_impl=stack.optimizer_impl,
        sequence_length=job.sequence_length,
        micro_batch_size=job.micro_batch_size,
        gradient_checkpointing=job.gradient_checkpointing,
        checkpointing_kind=checkpointing_kind(job),
        attention=attention,
        arch=chosen,
        steps=2,
        parallel=parallel,
        # what the engine's estimate assumes of the stack (memory.py fp32_head): TRL's recast of the head
        kbit_head_bf16=(job.method == "qlora" and stack.kbit_fp32_prep and PROFILES[job.framework].prep_head_bf16
                        and job.precision != "pure-bf16"),
        images=_images(job, source.spec, notes),
    )
    return PreparedTrace(job.name, request, source.label, source.spec is not None, source.reason, notes)


def untraceable_by_engine(
    build: Build, catalog: Catalog, *, base_dir: Path | None = None, resolver: ModelResolver | None = None
) -> list[tuple[str, str]]:
    """(job name, sentence) for each job whose config.json Transformers could build but the engine cannot size:
    the trace is the way to size them (deliverable 5)."""
    resolver = resolver or ModelResolver(catalog, base_dir)
    out: list[tuple[str, str]] = []
    for job in build.jobs:
        if isinstance(job.model, ParamsOnlyModel) or job.model in catalog.models:
            continue
        try:
            source = model_source(job, resolver)
        except (TraceRefused, FileError, OSError):
            continue  # unreadable: the engine's own check says why
        if source.spec is None and not engine_models_family(source.config):
            out.append((job.name, f"job '{job.name}': the engine cannot size this config ({source.reason});"))
    return out


def cached_traces(build: Build, catalog: Catalog, *, base_dir: Path | None = None, cache: TraceCache | None = None,
                  resolver: ModelResolver | None = None) -> dict[str, tuple[PreparedTrace, CachedTrace]]:  # fmt: skip
    """Each job's newest cached trace (by job name), read from the cache only: nothing is traced here (the
    sheet marks the figures it finds so, with their versions)."""
    cache = cache or TraceCache()
    resolver = resolver or ModelResolver(catalog, base_dir)
    out: dict[str, tuple[PreparedTrace, CachedTrace]] = {}
    for job in build.jobs:
        try:
            prepared = prepare_trace(build, job, catalog, resolver=resolver)
        except (TraceRefused, FileError, OSError):
            continue
        hit = cache.latest(prepared.request)
        if hit is not None:
            out[job.name] = (prepared, hit)
    return out
