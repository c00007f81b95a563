"""The MIG editor driven like a user drives it: presets, profiles and jobs dragged onto the slice diagram
with real (synthetic) Qt drag events, refusals, clipboard and undo. Numbers are compared with the engine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QGuiApplication
from PySide6.QtWidgets import QApplication

from configurator.engine import Build
from configurator.engine.model.build import InstanceRef
from configurator.engine.model.buildfile import load_build
from configurator.ui.base.document import BuildDocument
from configurator.ui.dnd.mime import job_mime, mig_profile_mime
from configurator.ui.mig import DISPLAY_MODE_NOTE, EMPTY_TEXT, MigEditor, MigView

pytestmark = pytest.mark.usefixtures("qapp")

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "resources" / "builds" / "seed-mig-four-tenants.yaml"
SHOTS = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "out" / "screens"))


def drag(view: MigView, mime: QMimeData, point: QPoint, drop: bool = True) -> tuple[bool, bool]:
    """Enter, move over ``point`` and (optionally) drop; returns (move accepted, drop accepted).

    ``mime`` stays referenced by the caller while the events are processed (they hold only a pointer)."""
    target = view.viewport()
    actions = Qt.DropAction.CopyAction | Qt.DropAction.MoveAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(target, QDragEnterEvent(point, actions, mime, buttons, mods))
    move = QDragMoveEvent(point, actions, mime, buttons, mods)
    QApplication.sendEvent(target, move)
    if not drop:
        return move.isAccepted(), False
    event = QDropEvent(QPointF(point), actions, mime, buttons, mods)
    QApplication.sendEvent(target, event)
    return move.isAccepted(), event.isAccepted()


def make_editor(qtbot, doc: BuildDocument) -> MigEditor:  # type: ignore[no-untyped-def]
    editor = MigEditor(doc)
    qtbot.addWidget(editor)
    editor.resize(900, 500)
    editor.show()
    qtbot.waitExposed(editor)
    return editor


def shot(editor: MigEditor, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    image = editor.grab().toImage()
    image.save(str(SHOTS / f"mig-editor-{name}.png"))
    assert (image.width(), image.height()) == (editor.width(), editor.height())


def diagram(editor: MigEditor) -> list[tuple[int, str, int, int]]:
    return [(b.index, b.profile, b.start, b.size) for b in editor.view.blocks.values()]


def engine_instances(doc: BuildDocument, slot: int) -> list[tuple[int, str, int, int]]:
    mig = next(m for m in doc.result.mig if m.slot == slot)
    return [(i.index, i.profile, i.start, i.size) for i in mig.instances]


def engine_row(doc: BuildDocument, job: int):  # type: ignore[no-untyped-def]
    return doc.result.jobs[job].cards[0]


@pytest.fixture
def seed_doc() -> BuildDocument:
    return BuildDocument(load_build(SEED))


@pytest.fixture
def mixed_doc() -> BuildDocument:
    """An H200 NVL (8 memory slices) in slot 1 and an RTX PRO 6000 Workstation (12 units) in slot 3, MIG off."""
    build = Build.model_validate({
        "name": "MIG mix",
        "chassis": "generic-server-8",
        "cards": [{"slot": 1, "card": "h200-nvl"}, {"slot": 3, "card": "rtx-pro-6000-ws"}],
        "jobs": [
            {"name": "8B LoRA", "model": "llama-3.1-8b", "method": "lora", "cards": [1]},
            {"name": "8B QLoRA", "model": "llama-3.1-8b", "method": "qlora", "cards": [3]},
        ],
    })  # fmt: skip
    return BuildDocument(build)


def test_seed_layout_is_drawn_from_the_engine(qtbot, seed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    """The seed's four 1g.24gb tenants: four blocks of 3 units, each with its job and the engine's headroom."""
    editor = make_editor(qtbot, seed_doc)
    assert editor.card_box.count() == 1 and editor.current_slot() == 1
    assert editor.mig_toggle.isChecked()
    assert diagram(editor) == engine_instances(seed_doc, 1)
    assert [(b.start, b.size) for b in editor.view.blocks.values()] == [(0, 3), (3, 3), (6, 3), (9, 3)]
    mig = seed_doc.result.mig[0]
    for block, inst in zip(editor.view.blocks.values(), mig.instances, strict=True):
        assert block.capacity_gb == inst.capacity_gb and block.nominal_gb == inst.capacity_nominal_gb
        assert f"{inst.capacity_gb:.1f} GB" in block.lines
        [chip] = block.chips
        row = engine_row(seed_doc, block.index)
        assert chip.job.name == seed_doc.build.jobs[block.index].name
        assert chip.job.headroom_gb == row.headroom_gb
        assert f"{row.headroom_gb:+.1f} GB headroom" in chip.lines
    assert editor.preset_box.currentText().startswith("all-1g")
    assert not editor.display_note.isVisible()  # Server Edition: no display-mode switch
    assert editor.copy_commands_button.isEnabled() and editor.copy_yaml_button.isEnabled()
    shot(editor, "seed-rtx-server")


def test_preset_and_maximal_layouts(qtbot, mixed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    """The layout list has the card's presets and its maximal layouts; choosing one is one undoable edit."""
    editor = make_editor(qtbot, mixed_doc)
    assert editor.current_slot() == 1 and not editor.mig_toggle.isChecked()
    assert not editor.view.blocks and "MIG is off" in editor.view.message
    names = editor.layout_names()
    assert names[:2] == ["all-balanced", "all-1g"]
    assert "3g.71gb + 2g.35gb + 1g.18gb + 1g.18gb" in names
    assert "7g.141gb" in names
    shot(editor, "h200-mig-off")
    # choose the preset from the combo, as a user does
    i = next(i for i in range(editor.preset_box.count()) if editor.preset_box.itemText(i).startswith("all-balanced"))
    editor.preset_box.setCurrentIndex(i)
    editor.preset_box.activated.emit(i)
    assert mixed_doc.undo_stack.undoText() == "MIG layout all-balanced on slot 1"
    assert [r.profile for r in mixed_doc.build.card_in(1).mig] == ["1g.18gb", "1g.18gb", "2g.35gb", "3g.71gb"]
    assert editor.mig_toggle.isChecked()
    assert diagram(editor) == engine_instances(mixed_doc, 1)
    spans = sorted((b.start, b.size) for b in editor.view.blocks.values())
    assert [s for s, _ in spans] == [0, *[s + n for s, n in spans][:-1]] and sum(n for _, n in spans) == 8  # tiled
    assert editor.preset_box.currentText().startswith("all-balanced")
    # the job on the whole card left it (the card is split now)
    assert mixed_doc.build.jobs[0].cards == []
    # a maximal layout by its label
    assert editor.edits.apply_preset("4g.71gb + 3g.71gb")
    assert sorted(b.profile for b in editor.view.blocks.values()) == ["3g.71gb", "4g.71gb"]
    assert mixed_doc.undo_stack.undoText() == "MIG layout 4g.71gb + 3g.71gb on slot 1"
    shot(editor, "h200-maximal")


