"""The window's summary strip shows the host's RAM and NVMe, need against installed, red when a host check fails."""

from __future__ import annotations

from configurator.engine import Build, evaluate
from configurator.ui.shell.summary import SummaryStrip


def _build(**extra: object) -> Build:
    return Build.model_validate({"chassis": "generic-server-8", **extra,
                                 "cards": [{"slot": s, "card": "h200-nvl"} for s in (1, 2)],
                                 "jobs": [{"name": "z3", "model": "llama-3.1-8b", "method": "full",
                                           "parallelism": "zero3", "offload": "cpu", "cards": [1, 2]}]})  # fmt: skip


def test_summary_shows_host_need_against_installed(qtbot) -> None:  # type: ignore[no-untyped-def]
    strip = SummaryStrip()
    qtbot.addWidget(strip)
    result = evaluate(_build())
    strip.update_result(result, 2, 0)
    text = strip.host.text()
    assert result.host is not None and 100 < result.host.nvme_need_gb < 1000  # in GB below 1 TB, not '0.24 TB'
    assert "RAM 281 / 550 GB" in text and f"NVMe {result.host.nvme_need_gb:,.0f} GB / 1.92 TB" in text
    assert "Host RAM: 281 GB needed" in strip.host.toolTip()
    short = evaluate(_build(host={"dimms": {"count": 2, "size_gb": 32}}))
    strip.update_result(short, 2, 0)
    assert "RAM 281 / 69 GB" in strip.host.text()
    assert strip._colour("error") in strip.host.text()


def test_summary_hides_the_host_without_jobs(qtbot) -> None:  # type: ignore[no-untyped-def]
    strip = SummaryStrip()
    qtbot.addWidget(strip)
    strip.update_result(evaluate(_build().model_copy(update={"jobs": []})), 2, 0)
    assert strip.host.isHidden()
