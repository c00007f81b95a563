"""Data safety and safe reading: no save loses or weakens a file, no read hangs or runs away.

Saves keep the target's mode, write through symlinks, give a new file the umask's mode, clean the temp files
a killed save left, and on a full disk (a small tmpfs, where the test may mount one) leave the old file as it
was; exports verify the PDF before it replaces the old one. Reads refuse devices, FIFOs and folders at once
and enforce the byte limit while reading.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from configurator.catalog.errors import FileError
from configurator.catalog.fileio import (
    TEMP_TAG,
    atomic_replace,
    atomic_write_bytes,
    clean_stale_temps,
    pdf_problem,
    safe_read_bytes,
    safe_read_text,
    temp_files_of,
)
from configurator.catalog.loader import default_catalog
from configurator.catalog.models import model_from_hf_config
from configurator.engine import evaluate
from configurator.engine.model.buildfile import load_build, save_build
from configurator.engine.sweep import fit_frontier

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "resources" / "builds" / "default.yaml"


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


# ---- saving ---------------------------------------------------------------------------------------


def test_save_keeps_the_target_mode(tmp_path: Path) -> None:
    target = tmp_path / "build.yaml"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o664)
    save_build(load_build(DEFAULT), target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o664
    assert load_build(target).name == load_build(DEFAULT).name


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_a_new_file_gets_the_umask_mode(tmp_path: Path, mask: int) -> None:
    old = os.umask(mask)
    try:
        save_build(load_build(DEFAULT), tmp_path / "new.yaml")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.yaml").stat().st_mode) == 0o666 & ~mask


def test_save_writes_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real" / "build.yaml"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    save_build(load_build(DEFAULT), link)
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_text(encoding="utf-8") != "old"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert not temp_files_of(real) and not temp_files_of(link)


def test_save_refuses_a_device_or_a_folder(tmp_path: Path) -> None:
    build = load_build(DEFAULT)
    with pytest.raises(FileError, match="a device"):
        save_build(build, "/dev/null")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    with pytest.raises(FileError, match="a folder"):
        save_build(build, tmp_path)


def test_stale_temp_files_of_dead_writers_are_cleaned(tmp_path: Path) -> None:
    target = tmp_path / "build.yaml"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".build.yaml.{dead_pid}.deadbeef{TEMP_TAG}"
    live = tmp_path / f".build.yaml.{os.getppid()}.cafef00d{TEMP_TAG}"  # a running process: maybe mid-save
    other = tmp_path / ".other.yaml.1.x.tmp"  # not ours: left alone
    for p in (stale, live, other):
        p.write_text("partial", encoding="utf-8")
    save_build(load_build(DEFAULT), target)
    assert not stale.exists() and live.exists() and other.exists()
    old = time.time() - 2 * 24 * 3600
    os.utime(live, (old, old))  # a day-old temp file is stale whoever wrote it
    assert clean_stale_temps(target) == 1 and not live.exists()


def test_a_save_killed_mid_write_leaves_the_old_file_and_its_temp_is_cleaned(tmp_path: Path) -> None:
    target = tmp_path / "build.yaml"
    save_build(load_build(DEFAULT), target)
    before = target.read_bytes()
    code = (
        "import sys, time\n"
        "from configurator.catalog.fileio import atomic_replace\n"
        "def produce(tmp):\n"
        "    tmp.write_bytes(b'half a file')\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(60)\n"
        f"atomic_replace({str(target)!r}, produce)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()
    assert target.read_bytes() == before
    assert len(temp_files_of(target)) == 1  # what kill -9 leaves ...
    save_build(load_build(DEFAULT), target)
    assert not temp_files_of(target)  # ... the next save removes


def test_a_failed_verification_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "sheet.pdf"
    target.write_bytes(b"the good old sheet")

    def produce(tmp: Path) -> None:
        tmp.write_bytes(b"%PDF-1.4\n" + b"x" * 500)  # no trailer: a PDF cut short

    with pytest.raises(FileError, match="not written whole"):
        atomic_replace(target, produce, pdf_problem, what="the build sheet")
    assert target.read_bytes() == b"the good old sheet"
    assert not temp_files_of(target)


def test_pdf_problem_spots_a_truncated_pdf(tmp_path: Path) -> None:
    from configurator.report.pdf import export_pdf

    build = load_build(DEFAULT)
    good = tmp_path / "good.pdf"
    export_pdf(good, build, evaluate(build))
    assert pdf_problem(good) is None
    data = good.read_bytes()
    for cut in (0, 100, len(data) // 2, len(data) - 10):
        part = tmp_path / f"cut{cut}.pdf"
        part.write_bytes(data[:cut])
        assert pdf_problem(part) is not None


def _mount_tmpfs(folder: Path, size: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs (a full disk) needs root")
    folder.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (no CAP_SYS_ADMIN in this container?): {proc.stderr.strip()}")


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 512 kB tmpfs holding a good build and a good sheet, filled to within a few kB of full."""
    folder = tmp_path / "small"
    _mount_tmpfs(folder, "512k")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(folder: Path, leave: int) -> None:
    filler = folder / "filler"
    with open(filler, "wb") as fh, contextlib.suppress(OSError):  # ENOSPC: the disk is now full
        fh.write(b"\0" * (1 << 20))
    size = filler.stat().st_size
    os.truncate(filler, max(0, size - leave))


