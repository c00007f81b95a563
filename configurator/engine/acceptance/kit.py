"""The burn-in kit: a folder the shop copies to the built machine and runs with ``sh run.sh``.

``run.sh`` is POSIX shell and needs no network. It collects what :mod:`.collect` reads (nvidia-smi
``--query-gpu`` CSV, ``-q``, ``topo -m``, ``mig -lgip``; ``lspci -vv``; DCGM ``dmon`` during the load),
runs nccl-tests ``all_reduce_perf`` per GPU pair and per group when it is installed, and when torch is
``gemm_probe.py`` on each GPU in turn (its sustained BF16 GEMM rate: the card's health) and ``measure.py`` per
job, each step under a time limit, and writes ``report.txt``: what it measured and, for
everything it could not, why and how to get it. It always exits 0, so a machine without GPUs still returns a
folder ``configurator verify`` can read.
"""

from __future__ import annotations

import contextlib
import json
import shlex
from pathlib import Path
from typing import Any

from configurator.catalog.errors import FileError, Problem
from configurator.catalog.fileio import atomic_write_text, safe_read_text
from configurator.catalog.loader import Catalog
from configurator.catalog.model_spec import ModelSpec
from configurator.engine.acceptance.collect import WALL_FORMAT
from configurator.engine.acceptance.parse.smi import QUERY_FIELDS
from configurator.engine.acceptance.predict import AcceptancePrediction
from configurator.engine.memory.rl import colocated_share, generates, is_rl
from configurator.engine.model.build import Build, Job
from configurator.engine.model.buildfile import build_to_yaml
from configurator.engine.model.resolver import ModelResolver
from configurator.engine.time.steptime.step_protocol import step_protocol

DENSE = {"llama", "mistral", "qwen2", "qwen3"}
DEFAULT_STEP_LIMIT_S = 600
MEASURE_SOURCE = Path(__file__).resolve().parents[2] / "acceptance_tool" / "measure.py"
GEMM_SOURCE = Path(__file__).resolve().parents[2] / "acceptance_tool" / "gemm_probe.py"
DEFAULT_GEMM_SECONDS = 10  # timed per GPU after a 2 s warm-up (gemm_probe.py's docstring says why)


def hf_config_of(spec: ModelSpec) -> dict[str, Any] | None:
    """A Hugging Face config for a random-weight model of ``spec``'s shape (dense llama/mistral/qwen only):
    the fields the catalog read from the model's config.json; None for other architectures."""
    if spec.architecture not in DENSE or not spec.hidden_size:
        return None
    cfg: dict[str, Any] = {
        "model_type": spec.architecture,
        "hidden_size": spec.hidden_size,
        "num_hidden_layers": spec.num_layers,
        "intermediate_size": spec.intermediate_size,
        "num_attention_heads": spec.num_attention_heads,
        "num_key_value_heads": spec.num_key_value_heads,
        "vocab_size": spec.vocab_size,
        "tie_word_embeddings": spec.tie_word_embeddings,
    }
    if spec.head_dim:
        cfg["head_dim"] = spec.head_dim
    if spec.architecture in ("llama", "qwen3"):
        cfg["attention_bias"] = spec.qkv_bias
    if spec.architecture == "llama":
        cfg["mlp_bias"] = spec.mlp_bias
    return cfg


def rl_skip(job: Job) -> str:
    """Why the kit does not time a DPO / GRPO / PPO job, and what to measure instead. measure.py runs a supervised
    step (sequence_length x micro_batch_size, one forward and backward); the prediction is the objective's step
    (engine/time/steptime/generation.py, engine/memory/rl.py), so a supervised reading would be judged against
    another step's figures."""
    what = (
        "the chosen and rejected sequences and the reference model's forward"
        if not generates(job)
        else f"{job.rl.generations} generations of {job.rl.prompt_length} + {job.rl.completion_length} tokens per "
        "prompt, the generation round and the policy's training passes"
    )
    share = colocated_share(job)
    memory = (
        f"nvidia-smi shows the training plus the colocated vLLM's {share:.0%} of the card"
        if share
        else "the memory as nvidia-smi shows it"
    )
    return (
        f"{job.objective.upper()} step: measure.py times a supervised step, not this job's ({what}), so its "
        "figures would not be the predicted step's. Run the job's own trainer on the machine and compare its "
        f"logged seconds per optimizer step with the prediction; record its peak with DCGM (dcgm-dmon.txt) during "
        f"that run ({memory})"
    )


