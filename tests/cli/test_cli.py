"""Command line: the size report and its JSON, catalog listings, nccl-busbw, and clean exits on bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from configurator.cli import main
from configurator.engine.model.build import Assumptions
from configurator.engine.model.buildfile import load_build
from tests.helpers import BAD_BUILD, BAD_LINE

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "resources" / "builds" / "default.yaml"

CARD_KEYS = {
    "slot",
    "card",
    "mig",
    "capacity_gb",
    "weights_gb",
    "gradients_gb",
    "optimizer_gb",
    "activations_gb",
    "model_states_gb",
    "peak_allocated_gb",
    "peak_reserved_gb",
    "headroom_gb",
    "fits",
}
COLLECTIVE_KEYS = {"name", "kind", "payload_bytes", "bytes_per_card", "link", "seconds"}
CHECK_KEYS = {"severity", "code", "message"}


MIG_BUILD = """\
name: mig
chassis: generic-server-8
cards:
  - {slot: 1, card: h100-nvl, mig: [3g.47gb, 2g.24gb]}
jobs:
  - name: small
    model: llama-3.2-1b
    method: lora
    cards: [{slot: 1, instance: 1}]
"""


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _subprocess(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "configurator", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# ---------------------------------------------------------------- size


def test_size_prints_report_with_job_lines(capsys: pytest.CaptureFixture[str]) -> None:
    """`size default.yaml` prints a report with one 'Job:' line per job and exits 0."""
    build = load_build(DEFAULT)
    rc, out, err = _run(["size", str(DEFAULT)], capsys)
    assert rc == 0, err
    job_lines = [line for line in out.splitlines() if line.startswith("Job: ")]
    assert [line.split("  [")[0].removeprefix("Job: ") for line in job_lines] == [j.name for j in build.jobs]
    assert f"Build: {build.name}" in out
    assert "Topology" in out


def test_size_without_a_file_sizes_the_default_build(capsys: pytest.CaptureFixture[str]) -> None:
    """`configurator size` with no file sizes the preloaded default build."""
    rc, out, err = _run(["size"], capsys)
    assert rc == 0, err
    assert f"Build: {load_build(DEFAULT).name}" in out
    assert "Job: " in out


def test_size_json_has_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    """`size --json` is valid JSON with the per-job, per-card, check, communication and compute keys."""
    rc, out, err = _run(["size", str(DEFAULT), "--json"], capsys)
    assert rc == 0, err
    data = json.loads(out)
    assert {"jobs", "checks", "topology", "mig"} <= set(data)
    assert data["jobs"], "the default build has jobs"
    collectives = 0
    for job in data["jobs"]:
        assert {"name", "params_total", "params_trainable", "cards", "communication", "compute"} <= set(job)
        assert job["params_total"] > job["params_trainable"] > 0
        assert job["cards"]
        for card in job["cards"]:
            assert set(card) >= CARD_KEYS, CARD_KEYS - set(card)
            assert card["fits"] == (card["headroom_gb"] >= 0)
            assert card["peak_reserved_gb"] >= card["peak_allocated_gb"] > 0
        comm = job["communication"]
        assert "seconds_per_step" in comm
        for coll in comm["collectives"]:
            assert set(coll) >= COLLECTIVE_KEYS, COLLECTIVE_KEYS - set(coll)
            collectives += 1
        assert {"flops_per_step", "seconds_per_step"} <= set(job["compute"])
        assert job["compute"]["flops_per_step"] > 0
    assert collectives > 0, "the default build's multi-card job communicates"
    for check in data["checks"]:
        assert set(check) >= CHECK_KEYS
    assert {"slots", "matrix"} <= set(data["topology"])


def test_size_json_reports_mig_instances(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A job in a MIG instance shows the profile on its card row and the layout in `mig`."""
    path = tmp_path / "mig.yaml"
    path.write_text(MIG_BUILD, encoding="utf-8")
    rc, out, err = _run(["size", "--json", str(path)], capsys)
    assert rc == 0, err
    data = json.loads(out)
    row = data["jobs"][0]["cards"][0]
    assert row["mig"] == "2g.24gb"
    assert row["capacity_gb"] < 30
    (card,) = data["mig"]
    assert card["valid"] and [i["profile"] for i in card["instances"]] == ["3g.47gb", "2g.24gb"]
    assert card["instances"][1]["jobs"] == ["small"]
    assert any("nvidia-smi mig" in c for c in card["commands"])


