"""Seed B's measurements read beside nccl-tests: nvidia-smi mig -lgip, lspci -vv and DCGM field exports, and a
class's measured rate (tokens/s, SM_ACTIVE) overriding the engine's time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from configurator.cli import main
from configurator.engine.acceptance.parse import parse_dcgm, parse_lgip, parse_lspci
from configurator.engine.planner import Plan, plan_service, plan_to_yaml
from configurator.engine.planner.measurements import gpu_links, with_files
from configurator.engine.planner.plan import ClassMeasurement

FIX = Path(__file__).parent / "fixtures"
RTX = "RTX"


def test_mig_lgip_rows() -> None:
    rows, enabled = parse_lgip((FIX / "rtx-pro-6000-mig-lgip.txt").read_text())
    assert enabled and [(r.name, r.profile_id, r.total, r.memory_gib, r.sm) for r in rows] == [
        ("1g.24gb", 14, 4, 23.62, 46), ("2g.48gb", 5, 2, 47.38, 94), ("4g.96gb", 0, 1, 95.0, 188)]  # fmt: skip


def test_lspci_negotiated_links() -> None:
    links = gpu_links(parse_lspci((FIX / "rtx-pro-6000-lspci-x8.txt").read_text()))
    assert [(link.address, link.label, link.factor, link.capable_gt_s) for link in links] == [
        ("0000:17:00.0", "Gen5 x16", 1.0, 32.0), ("0000:3a:00.0", "Gen5 x8", 0.5, 32.0)]  # not the NIC  # fmt: skip


def test_dcgm_prometheus_and_dmon() -> None:
    """Every scrape is a sample (the planner averages SM_ACTIVE over them), from the one DCGM parser."""
    prom = parse_dcgm((FIX / "dcgm-7b-whole-card.prom").read_text())
    assert [s.sm_active for s in prom if s.sm_active is not None] == [0.18, 0.22]
    fb = next(s for s in prom if s.fb_used_mib is not None)
    assert (fb.instance, fb.profile, fb.fb_used_mib) == (3, "1g.24gb", 17800.0)
    dmon = parse_dcgm((FIX / "dcgm-dmon.txt").read_text())
    assert [(s.instance, s.sm_active, s.fb_used_mib) for s in dmon] == [
        (None, 0.312, 18234.0), (None, 0.298, 18234.0), (3, None, 17800.0)]  # fmt: skip


def test_the_planner_reads_with_the_acceptance_parsers() -> None:
    """One parser per tool: the planner's measurements import the acceptance kit's, and define none of their own."""
    import configurator.engine.planner.measurements as m

    assert m.parse_dcgm is parse_dcgm and m.parse_lgip is parse_lgip and m.parse_lspci is parse_lspci
    source = Path(m.__file__).read_text(encoding="utf-8")
    assert "re.compile" not in source and "def parse_" not in source


def test_unreadable_measurements_are_words_not_crashes(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "noise.txt").write_text("nonsense\n{}\n")
    data = _data(measurements=[{"node": RTX, "mig_lgip": "empty.txt", "lspci": "noise.txt",
                                "dcgm": [{"file": "noise.txt", "job_class": "7B LoRA"}]}])  # fmt: skip
    path = tmp_path / "plan.yaml"
    path.write_text(plan_to_yaml(Plan.model_validate(data)))
    from configurator.engine.planner import load_plan

    result = plan_service(load_plan(path), base_dir=tmp_path)
    words = " ".join(result.measurements)
    assert "the file is empty" in words and "lspci -vv: no device lines" in words and "DCGM export: not" in words


def _data(**over: object) -> dict:  # type: ignore[type-arg]
    data: dict = {  # type: ignore[type-arg]
        "name": "measured",
        "assumptions": {"compute_rates": "estimated"},
        "classes": [
            {"name": "7B LoRA", "model": "mistral-7b", "tokens_per_job": 20e6, "jobs_per_day": 40},
            {"name": "8B full", "model": "llama-3.1-8b", "method": "full", "tokens_per_job": 20e6, "jobs_per_day": 2},
        ],
        "nodes": [{"name": RTX, "chassis": "supermicro-sys-521ge-tnrt", "card": "rtx-pro-6000-server",
                   "mig_layouts": ["all-1g"], "max_nodes": 3}],
    }  # fmt: skip
    data.update(over)
    return data


def _plan_in(tmp_path: Path, data: dict) -> Path:  # type: ignore[type-arg]
    for f in FIX.iterdir():
        (tmp_path / f.name).write_text(f.read_text())
    path = tmp_path / "plan.yaml"
    path.write_text(plan_to_yaml(Plan.model_validate(data)))
    return path


def test_sm_active_bounds_the_mig_gain(tmp_path: Path) -> None:
    """A 7B job keeping 20 % of the SMs busy on a whole card (mean of 0.18, 0.22) loses nothing on a quarter
    slice: four per card do 4x the card's jobs. At 50 % busy the gain is bounded by the slices' SMs over 0.5 (~2x)."""
    base = plan_service(Plan.model_validate(_data()))
    plain = base.cell("7B LoRA", f"{RTX} / 1g.24gb")
    whole = base.cell("7B LoRA", f"{RTX} / whole card")
    assert plain.basis == "engine" and plain.mig_gain is not None
    data = _data(measurements=[{"node": RTX, "dcgm": [{"file": "dcgm-7b-whole-card.prom", "job_class": "7B LoRA"}]}])
    path = _plan_in(tmp_path, data)
    from configurator.engine.planner import load_plan

    result = plan_service(load_plan(path), base_dir=tmp_path)
    cell = result.cell("7B LoRA", f"{RTX} / 1g.24gb")
    assert cell.service_hours == pytest.approx(whole.service_hours)
    assert cell.mig_gain == pytest.approx(4.0) and "SM_ACTIVE 0.20" in cell.basis
    info = next(c for c in result.classes if c.name == "7B LoRA")
    assert info.mig_gain == pytest.approx(4.0) and "SM_ACTIVE" in (info.mig_gain_basis or "")
    assert info.mig_gain_basis_words == info.mig_gain_basis
    # the engine's gain is called an estimate and says what it rests on; a measured one needs no such words
    estimate = "That gain is an estimate: it comes from the whole card's matrix multiplies"
    engine_info = next(c for c in base.classes if c.name == "7B LoRA")
    assert base.recommendation is not None and result.recommendation is not None
    assert engine_info.mig_gain is not None and engine_info.mig_gain > 1.005  # 1.14x at these settings
    assert engine_info.mig_gain_basis_words == "the engine's time on the slice"
    assert any(w.startswith(estimate) for w in base.recommendation.why)
    assert not any(w.startswith(estimate) for w in result.recommendation.why)
    assert any("FB_USED 18.7 GB of" in w and "holds the job" in w for w in result.measurements)
    half = Plan.model_validate(_data())
    cls = half.classes[0].model_copy(update={"measured": [ClassMeasurement(node=RTX, sm_active=0.5)]})
    halved = plan_service(half.model_copy(update={"classes": [cls, half.classes[1]]}))
    # a 1g.24gb holds 46 of the card's 188 SMs (the catalog's -lgip counts): four do 4 x 0.245 / 0.5 = 1.96x
    assert halved.cell("7B LoRA", f"{RTX} / 1g.24gb").mig_gain == pytest.approx(4 * (46 / 188) / 0.5)


def test_tokens_per_second_replaces_the_engines_time() -> None:
    plan = Plan.model_validate(_data())
    cls = plan.classes[0].model_copy(update={"measured": [ClassMeasurement(node=RTX, tokens_per_second=5000)]})
    result = plan_service(plan.model_copy(update={"classes": [cls, plan.classes[1]]}))
    cell = result.cell("7B LoRA", f"{RTX} / whole card")
    assert cell.service_hours == pytest.approx(20e6 / 5000 / 3600)
    assert cell.basis.startswith("measured 5000 tokens/s")
    with pytest.raises(ValidationError, match="whole card"):
        ClassMeasurement(node=RTX, device="1g.24gb", sm_active=0.3)


def test_lspci_x8_slows_multi_card_jobs_and_lgip_is_reported(tmp_path: Path) -> None:
    from configurator.engine.planner import load_plan

    base = plan_service(Plan.model_validate(_data()))
    data = _data(measurements=[{"node": RTX, "lspci": "rtx-pro-6000-lspci-x8.txt",
                                "mig_lgip": "rtx-pro-6000-mig-lgip.txt"}])  # fmt: skip
    path = _plan_in(tmp_path, data)
    result = plan_service(load_plan(path), base_dir=tmp_path)
    pair = f"{RTX} / 2 cards"
    assert result.cell("8B full", pair).step_seconds > base.cell("8B full", pair).step_seconds  # type: ignore[operator]
    words = " ".join(result.measurements)
    assert "Gen5 x8" in words and "50% of its capable rate" in words and "19.0 GB/s" in words
    assert "1g.24gb x4, 23.62 GiB, 46 SMs" in words


def test_unreadable_measurement_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    data = _data(measurements=[{"node": RTX, "lspci": "missing.txt"}, {"node": "nope", "lspci": "x.txt"}])
    result = plan_service(Plan.model_validate(data), base_dir=tmp_path)
    codes = {p.code for p in result.problems}
    assert {"MEASUREMENT_UNREADABLE", "MEASUREMENT_NODE"} <= codes


def test_cli_flags_import_measurements(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _plan_in(tmp_path, _data())
    args = ["plan", str(path), "--json", "--lspci", f"{RTX}={tmp_path / 'rtx-pro-6000-lspci-x8.txt'}",
            "--dcgm", f"{RTX}:7B LoRA={tmp_path / 'dcgm-7b-whole-card.prom'}"]  # fmt: skip
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert any("Gen5 x8" in w for w in out["measurements"])
    assert main(["plan", str(path), "--dcgm", "no-class=file"]) == 2
    assert "NODE:CLASS=FILE" in capsys.readouterr().err
    with pytest.raises(ValueError, match="NODE=FILE"):
        with_files(Plan.model_validate(_data()), ["nofile"], [], [])