def kit_jobs(
    build: Build, prediction: AcceptancePrediction, catalog: Catalog, base_dir: Path | None
) -> list[dict[str, Any]]:
    resolver = ModelResolver(catalog, base_dir)
    index = {g.slot: g.index for g in prediction.gpus}
    out = []
    for job in build.jobs:
        keys = job.card_keys
        entry: dict[str, Any] = {
            "name": job.name,
            "method": job.method,
            "lora_rank": job.lora.rank,
            "sequence_length": job.sequence_length,
            "micro_batch_size": job.micro_batch_size,
            "gradient_accumulation_steps": job.gradient_accumulation_steps,
            "gradient_checkpointing": job.gradient_checkpointing,
            "gpu": index.get(keys[0][0]) if keys else None,
        }
        # the step the engine's prediction assumes (optimizer, clipping, autocast or pure bf16, checkpointing kind)
        protocol = step_protocol(job)
        entry["step"] = protocol.wire()
        if protocol.refused:
            entry["skip"] = protocol.refused
        try:
            spec = resolver.resolve(job.model)
        except Exception as exc:  # an unresolvable model is reported in the kit, not raised: the rest still runs
            spec, entry["skip"] = None, f"model not resolved: {exc}"
        if spec is not None:
            cfg = hf_config_of(spec)
            entry["hf_config"] = cfg
            if cfg is None:
                entry["skip"] = (
                    f"model {spec.name} is {spec.architecture}: the kit builds dense llama / mistral / "
                    "qwen models only (parameter-count-only models have no shape to build)"
                )
        if len(keys) > 1:
            entry["skip"] = (
                f"runs on {len(keys)} cards: needs torchrun and the job's own launcher; measure its peak "
                "with DCGM (dcgm-dmon.txt) during your run"
            )
        elif keys and keys[0][1] is not None:
            entry["skip"] = (
                "runs in a MIG instance: set CUDA_VISIBLE_DEVICES to the instance's MIG UUID "
                "(nvidia-smi -L) and run measure.py by hand"
            )
        elif not keys:
            entry["skip"] = "the job has no card"
        if is_rl(job):  # last: whatever else holds, the measured step is not the predicted one
            entry["skip"] = rl_skip(job)
        out.append(entry)
    return out


def nccl_groups(prediction: AcceptancePrediction) -> list[list[int]]:
    return [n.gpus for n in prediction.nccl]


def _q(s: str) -> str:
    return shlex.quote(s)


