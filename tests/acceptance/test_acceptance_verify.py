"""verify classifies the recorded outputs of an 8 x H200 NVL box: healthy, a GPU at x8, P2P off (ACS on) and a
missing NVLink bridge; and a card in the wrong slot, a lower-power card, MIG and the measure tool's JSON."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from configurator.engine.acceptance import VerifyCancelled, collect, verify
from configurator.engine.acceptance.verify import VerifyReport
from tests.helpers import spy_on_checks


def _report(eight_gpu, folder: Path) -> VerifyReport:  # type: ignore[no-untyped-def]
    return verify(eight_gpu[2], collect([folder]))


def _failed(report: VerifyReport, category: str) -> list[str]:
    return [c.figure for c in report.checks if c.category == category and c.status == "fail"]


def test_healthy_box_passes_everything_it_measured(eight_gpu, fixtures: Path) -> None:  # type: ignore[no-untyped-def]
    report = _report(eight_gpu, fixtures / "healthy-8gpu")
    assert report.verdict == "pass"
    assert report.count("fail") == 0 and report.count("warn") == 0
    assert not report.problems and not report.unknown
    categories = {c.category for c in report.checks if c.status == "pass"}
    assert {"identity", "memory", "power limit", "pcie", "topology", "acs", "nccl", "job memory", "wall"} <= categories
    # the GPUs read Gen1 at idle (LnkSta 2.5GT/s downgraded); pcie.link.gen.max 5 makes that a pass, said so
    link = next(c for c in report.checks if c.figure == "GPU0 PCIe link")
    assert link.status == "pass" and "idle" in (link.cause or "")
    # 28 pairs + 2 NVLink domains + the job on all 8
    assert sum(1 for c in report.checks if c.category == "nccl") == 31


def test_gpu_at_x8_fails_its_link_and_the_pcie_pairs_through_it(eight_gpu, fixtures: Path) -> None:  # type: ignore[no-untyped-def]
    report = _report(eight_gpu, fixtures / "gpu-x8")
    assert report.verdict == "fail"
    assert _failed(report, "pcie") == ["GPU5 PCIe link"]
    link = next(c for c in report.checks if c.figure == "GPU5 PCIe link")
    assert link.slot == 6 and "x8" in (link.cause or "")
    failed = [c for c in report.checks if c.category == "nccl" and c.status == "fail"]
    assert failed and all(5 in _gpus(c.figure) or "job" in c.figure for c in failed)
    assert all("GPU5 link" in (c.cause or "") for c in failed)
    # NVLink pairs of GPU5 do not cross PCIe: they pass
    assert next(c for c in report.checks if c.figure == "all_reduce busbw, pair GPU4-GPU5").status == "pass"
    assert not _failed(report, "topology") and not _failed(report, "acs")


def test_p2p_off_is_traced_to_acs(eight_gpu, fixtures: Path) -> None:  # type: ignore[no-untyped-def]
    report = _report(eight_gpu, fixtures / "p2p-off")
    assert _failed(report, "acs") == ["ACS on PCIe bridges"]
    failed = [c for c in report.checks if c.category == "nccl" and c.status == "fail"]
    assert len(failed) == 17  # the 16 cross-socket pairs and the 8-GPU job; NVLink pairs pass
    assert all("ACS" in (c.cause or "") for c in failed)
    assert not _failed(report, "pcie") and not _failed(report, "topology")


def test_missing_bridge_fails_topology_and_the_domain_busbw(eight_gpu, fixtures: Path) -> None:  # type: ignore[no-untyped-def]
    report = _report(eight_gpu, fixtures / "missing-bridge")
    topo = [c for c in report.checks if c.category == "topology" and c.status == "fail"]
    assert len(topo) == 6 and all("missing NVLink bridge" in (c.cause or "") for c in topo)
    assert {a for c in topo for a in _gpus(c.figure)} == {4, 5, 6, 7}
    nccl = [c for c in report.checks if c.category == "nccl" and c.status == "fail"]
    assert nccl and all("missing NVLink bridge" in (c.cause or "") for c in nccl)
    assert not _failed(report, "acs") and not _failed(report, "pcie")


def _gpus(figure: str) -> set[int]:
    import re

    return {int(g) for g in re.findall(r"GPU(\d+)", figure)}


def _copy(fixtures: Path, tmp_path: Path, name: str = "healthy-8gpu") -> Path:
    folder = tmp_path / name
    shutil.copytree(fixtures / name, folder)
    return folder


def test_card_in_the_wrong_slot_and_a_lower_power_card(eight_gpu, fixtures: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = _copy(fixtures, tmp_path)
    csv = (folder / "query-gpu.csv").read_text().splitlines()
    # GPU2 is an RTX PRO 6000 Max-Q (300 W): another card, and a lower-power one
    csv[3] = csv[3].replace(
        "NVIDIA H200 NVL, 143771 MiB, 600.00 W, 600.00 W",
        "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition, 97887 MiB, 300.00 W, 300.00 W",
    )
    (folder / "query-gpu.csv").write_text("\n".join(csv) + "\n")
    (folder / "smi-q.txt").unlink()
    report = verify(eight_gpu[2], collect([folder]))
    card = next(c for c in report.checks if c.figure == "GPU2 card")
    assert card.status == "fail" and "lower-power card" in (card.cause or "") and card.slot == 3
    limit = next(c for c in report.checks if c.figure == "GPU2 power limit")
    assert limit.status == "fail" and "lower-power" in (limit.cause or "")
    assert next(c for c in report.checks if c.figure == "GPU2 nvidia-smi total memory").status == "fail"
    assert report.slot_status(3) == "fail" and report.slot_status(1) == "pass"


def test_cards_swapped_between_slots_are_named(eight_gpu, fixtures: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = _copy(fixtures, tmp_path)
    (folder / "smi-q.txt").unlink()
    csv = (folder / "query-gpu.csv").read_text().splitlines()
    csv[1] = csv[1].replace("NVIDIA H200 NVL", "NVIDIA H100 NVL").replace("143771", "95830")
    (folder / "query-gpu.csv").write_text("\n".join(csv) + "\n")
    report = verify(eight_gpu[2], collect([folder]))
    card = next(c for c in report.checks if c.figure == "GPU0 card")
    assert card.status == "fail" and card.cause == "another card than the build's"


def test_too_few_gpus_and_a_cross_socket_label(eight_gpu, fixtures: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = _copy(fixtures, tmp_path)
    (folder / "smi-q.txt").unlink()
    lines = (folder / "query-gpu.csv").read_text().splitlines()
    (folder / "query-gpu.csv").write_text("\n".join(lines[:-1]) + "\n")  # GPU7 fell off the bus
    topo = (folder / "topo.txt").read_text().splitlines()
    cells = topo[1].split("\t")
    cells[5] = "NODE"  # GPU0-GPU4 planned SYS (other socket): the card sits under the wrong CPU
    topo[1] = "\t".join(cells)
    (folder / "topo.txt").write_text("\n".join(topo))
    report = verify(eight_gpu[2], collect([folder]))
    missing = next(c for c in report.checks if c.figure == "GPU7 card")
    assert missing.status == "fail" and "not seen by the driver" in (missing.cause or "")
    link = next(c for c in report.checks if c.figure == "GPU0-GPU4 link")
    assert link.status == "fail" and "another slot" in (link.cause or "")


def test_mig_profiles_and_the_measure_tool_on_the_default_build(default_build, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _build, _result, pred = default_build
    (tmp_path / "mig-lgip.txt").write_text(LGIP_RTX)
    qlora = pred.jobs[1]
    (tmp_path / "job-1.json").write_text(
        MEASURE.replace("@NAME@", qlora.name)
        .replace("@USED@", str(qlora.nvidia_smi_gb + 0.4))
        .replace("@ALLOC@", str(qlora.peak_allocated_gb - 0.3))
    )
    (tmp_path / "job-0.json").write_text(
        '{"tool": "configurator-measure", "format": 1, "jobs": [{"name": '
        f'"{pred.jobs[0].name}", "status": "skipped", "reason": "runs on 2 cards: '
        'needs torchrun"}]}'
    )
    report = verify(pred, collect([tmp_path]))
    mig = [c for c in report.checks if c.category == "mig"]
    assert mig and all(c.status == "pass" for c in mig if c.gpu == 2)
    mem = [c for c in report.checks if c.job == qlora.name and c.category == "job memory"]
    assert [c.status for c in mem] == ["pass", "pass"]
    assert report.versions["torch"] == "2.9.1"
    lora = next(c for c in report.checks if c.job == pred.jobs[0].name and c.category == "job memory")
    assert lora.status == "missing" and "torchrun" in (lora.cause or "")


def test_out_of_memory_fails_the_job(default_build, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pred = default_build[2]
    (tmp_path / "job.json").write_text(
        '{"tool": "configurator-measure", "format": 1, "jobs": [{"name": "70B QLoRA", '
        '"status": "oom", "reason": "CUDA out of memory"}]}'
    )
    report = verify(pred, collect([tmp_path]))
    check = next(c for c in report.checks if c.job == "70B QLoRA" and c.category == "job memory")
    assert check.status == "fail" and check.measured == "out of memory"


def test_nothing_readable_is_all_missing_with_the_problems_listed(eight_gpu, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "topo.txt").write_text("GPU0\tGPU1\nGPU0\tX\tBOGUS\n")
    (tmp_path / "notes.txt").write_text("the fans were loud")
    report = verify(eight_gpu[2], collect([tmp_path]))
    assert report.verdict == "missing"
    assert any("topo.txt" in p and "BOGUS" in p for p in report.problems)
    assert any(p.endswith("notes.txt") for p in report.unknown)


def test_a_file_that_is_no_result_is_listed_with_the_unreadable_ones(eight_gpu, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Whatever its name ends with; the kit's own records beside the results (versions.txt, measure.py's console
    log, a failed step's stderr) are not results either, and are no problem."""
    for name in ("junk.txt", "meter.jpg", "versions.txt", "job-0.log", "topo.txt.err"):
        (tmp_path / name).write_text("nothing a tool printed")
    report = verify(eight_gpu[2], collect([tmp_path]))
    listed = sorted(Path(p.split(": ")[0]).name for p in report.problems)
    assert listed == ["junk.txt", "meter.jpg"]
    assert all("not a result verify reads" in p for p in report.problems)
    assert report.nothing_measured and report.verdict == "missing"


