"""Score the step-time model on published throughputs (specs/throughput-runs.yaml).

Each run becomes a one-card job on the catalog's card; the model's tokens per second per GPU is compared with the
measured one. ``score`` returns one row per run; ``by_source`` the median and worst absolute error per source.
Communication is not added: every multi-card run here shards with FSDP (the MoE runs also with expert parallelism),
whose gathers and reduce-scatters overlap the compute (the engine's own rule, evaluate_job._step_time), on NVSwitch
systems where they fit inside it; torchtitan-perf's 64-card A100 rows span nodes (RoCE/InfiniBand), where that
overlap is the source's own claim (58 % MFU) rather than checked here.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from configurator.catalog.fileio import safe_read_text
from configurator.catalog.loader import Catalog, default_catalog, specs_dir
from configurator.catalog.model_spec import ModelSpec
from configurator.engine.memory.estimate import job_parameters
from configurator.engine.memory.precision import NF4_DQ_BYTES, trained_bytes
from configurator.engine.model.build import Job
from configurator.engine.time.compute import compute
from configurator.engine.time.steptime.efficiency import Efficiency, efficiency, set_override

# a framework whose default stack is the run's; a run names its own `framework` where the script's behaviours are
# those of another profile of specs/frameworks.yaml, or overrides one behaviour (`behaviour: {optimizer_impl: ...}`)
STACK_FRAMEWORK = {"eager": "hf-trainer", "fused": "torchtitan"}


@dataclass(frozen=True)
class Scored:
    source: str
    card: str
    model: str
    method: str
    seq: int
    cards: int
    measured: float  # tokens/s per GPU
    predicted: float
    held_apart: bool
    scored: bool
    seen: bool = False  # held apart, but the model changed after its score was seen (throughput-runs.yaml `seen`)
    framework: str = "hf-trainer"  # the stack profile the run is timed on (run_job: its `framework`, or its stack's)

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1


def load_runs(path: Path | None = None) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(safe_read_text(path or specs_dir() / "throughput-runs.yaml"))
    return data


def run_model(data: dict[str, Any], name: str, catalog: Catalog) -> ModelSpec:
    if name in data.get("models", {}):
        arch = dict(data["models"][name])
        return ModelSpec.model_validate({"id": name, "name": name, "architecture": "llama", **arch})
    return catalog.model(name)


def run_job(run: dict[str, Any]) -> Job:
    method = run["method"]
    lora = {"rank": run.get("rank", 16), "targets": run.get("targets", "all-linear"),
            "dropout": run.get("dropout", 0.0)}  # fmt: skip
    return Job.model_validate({
        "name": "run", "model": "m", "method": method, "lora": lora, "optimizer": run.get("optimizer", "adamw"),
        "precision": "pure-bf16" if run.get("pure_bf16") else "mixed-bf16",
        "parallelism": "fsdp" if run.get("cards", 1) > 1 else "single",
        "sequence_length": run["seq"], "micro_batch_size": run["micro_batch"],
        "gradient_accumulation_steps": run.get("accum", 1), "gradient_checkpointing": run["checkpointing"],
        "framework": run.get("framework", STACK_FRAMEWORK[run["stack"]]),
        "behaviour": run.get("behaviour", {}),  # a behaviour of the script's own (specs/frameworks.yaml names)
        # timed with the FlashAttention-2 kernel, as every run was scored: their stacks predate PyTorch 2.13's
        # cuDNN preference on CC 9.0 / 10.0 (torchtitan's B200 table ran cuDNN, its source's note says; timing it
        # so would change how it is scored, after the score); a row whose script is read to pass SDPA a padding
        # mask names ``attention: sdpa`` and ``padded: true`` (its source's note says when that was read)
        "attention": run.get("attention", "flash"), "padded_batches": run.get("padded", False),
    })  # fmt: skip


def predict(run: dict[str, Any], data: dict[str, Any], catalog: Catalog, *, step_model: str = "per-op",
            utilization: float = 0.4, share: float = 1.0, memory_share: float | None = None,
            matmul_tflops: float | None = None) -> float:  # fmt: skip
    """Model tokens per second per GPU for one run (on a MIG instance: ``share`` of the SMs, ``memory_share`` of
    the bandwidth). ``matmul_tflops``: time it at that rate instead of the card's dense BF16 one (a run whose
    matmuls ran in another precision: the MIG entries' ``matmul_rate_candidates``)."""
    card = catalog.card(run["card"])
    if matmul_tflops is not None:
        card = card.model_copy(update={"bf16_dense_tflops": card.bf16_dense_tflops.model_copy(
            update={"value": matmul_tflops})})  # fmt: skip
    model = run_model(data, run["model"], catalog)
    job = run_job(run)
    p = job_parameters(model, job)
    tb = trained_bytes(job.method, job.optimizer, job.precision)
    n = int(run.get("cards", 1))
    mem = [memory_share if memory_share is not None else share] * n
    comp = compute(job, model, p, tb, [(card, share)] * n, utilization, 1, True, memory_shares=mem,
                   step_model=step_model)  # fmt: skip
    assert comp.seconds_per_step
    return comp.tokens_per_step / comp.seconds_per_step