def run_sh(prediction: AcceptancePrediction, jobs: list[dict[str, Any]]) -> str:
    groups = " ".join(",".join(map(str, g)) for g in nccl_groups(prediction))
    n_gpus = len(prediction.gpus)
    lines = [
        "#!/bin/sh",
        f"# Burn-in kit for the build {prediction.build_name!r} (reference digest {prediction.build_digest}),",
        "# written by `configurator burnin`. POSIX shell, no network. Usage:",
        "#   sh run.sh [OUTPUT_FOLDER]        (default: ./results next to this script)",
        "# Environment: STEP_LIMIT (seconds per step, default 600), PYTHON (default python3),",
        "#   NCCL_TESTS (an nccl-tests folder with build/all_reduce_perf),",
        f"#   GEMM_SECONDS (seconds of BF16 GEMM load timed per GPU, default {DEFAULT_GEMM_SECONDS}).",
        "# Then: configurator verify build.yaml OUTPUT_FOLDER",
        "set -u",
        'KIT=$(cd "$(dirname "$0")" && pwd)',
        'OUT=${1:-"$KIT/results"}',
        f"STEP_LIMIT=${{STEP_LIMIT:-{DEFAULT_STEP_LIMIT_S}}}",
        "PYTHON=${PYTHON:-python3}",
        f"GEMM_SECONDS=${{GEMM_SECONDS:-{DEFAULT_GEMM_SECONDS}}}",
        "export CUDA_DEVICE_ORDER=PCI_BUS_ID  # CUDA numbers GPUs as nvidia-smi does",
        'mkdir -p "$OUT/nccl" "$OUT/measure" "$OUT/gemm" || { echo "cannot create $OUT" >&2; exit 0; }',
        'REPORT="$OUT/report.txt"',
        f"printf 'Burn-in of %s (digest %s), %s\\n' {_q(prediction.build_name)} {prediction.build_digest} "
        '"$(date -u 2>/dev/null)" > "$REPORT"',
        "MISSING=0",
        'note() { printf \'%s\\n\' "$*" | tee -a "$REPORT"; }',
        'missing() { MISSING=$((MISSING + 1)); note "NOT MEASURED: $*"; }',
        'have() { command -v "$1" >/dev/null 2>&1; }',
        "# run a step under the time limit; its output to file $1 (and $1.err when it fails)",
        "step() {",
        "  f=$1; shift",
        '  if have timeout; then timeout "$STEP_LIMIT" "$@" > "$f" 2> "$f.err"; else "$@" > "$f" 2> "$f.err"; fi',
        "  rc=$?",
        '  if [ $rc -eq 0 ]; then rm -f "$f.err"; else',
        '    [ $rc -eq 124 ] && note "  timed out after $STEP_LIMIT s: $*" || note "  failed ($rc): $* (see $f.err)"',
        "  fi",
        "  return $rc",
        "}",
        "# root lets lspci read link capabilities: sudo -n (never prompts) when not root and sudo is there",
        'SUDO=""; [ "$(id -u 2>/dev/null)" != 0 ] && have sudo && SUDO="sudo -n"',
        "",
        "# 1. the GPUs as the driver sees them",
        "if have nvidia-smi; then",
        f'  step "$OUT/query-gpu.csv" nvidia-smi --query-gpu={",".join(QUERY_FIELDS)} --format=csv && note "nvidia-smi --query-gpu: ok"',  # noqa: E501
        '  step "$OUT/smi-q.txt" nvidia-smi -q && note "nvidia-smi -q: ok"',
        '  step "$OUT/topo.txt" nvidia-smi topo -m && note "nvidia-smi topo -m: ok"',
        '  step "$OUT/mig-lgip.txt" nvidia-smi mig -lgip; note "nvidia-smi mig -lgip: done (MIG off reads as such)"',
        "else",
        '  missing "nvidia-smi not found (no NVIDIA driver on this machine): card identity, memory, power limits,'
        ' PCIe link as the GPU reports it, topology (topo -m), MIG profiles. Install the NVIDIA driver."',
        "fi",
        "",
        "# 2. the PCIe links and ACS (lspci needs root to show link capabilities)",
        "if have lspci; then",
        '  step "$OUT/lspci-vv.txt" $SUDO lspci -vv && note "lspci -vv: ok"',
        '  grep -q "LnkSta" "$OUT/lspci-vv.txt" 2>/dev/null || missing "lspci -vv shows no LnkSta: run as root'
        ' (sudo sh run.sh) for the negotiated PCIe width and ACS"',
        "else",
        '  missing "lspci not found: negotiated PCIe generation/width and ACS.'
        ' Install pciutils (apt install pciutils)."',
        "fi",
        "",
        "# 3. DCGM in the background while the load runs (frame buffer used, SM active)",
        "DCGM_PID=",
        "if have dcgmi; then",
        '  dcgmi dmon -e 252,1002 -d 1000 > "$OUT/dcgm-dmon.txt" 2> "$OUT/dcgm-dmon.txt.err" &',
        "  DCGM_PID=$!",
        '  note "dcgmi dmon: recording (fields 252 FB_USED, 1002 SM_ACTIVE)"',
        "else",
        '  missing "dcgmi not found: frame-buffer used and SM activity under load.'
        ' Install DCGM (datacenter-gpu-manager) and start nv-hostengine."',
        "fi",
        "",
        "# 3b. the server's input power from its BMC while the load runs (ipmitool dcmi power reading, every 2 s)",
        "IPMI_PID=",
        "if have ipmitool && $SUDO ipmitool dcmi power reading >/dev/null 2>&1; then",
        '  ( while :; do $SUDO ipmitool dcmi power reading; sleep 2; done ) > "$OUT/wall-ipmi.txt" 2>/dev/null &',
        "  IPMI_PID=$!",
        '  note "ipmitool dcmi power reading: recording the input power"',
        "fi",
        "",
        "# 4. nccl-tests all_reduce_perf per GPU pair and per group",
        'ARP=""',
        "if have all_reduce_perf; then ARP=$(command -v all_reduce_perf);",
        'elif [ -n "${NCCL_TESTS:-}" ] && [ -x "$NCCL_TESTS/build/all_reduce_perf" ]; then ARP="$NCCL_TESTS/build/all_reduce_perf"; fi',  # noqa: E501
        f"GROUPS={_q(groups)}",
        f"if [ {n_gpus} -lt 2 ]; then",
        '  note "nccl-tests: one GPU, nothing to all-reduce"',
        'elif [ -z "$ARP" ]; then',
        '  missing "nccl-tests all_reduce_perf not found: GPU-to-GPU bus bandwidth per pair and group. Build it'
        " offline from a copy of https://github.com/NVIDIA/nccl-tests (make MPI=0 CUDA_HOME=/usr/local/cuda,"
        ' needs NCCL installed), then rerun with NCCL_TESTS=/path/to/nccl-tests"',
        "else",
        "  for g in $GROUPS; do",
        "    n=$(printf '%s' \"$g\" | tr ',' '\\n' | wc -l | tr -d ' ')",
        "    name=$(printf '%s' \"$g\" | tr ',' '-')",
        '    CUDA_VISIBLE_DEVICES=$g step "$OUT/nccl/all_reduce_gpus-$name.txt" "$ARP" -b 8M -e 1G -f 2 -g "$n" \\',
        '      && note "all_reduce_perf GPUs $g: ok"',
        "  done",
        "fi",
        "",
        "# 5. each GPU's sustained BF16 GEMM rate, one GPU at a time (gemm_probe.py; torch with CUDA)",
        'if [ ! -f "$KIT/gemm_probe.py" ]; then',
        '  missing "gemm_probe.py is not in the kit: each GPU\'s BF16 GEMM rate (clocks, power cap, thermal health)"',
        'elif ! "$PYTHON" -c "import torch" >/dev/null 2>&1; then',
        '  missing "torch not importable by $PYTHON: each GPU\'s BF16 GEMM rate (clocks, power cap, thermal health).'
        ' Install offline from wheels: pip install --no-index --find-links WHEELS torch"',
        "else",
        f"  for i in {' '.join(str(g.index) for g in prediction.gpus)}; do",
        '    CUDA_VISIBLE_DEVICES=$i step "$OUT/gemm/gpu-$i.json" "$PYTHON" "$KIT/gemm_probe.py" --gpu "$i" \\',
        '      --seconds "$GEMM_SECONDS" && note "gemm probe GPU$i: done"',
        "  done",
        "fi",
        "",
        "# 6. each job's peak memory and step time (measure.py; torch with CUDA)",
        'if [ ! -f "$KIT/measure.py" ]; then',
        '  missing "measure.py is not in the kit: job peak memory and step time"',
        'elif ! "$PYTHON" -c "import torch" >/dev/null 2>&1; then',
        '  missing "torch not importable by $PYTHON: job peak memory and step time. Install offline from wheels:'
        ' pip install --no-index --find-links WHEELS torch transformers peft bitsandbytes"',
        "else",
    ]
    for i, job in enumerate(jobs):
        name = _q(job["name"])
        if job.get("skip"):
            lines.append(f"  note {_q('job ' + job['name'] + ': not measured here: ' + job['skip'])}")
            continue
        gpu = job.get("gpu") or 0
        lines += [
            f'  CUDA_VISIBLE_DEVICES={gpu} step "$OUT/measure/job-{i}.log" "$PYTHON" "$KIT/measure.py" --jobs '
            f'"$KIT/jobs.json" --job {i} --out "$OUT/measure/job-{i}.json" --time-limit "$STEP_LIMIT" '
            f"&& note {_q('measure: ')}{name}",
        ]
    lines += [
        "fi",
        "",
        '[ -n "$DCGM_PID" ] && kill "$DCGM_PID" 2>/dev/null',
        '[ -n "$IPMI_PID" ] && kill "$IPMI_PID" 2>/dev/null',
        "# 7. versions, for the record kept with the measurements",
        "{ uname -a; nvidia-smi --version 2>/dev/null; nvcc --version 2>/dev/null | tail -1;"
        ' "$PYTHON" -c "import torch; print(\'torch\', torch.__version__, torch.version.cuda)" 2>/dev/null; }'
        ' > "$OUT/versions.txt" 2>&1',
        'missing_wall() { missing "wall draw: read the meter during the nccl-tests or jobs and write it into '
        f"$OUT/wall-meter.txt as {WALL_FORMAT}\"; }}",
        '[ -f "$OUT/wall-meter.txt" ] || [ -s "$OUT/wall-ipmi.txt" ] || missing_wall',
        'note "done: $MISSING item(s) not measured. Give $OUT to: configurator verify build.yaml $OUT"',
        "exit 0",
        "",
    ]
    return "\n".join(lines)