LGIP_RTX = """+-------------------------------------------------------------------------------+
| GPU instance profiles:                                                        |
| GPU   Name               ID    Instances   Memory     P2P    SM    DEC   ENC  |
|                                Free/Total   GiB              CE    JPEG  OFA  |
|===============================================================================|
|   2  MIG 1g.24gb         14     4/4        23.12      No     46     1     1   |
|                                                               1     1     0   |
+-------------------------------------------------------------------------------+
|   2  MIG 1g.24gb+me      21     1/1        23.12      No     46     1     1   |
|                                                               1     1     1   |
+-------------------------------------------------------------------------------+
|   2  MIG 2g.48gb          5     2/2        46.50      No     94     2     2   |
|                                                               2     2     0   |
+-------------------------------------------------------------------------------+
|   2  MIG 4g.96gb          0     1/1        93.38      No     188    4     4   |
|                                                               4     4     1   |
+-------------------------------------------------------------------------------+
"""

MEASURE = """{"tool": "configurator-measure", "format": 1,
 "device": {"name": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "total_gb": 102.6},
 "versions": {"python": "3.12.3", "torch": "2.9.1", "transformers": "4.57.1"},
 "jobs": [{"name": "@NAME@", "gpu": 2, "status": "ok", "peak_allocated_gb": @ALLOC@, "peak_reserved_gb": 53.0,
           "device_used_gb": @USED@, "step_seconds": 21.4, "tokens_per_second": 95.7, "layers_run": 80,
           "layers_full": 80}]}
"""


