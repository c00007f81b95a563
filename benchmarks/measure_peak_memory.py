"""Measure fine-tuning peak memory on a CUDA GPU, per phase, for the memory model's calibration (issue 12).

Never part of the test suite; nothing in the product imports it. On a machine with a CUDA GPU, torch and
transformers (and peft, bitsandbytes for LoRA / QLoRA) it builds a random-weight model from a Hugging Face
``config.json`` (``AutoModelForCausalLM.from_config``: nothing is downloaded), optionally with fewer decoder
layers, and runs a few training steps for each point of a matrix (method, sequence length, checkpointing,
loss path). After each phase it records ``torch.cuda.max_memory_allocated``, ``max_memory_reserved`` and the
device's used memory (``torch.cuda.mem_get_info``), and writes one row per run to a YAML (or JSON) file whose
fields name a Job as the engine reads it, plus the layer count used, so the per-layer terms can scale a
shortened model back up (engine/calibration.py reads them as measured-here runs).

    python benchmarks/measure_peak_memory.py --config path/to/config.json --layers 4 \\
        --methods lora qlora --seq 2048 8192 --out measured.yaml

Loss paths: ``standard`` (Transformers' ForCausalLMLoss: fp32 upcast of the whole logits), ``bf16``
(cross-entropy on the bf16 logits), ``chunked`` (bf16 chunks of 1024 tokens, each chunk's logits made and
dropped inside a checkpointed function). ``fused`` is left to Liger / Cut Cross-Entropy and not run here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

GIB = 2**30


def _require_cuda() -> Any:
    try:
        import torch
    except ImportError:
        sys.exit("measure_peak_memory: torch is not installed. Install torch with CUDA support (and transformers, "
                 "peft, bitsandbytes) on a machine with an NVIDIA GPU.")  # fmt: skip
    if not torch.cuda.is_available():
        sys.exit("measure_peak_memory: no CUDA device is visible to torch (torch.cuda.is_available() is False). "
                 "Run this on a machine with an NVIDIA GPU and a CUDA build of torch.")  # fmt: skip
    return torch


class Phases:
    """Counters read at the end of each phase; the peak counters are never reset, so each phase's figure is
    the run's peak so far, as the engine models it (the pool only grows)."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.rows: dict[str, dict[str, float]] = {}

    def mark(self, phase: str) -> None:
        t = self.torch
        t.cuda.synchronize()
        free, total = t.cuda.mem_get_info()
        self.rows[phase] = {
            "allocated_gib": t.cuda.memory_allocated() / GIB,
            "max_allocated_gib": t.cuda.max_memory_allocated() / GIB,
            "max_reserved_gib": t.cuda.max_memory_reserved() / GIB,
            "device_used_gib": (total - free) / GIB,
        }


def _loss(torch: Any, model: Any, hidden: Any, labels: Any, path: str) -> Any:
    import torch.nn.functional as F

    head = model.get_output_embeddings()
    shift_h, shift_y = hidden[:, :-1, :], labels[:, 1:]
    if path == "standard":
        return F.cross_entropy(head(shift_h).float().flatten(0, 1), shift_y.flatten())
    if path == "bf16":
        return F.cross_entropy(head(shift_h).flatten(0, 1), shift_y.flatten())
    from torch.utils.checkpoint import checkpoint

    total = hidden.new_zeros((), dtype=torch.float32)
    n = shift_y.numel()
    for start in range(0, shift_h.shape[1], 1024):
        h, y = shift_h[:, start : start + 1024, :], shift_y[:, start : start + 1024]

        def chunk(h: Any, y: Any) -> Any:
            return F.cross_entropy(head(h).flatten(0, 1), y.flatten(), reduction="sum")

        total = total + checkpoint(chunk, h, y, use_reentrant=False)
    return total / n