README = """# Burn-in kit: {name}

Reference digest {digest} (the build sheet's reference ends with it).

1. Copy this folder to the built machine (no network is needed).
2. Run `sudo sh run.sh` (root lets lspci read the PCIe link fields). Optional: `STEP_LIMIT=300` seconds per
   step, `NCCL_TESTS=/path/to/nccl-tests` when all_reduce_perf is not on the PATH, `PYTHON=/path/to/python`.
3. During the load, read the wall meter and write its highest reading into `results/wall-meter.txt` as
   `<watts> W`.
4. Bring `results/` back and run `configurator verify build.yaml results/` (add `--pdf acceptance.pdf` for the
   signed report, `--store` to keep the measurements with the machine's record).

`results/report.txt` lists everything the kit could not measure on this machine and how to get it.
The kit runs: nvidia-smi (--query-gpu, -q, topo -m, mig -lgip), lspci -vv, dcgmi dmon (fields 252, 1002),
nccl-tests all_reduce_perf for {groups} GPU group(s), gemm_probe.py on each GPU in turn (a sustained 8192^3 BF16
matmul, {gemm_seconds} s per GPU after a 2 s warm-up: `GEMM_SECONDS=120` soaks longer; needs torch) and
measure.py for the single-card supervised jobs (random weights, real training steps; needs torch, transformers,
peft, bitsandbytes; a DPO, GRPO or PPO step is not a supervised one: report.txt says how to measure it). The GEMM
rate is each card's health figure: `configurator verify` compares it with the card's dense BF16 peak x its own
measured large-GEMM fraction (else its architecture's) and names a power cap, throttled clocks or heat.
"""


