"""The build sheet marks the figures that were traced, with the versions they are exact for, from the trace cache
alone (the sheet never traces)."""

from __future__ import annotations

from pathlib import Path

import pytest

from configurator.catalog.loader import default_catalog
from configurator.engine import evaluate
from configurator.engine.model.buildfile import load_build
from configurator.report.sheet import SheetOptions, build_html
from configurator.trace import runner
from configurator.trace.cache import TraceCache
from configurator.trace.protocol import Breakdown, TraceResult
from configurator.trace.request import prepare_trace

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "resources" / "builds" / "default.yaml"
CATALOG = default_catalog()


def test_sheet_marks_traced_figures_with_their_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    build = load_build(DEFAULT)
    result = evaluate(build, base_dir=DEFAULT.parent)
    plain = build_html(build, result, CATALOG, SheetOptions(base_dir=DEFAULT.parent))
    assert "<b>Traced</b>" not in plain  # nothing cached, nothing marked

    def no_trace(*args: object, **kwargs: object) -> None:
        raise AssertionError("the sheet ran a trace")

    monkeypatch.setattr(runner, "run_trace", no_trace)
    prepared = prepare_trace(build, "70B QLoRA", CATALOG, base_dir=DEFAULT.parent)
    traced = TraceResult(ok=True, peak_allocated_bytes=48_123_000_000, phase="backward", op="aten.mm.default",
                         module="base_model.model.model.layers.79.mlp.down_proj",
                         breakdown=Breakdown(parameters=40_000_000_000, activations=8_123_000_000),
                         versions={"torch": "2.9.1", "transformers": "4.57.1", "peft": "0.17.1"})  # fmt: skip
    TraceCache().put(prepared.request, {"torch": "2.9.1"}, traced)
    html = build_html(build, result, CATALOG, SheetOptions(base_dir=DEFAULT.parent))
    assert html.count("<b>Traced</b>") == 1
    mark = html[html.index("<b>Traced</b>") :]
    mark = mark[: mark.index("</p>")]
    assert "48.12 GB allocated, peak in backward at aten.mm.default" in mark
    assert "Exact for torch 2.9.1, transformers 4.57.1, peft 0.17.1" in mark
    estimate = result.job("70B QLoRA").cards[0].peak_allocated_gb  # type: ignore[union-attr]
    assert f"The engine's estimate of the same figure is {estimate:.1f} GB" in mark
    qlora_section = html[html.index("Job: 70B QLoRA") :]
    assert "<b>Traced</b>" in qlora_section  # under its own job, not the other
