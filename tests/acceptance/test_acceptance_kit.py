"""The burn-in kit: written for a build, run here (no GPU, no nvidia-smi) it exits 0 and reports what it could
not measure; run with stand-ins for the tools that print the recorded outputs, its folder verifies."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine.acceptance import collect, predict, verify
from configurator.engine.acceptance.kit import write_kit
from configurator.paths import resource

TOOLS = [
    "sh",
    "mkdir",
    "tee",
    "dirname",
    "rm",
    "date",
    "id",
    "timeout",
    "tr",
    "wc",
    "grep",
    "uname",
    "cat",
    "tail",
    "sleep",
]


def _bin(tmp_path: Path) -> Path:
    """A PATH holding only basic POSIX tools and a python3 without torch (this test environment's)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    (folder / "python3").symlink_to(sys.executable)
    return folder


def _run(kit: Path, out: Path, path: Path, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(path), "HOME": str(kit), "STEP_LIMIT": "60", **(extra or {})}
    return subprocess.run(
        [str(path / "sh"), str(kit / "run.sh"), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_kit_files(eight_gpu, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    build, _result, pred = eight_gpu
    files = write_kit(tmp_path / "kit", build, pred, default_catalog(), resource("builds"))
    assert sorted(f.name for f in files) == [
        "README.md",
        "build.yaml",
        "expected.json",
        "gemm_probe.py",
        "jobs.json",
        "measure.py",
        "run.sh",
    ]
    run_sh = (tmp_path / "kit" / "run.sh").read_text()
    assert run_sh.startswith("#!/bin/sh") and os.access(tmp_path / "kit" / "run.sh", os.X_OK)
    assert subprocess.run(["sh", "-n", str(tmp_path / "kit" / "run.sh")], check=False).returncode == 0
    assert "curl" not in run_sh and "wget" not in run_sh and "git clone" not in run_sh  # no network
    assert run_sh.count("0,1,2,3,4,5,6,7") == 1 and "0,1 " in run_sh  # pairs and groups for nccl-tests
    jobs = json.loads((tmp_path / "kit" / "jobs.json").read_text())["jobs"]
    assert "torchrun" in jobs[0]["skip"]  # an 8-card job is not run by measure.py
    assert jobs[0]["hf_config"]["num_hidden_layers"] == 80


def test_kit_on_a_machine_without_gpus_exits_0_and_says_what_it_could_not_measure(
    default_build, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    build, _result, pred = default_build
    kit = tmp_path / "kit"
    write_kit(kit, build, pred, default_catalog(), resource("builds"))
    path = _bin(tmp_path)
    assert shutil.which("nvidia-smi", path=str(path)) is None
    done = _run(kit, tmp_path / "out", path)
    assert done.returncode == 0, done.stderr
    report = (tmp_path / "out" / "report.txt").read_text()
    for what in (
        "nvidia-smi not found",
        "lspci not found",
        "dcgmi not found",
        "nccl-tests all_reduce_perf not found",
        "torch not importable",
        "wall draw",
    ):
        assert f"NOT MEASURED: {what}" in report, what
    assert "NOT MEASURED: torch not importable by python3: each GPU's BF16 GEMM rate" in report
    assert "done: 7 item(s) not measured" in report
    # verify reads the folder and shows everything as not measured, with the kit's report beside it
    checks = verify(pred, collect([tmp_path / "out"]))
    assert checks.verdict == "missing" and checks.kit_report and "NOT MEASURED" in checks.kit_report
    from configurator.report.acceptance_text import render_verify

    text = render_verify(checks)
    assert "The burn-in kit could not measure:" in text and "nvidia-smi not found" in text


STUB_SMI = """#!/bin/sh
case "$*" in
  --query-gpu=*) cat "$FIX/query-gpu.csv" ;;
  -q) cat "$FIX/smi-q.txt" ;;
  "topo -m") cat "$FIX/topo.txt" ;;
  "mig -lgip") cat "$FIX/mig-lgip.txt" ;;
  --version) echo "NVIDIA-SMI version  : 570.133.20" ;;
  *) exit 9 ;;
esac
"""
STUB_ARP = """#!/bin/sh
name=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' '-')
cat "$FIX/nccl/all_reduce_gpus-$name.txt"
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")
def test_kit_with_the_tools_present_collects_a_folder_that_verifies(eight_gpu, fixtures: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    build, _result, pred = eight_gpu
    kit = tmp_path / "kit"
    write_kit(kit, build, pred, default_catalog(), resource("builds"))
    path = _bin(tmp_path)
    for name, text in {
        "nvidia-smi": STUB_SMI,
        "all_reduce_perf": STUB_ARP,
        "lspci": '#!/bin/sh\ncat "$FIX/lspci-vv.txt"\n',
        "dcgmi": '#!/bin/sh\ncat "$FIX/dcgm-dmon.txt"\n',
    }.items():
        (path / name).write_text(text)
        (path / name).chmod(0o755)
    out = tmp_path / "out"
    done = _run(kit, out, path, {"FIX": str(fixtures / "healthy-8gpu")})
    assert done.returncode == 0, done.stderr
    assert len(list((out / "nccl").glob("all_reduce_gpus-*.txt"))) == 31
    report = verify(pred, collect([out]))
    assert not report.problems, report.problems
    assert report.count("fail") == 0 and report.count("warn") == 0
    # the GEMM probe needs torch, which this python3 lacks: each GPU's rate is "not measured", with the reason
    assert {c.category for c in report.checks if c.status == "missing"} <= {"job speed", "wall", "compute"}


def test_measure_tool_without_torch_writes_a_skipped_job_verify_reads(default_build, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    build, _result, pred = default_build
    kit = tmp_path / "kit"
    write_kit(kit, build, pred, default_catalog(), resource("builds"))
    out = tmp_path / "measure" / "job-1.json"
    done = subprocess.run([sys.executable, str(kit / "measure.py"), "--jobs", str(kit / "jobs.json"), "--job", "1",
                           "--out", str(out), "--time-limit", "5"], capture_output=True, text=True, timeout=60,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert doc["tool"] == "configurator-measure" and doc["jobs"][0]["status"] == "skipped"
    assert "torch" in doc["jobs"][0]["reason"]
    report = verify(pred, collect([out.parent]))
    check = next(c for c in report.checks if c.job == "70B QLoRA" and c.category == "job memory")
    assert check.status == "missing" and "torch" in (check.cause or "")
    bad = subprocess.run([sys.executable, str(kit / "measure.py"), "--jobs", str(kit / "jobs.json"), "--job", "9",
                          "--out", str(out)], capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert bad.returncode == 2 and "cannot read job 9" in bad.stderr


def test_kit_without_the_tools_source_still_writes(eight_gpu, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # a bundled app has no .py source of the measurement tool: the kit is written without it and run.sh says so
    import configurator.engine.acceptance.kit as kit_module

    monkeypatch.setattr(kit_module, "MEASURE_SOURCE", tmp_path / "absent" / "measure.py")
    monkeypatch.setattr(kit_module, "GEMM_SOURCE", tmp_path / "absent" / "gemm_probe.py")
    build, _result, pred = eight_gpu
    files = write_kit(tmp_path / "kit", build, pred, default_catalog(), resource("builds"))
    assert not {"measure.py", "gemm_probe.py"} & {f.name for f in files}
    run_sh = (tmp_path / "kit" / "run.sh").read_text()
    assert "measure.py is not in the kit" in run_sh and "gemm_probe.py is not in the kit" in run_sh


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("rl-grpo-8b-lora-vllm-h100.yaml", ["GRPO step", "512 + 1024 tokens", "colocated vLLM's 30%"]),
        ("rl-dpo-8b-full-4x-h100.yaml", ["DPO step", "chosen and rejected"]),
    ],
)
def test_the_kit_does_not_time_an_rl_step_as_a_supervised_one(name: str, words: list[str], evaluate_shipped, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    """measure.py runs sequence x micro-batch supervised steps; a DPO / GRPO step's prediction (generation, prompt +
    completion tokens, the reference's forward) would be judged against it. The kit says why and what to measure."""
    build, result = evaluate_shipped(name)
    pred = predict(build, result, default_catalog())
    write_kit(tmp_path / "kit", build, pred, default_catalog(), resource("builds"))
    jobs = json.loads((tmp_path / "kit" / "jobs.json").read_text())["jobs"]
    assert jobs and all(all(w in j.get("skip", "") for w in words) for j in jobs)
    assert "measure.py times a supervised step" in jobs[0]["skip"] and "DCGM" in jobs[0]["skip"]
    assert "measure.py\" --jobs" not in (tmp_path / "kit" / "run.sh").read_text()  # no job is timed by it


def test_the_wall_meter_hints_give_no_figure_the_build_would_fail(evaluate_shipped, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The kit's run.sh and README and verify's hint showed '3480 W' as the reading's example, above this build's own
    fail limit (2,843 W): an example must not read as a failing figure, nor as a reading to copy."""
    import re

    build, result = evaluate_shipped("seed-mig-four-tenants.yaml")
    pred = predict(build, result, default_catalog())
    assert pred.power is not None
    write_kit(tmp_path / "kit", build, pred, default_catalog(), resource("builds"))
    run_sh = (tmp_path / "kit" / "run.sh").read_text()
    readme = (tmp_path / "kit" / "README.md").read_text()
    hint = next(c for c in verify(pred, collect([tmp_path / "none"])).checks if c.category == "wall").cause or ""
    texts = [next(ln for ln in run_sh.splitlines() if "missing_wall()" in ln), readme, hint]
    assert all("wall-meter.txt" in t and "<watts> W" in t for t in texts)
    watts = [float(w.replace(",", "")) for t in texts for w in re.findall(r"(\d[\d,]*)\s*W\b", t)]
    assert all(w <= pred.power.wall_max_w for w in watts), watts
