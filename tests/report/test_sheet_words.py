"""The build sheet and the text report say what the engine's result holds, in words a buyer reads: each job's
attention kernel as the engine chose it, no empty clause, no price-list id or code path on the customer's pages,
units on every catalog figure, link rates that never read as measured on this machine (and only where a job
communicates), DIMMs' binary labels beside their sum, sizes with enough digits, and the step time's phrase."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine import BuildResult, evaluate
from configurator.engine.model.build import Build
from configurator.engine.model.buildfile import load_build
from configurator.present.host_words import nvme_line, nvme_words, part_words, short_line, size_words, term_size_words
from configurator.present.link_words import link_rates_note
from configurator.report.sheet_acceptance import acceptance_section
from configurator.report.sheet_host import host_part_rows, host_section, host_sources_section
from configurator.report.sheet_jobs import job_section
from configurator.report.sheet_sources import assumptions_section, sources_section
from configurator.report.text import render
from tests.paths import ROOT

SHARED_RATE_WORDS = "typical measured (nccl-tests busbw, published)"


def _text(parts: list[str]) -> str:
    """The sheet's HTML parts as the text they print (the nowrap spans around numbers dropped)."""
    return re.sub(r"<[^>]+>", "", " ".join(parts))


@functools.cache
def _sized(name: str) -> tuple[Build, BuildResult]:
    build = load_build(ROOT / "resources" / "builds" / f"{name}.yaml")
    return build, evaluate(build)


def test_assumptions_name_the_kernel_each_job_is_timed_at() -> None:
    """Not one blanket kernel with a stale claim about the others: each job's own, read from its result."""
    build, result = _sized("default")
    text = "".join(assumptions_section(build, result))
    for job in result.jobs:
        assert job.compute is not None and job.compute.attention_kernel
        assert f"{job.name}: {job.compute.attention_kernel}" in text
    assert "70B LoRA, FSDP over the bridge: cuDNN" in text and "70B QLoRA: FlashAttention-2" in text
    assert "safe side" not in text and "Attention is timed as FlashAttention-2" not in text


def test_precision_line_has_no_empty_clause(tmp_path: Path) -> None:
    """gpt-oss with its experts kept in MXFP4 under BF16 compute: no support rule applies, so no 'support:' clause
    (it printed 'support: .')."""
    text = (ROOT / "resources" / "builds" / "moe-gpt-oss-20b-lora-h100.yaml").read_text()
    assert "base_weights: bf16" in text
    (tmp_path / "mxfp4.yaml").write_text(text.replace("base_weights: bf16", "base_weights: mxfp4"))
    build = load_build(tmp_path / "mxfp4.yaml")
    result = evaluate(build)
    text = "".join(job_section(0, result.jobs[0], build.jobs[0]))
    assert "Precision: BF16 compute, base mxfp4." in text
    assert "support: ." not in text and "support: <" not in text


def test_customer_pages_carry_no_part_id_or_code_path() -> None:
    """The parts list, the host section and the acceptance section (the pages before the appendix)."""
    for name in ("default", "moe-gpt-oss-20b-lora-h100"):
        build, result = _sized(name)
        rows = host_part_rows(result.host)
        assert rows and all("dimm-" not in cell and "nvme-" not in cell for row in rows for cell in row), rows
        customer = " ".join(host_section(result.host) + acceptance_section(build, result, default_catalog()))
        for code in ("engine/", "ASSUMPTION_PROCESS_HOST_GB", "ASSUMPTION_OS_RESERVE_GB", "measured_busbw_gb_s",
                     "MEASURED_PCIE_GEN5_GB_S"):  # fmt: skip
            assert code not in customer, (name, code)


def test_host_sources_move_to_the_appendix_in_words() -> None:
    _, result = _sized("default")
    appendix = " ".join(host_sources_section(result.host))
    assert "Host memory and storage: sources" in appendix and "engine/" not in appendix
    assert "The OS, daemons and the NVIDIA driver" in appendix and "pytorch/pytorch#12873" in appendix


def test_collective_rates_say_they_are_typical_published_figures() -> None:
    """'174 (measured)' read as a measurement of this machine: the sheet and the CLI use the shared words, and the
    link column names the link as a buyer reads it."""
    build, result = _sized("default")
    sheet = "".join(job_section(0, result.jobs[0], build.jobs[0]))
    assert "(measured)" not in sheet and f"Rates: {SHARED_RATE_WORDS}." in sheet
    assert "<td>NVLink</td>" in sheet and "<td>nvlink</td>" not in sheet and "over NVLink" in sheet
    text = render(result)
    assert f"communication per step, link rates {SHARED_RATE_WORDS}:" in text and "(measured rates)" not in text
    assert "over NVLink at 174 GB/s" in text


def test_link_rates_only_where_a_job_communicates() -> None:
    single_build, single = _sized("moe-gpt-oss-20b-lora-h100")
    assert link_rates_note(single) == ""
    assert "Link rates" not in render(single) and "Link rates" not in "".join(assumptions_section(single_build, single))
    build, result = _sized("default")
    assert link_rates_note(result) == f"Link rates: {SHARED_RATE_WORDS} — NVLink 174 GB/s"
    assert f"Link rates: {SHARED_RATE_WORDS}" in render(result)
    assert f"Link rates: {SHARED_RATE_WORDS}." in "".join(assumptions_section(build, result))


