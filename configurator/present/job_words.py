"""A job's set-up in words for running text (the build sheet): "LoRA, AdamW, FSDP" instead of the build file's
ids ("lora, adamw, fsdp"). A word missing here is printed as it is in the file."""

from __future__ import annotations

from collections.abc import Sequence

from configurator.engine.model.build import Job
from configurator.engine.model.labels import METHOD_NAMES, band_words, bound_words, method_name
from configurator.engine.model.result import JobResult, VisionInfo
from configurator.engine.time.steptime.band import step_band

WORDS: dict[str, dict[str, str]] = {
    "method": {m: method_name(m, capital=False) for m in METHOD_NAMES},  # inside a line: "Method full fine-tune"
    "quantization": {"nf4-dq": "NF4 with double quantisation", "nf4": "NF4"},
    "optimizer": {"adamw": "AdamW", "adamw-8bit": "8-bit AdamW", "paged-adamw": "paged AdamW",
                  "paged-adamw-8bit": "paged 8-bit AdamW", "sgd": "SGD"},
    "precision": {"mixed-bf16": "mixed BF16", "pure-bf16": "pure BF16", "fp8": "FP8", "fp8-delayed":
                  "FP8 with delayed scaling", "fp8-current": "FP8 with current scaling", "fp8-block":
                  "FP8 with block scaling", "mxfp8": "MXFP8", "nvfp4": "NVFP4"},
    "parallelism": {"single": "one card", "ddp": "DDP (a copy per card)", "fsdp": "FSDP", "tp": "tensor parallel",
                    "zero1": "DeepSpeed ZeRO-1", "zero2": "DeepSpeed ZeRO-2", "zero3": "DeepSpeed ZeRO-3"},
    "attention": {"sdpa": "SDPA", "flash": "FlashAttention", "eager": "eager"},
    "targets": {"all-linear": "all linear layers", "attention": "the attention projections", "qv": "q and v"},
    "loss": {"standard": "standard", "chunked": "chunked", "bf16": "BF16 logits", "fused": "fused"},
    "offload": {"none": "none", "cpu": "to CPU memory", "cpu-optimizer": "optimizer to CPU memory", "nvme": "to NVMe"},
    "phase": {"load": "loading", "wrap": "sharding set-up", "forward": "forward", "backward-start":
              "backward-start", "backward-layers": "backward", "backward-end": "backward-end",
              "optimizer-step": "optimizer-step"},
}  # fmt: skip


def word(field: str, value: object) -> str:
    """The word for ``value`` of ``field`` ("adamw" -> "AdamW"); the value as it is when unknown."""
    text = str(value)
    return WORDS.get(field, {}).get(text, text)


def setup_words(job: Job) -> str:
    """Method, optimizer and sharding: "LoRA, AdamW, FSDP"."""
    parts = (word("method", job.method), word("optimizer", job.optimizer), word("parallelism", job.parallelism))
    return ", ".join(parts)


def vision_words(v: VisionInfo) -> tuple[str, str]:
    """A vision-language job's images and tower in two sentences (the text report and the sheet): where the
    language model's sequence comes from, and what the tower adds to memory."""
    w, h = v.resized
    if v.tokens_per_image:
        tokens = (
            f"{v.tokens_per_image:,} tokens each: language model sequence {v.text_tokens:,} text + "
            f"{v.images_per_sample * v.tokens_per_image:,} image = {v.sequence_tokens:,} tokens"
        )
    else:
        tokens = f"cross-attended by the text (no tokens in its sequence of {v.text_tokens:,})"
    trained = f", {v.tower_trainable / 1e6:,.1f} M of them trained" if v.tower_trainable else ""
    fitted = f"resized to {w} × {h}" if v.tokens_per_image else f"in tiles of {w} × {h}"  # mllama: tiles
    images = (
        f"images: {v.images_per_sample} per sample of {v.image_resolution} × {v.image_resolution} px, "
        f"{fitted}, {v.encoder_tokens_per_image:,} encoder patches and {tokens}"
    )
    tower = (
        f"vision tower: {v.tower_params / 1e6:,.1f} M parameters, {v.tower}{trained}; in activ: pixel inputs "
        f"{v.pixel_gb:.2f} GB, tower activations {v.tower_activations_gb:.2f} GB"
    )
    return images, tower


def step_words(job: JobResult, digits: int = 3) -> str:
    """The job's step time as every view says it: '1.841 s', or 'at least 1.841 s' where the engine times a
    parameter-count-only model without its attention (Compute.lower_bound); '' without a step time."""
    if job.step_seconds is None:
        return ""
    bound = job.compute is not None and job.compute.lower_bound
    return bound_words(f"{job.step_seconds:.{digits}f} s", bound, prose=True)


def step_range_words(job: JobResult, digits: int = 2) -> str:
    """The step time's band beside the figure: "1.94–6.10 s" (published runs held apart from the model,
    engine/time/steptime/band.py); "" where the job has none (the utilisation model, an RL step)."""
    if job.step_low_seconds is None or job.step_high_seconds is None:
        return ""
    return band_words(job.step_low_seconds, job.step_high_seconds, "s", digits)


def band_caveat_words(outside: Sequence[str], jobs: int = 1) -> str:
    """What the step band's runs are not that ``jobs`` jobs alike are (JobResult.step_band_outside): 'none of the runs
    is QLoRA or on a MIG slice as this job is', as the engine's basis ends for one job; 'as these jobs are' for
    several under one caveat (the sheet's band sentence, the step-time chart's note); '' where every run is alike."""
    if not outside:
        return ""
    return f"none of the runs is {' or '.join(outside)} as {'this job is' if jobs == 1 else 'these jobs are'}"


def band_basis_words(outside: Sequence[str], jobs: int = 1) -> str:
    """The step band's basis for ``jobs`` jobs alike: the runs' own words (time/steptime/band.py), then what they
    are that no run is (:func:`band_caveat_words`)."""
    caveat = band_caveat_words(outside, jobs)
    return f"{step_band().basis}; {caveat}" if caveat else step_band().basis


def step_band_phrase(job: JobResult, digits: int = 3) -> str:
    """The step time's band with what it rests on, for running text: "band 1.988–6.248 s: 90% of 28 published
    runs ..."; "" where the job has none. The report and the sheet both print it."""
    band = step_range_words(job, digits)
    return f"band {band}: {job.step_band_basis}" if band else ""


def parameters_words(total: int, trainable: int) -> str:
    """A job's parameters and how many it trains: '70.55 B parameters, 207.1 M trainable'; a full fine-tune
    'all 8.03 B parameters trained' (it read '8,030.3 M trainable'); billions from 1 B trainable up."""
    if trainable >= total > 0:
        return f"all {total / 1e9:.2f} B parameters trained"
    part = f"{trainable / 1e9:.2f} B" if trainable >= 1e9 else f"{trainable / 1e6:,.1f} M"
    return f"{total / 1e9:.2f} B parameters, {part} trainable"
