"""The plan report's MIG packing reads as a summary (how many cards in each layout, how many whole) under the
card's name, never the layout once per card under the catalog id; and no line of the report runs past its width."""

from __future__ import annotations

import re

from configurator.engine.planner import load_plan, plan_service
from configurator.paths import resource
from configurator.present.plan_words import packing_words
from configurator.report.plan_sheet import plan_html
from configurator.report.plan_text import WIDTH, render_plan


def test_seed_b_packing_is_summarised_under_the_cards_name_and_lines_wrap() -> None:
    path = resource("plans", "seed-b-service.yaml")
    result = plan_service(load_plan(path), base_dir=path.parent)
    text = render_plan(result)
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    best = result.fleets[0]
    (packing,) = best.packing
    assert len(packing.cards) == 26  # seed B's recommended fleet: 26 cards cut four ways
    words = packing_words(packing)
    assert words.startswith("MIG packing on NVIDIA RTX PRO 6000 Blackwell Server Edition: 104 instances on 26 cards")
    assert "26 cards as 4 × 1g.24gb" in words and "the other 78 cards whole" in words
    assert words.count("1g.24gb") == 1  # the layout once, not once per card
    flat = re.sub(r"\s+", " ", text)  # the report wraps the sentence over lines
    assert words in flat
    assert "MIG packing on rtx-pro-6000-server" not in flat
    assert words in plan_html(result)  # the plan's PDF section says the same