def test_cards_in_each_others_slots(default_build, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # the default build plans H200 NVL in slots 1-2 and the RTX PRO 6000 in slot 3; the shop put the RTX first
    (tmp_path / "query-gpu.csv").write_text(
        "index, pci.bus_id, name, memory.total [MiB], power.limit [W], power.max_limit [W]\n"
        "0, 00000000:18:00.0, NVIDIA RTX PRO 6000 Blackwell Server Edition, 97887 MiB, 600.00 W, 600.00 W\n"
        "1, 00000000:2A:00.0, NVIDIA H200 NVL, 143771 MiB, 600.00 W, 600.00 W\n"
        "2, 00000000:3B:00.0, NVIDIA H200 NVL, 143771 MiB, 600.00 W, 600.00 W\n"
    )
    report = verify(default_build[2], collect([tmp_path]))
    first = next(c for c in report.checks if c.figure == "GPU0 card")
    assert first.status == "fail" and "wrong slot" in (first.cause or "") and "slot 3" in (first.cause or "")
    assert next(c for c in report.checks if c.figure == "GPU1 card").status == "pass"


def test_dcgm_per_mig_instance_checks_a_mig_job(evaluate_shipped, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from configurator.catalog.loader import default_catalog
    from configurator.engine.acceptance import predict

    build, result = evaluate_shipped("seed-mig-four-tenants.yaml")
    pred = predict(build, result, default_catalog())
    job = pred.jobs[0]
    assert job.mig == "1g.24gb"
    mib = job.nvidia_smi_gb * 1e9 / 2**20
    lines = [f'DCGM_FI_DEV_FB_USED{{gpu="0",UUID="GPU-x",GPU_I_PROFILE="1g.24gb",GPU_I_ID="{i}"}} {mib:.0f}'
             for i in (1, 2, 5, 6)]  # fmt: skip
    (tmp_path / "dcgm-exporter.txt").write_text("\n".join(lines) + "\n")
    report = verify(pred, collect([tmp_path]))
    checks = [c for c in report.checks if c.category == "job memory"]
    assert len(checks) == 4 and all(c.status == "pass" and "DCGM" in c.figure for c in checks)


def test_nccl_files_named_anyhow_match_by_bus_id_and_ipmi_reads_the_wall(eight_gpu, fixtures: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    folder = _copy(fixtures, tmp_path)
    (folder / "nccl" / "all_reduce_gpus-0-4.txt").rename(folder / "nccl" / "run17.txt")
    (folder / "wall-meter.txt").unlink()
    ipmi = ("Instantaneous power reading:                  6890 Watts\nMinimum during sampling period:"
            "                 410 Watts\nMaximum during sampling period:               9950 Watts\n")  # fmt: skip
    (folder / "wall-ipmi.txt").write_text(ipmi.replace("6890", "5120") + ipmi)
    report = verify(eight_gpu[2], collect([folder]))
    pair = next(c for c in report.checks if c.figure == "all_reduce busbw, pair GPU0-GPU4")
    assert pair.status == "pass" and pair.value is not None
    wall = next(c for c in report.checks if c.category == "wall")
    assert wall.status == "pass" and wall.value == 6890  # the instantaneous readings, not the BMC's all-time maximum


def test_results_of_a_bigger_machine_warn_on_the_gpu_count(default_build, fixtures: Path) -> None:  # type: ignore[no-untyped-def]
    report = verify(default_build[2], collect([fixtures / "healthy-8gpu"]))
    count = next(c for c in report.checks if c.figure == "GPU count")
    assert count.status == "warn" and count.measured == "8" and count.expected == "3"
    assert next(c for c in report.checks if c.figure == "GPU2 card").status == "fail"  # an H200 where the RTX goes


def test_collect_reports_each_file_and_stops_when_cancelled(fixtures: Path) -> None:
    """The window's progress bar and Cancel (ui/shell/verify_dialog.py) rest on these two hooks."""
    folder = fixtures / "gpu-x8"
    total = sum(1 for p in folder.rglob("*") if p.is_file())
    steps: list[tuple[int, int, str]] = []
    whole = collect([folder], on_progress=lambda done, n, what: steps.append((done, n, what)))
    assert [s[0] for s in steps] == list(range(total + 1)) and {s[1] for s in steps} == {total}
    assert steps[-1][2] == "" and all(Path(s[2]).is_file() for s in steps[:-1])
    assert whole == collect([folder])  # the hooks change nothing of what is read
    cancel = threading.Event()

    def stop_after_three(done: int, n: int, what: str) -> None:
        if done == 3:
            cancel.set()  # as Cancel does from the GUI thread while the worker reads the fourth file

    part = collect([folder], on_progress=stop_after_three, cancel=cancel)
    assert len(part.files) + len(part.problems) + len(part.unknown) == 4  # the fourth read, no fifth


def test_verify_stops_before_its_next_check_when_cancelled(eight_gpu, fixtures: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Cancel while checking (ui/shell/verify_dialog.py): no report, not one on part of the checks."""
    measurements = collect([fixtures / "gpu-x8"])
    cancel = threading.Event()

    def on_group(n: int) -> None:
        if n == 3:
            cancel.set()  # as Cancel does from the GUI thread while the worker checks the third group

    groups, jobs = spy_on_checks(monkeypatch, on_group)
    with pytest.raises(VerifyCancelled):
        verify(eight_gpu[2], measurements, cancel)
    assert len(groups) == 3 and jobs == []  # the third group finished, no fourth, no job scanned its samples
    with pytest.raises(VerifyCancelled):
        verify(eight_gpu[2], measurements, cancel)  # set before: nothing checked
    assert len(groups) == 3
    assert verify(eight_gpu[2], measurements, threading.Event()) == verify(eight_gpu[2], measurements)


def test_a_colocated_vllm_job_expects_what_nvidia_smi_shows(evaluate_shipped, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """TRL's colocated vLLM holds its share of the card in the training process: nvidia-smi and DCGM's FB_USED show
    the training's pool plus that share, so the expectation includes it (and says so); allocated stays the
    training's."""
    from configurator.catalog.loader import default_catalog
    from configurator.engine.acceptance import predict

    build, result = evaluate_shipped("rl-grpo-8b-lora-vllm-h100.yaml")
    pred = predict(build, result, default_catalog())
    job, res = pred.jobs[0], result.jobs[0]
    assert res.rl is not None and res.rl.generation_share_gb
    share, training = res.rl.generation_share_gb, res.cards[0].peak_reserved_gb
    assert job.generation_share_gb == pytest.approx(share, abs=0.01)
    assert job.nvidia_smi_gb == pytest.approx(training + share, abs=0.01)
    assert job.nvidia_smi_low_gb > share and job.peak_allocated_gb < training
    assert "colocated vLLM" in job.band_basis
    # a DCGM reading of the whole card's use (training + vLLM) lands in the band
    mib = (training + share) * 1e9 / 2**20
    (tmp_path / "dcgm-exporter.txt").write_text(f'DCGM_FI_DEV_FB_USED{{gpu="0",UUID="GPU-x"}} {mib:.0f}\n')
    check = next(c for c in verify(pred, collect([tmp_path])).checks if c.category == "job memory")
    assert check.status == "pass", check