def test_full_disk_save_keeps_the_old_file(full_disk: Path) -> None:
    target = full_disk / "build.yaml"
    save_build(load_build(DEFAULT), target)
    before = target.read_bytes()
    _fill(full_disk, 1024)
    with pytest.raises(FileError, match="No space left on device"):
        atomic_write_bytes(target, b"x" * 100_000, what="the build")
    assert target.read_bytes() == before
    assert not temp_files_of(target)


def test_full_disk_export_keeps_the_old_sheet(full_disk: Path) -> None:
    from configurator.report.pdf import export_pdf

    build = load_build(DEFAULT)
    result = evaluate(build)
    target = full_disk / "sheet.pdf"
    export_pdf(target, build, result)
    before = target.read_bytes()
    assert pdf_problem(target) is None
    _fill(full_disk, 4096)
    with pytest.raises(FileError):
        export_pdf(target, build, result)
    assert target.read_bytes() == before  # the old sheet, not a truncated new one
    assert not temp_files_of(target)


# ---- reading --------------------------------------------------------------------------------------


@pytest.mark.timeout(10)  # a hang guard: a device read would never end (the time is in benchmarks/)
@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused_at_once(path: str) -> None:
    with pytest.raises(FileError, match="a device"):
        safe_read_text(path)


@pytest.mark.timeout(10)  # a hang guard: a blocking open would wait for a writer for ever
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(FileError, match="FIFO"):
        safe_read_text(fifo)


def test_the_limit_holds_while_reading() -> None:
    """/proc files say st_size 0 and are regular: the limit must be counted on the bytes read."""
    assert Path("/proc/self/maps").stat().st_size == 0
    with pytest.raises(FileError, match="larger than 100 bytes"):
        safe_read_bytes("/proc/self/maps", limit=100)
    assert safe_read_bytes("/proc/self/maps", limit=10_000_000)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="a folder"):
        safe_read_text(tmp_path)


def test_nosuchuser_is_a_file_error() -> None:
    with pytest.raises(FileError, match="no such user"):
        safe_read_text("~nosuchuser-xyz/build.yaml")


# ---- the engine on hostile models -----------------------------------------------------------------


def test_fit_frontier_never_raises_on_fused_lora_targets() -> None:
    """qv on Phi-3 (fused qkv_proj) is a check in evaluate and no curve in the sweep, never an exception."""
    catalog = default_catalog()
    build = load_build(DEFAULT)
    phi = next(m for m, s in catalog.models.items() if s.fused_qkv)
    for method in ("lora", "full"):
        job = build.jobs[0].model_copy(
            update={
                "model": phi,
                "method": method,
                "cards": [build.cards[0].slot],
                "lora": build.jobs[0].lora.model_copy(update={"targets": "qv"}),
            }
        )
        b = build.model_copy(update={"jobs": [job]})
        frontier = fit_frontier(b, 0, catalog)
        if method == "lora":
            assert frontier is None
            assert any(c.code == "JOB_LORA_TARGETS" for c in evaluate(b, catalog).checks)
        else:  # a full fine-tune draws its own curves; only the LoRA comparison, which cannot be built, is left out
            assert frontier is not None and not any(c.label == "LoRA" for c in frontier.curves)


@pytest.mark.timeout(10)  # a hang guard: a loop over 10^9 layers would not end; the time is in benchmarks/
def test_a_billion_layers_is_refused_by_name_at_once() -> None:
    config = {
        "model_type": "qwen2_moe",
        "hidden_size": 2048,
        "num_hidden_layers": 10**9,
        "intermediate_size": 5632,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "vocab_size": 151936,
        "num_experts": 60,
        "num_experts_per_tok": 4,
        "moe_intermediate_size": 1408,
        "shared_expert_intermediate_size": 5632,
    }
    with pytest.raises(ValueError, match="num_hidden_layers"):
        model_from_hf_config(config, id="x", name="x", source="test")


def test_moe_layer_count_is_arithmetic_and_matches_the_rule() -> None:
    """moe_layers counts layer i when (i + 1) % step == 0 and i is not in mlp_only_layers, without a loop."""
    base = {
        "model_type": "qwen2_moe",
        "hidden_size": 64,
        "num_hidden_layers": 24,
        "intermediate_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "vocab_size": 100,
        "num_experts": 4,
        "num_experts_per_tok": 2,
        "moe_intermediate_size": 32,
        "shared_expert_intermediate_size": 64,
    }
    for step in (1, 2, 3, 5, 24):
        for only in ([], [0], [1, 3, 5], [23], list(range(24))):
            spec = model_from_hf_config(
                {**base, "decoder_sparse_step": step, "mlp_only_layers": only}, id="m", name="m", source="test"
            )
            expected = sum(1 for i in range(24) if i not in only and (i + 1) % step == 0)
            assert spec.moe_layers == expected, (step, only)