def test_size_exits_1_when_the_build_has_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A loadable build whose job does not fit still prints the report, and exits 1 so scripts notice."""
    path = tmp_path / "big.yaml"
    path.write_text(
        "chassis: generic-server-8\ncards: [{slot: 1, card: l40s}]\n"
        "jobs: [{name: huge, model: llama-3.3-70b, method: full, cards: [1]}]\n",
        encoding="utf-8",
    )
    rc, out, _ = _run(["size", str(path)], capsys)
    assert rc == 1
    assert "JOB_DOES_NOT_FIT" in out


def test_size_subprocess_json() -> None:
    """The installed entry point (`python -m configurator size --json`) runs in a fresh process."""
    proc = _subprocess("size", "resources/builds/default.yaml", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [j["name"] for j in data["jobs"]] == [j.name for j in load_build(DEFAULT).jobs]


@pytest.mark.skipif(
    shutil.which("configurator", path=str(Path(sys.executable).parent)) is None,
    reason="console script not installed next to this interpreter",
)
def test_console_script_prints_report() -> None:
    """The `configurator` console script sizes the default build."""
    script = shutil.which("configurator", path=str(Path(sys.executable).parent))
    assert script is not None
    proc = subprocess.run([script, "size", str(DEFAULT)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "Job: " in proc.stdout


# ---------------------------------------------------------------- bad input


def test_bad_build_exits_2_with_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bad build exits 2 and names file, line and field on stderr, with no traceback."""
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_BUILD, encoding="utf-8")
    rc, out, err = _run(["size", str(path)], capsys)
    assert rc == 2
    assert out == ""
    assert f"{path}:{BAD_LINE}: jobs[0].method" in err
    assert "'qlora'" in err
    assert "Traceback" not in err


def test_bad_build_subprocess_has_no_traceback(tmp_path: Path) -> None:
    """In a real process, a bad build exits 2 with the line on stderr and no Python traceback."""
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_BUILD, encoding="utf-8")
    proc = _subprocess("size", str(path))
    assert proc.returncode == 2
    assert f"{path}:{BAD_LINE}: jobs[0].method" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "text",
    [
        "name: 2001-13-45\nchassis: generic-server-8\n",
        "chassis: generic-server-8\nx: &a [*a]\n",
        "chassis: generic-server-8\nname: " + "[" * 3000 + "]" * 3000 + "\n",
    ],
    ids=["impossible-date", "recursive-alias", "deep-nesting"],
)
def test_hostile_yaml_exits_2_without_traceback(tmp_path: Path, text: str) -> None:
    """YAML that used to escape as ValueError or RecursionError now exits 2 with a message, no traceback."""
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    proc = _subprocess("size", str(path))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {path}: 1 problem\n")
    assert "Traceback" not in proc.stderr


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Sizing a file that does not exist exits 2 with 'file not found' and the path."""
    missing = tmp_path / "nope.yaml"
    rc, _, err = _run(["size", str(missing)], capsys)
    assert rc == 2
    assert str(missing) in err and "file not found" in err
    assert "Traceback" not in err


def test_unknown_option_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown option to `size` is a usage error (exit 2) naming the option."""
    with pytest.raises(SystemExit) as info:
        main(["size", str(DEFAULT), "--no-such-option"])
    assert info.value.code == 2
    assert "--no-such-option" in capsys.readouterr().err


# ---------------------------------------------------------------- catalog