def run_one(torch: Any, config_path: Path, layers: int | None, method: str, seq: int, batch: int,
            checkpointing: bool, loss: str, steps: int, rank: int) -> dict[str, Any]:  # fmt: skip
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(str(config_path.parent if config_path.name == "config.json" else config_path))
    full_layers = config.num_hidden_layers
    if layers:
        config.num_hidden_layers = min(layers, full_layers)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    phases = Phases(torch)
    if method == "qlora":
        # random weights quantised on the GPU one linear at a time, as transformers' bitsandbytes loader does
        import bitsandbytes as bnb

        model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.bfloat16)
        for name, module in list(model.named_modules()):
            for child_name, child in list(module.named_children()):
                if isinstance(child, torch.nn.Linear) and "lm_head" not in f"{name}.{child_name}":
                    q = bnb.nn.Linear4bit(child.in_features, child.out_features, bias=child.bias is not None,
                                          compute_dtype=torch.bfloat16, quant_type="nf4")  # fmt: skip
                    q.weight = bnb.nn.Params4bit(child.weight.data, requires_grad=False, quant_type="nf4")
                    setattr(module, child_name, q)
        model = model.cuda()
    else:
        with torch.device("cuda"):
            model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.bfloat16)
    phases.mark("load")
    if method in ("lora", "qlora"):
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(r=rank, lora_alpha=2 * rank, target_modules="all-linear"))
    if checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.enable_input_require_grads()
    model.config.use_cache = False
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=1e-5, foreach=True)
    phases.mark("wrap")
    tokens = torch.randint(0, config.vocab_size, (batch, seq), device="cuda")
    t0 = time.time()
    for step in range(steps):
        out = model.model(input_ids=tokens) if method == "full" else model.base_model.model.model(input_ids=tokens)
        loss_value = _loss(torch, model if method == "full" else model.base_model.model, out[0], tokens, loss)
        if step == steps - 1:
            phases.mark("forward")
        loss_value.backward()
        if step == steps - 1:
            phases.mark("backward-end")
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if step == steps - 1:
            phases.mark("optimizer-step")
    return {
        "config": str(config_path), "num_layers_run": config.num_hidden_layers, "num_layers_full": full_layers,
        "job": {"method": method, "sequence_length": seq, "micro_batch_size": batch,
                "gradient_checkpointing": checkpointing, "loss": loss, "framework": "hf-trainer",
                "precision": "pure-bf16", "attention": "sdpa", "lora": {"rank": rank, "targets": "all-linear"},
                "quantization": "nf4", "behaviour": {"optimizer_impl": "foreach", "kbit_fp32_prep": False}},
        "phases": phases.rows,
        "peak_allocated_gib": torch.cuda.max_memory_allocated() / GIB,
        "peak_reserved_gib": torch.cuda.max_memory_reserved() / GIB,
        "device": torch.cuda.get_device_name(), "torch": torch.__version__, "seconds": time.time() - t0,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", type=Path, required=True, help="a Hugging Face config.json")
    ap.add_argument("--layers", type=int, default=None, help="decoder layers to build (default: all)")
    ap.add_argument("--methods", nargs="+", default=["lora", "qlora"], choices=["full", "lora", "qlora"])
    ap.add_argument("--seq", nargs="+", type=int, default=[2048, 8192])
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--checkpointing", nargs="+", default=["on"], choices=["on", "off"])
    ap.add_argument("--loss", nargs="+", default=["standard", "chunked"], choices=["standard", "bf16", "chunked"])
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--out", type=Path, default=Path("measured_peak_memory.yaml"))
    args = ap.parse_args(argv)
    if not args.config.exists():
        sys.exit(f"measure_peak_memory: {args.config} does not exist")
    torch = _require_cuda()
    rows = []
    for method in args.methods:
        for seq in args.seq:
            for ckpt in args.checkpointing:
                for loss in args.loss:
                    try:
                        rows.append(run_one(torch, args.config, args.layers, method, seq, args.batch, ckpt == "on",
                                            loss, args.steps, args.rank))  # fmt: skip
                    except torch.cuda.OutOfMemoryError:
                        rows.append({"job": {"method": method, "sequence_length": seq, "loss": loss},
                                     "oom": True})  # fmt: skip
                    print(json.dumps(rows[-1].get("phases", rows[-1]), indent=None), flush=True)
                    torch.cuda.empty_cache()
    text = json.dumps({"runs": rows}, indent=2)
    if args.out.suffix in (".yaml", ".yml"):
        import yaml

        text = yaml.safe_dump({"runs": rows}, sort_keys=False)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {len(rows)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