def test_drag_profile_onto_the_grid(qtbot, mixed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    """A profile dropped on a free position adds an instance there (green while hovering); one that overlaps
    is refused with the engine's reason (red while hovering) and the build is unchanged."""
    editor = make_editor(qtbot, mixed_doc)
    view = editor.view
    statuses: list[str] = []
    editor.status.connect(statuses.append)
    refusals: list[str] = []
    mixed_doc.refused.connect(refusals.append)

    one = mig_profile_mime("1g.35gb")
    moved, dropped = drag(view, one, view.unit_point(7))  # 1g.35gb starts at 6 and covers 6-7: the drop snaps to 6
    assert moved and dropped
    assert [(r.profile, r.start) for r in mixed_doc.build.card_in(1).mig] == [("1g.35gb", 6)]
    assert diagram(editor) == [(0, "1g.35gb", 6, 2)]
    assert mixed_doc.undo_stack.undoText() == "Add MIG 1g.35gb at slices 6-7 on slot 1"

    three = mig_profile_mime("3g.71gb")
    moved, _ = drag(view, three, view.unit_point(0), drop=False)
    assert moved and view.target_colour() is not None and view.target_colour().green() > 100
    view.highlight(None)
    before = mixed_doc.build
    moved, _ = drag(view, three, view.unit_point(5), drop=False)  # 3g at slice 4 covers 4-7: overlaps slice 6
    colour = view.target_colour()
    assert not moved and colour is not None and colour.red() > 150 and colour.green() < 100
    assert "overlaps 1g.35gb" in statuses[-1]
    shot(editor, "h200-refused-hover")
    moved, dropped = drag(view, three, view.unit_point(5))
    assert not dropped
    assert mixed_doc.build == before
    assert refusals and "3g.71gb at slices 4-7 overlaps 1g.35gb at slices 6-7" in refusals[-1]
    assert "overlaps 1g.35gb" in editor.message.text() and "overlaps" in statuses[-1]
    assert view.target_colour() is None  # highlight cleared after the drop

    # a 1g.18gb cannot start at slice 7 on this card
    one_small = mig_profile_mime("1g.18gb")
    drag(view, one_small, view.unit_point(7))
    assert "allowed starts are 0, 1, 2, 3, 4, 5, 6" in refusals[-1]
    # dropping at slice 0 works, and the instance already there keeps its place
    assert drag(view, three, view.unit_point(1))[1]
    assert diagram(editor) == [(0, "1g.35gb", 6, 2), (1, "3g.71gb", 0, 4)]
    shot(editor, "h200-drag")


def test_fifth_instance_on_rtx_pro_is_refused(qtbot, seed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    editor = make_editor(qtbot, seed_doc)
    before = seed_doc.build
    mime = mig_profile_mime("1g.24gb")
    moved, dropped = drag(editor.view, mime, editor.view.unit_point(4))
    assert not moved and not dropped
    assert seed_doc.build == before
    assert editor.view.target_colour() is None
    assert "allows at most 4" in editor.message.text() or "overlaps" in editor.message.text()
    # on a free position the count rule is the reason
    editor.edits.remove_instance(3)
    assert len(editor.view.blocks) == 3
    assert editor.edits.add_instance("1g.24gb", 10)  # back to four
    assert not editor.edits.add_instance("1g.24gb", None)
    assert "at most 4" in editor.message.text()


def test_assign_job_by_dragging_it_onto_an_instance(qtbot, mixed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    """An 8B LoRA dropped into an H200 NVL 1g.18gb instance runs there and shows red: it does not fit."""
    editor = make_editor(qtbot, mixed_doc)
    assert editor.edits.apply_preset("all-balanced")
    small = next(b for b in editor.view.blocks.values() if b.profile == "1g.18gb")
    mime = job_mime("8B LoRA")
    moved, dropped = drag(editor.view, mime, editor.view.block_point(small.index))
    assert moved and dropped
    assert mixed_doc.build.jobs[0].cards == [InstanceRef(slot=1, instance=small.index)]
    assert mixed_doc.undo_stack.undoText() == f"Assign 8B LoRA to slot 1 instance {small.index}"
    row = engine_row(mixed_doc, 0)
    assert (row.slot, row.instance, row.mig) == (1, small.index, "1g.18gb")
    assert not row.fits and row.status == "does-not-fit"
    [chip] = editor.view.blocks[small.index].chips
    assert chip.job.headroom_gb == row.headroom_gb < 0
    # the headroom line as the chip's width allows ('headroom', 'free' or the figure alone); the tooltip in full
    assert chip.lines[0] == "8B LoRA" and chip.lines[2] == "does not fit"
    assert chip.lines[1].startswith(f"{row.headroom_gb:+.1f} GB")
    assert f"{row.headroom_gb:+.1f} GB headroom" in chip.toolTip()
    assert chip.colour.red() > 150 and chip.colour.green() < 80
    shot(editor, "h200-does-not-fit")

    # moved into the 3g.71gb instance it fits (green)
    big = next(b for b in editor.view.blocks.values() if b.profile == "3g.71gb")
    assert drag(editor.view, mime, editor.view.block_point(big.index))[1]
    row = engine_row(mixed_doc, 0)
    [chip] = editor.view.blocks[big.index].chips
    assert row.fits and chip.job.headroom_gb == row.headroom_gb > 0
    assert chip.colour.green() > chip.colour.red()
    assert not editor.view.blocks[small.index].chips
    # a job dropped on empty space is refused, nothing changes
    before = mixed_doc.build
    editor.edits.apply_layout("1g.35gb", ["1g.35gb"])
    before = mixed_doc.build
    assert not drag(editor.view, mime, editor.view.unit_point(7))[1]
    assert mixed_doc.build == before


def test_copy_buttons_put_the_engine_output_on_the_clipboard(qtbot, seed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    editor = make_editor(qtbot, seed_doc)
    mig = seed_doc.result.mig[0]
    qtbot.mouseClick(editor.copy_commands_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "\n".join(mig.commands)
    assert "nvidia-smi mig -i 0 -cgi" in QGuiApplication.clipboard().text()
    qtbot.mouseClick(editor.copy_yaml_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == mig.mig_parted_yaml
    # with no instances there is nothing to copy
    for _ in range(4):
        editor.view.select(0)
        qtbot.keyClick(editor.view, Qt.Key.Key_Delete)
    assert seed_doc.build.card_in(1).mig == []
    assert not editor.copy_commands_button.isEnabled() and not editor.copy_yaml_button.isEnabled()
    assert "no instances" in editor.view.message


def test_remove_instance_keeps_jobs_with_their_instance(qtbot, seed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    """Deleting instance 1 keeps the others where they are; tenants C and D follow their instances."""
    editor = make_editor(qtbot, seed_doc)
    editor.view.select(1)
    qtbot.keyClick(editor.view, Qt.Key.Key_Delete)
    build = seed_doc.build
    assert [(r.profile, r.start) for r in build.card_in(1).mig] == [("1g.24gb", 0), ("1g.24gb", 6), ("1g.24gb", 9)]
    assert [j.cards for j in build.jobs] == [
        [InstanceRef(slot=1, instance=0)],
        [],
        [InstanceRef(slot=1, instance=1)],
        [InstanceRef(slot=1, instance=2)],
    ]
    assert [(b.start, [c.job.name for c in b.chips]) for b in editor.view.blocks.values()] == [
        (0, ["tenant A"]),
        (6, ["tenant C"]),
        (9, ["tenant D"]),
    ]
    assert seed_doc.undo_stack.undoText() == "Remove MIG instance 1 (1g.24gb) from slot 1"


def test_display_mode_note_and_card_selector(qtbot, mixed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    editor = make_editor(qtbot, mixed_doc)
    assert [editor.card_box.itemText(i) for i in range(editor.card_box.count())] == [
        "Slot 1: H200 NVL",
        "Slot 3: RTX PRO 6000 Workstation Edition",
    ]
    assert not editor.display_note.isVisible()
    editor.select_slot(3)
    assert editor.current_slot() == 3
    assert editor.display_note.isVisible() and editor.display_note.text() == DISPLAY_MODE_NOTE
    assert [editor.palette_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(editor.palette_list.count())] == [
        "1g.24gb",
        "1g.24gb+me",
        "2g.48gb",
        "4g.96gb",
    ]
    assert editor.layout_names()[:4] == ["all-balanced", "all-1g", "all-2g", "all-4g"]
    editor.mig_toggle.click()
    assert mixed_doc.build.card_in(3).mig == [] and mixed_doc.undo_stack.undoText() == "MIG on on slot 3"
    mime = mig_profile_mime("2g.48gb")
    assert drag(editor.view, mime, editor.view.unit_point(8))[1]
    assert diagram(editor) == [(0, "2g.48gb", 6, 6)]
    mig = next(m for m in mixed_doc.result.mig if m.slot == 3)
    assert mig.display_mode_required and any("DisplayModeSelector" in c for c in mig.commands)
    shot(editor, "rtx-ws-display-note")
    editor.mig_toggle.click()
    assert mixed_doc.build.card_in(3).mig is None and not editor.view.blocks


def test_undo_restores_everything(qtbot, seed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    editor = make_editor(qtbot, seed_doc)
    original, shown = seed_doc.build, diagram(editor)
    chips = [[c.job.headroom_gb for c in b.chips] for b in editor.view.blocks.values()]
    assert editor.edits.apply_preset("all-balanced")
    mime = job_mime("tenant D")
    big = next(b for b in editor.view.blocks.values() if b.profile == "2g.48gb")
    assert drag(editor.view, mime, editor.view.block_point(big.index))[1]
    editor.mig_toggle.click()
    assert seed_doc.build.card_in(1).mig is None and not editor.view.blocks
    while seed_doc.undo_stack.canUndo():
        seed_doc.undo_stack.undo()
    assert seed_doc.build == original
    assert diagram(editor) == shown
    assert [[c.job.headroom_gb for c in b.chips] for b in editor.view.blocks.values()] == chips
    assert editor.mig_toggle.isChecked() and editor.preset_box.currentText().startswith("all-1g")


def test_empty_state_when_no_card_supports_mig(qtbot) -> None:  # type: ignore[no-untyped-def]
    build = Build.model_validate(
        {"name": "no MIG", "chassis": "generic-server-8", "cards": [{"slot": 1, "card": "l40s"}]}
    )
    doc = BuildDocument(build)
    editor = make_editor(qtbot, doc)
    assert editor.stack.currentWidget() is editor.empty_label
    assert editor.empty_label.text() == EMPTY_TEXT
    shot(editor, "empty")
    # a MIG card placed later shows up, and undo goes back to the empty state
    from configurator.engine.editing import place_card

    doc.edit("Place H200 NVL", lambda b: place_card(b, doc.catalog, 3, "h200-nvl"))
    assert editor.stack.currentWidget() is not editor.empty_label and editor.current_slot() == 3
    doc.undo_stack.undo()
    assert editor.stack.currentWidget() is editor.empty_label and editor.current_slot() is None


def test_seven_small_tenants_stay_readable(qtbot, mixed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    """Seven 1g.18gb instances each with a job: every block keeps its text inside it."""
    editor = make_editor(qtbot, mixed_doc)
    assert editor.edits.apply_preset("all-1g")
    assert drag(editor.view, job_mime("8B QLoRA"), editor.view.block_point(3))[1]
    assert drag(editor.view, job_mime("8B LoRA"), editor.view.block_point(5))[1]
    for block in editor.view.blocks.values():
        children = list(block.childItems())
        while children:
            child = children.pop()
            children += child.childItems()
            r = child.mapRectToItem(block, child.boundingRect())
            assert block.rect().adjusted(-1, -1, 1, 1).contains(r), (block.profile, r, block.rect())
    shot(editor, "h200-all-1g")


def test_user_strings_are_escaped_in_the_mig_tooltips(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Issue 13: a job name is text, never markup, in the instance and job tooltips."""
    from configurator.engine.editing import update_job

    build = load_build(SEED)
    doc = BuildDocument(update_job(build, 0, name="<b>A</b> & co"))
    editor = make_editor(qtbot, doc)
    tips = [c.toolTip() for b in editor.view.blocks.values() for c in [b, *b.chips]]
    assert any("&lt;b&gt;A&lt;/b&gt; &amp; co" in t for t in tips)
    assert not any("<b>A</b>" in t for t in tips)
    assert editor.message.textFormat() == Qt.TextFormat.PlainText


def test_each_profile_has_its_own_colour_visible_on_either_theme(qtbot, mixed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    """1g.18gb, 1g.18gb+me and 1g.35gb shared one blue, and 7g.141gb's dark grey was 1.6:1 on the dark base: each
    profile's swatch is its own colour, the block's the same, at 3:1 or more on the dark base and on white (WCAG
    1.4.11) and carrying white text at 4.5:1 (1.4.3)."""
    from configurator.present.colours import contrast

    editor = make_editor(qtbot, mixed_doc)
    editor.select_slot(1)  # the H200 NVL: seven profiles
    palette = editor.palette_list
    swatches = {}
    for i in range(palette.count()):
        image = palette.item(i).icon().pixmap(14, 14).toImage()
        swatches[palette.item(i).text().split("\n")[0]] = image.pixelColor(7, 7).name()
    assert len(swatches) == 7 and len(set(swatches.values())) == 7, swatches
    for name, fill in swatches.items():
        assert contrast(fill, "#1f1f1f") >= 3.0 and contrast(fill, "#ffffff") >= 4.5, (name, fill)
    assert editor.edits.apply_preset("all-1g")
    block = next(iter(editor.view.blocks.values()))
    assert block.colour.name() == swatches[block.profile]


@pytest.mark.parametrize("size", [(1024, 768), (1366, 768)])
def test_narrow_blocks_write_fewer_words_not_cut_ones(first_start, qtbot, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """At 1024x768 the four tenants' blocks showed '1g.24…', 'insta…', 'tena…'; at 1366x768 each wrapped into six
    narrow lines: a block writes the fullest set of lines that each fit on one line (the profile and its tenant at
    least), the tooltip the rest."""
    from PySide6.QtWidgets import QGraphicsSimpleTextItem

    window = first_start(size, build=SEED)
    window.analysis.setCurrentWidget(window.mig_editor)
    qtbot.wait(20)
    blocks = list(window.mig_editor.view.blocks.values())
    assert len(blocks) == 4
    for block in blocks:
        texts = [c for c in block.childItems() if isinstance(c, QGraphicsSimpleTextItem)]
        words = [t.text() for t in texts]
        assert words[0] == block.profile and not any("…" in w for w in words), words
        assert len(texts) <= 4, words  # the block's own lines, not six wrapped ones
        [chip] = block.chips
        chip_words = [c.text() for c in chip.childItems() if isinstance(c, QGraphicsSimpleTextItem)]
        assert not any("…" in w for w in chip_words) and " ".join(chip_words).startswith(chip.job.name), chip_words
        assert block.profile in block.toolTip() and chip.job.name in chip.toolTip()


def test_layout_and_mig_off_say_which_jobs_lost_their_instance(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Review 2 #6: all-balanced keeps tenants A and B on their 1g.24gb instances and says C and D lost theirs;
    MIG off puts every tenant on the whole card (none is unassigned); undo restores the instances."""
    doc = BuildDocument(load_build(SEED))
    editor = make_editor(qtbot, doc)
    statuses: list[str] = []
    editor.status.connect(statuses.append)
    assert editor.edits.apply_preset("all-balanced")
    assert [j.cards for j in doc.build.jobs[:2]] == [[InstanceRef(slot=1, instance=0)],
                                                       [InstanceRef(slot=1, instance=1)]]  # fmt: skip
    assert "2 jobs lost their instance: tenant C, tenant D" in statuses[-1]
    assert "tenant C, tenant D" in editor.message.text()
    doc.undo_stack.undo()
    assert editor.edits.set_mig(False)
    assert [j.cards for j in doc.build.jobs] == [[1]] * 4
    assert "lost" not in statuses[-1] and "whole card" in statuses[-1]
    doc.undo_stack.undo()
    assert doc.build.jobs[3].cards == [InstanceRef(slot=1, instance=3)]


def test_the_message_takes_the_new_themes_ink_at_once(qtbot, seed_doc: BuildDocument) -> None:  # type: ignore[no-untyped-def]
    """View › Dark theme: a refusal under the diagram is recoloured when the palette turns, not at the next message
    (review 2: it kept the light theme's red on the dark background)."""
    from configurator.ui.base import severity_ink
    from tests.gui_helpers import dark_theme

    editor = make_editor(qtbot, seed_doc)
    editor.say("Refused: no room", error=True)
    light = editor.message.styleSheet()
    with dark_theme():
        qtbot.waitUntil(lambda: editor.message.styleSheet() != light)
        assert editor.message.styleSheet() == f"color: {severity_ink(editor, 'error')};"
        assert editor.message.text() == "Refused: no room"
    qtbot.waitUntil(lambda: editor.message.styleSheet() == light)
