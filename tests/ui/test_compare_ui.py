"""Compare with…: the same jobs on two builds side by side, differences read from the widgets."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths, Qt

from configurator.engine import evaluate
from configurator.engine.compare import compare
from configurator.engine.editing import swap_cards, update_job
from tests.gui_helpers import make_window
from tests.paths import BUILDS


def test_compare_h200_nvl_with_rtx_pro_6000(qtbot, tmp_path: Path) -> None:
    """Seed A's question, live: H200 NVL against RTX PRO 6000 WS for the same jobs, better cells marked."""
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    dialog.use_swap("h200-nvl", "rtx-pro-6000-ws")
    other = swap_cards(window.doc.build, window.doc.catalog, "h200-nvl", "rtx-pro-6000-ws")
    expected = compare(window.doc.result, evaluate(other))
    assert [(dialog.cell(i, 2), dialog.cell(i, 3)) for i in range(len(expected))] == [
        (r.left, r.right) for r in expected
    ]
    head = next(i for i, r in enumerate(dialog.rows) if r.what.startswith("headroom"))
    assert dialog.table.item(head, 2).toolTip() == "better"  # 150.8 GB cards beat 102.6 GB ones
    assert len(dialog.left_chart.rows) == len(dialog.right_chart.rows)
    # live: an edit to the build updates both sides
    window.doc.edit("longer", lambda b: update_job(b, 0, sequence_length=8192))
    assert dialog.other.jobs[0].sequence_length == 8192
    dialog.grab().save(str(tmp_path / "compare.png"))
    out = Path(__file__).resolve().parents[2] / "out" / "screens"
    out.mkdir(parents=True, exist_ok=True)
    dialog.resize(1280, 800)
    dialog.grab().save(str(out / "compare-1280x800.png"))


def test_compare_with_another_file(qtbot, tmp_path: Path) -> None:
    """Another build file can be the other side; its jobs are matched by name."""
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    assert dialog.use_file(BUILDS / "seed-mig-four-tenants.yaml")
    names = {dialog.cell(i, 0) for i in range(dialog.table.rowCount())}
    assert {"tenant A", window.doc.build.jobs[0].name, "(build)"} <= names


def test_compare_titles_show_a_markup_name_as_text(qtbot, tmp_path: Path) -> None:
    """Issue 13: a build named like HTML aborted the window on Compare; the title must show it as typed."""
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    hostile = "<img src='/dev/zero'>"
    window.doc.edit("rename", lambda b: b.model_copy(update={"name": hostile}))
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    dialog.use_swap("h200-nvl", "rtx-pro-6000-ws")
    assert hostile not in dialog.left_title.text()
    assert "&lt;img" in dialog.left_title.text()


SHOTS = Path(__file__).resolve().parents[2] / "out" / "screens"