@pytest.mark.parametrize(
    ("kind", "expected"), [("cards", "h200-nvl"), ("models", "llama-3.3-70b"), ("chassis", "generic-server-8")]
)
def test_catalog_lists_ids(kind: str, expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`catalog cards|models|chassis` lists the catalog's ids, one per row."""
    rc, out, _ = _run(["catalog", kind], capsys)
    assert rc == 0
    first_words = [line.split()[0] for line in out.splitlines()[1:] if line.strip()]
    assert expected in first_words
    assert len(first_words) == len(set(first_words)) >= 3


@pytest.mark.parametrize(
    ("kind", "expected"), [("cards", "h200-nvl"), ("models", "llama-3.3-70b"), ("chassis", "generic-server-8")]
)
def test_catalog_json_parses(kind: str, expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`catalog KIND --json` is a JSON list of entries with their ids."""
    rc, out, _ = _run(["catalog", kind, "--json"], capsys)
    assert rc == 0
    entries: list[dict[str, Any]] = json.loads(out)
    assert expected in [e["id"] for e in entries]


# ---------------------------------------------------------------- nccl-busbw


def _nccl_row(size: int, oop_busbw: float, ip_busbw: float) -> str:
    """One all_reduce_perf row for 2 GPUs (busbw = algbw there), in nccl-tests' column widths."""

    def time_us(bw: float) -> str:
        t = size / (bw * 1e3) if bw > 0 else 10.0
        return f"{t:7.0f}" if t >= 10000 else f"{t:7.1f}" if t >= 100 else f"{t:7.2f}"

    return (
        f"{size:12d}  {size // 4:12d}     float     sum      -1  {time_us(oop_busbw)}  {oop_busbw:6.2f}  "
        f"{oop_busbw:6.2f}       0  {time_us(ip_busbw)}  {ip_busbw:6.2f}  {ip_busbw:6.2f}       0"
    )


def nccl_output() -> tuple[str, float]:
    """A realistic all_reduce_perf -b 8 -e 8G -f 2 -g 2 output and the busbw it should yield."""
    header = """\
# nThread 1 nGpus 2 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41213 on  gpu-node-1 device  0 [0x18] NVIDIA H200 NVL
#  Rank  1 Group  0 Pid  41213 on  gpu-node-1 device  1 [0x2a] NVIDIA H200 NVL
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
"""  # noqa: E501
    rows = []
    size = 8
    while size <= 8 * 2**30:
        bw = round(150.0 * size / (size + 4 * 2**20), 2)
        oop, ip = bw, round(bw * 0.99, 2)
        if size == 32 * 2**20:
            oop = 199.99  # a spike below 64 MiB: not a large message, must be ignored
        if size == 2 * 2**30:
            oop = 152.34  # the best large-message out-of-place figure
        if size == 2**30:
            ip = 180.0  # the in-place column: must be ignored
        rows.append(_nccl_row(size, oop, ip))
        size *= 2
    footer = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 61.2345 \n#\n"
    return header + "\n".join(rows) + "\n" + footer, 152.34


def test_nccl_fixture_is_realistic() -> None:
    """The fixture covers 8 B to 8 GiB in nccl-tests' layout, so the parser test below means something."""
    text, _ = nccl_output()
    rows = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert len(rows) == 31
    assert rows[0].split()[0] == "8" and rows[-1].split()[0] == str(8 * 2**30)
    assert all(len(r.split()) == 13 for r in rows)


def test_nccl_busbw_prints_large_message_out_of_place_max(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`nccl-busbw` prints the best out-of-place busbw among messages of 64 MiB or more, ready to paste."""
    text, expected = nccl_output()
    path = tmp_path / "allreduce.txt"
    path.write_text(text, encoding="utf-8")
    rc, out, err = _run(["nccl-busbw", str(path), "--link", "nvlink"], capsys)
    assert rc == 0, err
    assert f"busbw: {expected:.1f} GB/s" in out
    snippet = out.splitlines()[-1].strip()
    assert snippet.startswith("calibration:")
    assumptions = Assumptions.model_validate(yaml.safe_load(snippet))
    (cal,) = assumptions.calibration
    assert cal.link == "nvlink" and cal.busbw_gb_s == pytest.approx(expected, abs=0.05)
    assert cal.source == "allreduce.txt"


def test_nccl_busbw_needs_large_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An output that stops below 64 MiB is refused (exit 2) with how to rerun, not a small-message figure."""
    text, _ = nccl_output()
    small = "\n".join(line for line in text.splitlines() if line.startswith("#") or int(line.split()[0]) < 2**26)
    path = tmp_path / "small.txt"
    path.write_text(small, encoding="utf-8")
    rc, out, err = _run(["nccl-busbw", str(path)], capsys)
    assert rc == 2 and out == ""
    assert "-e 1G" in err


@pytest.mark.parametrize(
    "content",
    [b"hello, this is not an nccl-tests output\nat all\n", b"", b"\xff\xfe\x00garbage\x81"],
    ids=["text", "empty", "binary"],
)
def test_nccl_busbw_garbage_exits_2_with_a_sentence(
    tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    """Garbage given to `nccl-busbw` exits 2 with a plain sentence on stderr, no traceback."""
    path = tmp_path / "garbage.txt"
    path.write_bytes(content)
    rc, out, err = _run(["nccl-busbw", str(path)], capsys)
    assert rc == 2 and out == ""
    assert err.startswith("error: ")
    assert len(err.split()) >= 5
    assert "Traceback" not in err


def test_nccl_busbw_garbage_subprocess(tmp_path: Path) -> None:
    """In a real process, garbage for `nccl-busbw` exits 2 with the sentence and no traceback."""
    path = tmp_path / "garbage.txt"
    path.write_text("size count type\nnot numbers here\n", encoding="utf-8")
    proc = _subprocess("nccl-busbw", str(path))
    assert proc.returncode == 2
    assert "no all_reduce_perf rows" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_size_table_columns_align_with_long_card_ids_and_no_empty_bound(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["size", str(DEFAULT)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("memory per card, GB"):
            header_end = line.index("headroom") + len("headroom")
            row = lines[i + 1]
            number_end = row.rstrip().rsplit(" ", 1)[0].rstrip()
            assert len(number_end) == header_end, (line, row)  # the last number ends under "headroom"
    assert "FLOP/byte  ()" not in out


def test_size_classes_ops_on_a_card_with_an_estimated_rate_and_says_so(capsys) -> None:  # type: ignore[no-untyped-def]
    """The RTX PRO 6000 Server (no published dense BF16 rate): the step is timed at the catalog's estimate, so the
    roofline lines class its ops at that rate and label it, instead of "bound unknown: no published rate"."""
    assert main(["size", str(ROOT / "resources" / "builds" / "seed-mig-four-tenants.yaml")]) == 0
    out = capsys.readouterr().out
    assert "bound unknown" not in out
    assert "(rtx-pro-6000-server: compute at the estimated rate)" in out
