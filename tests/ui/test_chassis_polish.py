"""Issue 15's chassis-view findings, one test each: the empty band above the drawing, the tiny NVLink label,
MIG text past the card's edge, RTX PRO cards dark on dark, the drag-leave warning, the bridge wording."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRectF, Qt, qInstallMessageHandler
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDragMoveEvent, QFontMetricsF
from PySide6.QtWidgets import QApplication

from configurator.engine import editing
from configurator.engine.model.buildfile import load_build
from configurator.present.colours import contrast
from configurator.ui.chassis.items import BridgeItem, CardItem
from configurator.ui.dnd.mime import bridge_mime, card_mime, mig_profile_mime, slot_mime
from tests.gui_helpers import drag_drop
from tests.paths import BUILDS

pytestmark = pytest.mark.usefixtures("qapp")


def test_drawing_starts_at_the_top(window) -> None:  # type: ignore[no-untyped-def]
    """At 1280x800 the chassis heading sits at the top of the view (it was centred: ~110 px of nothing above)."""
    view = window.chassis_view
    view.fit()
    top = view.mapFromScene(view.scene().sceneRect().topLeft()).y()
    assert -2 <= top <= 2  # to the pixel (the fit rounds)


def test_nvlink_label_is_readable_at_1280x800(window) -> None:  # type: ignore[no-untyped-def]
    """The 'NVLink ×2' text along the bridge is at least 9 screen pixels high in the 1280x800 window and
    lies inside its bar."""
    view = window.chassis_view
    view.fit()
    bar = next(i for i in view.scene().items() if isinstance(i, BridgeItem))
    assert bar.text == "NVLink ×2"
    scale = view.transform().m11()
    assert bar.font.pixelSize() * scale >= 9.0, (bar.font.pixelSize(), scale)
    along = QFontMetricsF(bar.font).horizontalAdvance(bar.text)
    assert along <= bar.rect().height() and QFontMetricsF(bar.font).height() <= bar.rect().width()


def fits(item: CardItem) -> bool:
    box = item.text_rect()
    metrics = QFontMetricsF(item.font)
    wide = max(metrics.horizontalAdvance(line) for line in item.lines)
    return wide <= box.width() + 0.5 and metrics.lineSpacing() * len(item.lines) <= box.height() + 0.5


def test_label_keeps_left_of_a_bridge_over_a_longer_card(window) -> None:  # type: ignore[no-untyped-def]
    """mixed-with-errors bridges an H200 NVL to a longer RTX PRO 6000 Workstation Edition: the bar stands at the
    shorter card's end, and the longer card's name ran under it ('Workstation Ed|on'). Every card's label
    ends left of every bar that crosses it."""
    window.doc.replace(load_build(BUILDS / "mixed-with-errors.yaml"), None)
    view = window.chassis_view
    bars = [i for i in view.scene().items() if isinstance(i, BridgeItem)]
    assert bars
    for bar in bars:
        for slot in bar.slots:
            item = view.card_items[slot]
            box = item.text_rect()
            metrics = QFontMetricsF(item.font)
            text_right = box.left() + max(metrics.horizontalAdvance(line) for line in item.lines)
            assert text_right <= bar.rect().left(), (slot, item.lines, text_right, bar.rect().left())
            assert fits(item), (slot, item.lines)


def test_card_labels_stay_inside_their_card(window) -> None:  # type: ignore[no-untyped-def]
    """Every card, with its largest MIG layout, in every chassis slot that takes it: the label's lines fit
    the card's width and height. The seed's four MIG tenants read whole, in a legible size."""
    view, cat = window.chassis_view, window.doc.catalog
    for chassis in cat.chassis.values():
        for pos in chassis.positions[:1] + [p for p in chassis.positions if p.kind != chassis.positions[0].kind][:1]:
            for card in cat.cards.values():
                if editing.check_place(window.doc.build.model_copy(update={"chassis": chassis.id, "cards": []}),
                                       cat, pos.slot, card.id) is not None:  # fmt: skip
                    continue
                profile = card.mig.profiles[0].name if card.mig else None
                for mig in (None, [profile] * card.mig.max_instances if card.mig else None,
                            [p.name for p in card.mig.profiles] if card.mig else None):  # fmt: skip
                    for bridged in (False, True):  # the label keeps clear of the NVLink bar
                        rect = view._card_rect(chassis, pos, card)
                        bar = BridgeItem.left_for(rect.right()) if bridged else None
                        item = CardItem(pos.slot, card, rect, mig, bar)
                        assert fits(item), (chassis.id, pos.slot, card.id, mig, item.lines)
                        assert item.text_rect().right() < item.rect().right() - (BridgeItem.INSET if bridged else 0)
    window.doc.replace(load_build(BUILDS / "seed-mig-four-tenants.yaml"), None)
    item = window.chassis_view.card_items[1]
    assert any("MIG 4 × 1g.24gb" in line for line in item.lines) and fits(item)
    assert item.font.pixelSize() >= 15


@pytest.mark.parametrize("dark", [False, True])
def test_cards_stand_out_from_the_canvas_and_their_labels_read(window, dark: bool) -> None:  # type: ignore[no-untyped-def]
    """For every card family, in both themes: the card's fill or outline at 3:1 or more against the chassis
    canvas (WCAG 2.1 SC 1.4.11) and its label ink at 4.5:1 or more on the fill (SC 1.4.3). The RTX PRO
    grey was 1.7:1 on the dark canvas."""
    window.set_dark(dark)
    view, cat = window.chassis_view, window.doc.catalog
    canvas = view.backgroundBrush().color().name()
    assert (QApplication.palette().window().color().lightness() < 128) == dark
    for card in cat.cards.values():
        item = CardItem(1, card, QRectF(0, 0, 400, 70), None)
        fill, edge = item.brush().color().name(), item.pen().color().name()
        assert max(contrast(fill, canvas), contrast(edge, canvas)) >= 3.0, (card.id, fill, canvas)
        assert contrast(item.ink.name(), fill) >= 4.5, (card.id, item.ink.name(), fill)
    window.set_dark(False)


def test_no_drag_leave_warning(window) -> None:  # type: ignore[no-untyped-def]
    """A drag that enters and leaves the chassis (or leaves without entering) prints nothing: QGraphicsView
    used to print 'drag leave received before drag enter' for every drag that crossed the view."""
    messages: list[str] = []
    previous = qInstallMessageHandler(lambda kind, context, text: messages.append(text))
    try:
        view = window.chassis_view
        target = view.viewport()
        for mime in (card_mime("h200-nvl"), slot_mime(3, "rtx-pro-6000-server"), bridge_mime(2)):
            args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
            QApplication.sendEvent(target, QDragEnterEvent(QPoint(5, 5), *args))
            QApplication.sendEvent(target, QDragMoveEvent(QPoint(200, 200), *args))
            QApplication.sendEvent(target, QDragLeaveEvent())
        QApplication.sendEvent(target, QDragLeaveEvent())
        assert drag_drop(view, card_mime("h200-nvl"), 4)
        mig = window.mig_editor.view.viewport()  # the MIG diagram had the same warning
        profile = mig_profile_mime("1g.24gb")
        args = (Qt.DropAction.CopyAction, profile, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(mig, QDragEnterEvent(QPoint(5, 5), *args))
        QApplication.sendEvent(mig, QDragLeaveEvent())
    finally:
        qInstallMessageHandler(previous)
    assert not [m for m in messages if "drag" in m.lower()], messages
    assert all(item.brush().color().alpha() < 30 for item in view.slot_items.values())  # tints cleared


def test_bridge_on_a_lone_card_says_what_is_missing(window) -> None:  # type: ignore[no-untyped-def]
    """A 2-way bridge dropped on a card with empty slots beside it says that, not 'every selected slot needs
    one' (nothing was selected)."""
    assert drag_drop(window.chassis_view, card_mime("h200-nvl"), 5)
    assert not drag_drop(window.chassis_view, bridge_mime(2), 5)
    message = window.statusBar().currentMessage()
    assert message == "Cannot bridge here: a 2-way bridge joins 2 cards side by side; slot 5 has no card next to it"
    assert not drag_drop(window.chassis_view, bridge_mime(4), 5)
    assert "a 4-way bridge joins 4 cards side by side; slot 5 has fewer than 3 cards next to it" in (
        window.statusBar().currentMessage()
    )


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_card_labels_stay_legible_when_the_drawing_is_scaled_down(first_start, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """At 1024x768 the chassis is drawn at about a third of its size and the card labels shrank to ~4-6 screen
    pixels. They stay 9 px or more on screen (the NVLink label's floor): a shorter name, or elided, instead."""
    window = first_start(size, "light", BUILDS / "mixed-with-errors.yaml")
    view = window.chassis_view
    scale = view.transform().m11()
    for slot, item in view.card_items.items():
        assert item.font.pixelSize() * scale >= 9.0 - 0.01, (slot, item.font.pixelSize(), scale, item.lines)
        assert fits(item), (slot, item.lines)
        assert item.lines and item.lines[0].strip("…"), (slot, item.lines)


def _on_screen_px(view, item) -> float:  # type: ignore[no-untyped-def]
    """A text item's type as shown: its point size in pixels through the view's scale."""
    return item.font().pointSizeF() * view.logicalDpiY() / 72 * view.transform().m11()


@pytest.mark.parametrize("build", ["default", "seed-30b-lora-h100-sxm", "generic-server-8-cascaded"])
def test_slot_labels_and_heading_stay_legible_at_1024x768(first_start, tmp_path, build: str) -> None:  # type: ignore[no-untyped-def]
    """At 1024x768 the drawing was scaled to ~0.29 and its slot labels and the line under the chassis name read
    ~6 px (the line under the name set the drawing's width; an all-socket chassis kept an empty label column; the
    cascaded switches' long labels widened the column). Every text of the drawing reads 9 px or more, the name
    larger than the labels, no label over another or over a slot, the heading above the slots."""
    path = BUILDS / f"{build}.yaml"
    if not path.exists():  # a chassis with no build of its own: empty
        path = tmp_path / "empty.yaml"
        path.write_text(f"name: t\nchassis: {build}\ncards: []\njobs: []\n")
    window = first_start((1024, 768), "light", path)
    view = window.chassis_view
    texts = list(view._texts)
    assert texts
    for item in texts:
        assert _on_screen_px(view, item) >= 9.0 - 0.01, (item.text(), _on_screen_px(view, item))
    name = texts[0]
    labels = [t for t in texts if t.text().startswith("Slot ")]
    assert len(labels) == len(view.slot_items) and _on_screen_px(view, name) > _on_screen_px(view, labels[0])
    top = min(item.sceneBoundingRect().top() for item in view.slot_items.values())
    for heading in texts[:2]:  # the name and the line under it, above the slots and inside the drawing
        assert heading.sceneBoundingRect().bottom() <= top, heading.text()
        assert view.scene().sceneRect().contains(heading.sceneBoundingRect()), heading.text()
    boxes = [t.sceneBoundingRect() for t in labels]
    assert not any(a.intersects(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    slots = [s.sceneBoundingRect() for s in view.slot_items.values()]
    assert not any(box.intersects(slot) for box in boxes for slot in slots)
    # the window made larger: the text back at its designed size (it grew only where the drawing was small)
    window.resize(1920, 1080)
    QApplication.processEvents()
    view.fit()
    assert view.text_points() == view.label_points
    assert all(_on_screen_px(view, t) >= 9.0 for t in view._texts)


def test_the_bridge_says_what_the_topology_tab_calls_it(window) -> None:  # type: ignore[no-untyped-def]
    """'NVLink ×2' on the chassis and 'NV18' in the Topology tab are the same bridge: the bar's tooltip says both
    (×2 the cards it joins, NV18 the links between each pair, as nvidia-smi topo -m prints it)."""
    bar = next(i for i in window.chassis_view.scene().items() if isinstance(i, BridgeItem))
    topo = window.doc.result.topology
    index = {s: k for k, s in enumerate(topo.slots)}
    label = topo.matrix[index[bar.slots[0]]][index[bar.slots[1]]]
    assert label.startswith("NV")
    tip = bar.toolTip()
    assert label in tip and "×2" in tip and "cards it joins" in tip, tip


@pytest.mark.parametrize("build", ["default", "seed-30b-lora-h100-sxm"])
def test_one_resize_draws_the_chassis_once(qtbot, monkeypatch, build: str) -> None:  # type: ignore[no-untyped-def]
    """The text grows in 5 % steps where the drawing is scaled down, and fit drew the whole scene again at each step
    (two to six times in one resize to 300x220 px): the size it settles at is found from the frame's measures and
    drawn once, and it reads as that many rounds made it read."""
    from configurator.ui.base.document import BuildDocument
    from configurator.ui.chassis.chassis_view import LEGIBLE_PX, ChassisView

    view = ChassisView(BuildDocument(load_build(BUILDS / f"{build}.yaml")))
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    drawn = []
    real = ChassisView._build_chassis
    monkeypatch.setattr(ChassisView, "_build_chassis", lambda self, chassis: drawn.append(1) or real(self, chassis))
    for size in [(520, 360), (300, 220), (700, 500), (1400, 900), (300, 220)]:
        drawn.clear()
        view.resize(*size)
        QApplication.processEvents()
        assert len(drawn) <= 1, (size, len(drawn))
        assert view.text_points() * view.logicalDpiY() / 72 * view.transform().m11() >= LEGIBLE_PX - 0.01, size