def measured(run: dict[str, Any]) -> float:
    if "tokens_per_s_per_gpu" in run:
        return float(run["tokens_per_s_per_gpu"])
    return float(run["seq"] * run["micro_batch"] * run.get("accum", 1)) / float(run["seconds_per_step"])


def score(step_model: str = "per-op", path: Path | None = None, catalog: Catalog | None = None) -> list[Scored]:
    data = load_runs(path)
    catalog = catalog or default_catalog()
    held = set(data["held_apart"])
    seen = set(data.get("seen", []))
    return [
        Scored(r["from"], r["card"], r["model"], r["method"], r["seq"], int(r.get("cards", 1)), measured(r),
               predict(r, data, catalog, step_model=step_model), r["from"] in held, r.get("scored", True),
               r["from"] in seen, run_job(r).framework)
        for r in data["runs"]
    ]  # fmt: skip


def by_source(rows: list[Scored]) -> dict[str, tuple[int, float, float]]:
    """(runs, median |error|, worst |error|) per source, scored rows only."""
    out: dict[str, tuple[int, float, float]] = {}
    for src in dict.fromkeys(r.source for r in rows):
        errs = [abs(r.error) for r in rows if r.source == src and r.scored]
        if errs:
            out[src] = (len(errs), statistics.median(errs), max(errs))
    return out


_FIGURES_HEAD = f"{'measured':>10}{'model':>10}{'error':>8}"


def _figures(r: Scored) -> str:
    """A row's measured and modelled tokens/s and its error, as both tables print them (a fit row says so)."""
    return f"{r.measured:>10.0f}{r.predicted:>10.0f}{r.error:>+8.1%}" + ("" if r.scored else "  (fit, not scored)")


def table(rows: list[Scored]) -> str:
    """The validation table as text: each run, then median and worst by source, calibration and held apart."""
    lines = [f"{'source':<22}{'card':<16}{'model':<17}{'method':<7}{'seq':>6}{'gpus':>5}{_FIGURES_HEAD}"]
    lines += [f"{r.source:<22}{r.card:<16}{r.model:<17}{r.method:<7}{r.seq:>6}{r.cards:>5}{_figures(r)}" for r in rows]
    lines.append("")
    for src, (n, med, worst) in by_source(rows).items():
        mine = [r for r in rows if r.source == src]
        role = ("seen" if any(r.seen for r in mine) else "held apart" if any(r.held_apart for r in mine)
                else "calibration")  # fmt: skip
        lines.append(f"{src:<22} {role:<12} n={n:<3} median {med:6.1%}  worst {worst:6.1%}")
    def group(r: Scored) -> str:
        return "all calibration" if not r.held_apart else ("all seen (changed after scoring)" if r.seen
                                                           else "all held apart (blind)")  # fmt: skip

    for label in ("all calibration", "all held apart (blind)", "all seen (changed after scoring)"):
        errs = [abs(r.error) for r in rows if r.scored and group(r) == label]
        if errs:
            lines.append(f"{label:<33} n={len(errs):<3} median {statistics.median(errs):6.1%}  worst {max(errs):6.1%}")
    errs = [abs(r.error) for r in rows if r.scored]
    lines.append(f"{'all':<33} n={len(errs):<3} median {statistics.median(errs):6.1%}  worst {max(errs):6.1%}")
    return "\n".join(lines)


@dataclass(frozen=True)
class EditionScored(Scored):
    """One row timed on one candidate edition (``card``) of a card its source does not name, or with a candidate
    setting (``setting``) its source does not say: a report, not a score. ``scored_card`` is the edition the
    committed scoring takes for the row."""

    scored_card: str = ""
    setting: str = ""  # "" for the row's own settings; else the candidate's words ("padded mask")