def write_kit(
    folder: Path, build: Build, prediction: AcceptancePrediction, catalog: Catalog, base_dir: Path | None
) -> list[Path]:
    """Write the kit into ``folder`` (created; existing kit files are replaced). FileError when it cannot."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FileError(str(folder), [Problem("", f"cannot create the kit folder: {exc.strerror or exc}")]) from None
    if not folder.is_dir():
        raise FileError(str(folder), [Problem("", "not a folder")])
    jobs = kit_jobs(build, prediction, catalog, base_dir)
    files = {
        "run.sh": run_sh(prediction, jobs),
        "jobs.json": json.dumps(
            {"build": prediction.build_name, "digest": prediction.build_digest, "jobs": jobs}, indent=2
        ),
        "build.yaml": build_to_yaml(build),
        "expected.json": prediction.model_dump_json(indent=2),
        "README.md": README.format(
            name=prediction.build_name,
            digest=prediction.build_digest,
            groups=len(prediction.nccl),
            gemm_seconds=DEFAULT_GEMM_SECONDS,
        ),
    }
    for name, source in (("measure.py", MEASURE_SOURCE), ("gemm_probe.py", GEMM_SOURCE)):
        with contextlib.suppress(OSError, FileError):  # a bundle without the tools' source: run.sh says it is missing
            files[name] = safe_read_text(source)
    written = []
    for name, text in files.items():
        path = folder / name
        atomic_write_text(path, text, what=f"the kit's {name}")
        written.append(path)
    (folder / "run.sh").chmod(0o755)
    return written
