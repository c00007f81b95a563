"""The headroom chart's capacity line's label (present/rl_words.py): one legend entry for every bar's line."""

from __future__ import annotations

from configurator.present.rl_words import capacity_legend, capacity_legend_of


def test_jobs_of_different_shares_share_one_line_s_label() -> None:
    """One legend entry for the lines of every bar: the sheet's words where the jobs take one share, else words for
    both."""
    assert capacity_legend_of([0.3, 0.3]) == capacity_legend(0.3)
    assert capacity_legend_of([]) == capacity_legend_of([0.0]) == "Capacity (visible)"
    assert "visible" in capacity_legend_of([0.0, 0.3]) and "vLLM" in capacity_legend_of([0.0, 0.3])
    assert "vLLM" in capacity_legend_of([0.3, 0.5])