def test_sources_table_values_carry_their_units() -> None:
    build, result = _sized("default")
    catalog = default_catalog()
    text = _text(sources_section(build, result, catalog, catalog.chassis.get(build.chassis)))
    for value in ("143,771 MiB", "835.5 TFLOPS", "4,800 GB/s", "600 W", "900 GB/s", "503.8 TFLOPS", "2,000 W",
                  "1,700 W"):  # fmt: skip
        assert value in text, value


def test_dimms_say_their_labels_are_binary_beside_the_sum() -> None:
    _, result = _sized("default")
    assert result.host is not None and result.host.dimms is not None
    words = part_words(result.host.dimms)
    assert words == "16 × DDR5 RDIMM, 32 GB (32 GiB each, as DIMMs are labelled), 550 GB (10^9 B) in all"
    assert "32 GiB each, as DIMMs are labelled; 550 GB (10^9 B) in all" in host_part_rows(result.host)[0][2]


def test_sizes_keep_their_digits() -> None:
    """A 5 GB checkpoint read '0.00 TB' on the sheet and '0.005 TB' in the CLI."""
    assert size_words(4.97, "TB") == "4.97 GB" and size_words(1411.1, "TB") == "1.41 TB"
    assert size_words(0.00005, "GB") == "< 0.01 GB" and size_words(0.0, "GB") == "0.00 GB"
    _, result = _sized("default")
    text = render(result)
    assert " TB  " not in text.split("NVMe: ", 1)[1].split("\n", 1)[1]  # no term in TB below 1 TB
    assert "NVMe       4.97 GB  70B LoRA" in text
    sheet = _text(host_section(result.host))
    assert "0.00 TB" not in sheet and "&lt; 0.01 GB" in sheet and "4.97 GB" in sheet


def test_nvme_sizes_read_in_gb_below_a_terabyte_and_in_tb_above() -> None:
    """The default build's 150 GB NVMe need read 'NVMe 0.15 TB': GB below 1 TB, TB from 1 TB up with at most the
    drive sizes' two decimals, the same in the window's line, the text report and the sheet."""
    assert nvme_words(150.4) == "150 GB" and nvme_words(4.2) == "4.2 GB" and nvme_words(0.0) == "0 GB"
    assert nvme_words(1920.0) == "1.92 TB" and nvme_words(15_360.0) == "15.36 TB" and nvme_words(2000.0) == "2 TB"
    assert nvme_words(1500.0) == "1.5 TB" and nvme_words(999.7) == "1 TB"  # never '1,000 GB'
    _, result = _sized("default")
    host = result.host
    assert host is not None and host.drives is not None and 100 < host.nvme_need_gb < 1000
    need = f"{host.nvme_need_gb:,.0f} GB"
    assert f"NVMe {need} / 1.92 TB (need / installed)" in short_line(host)
    assert nvme_line(host).startswith(f"NVMe: {need} needed")
    assert f"NVMe: {need} needed" in render(result)
    assert f"NVMe: {need} needed" in _text(host_section(result.host))
    for text in (short_line(host), nvme_line(host), render(result), _text(host_section(result.host))):
        assert not re.search(r"\b0\.\d+ TB", text), text  # no size under 1 TB in TB


def test_a_shared_models_second_copy_says_whose_it_shares_not_zero() -> None:
    """The default build's two 70B jobs share the model's files: the second job's line read '0.00 GB', as if its
    copy weighed nothing. It reads 'shared' where the size stands and names the first job, in the text report and
    the sheet; the need counts the copy once, as before."""
    _, result = _sized("default")
    host = result.host
    assert host is not None
    files = [t for t in host.nvme_terms if t.what.startswith("model files of")]
    first, second = files
    assert first.shared_with is None and second.shared_with == first.job and second.gb == 0.0
    assert term_size_words(first, "TB") == size_words(first.gb, "TB") and term_size_words(second, "TB") == "shared"
    text = render(result)
    line = next(x for x in text.splitlines() if x.startswith("  NVMe") and f"{second.job}: model files" in x)
    assert "0.00 GB" not in line and "shared" in line.split(second.job)[0] and f"shared with job '{first.job}'" in line
    assert "0.00 GB" not in text.split("NVMe: ", 1)[1]
    row = next(r for r in host_section(result.host)[-1].split("<tr") if "shared with job" in r)
    assert "0.00 GB" not in row and re.search(r">\s*shared\s*<", row), row
    assert host.nvme_need_gb == pytest.approx(sum(t.gb for t in host.nvme_terms))


def test_step_time_reads_as_a_step_timed_op_by_op() -> None:
    """'2.358 s per op' read as a time per op: it is the step's, timed op by op."""
    build, result = _sized("default")
    text = render(result)
    assert "s per op" not in text and "2.358 s a step, timed op by op at 835.5 dense BF16 TFLOPS" in text
    sheet = "".join(job_section(0, result.jobs[0], build.jobs[0]))
    assert "timed op by op at 835.5 dense BF16 TFLOPS" in sheet and " per op at " not in sheet
