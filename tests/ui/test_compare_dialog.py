"""The compare dialog: one value scale for both charts, the card-swap boxes blank beside another build's file,
a width that stays put, a price row, and a size that fits the screen."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths

from configurator.catalog.loader import default_catalog
from configurator.catalog.prices import bridge_part_ids, parse_price_list
from configurator.engine.compare import price_row
from configurator.engine.memory.host import DIMM_SIZES_GB, DRIVE_SIZES_TB, dimm_part_id, drive_part_id
from tests.gui_helpers import charts_cut, make_window

BUILDS = Path(__file__).resolve().parent.parent.parent / "resources" / "builds"


def _dialog(qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return window, dialog


def test_both_charts_read_on_one_value_scale(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The H200 NVL side reaches 150 GB, the RTX PRO 6000 side 103 GB: their axes ended at different values."""
    _, dialog = _dialog(qtbot, tmp_path)
    left = dialog.left_chart.plot.vb.viewRange()[1][1]
    right = dialog.right_chart.plot.vb.viewRange()[1][1]
    assert dialog.left_chart.highest != dialog.right_chart.highest  # the two sides differ...
    assert abs(left - right) / max(left, right) < 0.05  # ...and read on one scale
    assert not charts_cut(dialog)


def test_swap_boxes_blank_beside_another_file_and_the_width_stays(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, dialog = _dialog(qtbot, tmp_path)
    dialog.resize(1200, 760)  # its size on a screen that holds it (the test platform's screen is 800x600)
    qtbot.wait(20)
    width = dialog.width()
    assert dialog.from_card.currentText() and dialog.to_card.currentText()
    assert dialog.use_file(BUILDS / "seed-70b-lora-8x-h200-nvl.yaml")
    qtbot.wait(20)
    assert dialog.from_card.currentIndex() == -1 and dialog.to_card.currentIndex() == -1  # no stale swap shown
    assert dialog.width() == width  # it widened itself from 1200 to 1458 px
    # choosing a card again goes back to the swap
    dialog.to_card.setCurrentIndex(dialog.to_card.findData("h200-nvl"))
    dialog.to_card.activated.emit(dialog.to_card.currentIndex())
    assert dialog.other_path is None and dialog.from_card.currentIndex() >= 0


def test_price_row_from_the_sellers_list(qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    catalog = default_catalog()
    ids = [*catalog.cards, *catalog.chassis, bridge_part_ids("h200-nvl", 2)[1], bridge_part_ids("h200-nvl", 4)[1],
           *map(dimm_part_id, DIMM_SIZES_GB), *map(drive_part_id, DRIVE_SIZES_TB)]  # the host's DIMMs and drives too
    parts = "\n".join(f"  {pid}: {1000 + 10 * i}" for i, pid in enumerate(ids))
    known = set(catalog.cards) | set(catalog.chassis)
    prices = parse_price_list(f"currency: USD\nparts:\n{parts}\n", "prices.yaml", known)
    from configurator.ui.shell.sheet import SheetExport

    monkeypatch.setattr(SheetExport, "price_list", lambda self: prices)
    _, dialog = _dialog(qtbot, tmp_path)
    rows = [r for r in dialog.rows if r.what == "price (total)"]
    assert len(rows) == 1 and rows[0].left.startswith("$") and rows[0].right.startswith("$")
    assert rows[0].delta and rows[0].better in ("left", "right")


def test_price_row_without_a_list_says_so() -> None:
    row = price_row(None, None)
    assert row.left == row.right == "no price list" and row.better is None


def test_another_build_naming_what_the_catalog_lacks_opens_beside_this_one(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """As File › Open does: a card or model id the catalog lacks opens, its side shows what can be sized and the
    unknown job as not sized; a file that is no build at all is still refused with its reason."""
    from unittest.mock import patch

    broken = Path(__file__).resolve().parent / "data" / "broken"
    _, dialog = _dialog(qtbot, tmp_path)
    for name in ("unknown_model.yaml", "unknown_card.yaml"):
        assert dialog.use_file(broken / name), name
        assert dialog.other_path == broken / name
        assert not charts_cut(dialog)
        # its errors are said over its side, every one in the tooltip
        title = dialog.right_title.text()
        assert "error" in title and "did you mean" in title, title
        assert dialog.right_title.toolTip().count("\n") + 1 == len(dialog.other_result.errors)
    with patch("configurator.ui.jobs.compare.QMessageBox.critical") as critical:
        assert not dialog.use_file(broken / "malformed.yaml")
    assert critical.called and "malformed.yaml" in critical.call_args[0][2]
