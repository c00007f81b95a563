"""``configurator trace BUILD.yaml [--job NAME] [--json]`` with the stub tracer: the traced line, the breakdown,
the versions and the engine's estimate beside it; exit codes and messages for every way it can fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from configurator import cli

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "resources" / "builds" / "default.yaml"
QLORA = "70B QLoRA"

pytestmark = pytest.mark.usefixtures("stub_worker")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_trace_one_job_prints_the_peak_beside_the_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(["trace", str(DEFAULT), "--job", QLORA], capsys)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == f"{QLORA}:"
    assert lines[1].startswith("  traced: ") and lines[1].endswith(
        " GB allocated, peak in backward at aten.mm.default (model.layers.31.mlp.down_proj)")  # fmt: skip
    assert "Parameters:" in out and "Optimizer states:" in out and "Activations:" in out
    assert "engine estimate" in out and "estimate - trace" in out
    assert "torch 2.9.1, transformers 4.57.1, peft 0.17.1" in out
    assert "path: the engine's analytic estimate, checked by the trace" in out
    rc, again, _ = run(["trace", str(DEFAULT), "--job", QLORA], capsys)
    assert rc == 0 and "(cached, traced " in again  # kept: the second run traced nothing


def test_trace_json_holds_request_result_and_difference(capsys: pytest.CaptureFixture[str], stub_worker: Path,
                                                        stub_runs) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    rc, out, _ = run(["trace", str(DEFAULT), "--json"], capsys)
    assert rc == 0
    data = json.loads(out)
    assert [j["job"] for j in data["jobs"]] == ["70B LoRA, FSDP over the bridge", QLORA]  # every job by default
    fsdp, qlora = data["jobs"]
    assert fsdp["request"]["parallel"] == {"kind": "fsdp2", "world_size": 2}
    assert qlora["request"]["method"] == "qlora" and qlora["request"]["arch"] == "sm120"
    traced_gb = qlora["traced"]["peak_allocated_bytes"] / 1e9
    assert qlora["difference_gb"] == pytest.approx(qlora["estimate_allocated_gb"] - traced_gb, abs=1e-3)
    assert qlora["path"] == "analytic" and qlora["cached"] is False
    assert stub_runs(stub_worker) == 2


def test_unknown_job_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(["trace", str(DEFAULT), "--job", "nope"], capsys)
    assert rc == 2 and out == ""
    assert "no job called 'nope'" in err and QLORA in err


def test_a_job_the_tracer_cannot_express_exits_2_with_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "b.yaml"
    path.write_text(DEFAULT.read_text().replace("parallelism: fsdp", "parallelism: zero3"))
    rc, out, _ = run(["trace", str(path), "--job", "70B LoRA, FSDP over the bridge"], capsys)
    assert rc == 2 and "DeepSpeed ZeRO-3 is not traced" in out


@pytest.mark.parametrize(("mode", "rc", "words"), [("notorch", 4, "pip install 'gpu-build-configurator[trace]'"),
                                                   ("crash", 5, "the tracer crashed"),
                                                   ("refuse", 1, "cannot build model type")])  # fmt: skip
def test_failures_exit_with_their_code(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                       mode: str, rc: int, words: str) -> None:  # fmt: skip
    monkeypatch.setenv("STUB_TRACE_MODE", mode)
    code, out, _ = run(["trace", str(DEFAULT), "--job", QLORA], capsys)
    assert code == rc and words in out


def test_timeout_exits_5(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("STUB_TRACE_MODE", "hang")
    code, out, _ = run(["trace", str(DEFAULT), "--job", QLORA, "--timeout", "1"], capsys)
    assert code == 5 and "took longer than 1 s" in out


def test_a_family_the_engine_cannot_size_is_traced_and_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ds.json").write_text(json.dumps({"model_type": "deepseek_v3", "hidden_size": 2048,
                                                  "num_hidden_layers": 4, "vocab_size": 1000}))  # fmt: skip
    path = tmp_path / "b.yaml"
    path.write_text("name: t\nchassis: generic-server-8\ncards: [{slot: 1, card: h100-sxm}]\n"
                    "jobs: [{name: DS, model: ds.json, cards: [1]}]\n")  # fmt: skip
    rc, out, _ = run(["trace", str(path)], capsys)
    assert rc == 0
    assert "no engine estimate to compare" in out
    assert "path: traced only; the engine cannot size this config (model_type: unsupported model type" in out
    rc, _, err = run(["size", str(path)], capsys)
    assert rc == 1  # the engine's error stands ...
    assert "hint: job 'DS': the engine cannot size this config" in err  # ... and the trace is offered
    assert f"configurator trace {path} --job 'DS'" in err
