"""View > Units is the window's: with GiB chosen every memory figure says GiB, the MIG tab's as the headroom chart's
(the chart said '+12.4 GiB' while the MIG tab said '+13.3 GB' for the same tenant, the chassis '102.6 GB')."""

from __future__ import annotations

from pathlib import Path

from configurator.present.words import memory_label

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "resources" / "builds" / "seed-mig-four-tenants.yaml"


def test_every_memory_figure_follows_the_unit(first_start) -> None:  # type: ignore[no-untyped-def]
    window = first_start((1920, 1080), build=SEED)
    window.analysis.setCurrentWidget(window.mig_editor)
    window.view.set_unit("GiB")
    editor = window.mig_editor
    row = window.doc.result.jobs[0].cards[0]
    inst = window.doc.result.mig[0].instances[0]
    headroom = memory_label(row.headroom_gb, "GiB", sign=True)
    assert headroom in window.chart.bar_text(0)  # the headroom chart's figure
    block = editor.view.blocks[inst.index]
    assert memory_label(inst.capacity_gb, "GiB") in block.lines
    assert any(headroom in line for line in block.chips[0].lines)  # the same figure on the MIG tab
    assert headroom in block.toolTip() and headroom in block.chips[0].toolTip()
    profiles = [editor.palette_list.item(i).text() for i in range(editor.palette_list.count())]
    assert profiles and all("GiB ·" in p for p in profiles)
    card = window.doc.catalog.cards[window.doc.build.cards[0].card]
    tile = window.chassis_view.card_items[window.doc.build.cards[0].slot]
    assert memory_label(card.visible_gb, "GiB") in tile.texts[1] and "GiB" in tile.toolTip()
    cards = window.card_palette.cards
    assert all(" GiB visible" in cards.item(i).text() for i in range(cards.count()))
    window.view.set_unit("GB")  # and back
    assert memory_label(inst.capacity_gb, "GB") in editor.view.blocks[inst.index].lines
    assert "GiB" not in window.chassis_view.card_items[window.doc.build.cards[0].slot].texts[1]