def card_candidates(path: Path | None = None) -> dict[str, dict[str, list[str]]]:
    """Per source, each card its rows are scored on with every candidate edition they are also reported against,
    the scored one first (the source's ``card_candidates``, for a source that names the chip but not the edition)."""
    out: dict[str, dict[str, list[str]]] = {}
    for name, src in load_runs(path)["sources"].items():
        named = {card: [card, *others] for card, others in src.get("card_candidates", {}).items() if card != "note"}
        if named:
            out[name] = named
    return out


def score_editions(step_model: str = "per-op", path: Path | None = None,
                   catalog: Catalog | None = None) -> list[EditionScored]:  # fmt: skip
    """The rows of the sources with ``card_candidates``, once on each candidate edition (the house rule for a
    source that does not say which counter it printed: report it against each). A report beside ``score``, which it
    leaves as it is: the scored edition's rows are the committed scoring's, the others are only reported."""
    data = load_runs(path)
    catalog = catalog or default_catalog()
    held, seen = set(data["held_apart"]), set(data.get("seen", []))
    candidates = card_candidates(path)
    settings = setting_candidates(path)
    return [
        EditionScored(r["from"], card, r["model"], r["method"], r["seq"], int(r.get("cards", 1)), measured(r),
                      predict({**r, "card": card, **extra}, data, catalog, step_model=step_model), r["from"] in held,
                      r.get("scored", True), r["from"] in seen, scored_card=r["card"], setting=words)
        for r in data["runs"]
        for card in candidates.get(r["from"], {}).get(r["card"], [])
        for words, extra in (("", {}), *settings.get(r["from"], {}).get(r["card"], ()))
    ]  # fmt: skip


def setting_candidates(path: Path | None = None) -> dict[str, dict[str, tuple[tuple[str, dict[str, Any]], ...]]]:
    """Per source, each scored card whose rows are also reported with candidate settings the source does not state
    (its ``setting_candidates``: {card: {words: {row fields}}}), on every candidate edition of that card."""
    out: dict[str, dict[str, tuple[tuple[str, dict[str, Any]], ...]]] = {}
    for name, src in load_runs(path)["sources"].items():
        named = {card: tuple(sets.items()) for card, sets in src.get("setting_candidates", {}).items()
                 if card != "note"}  # fmt: skip
        if named:
            out[name] = named
    return out


def editions_table(rows: list[EditionScored]) -> str:
    """The edition report as text: each row's model and error on each candidate edition, then per source and scored
    card the median and worst |error| on each candidate (scored rows only, as ``by_source``)."""
    lines = [f"{'source':<22}{'scored on':<16}{'edition':<16}{'model':<17}{'method':<7}{_FIGURES_HEAD}"]
    lines += [f"{r.source:<22}{r.scored_card:<16}{r.card:<16}{r.model:<17}{r.method:<7}{_figures(r)}"
              f"{'  ' + r.setting if r.setting else ''}" for r in rows]  # fmt: skip
    lines.append("")
    for key in dict.fromkeys((r.source, r.scored_card, r.card, r.setting) for r in rows):
        errs = [abs(r.error) for r in rows if (r.source, r.scored_card, r.card, r.setting) == key and r.scored]
        if errs:
            role = "scored" if key[1] == key[2] and not key[3] else "reported"
            lines.append(f"{key[0]:<22} {key[1]:<15} as {key[2]:<15} {role:<9} n={len(errs):<3} median "
                         f"{statistics.median(errs):6.1%}  worst {max(errs):6.1%}"
                         f"{'  with ' + key[3] if key[3] else ''}")  # fmt: skip
    return "\n".join(lines)