def test_the_table_shows_each_side_stack_and_the_difference(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Issue 12: framework, sharding, offload, loss, the peak's phase and band per side, and a Difference column
    (right minus left) read from the engine's rows."""
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    dialog.use_swap("h200-nvl", "rtx-pro-6000-server")
    assert dialog.table.horizontalHeaderItem(4).text() == "Difference"
    name = window.doc.build.jobs[0].name
    seen = {dialog.cell(i, 1): i for i in range(dialog.table.rowCount()) if dialog.cell(i, 0) == name}
    assert {"framework", "sharding", "offload", "loss", "peak phase", "peak band"} <= set(seen)
    assert dialog.cell(seen["sharding"], 2) == "FSDP2" == dialog.cell(seen["sharding"], 3)
    assert dialog.cell(seen["framework"], 2) == "Transformers Trainer / TRL + PEFT"
    card = dialog.left_result.jobs[0].cards[0]
    assert dialog.cell(seen["peak phase"], 2) == card.peak_phase
    assert dialog.cell(seen["peak band"], 2).endswith(" GB") and "–" in dialog.cell(seen["peak band"], 2)
    head = seen["headroom (GB, smallest card)"]
    assert dialog.cell(head, 4) == dialog.rows[head].delta and dialog.cell(head, 4).startswith("-")


def _seed_b_dialog(qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path, BUILDS / "seed-30b-lora-h100-sxm.yaml")
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    assert dialog.use_file(BUILDS / "seed-30b-lora-rtx-pro-6000-server.yaml")
    return window, dialog


def test_seed_b_fp8_base_on_h100_against_bf16_on_rtx_pro_6000(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Issue 14, seed B: the 30B LoRA on an H100 SXM with an FP8 base against the RTX PRO 6000 Server with a BF16
    base. The cells are the engine's rows; step times are lower bounds (a parameter count: attention left out)."""
    from configurator.engine.compare import RecipeChoice, compare_recipes, with_recipe

    window, dialog = _seed_b_dialog(qtbot, tmp_path)
    fp8, bf16 = RecipeChoice("mixed-bf16", "fp8"), RecipeChoice("mixed-bf16", "bf16")
    dialog.use_recipes("30B LoRA", fp8, bf16)
    assert dialog.recipes.left.base.currentData() == "fp8" and dialog.recipes.right.base.currentData() == "bf16"
    left = evaluate(with_recipe(window.doc.build, "30B LoRA", fp8))
    right = evaluate(with_recipe(dialog.other, "30B LoRA", bf16))  # type: ignore[arg-type]
    expected = compare_recipes("30B LoRA", left, right, fp8, bf16)
    got = [(dialog.cell(i, 1), dialog.cell(i, 2), dialog.cell(i, 3), dialog.cell(i, 4)) for i in range(len(expected))]
    assert got == [(r.what, r.left, r.right, r.delta) for r in expected]
    rows = {r.what: i for i, r in enumerate(expected)}
    assert dialog.cell(rows["step time"], 2).startswith("≥ ") and dialog.cell(rows["step time"], 3).startswith("≥ ")
    assert "_compute_fp8_support" in dialog.cell(rows["support source"], 2)
    peak = [float(dialog.cell(rows["peak reserved"], col).split()[0]) for col in (2, 3)]
    assert peak[0] < peak[1]  # the FP8 base halves the 60 GB of BF16 weights
    assert "FP8 base" in dialog.left_title.text() and "BF16 base" in dialog.right_title.text()
    # only what the cards run: MXFP8 and NVFP4 refused on the H100 (compute capability 9.0), NVFP4 open on Blackwell
    box, other = dialog.recipes.left.precision, dialog.recipes.right.precision
    assert not box.model().item(box.findData("nvfp4")).isEnabled()
    assert "9.0" in box.itemData(box.findData("mxfp8"), Qt.ItemDataRole.ToolTipRole)
    assert other.model().item(other.findData("nvfp4")).isEnabled()
    # the user's build is not changed by the what-if
    assert window.doc.build.jobs[0].base_weights == "bf16"


def test_two_recipes_of_one_build_live(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The same build on both sides ("the same cards"), BF16 against FP8 current scaling for the 70B LoRA: the
    difference in memory per card and step time; an edit to the build updates both sides."""
    from configurator.engine.compare import RecipeChoice
    from configurator.ui.jobs.compare import SAME_CARDS

    QStandardPaths.setTestModeEnabled(True)
    window = make_window(qtbot, tmp_path)
    dialog = window.compare_dialog()
    qtbot.addWidget(dialog)
    dialog.use_swap("h200-nvl", SAME_CARDS)
    assert dialog.other is window.doc.build
    name = window.doc.build.jobs[0].name
    dialog.use_recipes(name, RecipeChoice(), RecipeChoice("fp8-current", "bf16"))
    rows = {r.what: i for i, r in enumerate(dialog.rows) if r.job == name}
    assert {"card 1: peak reserved", "card 2: headroom", "step time", "support source"} <= set(rows)
    assert dialog.cell(rows["recipe in effect"], 3) == "fp8-current"
    step = dialog.other_result.jobs[0].step_seconds
    assert dialog.cell(rows["step time"], 3) == ("unknown" if step is None else f"{step:.2f} s")
    before = dialog.cell(rows["card 1: peak reserved"], 3)
    window.doc.edit("longer", lambda b: update_job(b, 0, sequence_length=8192))
    assert dialog.other_result.jobs[0].cards[0].peak_reserved_gb > float(before.split()[0])
    assert dialog.other.jobs[0].sequence_length == 8192


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_compare_screens(qtbot, tmp_path: Path, theme: str) -> None:  # type: ignore[no-untyped-def]
    """The seed B comparison, recipes on, at 1280x800 in both themes, for review; the table has room."""
    from configurator.engine.compare import RecipeChoice

    window, dialog = _seed_b_dialog(qtbot, tmp_path)
    window.set_dark(theme == "dark")
    qtbot.wait(50)  # the application palette reaches the widgets through posted events
    dialog.use_recipes("30B LoRA", RecipeChoice("mixed-bf16", "fp8"), RecipeChoice())
    dialog.resize(1280, 800)
    dialog.show()
    qtbot.waitExposed(dialog)
    SHOTS.mkdir(parents=True, exist_ok=True)
    image = dialog.grab().toImage()
    image.save(str(SHOTS / f"compare-recipes-1280x800-{theme}.png"))
    assert (image.width(), image.height()) == (1280, 800)
    assert dialog.table.height() >= 200 and dialog.left_chart.height() >= 200
    # the charts follow the theme (they were white on the dark dialog)
    assert dialog.left_chart.dark == dialog.right_chart.dark == (theme == "dark")
    window.set_dark(False)
