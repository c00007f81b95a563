"""The plan's text report and its PDF page count servers, cards, racks and MIG instances in words that agree with
the number ('1 card', '2 cards'), never 'card(s)'."""

from __future__ import annotations

from configurator.engine.planner import load_plan, plan_service
from configurator.paths import resource
from configurator.present.verdict import plural
from configurator.report.plan_sheet import plan_html
from configurator.report.plan_text import render_plan


def test_plan_text_and_sheet_say_counts_in_their_number() -> None:
    path = resource("plans", "seed-b-service.yaml")
    result = plan_service(load_plan(path), base_dir=path.parent)
    text = render_plan(result)
    html = plan_html(result)
    assert "(s)" not in text and "(s)" not in html
    best = result.fleets[0].totals
    assert plural(best.nodes, "node") in text and plural(best.cards, "card") in text
    assert plural(best.cards, "card") in html
    assert any(f.totals.cards > 1 for f in result.fleets)  # the plural form is exercised, not only "1 card"
    assert plural(1, "card") == "1 card" and plural(2, "server") == "2 servers"