def _bisect(fn: Callable[[float], float], lo: float, hi: float, steps: int = 40) -> float:
    """The x in [lo, hi] where the increasing ``fn`` crosses 0."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        if fn(mid) > 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def fit_constants(path: Path | None = None, catalog: Catalog | None = None) -> dict[str, float]:
    """Refit the FITTED constants of specs/efficiency.yaml on the CALIBRATION runs only (never the held-apart):

    1. dequant_bandwidth_fraction: each Q-LoRA row's extra time per micro-batch over the LoRA row of the same
       model and sequence is the dequantisation's; its modelled bytes over that time over the card's bandwidth,
       median over the pairs;
    2. sustained_compute_fraction per architecture: the factor on compute-bound ops that makes the median
       model/measured ratio 1 on that architecture's calibration runs (others: the mean);
    3. launch eager_us: the launch cost that makes the launch-bound row (``scored: false``) read its measurement.
    Returns the values; tests check that the shipped table holds them.
    """
    data = load_runs(path)
    catalog = catalog or default_catalog()
    held = set(data["held_apart"])
    calib = [r for r in data["runs"] if r["from"] not in held]
    base = efficiency()
    out: dict[str, float] = {}
    try:
        # 1. dequantisation from Q-LoRA minus LoRA pairs (independent of the other constants)
        fractions = []
        for q in (r for r in calib if r["method"] == "qlora"):
            lora = next((r for r in calib if r["method"] == "lora" and r["model"] == q["model"]
                         and r["seq"] == q["seq"] and r["card"] == q["card"]), None)  # fmt: skip
            if lora is None:
                continue
            extra = (float(q["seconds_per_step"]) - float(lora["seconds_per_step"])) / q.get("accum", 1)
            model = run_model(data, q["model"], catalog)
            weights = sum(m.weights for m in model.linear_modules())
            passes = 3 if q["checkpointing"] else 2
            moved = weights * (NF4_DQ_BYTES + 2.0) * passes
            bw = catalog.card(q["card"]).memory_bandwidth_gb_s.require("bandwidth") * 1e9
            if extra > 0:
                fractions.append(moved / (extra * bw))
        eff = replace(base, dequant_bandwidth=statistics.median(fractions) if fractions else base.dequant_bandwidth)
        out["dequant_bandwidth_fraction"] = eff.dequant_bandwidth
        # 2 and 3, twice: the launch cost moves the short rows a little, the sustained fraction the rest
        for _ in range(2):
            sustained = dict(eff.sustained)
            for arch in ("Ampere", "Hopper"):
                rows = [r for r in calib if r.get("scored", True)
                        and eff.arch(catalog.card(r["card"]).architecture) == arch]  # fmt: skip
                if not rows:
                    continue

                def bias(f: float, rows: list[dict[str, Any]] = rows, arch: str = arch, eff: Efficiency = eff,
                         sustained: dict[str, float] = sustained) -> float:  # fmt: skip
                    set_override(replace(eff, sustained={**sustained, arch: f}))
                    return statistics.median(predict(r, data, catalog) / measured(r) for r in rows) - 1

                sustained[arch] = _bisect(bias, 0.2, 1.5)
            fitted = [sustained[a] for a in ("Ampere", "Hopper")]
            for arch in sustained:
                if arch not in ("Ampere", "Hopper"):
                    sustained[arch] = statistics.mean(fitted)
            eff = replace(eff, sustained=sustained)
            launch_rows = [r for r in calib if not r.get("scored", True)]
            if launch_rows:
                row = launch_rows[0]

                def slow(us: float, row: dict[str, Any] = row, eff: Efficiency = eff) -> float:
                    set_override(replace(eff, launch_us={**eff.launch_us, row["stack"]: us}))
                    return measured(row) / predict(row, data, catalog) - 1

                eff = replace(eff, launch_us={**eff.launch_us, row["stack"]: _bisect(slow, 0.5, 200.0)})
        out.update({f"sustained.{k}": v for k, v in eff.sustained.items()})
        out["launch.eager_us"] = eff.launch_us["eager"]
    finally:
        set_override(None)
    return out


@dataclass(frozen=True)
class MigScored:
    """One MIG row: an instance's throughput over the whole instance's, measured and modelled (issue 24 item 4)."""

    source: str
    card: str
    profile: str
    micro_batch: int
    seq: int
    sm_share: float  # the instance's SMs over the whole instance's
    measured: float
    predicted: float
    tolerance: float
    whole_ms: float = 0.0  # the whole instance's step, measured (ms): not scored, the runs' precision is not BF16
    whole_model_ms: float = 0.0  # the same step, modelled

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1

    @property
    def within(self) -> bool:
        return abs(self.error) <= self.tolerance


def _instance_rate(run: dict[str, Any], profile: str, data: dict[str, Any], catalog: Catalog,
                   matmul_tflops: float | None = None) -> float:  # fmt: skip
    """Model tokens/s of ``run`` on one MIG instance: its SMs over the card's, its memory slices over the grid's."""
    card = catalog.card(run["card"])
    assert card.mig and card.sm_count and card.sm_count.value
    p = card.mig.profile(profile)
    assert p.sm_count.value
    return predict(run, data, catalog, share=p.sm_count.value / card.sm_count.value,
                   memory_share=p.placement.size / card.mig.grid_units, matmul_tflops=matmul_tflops)  # fmt: skip


def mig_rate_candidates(path: Path | None = None) -> list[str]:
    """The matmul rates the MIG entries are also reported at (their ``matmul_rate_candidates``), by name."""
    names = (m.get("matmul_rate_candidates", {}) for m in load_runs(path)["mig"] if "rows" in m)
    return list(dict.fromkeys(k for c in names for k in c if k != "note"))


def score_mig(path: Path | None = None, catalog: Catalog | None = None, *, rate: str | None = None
              ) -> list[MigScored]:  # fmt: skip
    """Score the ``mig`` entries that carry ``rows`` (step times or samples/s per profile at one batch and sequence):
    the rule is the data file's (measured: whole step time / instance step time, or instance samples/s / whole
    samples/s; modelled: tokens/s on the instance's SM share and memory slices over tokens/s on the whole instance's).
    ``rate``: the same rows with the matmuls timed at one of the entry's ``matmul_rate_candidates`` (the runs are
    FP32 and do not say which rate their matmuls ran at); None: the committed scoring, at the card's BF16 rate.
    """
    data = load_runs(path)
    catalog = catalog or default_catalog()
    out: list[MigScored] = []
    for m in (x for x in data["mig"] if "rows" in x):
        card = catalog.card(m["card"])
        assert card.mig
        whole_p = card.mig.profile(m["whole"])
        tflops = None if rate is None else float(m["matmul_rate_candidates"][rate]["tflops"])
        for row in m["rows"]:
            run = {**m, "micro_batch": row["micro_batch"], "seq": row["seq"], "cards": 1, "accum": 1}
            values = row[m["measure"]]
            whole_model = _instance_rate(run, m["whole"], data, catalog, tflops)
            for profile, value in values.items():
                if profile == m["whole"]:
                    continue
                meas = values[m["whole"]] / value if m["measure"] == "step_ms" else value / values[m["whole"]]
                sms = card.mig.profile(profile).sm_count.value
                assert sms and whole_p.sm_count.value
                whole_ms = (values[m["whole"]] if m["measure"] == "step_ms"
                            else 1000.0 * row["micro_batch"] / values[m["whole"]])  # fmt: skip
                out.append(MigScored(m["from"], m["card"], profile, int(row["micro_batch"]), int(row["seq"]),
                                     sms / whole_p.sm_count.value, meas,
                                     _instance_rate(run, profile, data, catalog, tflops) / whole_model,
                                     float(m["tolerance"]), whole_ms,
                                     1000.0 * row["micro_batch"] * row["seq"] / whole_model))  # fmt: skip
    return out


def mig_table(rows: list[MigScored]) -> str:
    """The MIG check as text: each row, then per source and profile the median error and 7 x the 1g ratio."""
    lines = [f"{'source':<18}{'card':<16}{'profile':<9}{'batch':>6}{'seq':>5}{'SMs':>7}{'measured':>10}{'model':>8}"
             f"{'error':>8}"]  # fmt: skip
    for r in rows:
        mark = "" if r.within else f"  MISS (tolerance {r.tolerance:.0%})"
        lines.append(f"{r.source:<18}{r.card:<16}{r.profile:<9}{r.micro_batch:>6}{r.seq:>5}{r.sm_share:>7.3f}"
                     f"{r.measured:>10.3f}{r.predicted:>8.3f}{r.error:>+8.1%}{mark}")  # fmt: skip
    lines.append("")
    for src in dict.fromkeys(r.source for r in rows):
        errs = [abs(r.error) for r in rows if r.source == src]
        inside = sum(r.within for r in rows if r.source == src)
        lines.append(f"{src:<18} n={len(errs):<3} median {statistics.median(errs):6.1%}  worst {max(errs):6.1%}"
                     f"  within tolerance {inside}/{len(errs)}")  # fmt: skip
        for r in rows:
            if r.source == src and r.profile.startswith("1g"):
                lines.append(f"  batch {r.micro_batch:>4} seq {r.seq:>4}: 7 x 1g over the whole instance: measured "
                             f"{7 * r.measured:.2f}, model {7 * r.predicted:.2f}")  # fmt: skip
        steps = {(r.micro_batch, r.seq): r for r in rows if r.source == src}
        lines.append("  whole instance's step (not scored): " + ", ".join(
            f"{b}x{q} {r.whole_ms:.0f} ms measured / {r.whole_model_ms:.0f} modelled" for (b, q), r in steps.items()))
    return "\n".join(lines)
