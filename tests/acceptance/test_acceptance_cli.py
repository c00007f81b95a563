"""The acceptance, verify and burnin commands, and measured runs kept in the data folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from configurator.cli import main
from configurator.engine.acceptance import collect, verify
from configurator.engine.acceptance.measured_store import load, run_of, save, stored_lines
from configurator.paths import resource

EIGHT = str(resource("builds", "seed-70b-lora-8x-h200-nvl.yaml"))


def test_acceptance_prints_the_figures(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["acceptance", str(resource("builds", "default.yaml")), "--store-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "nvidia-smi topo -m (predicted)" in out and "NV18" in out and "143,771 MiB" in out
    assert "pass >= 139.2" in out and "(estimated)" in out and "at the wall about 3,933 W" in out
    assert "  tolerance from published all_reduce_perf runs" in out and "tolerance: tolerance" not in out


def test_acceptance_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["acceptance", EIGHT, "--json", "--store-dir", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["gpus"]) == 8 and len(data["nccl"]) == 31 and data["topology"]["matrix"][0][4] == "SYS"


def test_verify_exit_status_and_json(capsys: pytest.CaptureFixture[str], fixtures: Path, tmp_path: Path) -> None:
    assert main(["verify", EIGHT, str(fixtures / "healthy-8gpu"), "--store-dir", str(tmp_path)]) == 0
    assert "PASS" in capsys.readouterr().out
    assert main(["verify", EIGHT, str(fixtures / "missing-bridge"), "--json", "--store-dir", str(tmp_path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["build_digest"] and any(c["status"] == "fail" for c in report["checks"])


def test_verify_of_an_empty_folder_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["verify", EIGHT, str(tmp_path / "empty"), "--store-dir", str(tmp_path)]) == 2


def test_verify_where_nothing_was_measured_does_not_exit_0(
    capsys: pytest.CaptureFixture[str], fixtures: Path, tmp_path: Path
) -> None:
    """A folder read but measuring no figure (a DCGM log alone: no job it can be tied to, and a stray note) is no
    acceptance: a gate reading the exit status must not pass it, and the note is named among the unreadable files."""
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "dcgm-dmon.txt").write_text((fixtures / "gpu-x8" / "dcgm-dmon.txt").read_text())
    (folder / "junk.txt").write_text("the fans were loud")
    mig = str(resource("builds", "seed-mig-four-tenants.yaml"))
    assert main(["verify", mig, str(folder), "--store-dir", str(tmp_path)]) == 4
    out = capsys.readouterr().out
    assert "0 pass, 0 warn, 0 fail" in out and "Nothing was measured" in out
    unreadable = out.split("Files that could not be read:")[1]
    assert "junk.txt: not a result verify reads" in unreadable
    from configurator.cli_acceptance import VERIFY_EXIT_CODES  # verify --help's epilog

    assert "4 incomplete: files were read but a card was never read" in " ".join(VERIFY_EXIT_CODES.split())


def test_verify_pdf_of_nothing_measured_has_no_sign_off(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "junk.txt").write_text("x")
    (tmp_path / "dcgm-dmon.txt").write_text("#Entity   FBUSD  SMACT\nID\n")
    pdf = tmp_path / "acceptance.pdf"
    mig = str(resource("builds", "seed-mig-four-tenants.yaml"))
    rc = main(["verify", mig, str(tmp_path), "--pdf", str(pdf), "--store-dir", str(tmp_path)])
    import unicodedata

    from pypdf import PdfReader

    raw = "\n".join(p.extract_text() for p in PdfReader(pdf).pages)
    text = " ".join(unicodedata.normalize("NFKC", raw).split())
    assert "Nothing was measured" in text and "junk.txt" in text
    assert "Sign-off" not in text and "Accepted by" not in text
    assert rc == 4


def test_verify_of_a_missing_path_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A mistyped path is said first and alone, as every other command says it (review2 cli 18): not a line at the foot
    of twenty unmeasured figures."""
    assert main(["verify", EIGHT, str(tmp_path / "nope"), "--store-dir", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: {tmp_path / 'nope'}: file not found\n"


def test_verify_store_then_acceptance_shows_it(
    capsys: pytest.CaptureFixture[str], fixtures: Path, tmp_path: Path
) -> None:
    assert main(["verify", EIGHT, str(fixtures / "healthy-8gpu"), "--store", "--store-dir", str(tmp_path)]) == 0
    assert "stored the measured run" in capsys.readouterr().out
    assert main(["acceptance", EIGHT, "--store-dir", str(tmp_path)]) == 0
    assert "measured on this machine" in capsys.readouterr().out
    assert main(["verify", EIGHT, str(fixtures / "healthy-8gpu"), "--store-dir", str(tmp_path)]) == 0
    assert "Earlier measurements of this machine:" in capsys.readouterr().out


def test_verify_pdf(fixtures: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdf = tmp_path / "acceptance.pdf"
    main(
        [
            "verify",
            EIGHT,
            str(fixtures / "gpu-x8"),
            "--pdf",
            str(pdf),
            "--seller",
            "Shop GmbH",
            "--store-dir",
            str(tmp_path),
        ]
    )
    import unicodedata

    from pypdf import PdfReader

    raw = "\n".join(p.extract_text() for p in PdfReader(pdf).pages)
    text = " ".join(unicodedata.normalize("NFKC", raw).split())  # Qt writes tabs between words and ligatures
    assert "Acceptance report" in text and "GBC-" in text and "Sign-off" in text and "Shop GmbH" in text
    assert "GPU5 PCIe link" in text and "FAIL" in text


def test_burnin_writes_the_kit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["burnin", EIGHT, "-o", str(tmp_path / "kit")]) == 0
    assert (tmp_path / "kit" / "run.sh").is_file() and (tmp_path / "kit" / "measure.py").is_file()
    assert "sudo sh run.sh" in capsys.readouterr().out


def test_burnin_into_a_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    assert main(["burnin", EIGHT, "-o", str(tmp_path / "file")]) == 2
    assert "error:" in capsys.readouterr().err


def test_store_round_trip_and_a_corrupt_file(eight_gpu, fixtures: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pred = eight_gpu[2]
    m = collect([fixtures / "healthy-8gpu"])
    report = verify(pred, m)
    path = save(tmp_path, run_of(report, m))
    (path.parent / "2000-01-01T00-00-00Z.json").write_text("{not json")
    runs, problems = load(tmp_path, pred.build_digest)
    assert len(runs) == 1 and runs[0].cards[0] == "NVIDIA H200 NVL" and runs[0].versions["driver"] == "570.133.20"
    assert problems and "2000-01-01" in problems[0]
    lines = stored_lines(runs)[pred.jobs[0].name]
    assert lines[0].startswith("measured on this machine") and "GB as nvidia-smi shows it" in lines[0]
    assert runs[0].nccl_gb_s["pair GPU0-GPU1"] > 150
    with pytest.raises(ValueError):
        load(tmp_path, "../../etc")


def test_verify_shows_the_labels_and_bands_acceptance_shows(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The same figure reads the same in both commands: the GEMM rate's UNCONFIRMED label and the step time's band and
    '(estimated)', measured or not (an unmeasured step time read '3.14 s', its band and label gone), in text and PDF."""
    mig = str(resource("builds", "seed-mig-four-tenants.yaml"))
    from configurator.engine import evaluate
    from configurator.engine.acceptance.predict import predict
    from configurator.engine.model.buildfile import load_build

    build = load_build(mig)  # the figures as the engine predicts them today (391 / 332 / 274, 3.14 s when written)
    pred = predict(build, evaluate(build))
    g, j = pred.gpus[0], next(j for j in pred.jobs if j.name == "tenant A")
    assert g.gemm_unconfirmed and j.step_seconds is not None
    rate = f"{g.gemm_tflops:,.0f} TFLOP/s"
    limits = f"pass >= {g.gemm_pass_min:,.0f}, warn >= {g.gemm_warn_min:,.0f}"
    step = f"{j.step_seconds:.2f} s ({j.step_low_s:.2f}–{j.step_high_s:.2f} s)"
    assert main(["acceptance", mig, "--store-dir", str(tmp_path)]) == 0
    acceptance = capsys.readouterr().out
    gemm = f"{rate}, {limits} (UNCONFIRMED expectation)"
    assert gemm in acceptance and step in acceptance and "(estimated)" in acceptance
    (tmp_path / "wall-meter.txt").write_text("2500 W\n")  # one figure measured: the rest are listed as missing
    pdf = tmp_path / "acceptance.pdf"
    # one wall reading among twenty figures: incomplete (4), never a PASS (review2 cli 5)
    assert main(["verify", mig, str(tmp_path / "wall-meter.txt"), "--pdf", str(pdf), "--store-dir", str(tmp_path)]) == 4
    out = capsys.readouterr().out
    assert f"GPU0 BF16 GEMM rate: expected {rate} ({limits}) (UNCONFIRMED expectation)" in out
    assert f"tenant A: step time: expected {step} (estimated)" in out
    import unicodedata

    from pypdf import PdfReader

    text = " ".join(unicodedata.normalize("NFKC", "\n".join(p.extract_text() for p in PdfReader(pdf).pages)).split())
    assert "(UNCONFIRMED expectation)" in text and f"{step} (estimated)" in text


def test_verify_pdf_without_a_seller_names_none(fixtures: Path, tmp_path: Path) -> None:
    """No --seller: the report names no shop (not the app's own name, which is no seller's)."""
    import unicodedata

    from pypdf import PdfReader

    pdf = tmp_path / "acceptance.pdf"
    main(["verify", EIGHT, str(fixtures / "gpu-x8"), "--pdf", str(pdf), "--store-dir", str(tmp_path)])
    raw = "\n".join(p.extract_text() for p in PdfReader(pdf).pages)
    text = " ".join(unicodedata.normalize("NFKC", raw).split())
    assert "Acceptance report" in text and "GPU Build Configurator" not in text


def test_a_failed_verification_asks_no_customer_to_accept(fixtures: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A failed figure: the report says the machine is not ready, and its sign-off has the shop's lines only."""
    import unicodedata

    from pypdf import PdfReader

    pdf = tmp_path / "acceptance.pdf"
    assert main(["verify", EIGHT, str(fixtures / "gpu-x8"), "--pdf", str(pdf), "--store-dir", str(tmp_path)]) == 1
    assert "Not ready for acceptance" in capsys.readouterr().out
    raw = "\n".join(p.extract_text() for p in PdfReader(pdf).pages)
    text = " ".join(unicodedata.normalize("NFKC", raw).split())
    assert "FAIL" in text and "Not ready for acceptance" in text and "Checked by" in text
    assert "Accepted by (customer)" not in text
