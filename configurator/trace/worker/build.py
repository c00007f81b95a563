"""The job built as a Hugging Face run builds it, on meta tensors, and the pieces of a Trainer step."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.utils._foreach_utils as fu
import transformers.masking_utils as mu
from torch import nn
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
from torch.overrides import _get_current_function_mode_stack
from transformers import AttentionInterface, AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText
from transformers.masking_utils import AttentionMaskInterface, flash_attention_mask

from configurator.trace.worker.counter import Context
from configurator.trace.worker.emulation import AUTO_KERNEL, KERNEL_OP, AttentionRoute, RunMode
from configurator.trace.worker.request import Job, RequestError
from configurator.trace.worker.vision import lora_target_names, tower_prefixes

_PATCHED = False


def patch_libraries() -> None:
    """The small patches meta tensors need with current releases (tracing.md, "Small patches")."""
    global _PATCHED
    if _PATCHED:
        return

    # fused AdamW and the foreach paths check the device type; their meta kernels exist
    fused = fu._get_fused_kernels_supported_devices
    foreach = fu._get_foreach_kernels_supported_devices
    fu._get_fused_kernels_supported_devices = lambda: [*fused(), "meta"]  # type: ignore[assignment]
    fu._get_foreach_kernels_supported_devices = lambda: [*foreach(), "meta"]  # type: ignore[assignment]
    for modname in ("torch.optim.optimizer", "torch.optim.adamw", "torch.optim.adam", "torch.nn.utils.clip_grad"):
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        for name, repl in (("_get_fused_kernels_supported_devices", fu._get_fused_kernels_supported_devices),
                           ("_get_foreach_kernels_supported_devices", fu._get_foreach_kernels_supported_devices)):
            if hasattr(mod, name):
                setattr(mod, name, repl)
    # transformers masking_utils.find_packed_sequence_indices inspects position_ids' values: not packed
    mu.find_packed_sequence_indices = lambda position_ids: None  # type: ignore[assignment]
    _PATCHED = True


@dataclass
class Built:
    model: Any
    route: AttentionRoute | None
    implementation: str
    notes_after: list[str] = field(default_factory=list)

    def attention_kernel(self) -> str:
        if self.implementation == "eager":
            return "eager (matmul + softmax in transformers)"
        if self.route is None:
            return self.implementation
        used = sorted(self.route.used) or [KERNEL_OP[self.route.kernel]]
        label = ", ".join(used)
        return f"flash_attention_2 (traced as {label})" if self.implementation == "trace_fa2" else label


def _config(job: Job) -> Any:
    raw = {k: v for k, v in job.config.items() if not k.startswith("_")}
    model_type = raw.pop("model_type")
    raw.pop("architectures", None)
    raw.pop("auto_map", None)
    raw.pop("quantization_config", None)  # the job's method decides the quantization
    try:
        config = AutoConfig.for_model(model_type, **raw)
    except (ValueError, KeyError) as exc:
        raise RequestError(f"transformers cannot build model_type {model_type!r}: {exc}") from None
    config.use_cache = False  # training: TRL/Trainer recipes turn the KV cache off
    return config


def _attention(job: Job, config: Any, notes: list[str]) -> tuple[str, AttentionRoute | None]:
    """The attention implementation and, for SDPA, the kernel the card would run."""
    softcap = getattr(config, "attn_logit_softcapping", None)
    if job.attention == "eager":
        return "eager", None
    if job.attention == "flash_attention_2":
        _register_fa2()
        return "trace_fa2", AttentionRoute("flash")
    if softcap:
        # transformers 5.24 has no SDPA with a softcap: sdpa_attention_forward raises on one, and Gemma 2's class
        # declares none (modeling_gemma2.py Gemma2PreTrainedModel._supports_sdpa = False), so a load at the default
        # attention falls back to eager (modeling_utils.py get_correct_attn_implementation) and an explicit sdpa
        # raises. The engine sizes and times the same (engine/model/stack.py attention_run)
        notes.append(f"attention logit soft-capping ({softcap}): no SDPA for it in transformers, a run at the default "
                     "attention gets eager (get_correct_attn_implementation); eager attention traced")  # fmt: skip
        return "eager", None
    kernel = {"sdpa-cudnn": "cudnn", "sdpa-flash": "flash", "sdpa-efficient": "efficient"}.get(job.attention)
    if kernel is None:
        kernel = AUTO_KERNEL[job.arch]
        notes.append(f"auto attention on {job.arch}: SDPA's {kernel} kernel (torch sdp_utils priority order), "
                     "memory-efficient where the model passes an explicit mask (sliding window)")  # fmt: skip
    route = AttentionRoute(kernel)
    torch.nn.functional.scaled_dot_product_attention = route  # type: ignore[assignment]
    return "sdpa", route


_FA2_ROUTE = AttentionRoute("flash")


def _register_fa2() -> None:
    """FlashAttention-2 without the flash_attn package: same saved tensors as the flash SDPA kernel (output and
    fp32 logsumexp), causal and sliding windows inside the kernel, so no mask is built (masking_utils
    flash_attention_mask)."""
    def fa2(module: Any, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, attention_mask: Any,
            dropout: float = 0.0, scaling: float | None = None, **kwargs: Any,
            ) -> tuple[torch.Tensor, None]:  # fmt: skip
        _FA2_ROUTE.used.add(KERNEL_OP["flash"])
        out = torch.ops.aten._scaled_dot_product_flash_attention(query, key, value, dropout, True, scale=scaling)[0]
        return out.transpose(1, 2), None

    AttentionInterface.register("trace_fa2", fa2)
    AttentionMaskInterface.register("trace_fa2", flash_attention_mask)


def build_model(job: Job, notes: list[str]) -> Built:
    config = _config(job)
    # a vision-language job builds the whole model (vision tower, projector, language model) as from_pretrained
    # does for it: Qwen2_5_VLForConditionalGeneration, Gemma3ForConditionalGeneration
    vlm = isinstance(job.config.get("vision_config"), dict)
    auto: Any = AutoModelForImageTextToText if vlm else AutoModelForCausalLM
    implementation, route = _attention(job, config, notes)
    if implementation == "trace_fa2":
        route = _FA2_ROUTE
        _FA2_ROUTE.used.clear()
    full_mixed = job.method == "full" and job.precision == "mixed-bf16"
    dtype = torch.float32 if full_mixed else torch.bfloat16
    with torch.device("meta"):
        try:
            model = auto.from_config(config, dtype=dtype, attn_implementation=implementation)
        except (ValueError, ImportError) as exc:
            if implementation == "eager":
                raise
            # a class without SDPA (gpt-oss: GptOssPreTrainedModel._supports_sdpa = False) refuses an explicit sdpa;
            # at the default attention transformers falls back to eager itself (modeling_utils.py
            # get_correct_attn_implementation), as the engine sizes it (engine/model/stack.py attention_run)
            notes[:] = [n for n in notes if not n.startswith("auto attention on ")]  # no SDPA kernel runs
            notes.append(f"{implementation} attention refused by transformers ({str(exc)[:120]}): a run at the "
                         "default attention falls back to eager (get_correct_attn_implementation); eager traced")
            implementation, route = "eager", None
            model = auto.from_config(config, dtype=dtype, attn_implementation="eager")
    model.train()
    if job.method == "qlora":
        _to_nf4(model)
        notes.append("QLoRA: every nn.Linear but lm_head as bitsandbytes Linear4bit (NF4, blocksize 64, double "
                     "quantisation, bf16 compute) with meta Params4bit; PEFT prepare_model_for_kbit_training casts")
    if job.gradient_checkpointing and job.method != "qlora":
        reentrant = job.checkpointing_kind == "reentrant"
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": reentrant})
    if job.method == "qlora":
        # optional libraries load for the jobs that use them: peft for QLoRA here
        from peft import prepare_model_for_kbit_training

        # peft/utils/other.py prepare_model_for_kbit_training: freezes, casts bf16/fp16 params to fp32 (norms,
        # embeddings, lm_head: not the Params4bit), enables checkpointing as the trainer asks
        model = prepare_model_for_kbit_training(
            model, use_gradient_checkpointing=job.gradient_checkpointing,
            gradient_checkpointing_kwargs={"use_reentrant": job.checkpointing_kind == "reentrant"},
        )  # fmt: skip
    if job.method == "full":
        for p in model.parameters():
            p.requires_grad_(True)
        if vlm and not job.train_vision_tower:
            # a frozen tower (LLaMA-Factory freeze_vision_tower, the usual VLM recipe): encoder and projector
            tower = tower_prefixes(model)
            for name, p in model.named_parameters():
                if name.startswith(tower):
                    p.requires_grad_(False)
            notes.append("full fine-tune of the language model; vision tower and projector frozen")
    else:
        model = _lora(job, model, notes)
    if job.method == "qlora" and job.kbit_head_bf16:
        _trl_bf16_cast(model)
        notes.append("TRL's peft_module_casting_to_bf16 (trl _prepare_peft_model under bf16): lm_head and "
                     "embed_tokens back to bf16, norms fp32")  # fmt: skip
    return Built(model, route, implementation)


def _trl_bf16_cast(model: nn.Module) -> None:
    """trl/trainer/utils.py peft_module_casting_to_bf16: norms (by name) to fp32; lm_head, embed_tokens, wte and wpe
    weights that are fp32 to bf16 (the adapters, whose names carry none of these, stay fp32)."""
    for name, module in model.named_modules():
        if isinstance(module, nn.LayerNorm) or "norm" in name:
            module.to(torch.float32)
        elif any(x in name for x in ("lm_head", "embed_tokens", "wte", "wpe")):
            weight = getattr(module, "weight", None)
            if isinstance(weight, torch.Tensor) and weight.dtype == torch.float32:
                module.to(torch.bfloat16)


def _to_nf4(model: nn.Module) -> None:
    """Swap each nn.Linear except the head for bitsandbytes' Linear4bit, quantised on meta by bitsandbytes' own
    quantize_4bit (bitsandbytes/functional.py; its ops have fake kernels), as transformers' bnb 4-bit loader does
    (integrations/bitsandbytes.py: lm_head is kept, blocksize 64 from BitsAndBytesConfig's defaults)."""
    # optional libraries: bitsandbytes (it probes CUDA as it loads) for QLoRA jobs only
    import bitsandbytes as bnb
    from bitsandbytes.functional import quantize_4bit

    for parent_name, parent in list(model.named_modules()):
        for name, child in list(parent.named_children()):
            full = f"{parent_name}.{name}" if parent_name else name
            if type(child) is not nn.Linear or full.endswith("lm_head"):
                continue
            new = bnb.nn.Linear4bit(child.in_features, child.out_features, bias=child.bias is not None,
                                    compute_dtype=torch.bfloat16, compress_statistics=True, quant_type="nf4",
                                    quant_storage=torch.uint8, device="meta")  # fmt: skip
            packed, state = quantize_4bit(child.weight.data, blocksize=64, compress_statistics=True, quant_type="nf4",
                                          quant_storage=torch.uint8)  # fmt: skip
            new.weight = bnb.nn.Params4bit(packed, requires_grad=False, quant_state=state, blocksize=64,
                                           compress_statistics=True, quant_type="nf4", quant_storage=torch.uint8,
                                           bnb_quantized=True, module=new)  # fmt: skip
            if child.bias is not None:
                new.bias = child.bias
            setattr(parent, name, new)
    model.is_loaded_in_4bit = True  # type: ignore[assignment]


def _lora(job: Job, model: Any, notes: list[str]) -> Any:
    # optional libraries: peft for LoRA / QLoRA jobs only
    from peft import LoraConfig, get_peft_model

    targets: Any = job.lora_targets if job.lora_targets == "all-linear" else list(job.lora_targets)
    if isinstance(job.config.get("vision_config"), dict):
        targets = lora_target_names(model, job.lora_targets, job.train_vision_tower)
        notes.append("LoRA on the language model's " + ("and the vision tower's linears" if job.train_vision_tower
                                                          else "linears only (vision tower frozen)"))
    cfg = LoraConfig(r=job.lora_rank, lora_alpha=job.lora_alpha, lora_dropout=job.lora_dropout,
                     target_modules=targets, task_type="CAUSAL_LM")  # fmt: skip
    with torch.device("meta"):
        model = get_peft_model(model, cfg)
    # On a GPU PEFT keeps the adapters in fp32 (tuners_utils cast_adapter_dtype, autocast_adapter_dtype=True); on meta
    # the move is skipped, so they are set to fp32 here.
    for p in model.parameters():
        if p.requires_grad and p.dtype != torch.float32:
            p.data = p.data.to(torch.float32)
    wrapped = sorted({n.rsplit(".", 1)[-1] for n, m in model.named_modules() if hasattr(m, "lora_A") and len(m.lora_A)})
    notes.append(f"LoRA r={job.lora_rank} on {', '.join(wrapped)}; adapters fp32 as on a GPU")
    return model


def wrap_checkpointing(model: nn.Module, mode: RunMode, ctx: Context) -> None:
    """Checkpoint recompute re-enters the autocast emulation's state of the forward, and is marked as recompute."""
    for module in model.modules():
        func = getattr(module, "_gradient_checkpointing_func", None)
        if func is None or getattr(func, "_traced", False):
            continue

        def wrapped(fn: Any, *args: Any, _func: Any = func, **kwargs: Any) -> Any:
            state = mode.autocast_on
            modules = list(ctx.modules)

            def run(*a: Any, **k: Any) -> Any:
                again = ctx.phase == "backward"
                prev_recompute, prev_modules = ctx.recompute, ctx.modules
                if again:
                    ctx.recompute, ctx.modules = True, list(modules)
                try:
                    if again and mode not in _function_modes():
                        with mode, mode.region(state):  # autograd's worker thread runs without the mode
                            return fn(*a, **k)
                    with mode.region(state):
                        return fn(*a, **k)
                finally:
                    ctx.recompute, ctx.modules = prev_recompute, prev_modules

            return _func(run, *args, **kwargs)

        wrapped._traced = True  # type: ignore[attr-defined]
        module._gradient_checkpointing_func = wrapped  # type: ignore[assignment]


def _function_modes() -> list[Any]:
    return list(_get_current_function_mode_stack())


def module_names(model: nn.Module) -> dict[int, str]:
    names = {}
    for name, m in model.named_modules():
        if name in ("base_model", "base_model.model"):
            name = ""
        elif name.startswith("base_model.model."):  # PEFT's wrapper: the model's own names
            name = name[len("base_model.model."):]
        names[id(m)] = name or type(m).__name__
    return names


def module_hooks(ctx: Context, names: dict[int, str]) -> list[Any]:
    def pre(module: nn.Module, _inputs: Any) -> None:
        ctx.modules.append(names.get(id(module), type(module).__name__))

    def post(module: nn.Module, _inputs: Any, _output: Any) -> None:
        if ctx.modules:
            ctx.modules.pop()

    return [register_module_forward_pre_hook(pre), register_module_forward_hook(post, always_call=True)]


def resident_tensors(model: nn.Module) -> list[torch.Tensor]:
    """What the loaded model keeps on the card: parameters, buffers, and bitsandbytes' quantisation state."""
    found: list[torch.Tensor] = []
    for p in model.parameters():
        found.append(p)
    for b in model.buffers():
        found.append(b)
    for m in model.modules():
        weight = getattr(m, "weight", None)
        qs = getattr(weight, "quant_state", None)
        while qs is not None:
            for attr in ("absmax", "code", "offset"):
                t = getattr(qs, attr, None)
                if isinstance(t, torch.Tensor):
                    found.append(t)
            qs = getattr(qs, "state2", None)
    return [t for t in found if t.device.type == "meta"]


def make_optimizer(job: Job, model: nn.Module, notes: list[str]) -> Any:
    """AdamW as transformers' Trainer makes it: two groups (no weight decay on biases and norms)."""
    decay: list[nn.Parameter] = []
    no_decay: list[nn.Parameter] = []
    for name, p in model.named_parameters():
        if p.requires_grad:
            (no_decay if name.endswith("bias") or "norm" in name.lower() else decay).append(p)
    both = ({"params": decay, "weight_decay": 0.0}, {"params": no_decay, "weight_decay": 0.0})
    groups = [g for g in both if g["params"]]
    if job.optimizer == "adamw-8bit":
        # optional libraries: bitsandbytes for the 8-bit optimizer only
        import bitsandbytes as bnb

        return bnb.optim.AdamW8bit(groups, lr=1e-4)
    if job.optimizer_impl == "fused":
        return torch.optim.AdamW(groups, lr=1e-4, fused=True)
    return torch.optim.AdamW(groups, lr=1e-4, foreach=True)


def optimizer_step(optimizer: Any, job: Job, notes: list[str]) -> None:
    if job.optimizer != "adamw-8bit":
        optimizer.step()
        return
    try:
        optimizer.step()
    except Exception as exc:
        # bitsandbytes/optim/optimizer.py Optimizer2State.init_state makes the states (uint8 state1/state2 and fp32
        # absmax per 256-value block for tensors of >= 4096 values, fp32 otherwise); the update itself is one fused
        # in-place kernel with no temporaries, so the states are made by bitsandbytes' own code and the update skipped.
        note = ("bitsandbytes 8-bit AdamW: states made by its init_state on meta; the in-place update kernel "
                f"could not run on meta ({type(exc).__name__}) and makes no temporaries")  # fmt: skip
        if note not in notes:
            notes.append(note)
        for gindex, group in enumerate(optimizer.param_groups):
            for pindex, p in enumerate(group["params"]):
                if p.grad is not None and len(optimizer.state[p]) == 0:
                    optimizer.init_state(group, p, gindex, pindex)


def forward_loss(model: nn.Module, input_ids: torch.Tensor, labels: torch.Tensor, **extra: Any) -> torch.Tensor:
    """The model's own loss path (transformers loss_utils ForCausalLMLoss); the outputs object (logits) dies here,
    as in Trainer.compute_loss, which keeps only the loss. ``extra``: a vision-language job's pixel inputs."""
    out = model(input_ids=input_ids, labels=labels, **extra)
    return out.loss  # type: ignore[no-any-return]


