"""Kiosk widgets: wrapped buttons, the big-icon card palette, the touch chassis view, overlays."""

from __future__ import annotations

from PySide6.QtCore import (
    QEvent,
    QObject,
    QPoint,
    QRectF,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QDrag, QFont, QFontMetricsF, QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.loader import Catalog
from configurator.catalog.richtext import escape_rich
from configurator.engine import Build, BuildResult
from configurator.engine.editing.kiosk import (
    check_drop,
    short_name,
)
from configurator.present.words import capacity_label
from configurator.ui.base import BuildDocument
from configurator.ui.chassis import ChassisView, card_icon, chassis_line
from configurator.ui.dnd import card_mime, read_card, read_slot
from configurator.ui.kiosk.scenarios import GRID_W, INK

LOCKED_WORDS = "Cannot change the planner's server here: use the buttons below"

# ---- widgets ---------------------------------------------------------------------------------------------


def _font(points: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPointSizeF(points)
    f.setBold(bold)
    return f


# A question button's least height: two lines of its words. Six questions fit the side column at 1920x1080 (and
# so at every 16:9 screen); at 112 px the sixth pushed the column past the window and squeezed the labels.
WRAP_MIN_H = 80


class WrapButton(QPushButton):
    """A tall button whose words wrap (QPushButton alone never wraps)."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(text, self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # a scenario's title is the shop's text, not markup
        self.label.setWordWrap(True)
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(18, 10, 18, 10)
        layout.addWidget(self.label)
        self.setAccessibleName(text)
        self.setCheckable(True)
        self.setMinimumHeight(WRAP_MIN_H)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.toggled.connect(self._recolour)
        self._recolour(False)

    def _recolour(self, checked: bool) -> None:
        self.label.setStyleSheet(f"color: {'white' if checked else INK}; background: transparent;")

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), max(WRAP_MIN_H, self.label.sizeHint().height() + 24))


class DemoPalette(QListWidget):
    """The scenario's cards as big icons; drag one out, or tap it and then tap a slot."""

    armed = Signal(str)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self._icons: dict[str, QIcon] = {}
        self.scale = 1.0  # the window's screen scale (kiosk/scaling.py)
        self.setViewMode(QListWidget.ViewMode.IconMode)
        self.setFlow(QListWidget.Flow.LeftToRight)
        self.setWrapping(False)
        self.setMovement(QListWidget.Movement.Static)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self._size_cells()
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWordWrap(True)
        self.setFont(_font(18, True))
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setAccessibleName("Cards to drag into the chassis")
        self.itemClicked.connect(self._clicked)

    def _size_cells(self) -> None:
        s = self.scale
        # a card's name and its two sizes on up to four lines under a 44 px icon (a 64 px one left three lines and
        # cut "96 GB (102.6 GB visible)" short under a two-line name): 40 px less than the tiles had, for the
        # chassis and the chart above
        self.setIconSize(QSize(round(44 * s), round(44 * s)))
        self.setGridSize(QSize(round(GRID_W * s), round(160 * s)))
        self.setFixedHeight(round(168 * s))

    def set_scale(self, s: float) -> None:
        """Cells, icons and width for the window's screen scale (the font is scaled with the window's)."""
        self.scale = s
        self._size_cells()
        self.set_cards(self.card_ids())

    def set_cards(self, card_ids: list[str]) -> None:
        self.clear()
        for card_id in card_ids:
            card = self.catalog.cards[card_id]
            if card_id not in self._icons:
                self._icons[card_id] = card_icon(card, 84)
            # the datasheet's size and what the driver shows, as every kiosk figure and the chassis' tiles read it
            # ("96 GB" here beside "102.6 GB" on the tile and in the figures was two sizes for one card)
            nominal = card.memory_gb.value
            size = "memory not published" if nominal is None else capacity_label(nominal, card.visible_gb)
            item = QListWidgetItem(self._icons[card_id], f"{short_name(card.name)}\n{size}")
            item.setToolTip(size)
            item.setData(Qt.ItemDataRole.UserRole, card_id)
            item.setTextAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            self.addItem(item)
        self.setFixedWidth(max(len(card_ids), 2) * round(GRID_W * self.scale) + 2 * self.frameWidth() + 6)

    def card_ids(self) -> list[str]:
        return [self.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.count())]

    def _clicked(self, item: QListWidgetItem) -> None:
        self.armed.emit(item.data(Qt.ItemDataRole.UserRole))

    def startDrag(self, supported_actions: Qt.DropAction) -> None:
        item = self.currentItem()
        if item is None:
            return
        drag = QDrag(self)
        drag.setMimeData(card_mime(item.data(Qt.ItemDataRole.UserRole)))
        drag.setPixmap(item.icon().pixmap(84, 84))
        drag.exec(Qt.DropAction.CopyAction)


HEADING_POINTS = 18.0  # the chassis heading at 1920x1080, scaled with the window: the body text's size (layout.py)
HEADING_PAD = 8  # px at 1920x1080: the heading's inset in the view's white card
# the slot labels' least size at 1920x1080 (scaled with the window; never under the chassis view's 9 px): the plan
# scenario's read 13.5 px there with the heading in the drawing, 10.4 under the heading at body size. They grow
# toward it as far as they stay clear of each other (most_grow): 12.4 px. Its drawing is as tall as its view allows,
# so the wider label column costs it no scale
LABEL_FLOOR_PX = 13.0


# the most of the view's height the heading's name and specification may take before it shows the name alone
HEADING_MOST_SHARE = 0.2


class ChassisHeading(QLabel):
    """The chassis name (bold) and the line under it (chassis.chassis_line) as one paragraph over the drawing, in
    the window's body type: drawn in the drawing, they shrank with it (at 1366x768 both read 10.5 px in the plan
    scenario, whose eight slots scale it most, beside 17 px body text). One paragraph, not two: the plan scenario's
    view has ~270 px of height at 1366x768, and each line the heading takes the drawing loses."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)  # a drop or a tap goes to the view
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setStyleSheet(f"color: {INK}; background: transparent;")
        self.name = self.line = ""
        self.set_scale(1.0)

    def set_scale(self, s: float) -> None:
        self.setFont(_font(HEADING_POINTS * s))

    def set_chassis(self, name: str, line: str, with_line: bool = True) -> None:
        """``with_line`` False: the name alone, where the specification would take the drawing's room."""
        self.name, self.line = name, line
        # catalog words in rich text: escaped (a chassis file is anyone's to write). The words flow on from the
        # name: kept whole between the ' · ' (as the drawing's heading wrapped), they took a line more
        tail = f" · {escape_rich(line)}" if with_line and line else ""
        self.setText(f"<b>{escape_rich(name)}</b>{tail}" if name else "")

    def px(self) -> float:
        """The heading's type as shown, in screen pixels."""
        return self.font().pointSizeF() * self.logicalDpiY() / 72


class DemoChassisView(ChassisView):
    """The chassis view with kiosk rules: a palette card dropped on a card swaps it, a tapped slot takes the
    armed card, and there is no context menu. Its slot labels are drawn in larger type than the main window's,
    so they read at a stand's distance (~8 px at 1920x1080 before; ``label_px``). Its heading stands over the
    drawing, outside it (ChassisHeading): the viewport starts under it."""

    label_points = 21.0
    draws_heading = False
    heading: ChassisHeading | None = None  # made after the first drawing (ChassisView.__init__ draws)
    screen_scale = 1.0  # the window's screen scale (kiosk/scaling.py; QGraphicsView has a scale())

    def __init__(self, document: BuildDocument, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.heading = ChassisHeading(self)
        self._set_heading()
        self.armed: str | None = None
        self.locked = False  # a plan scenario's node: no card dragged in, moved or tapped into place
        self.place = self._no_place
        self._tints: dict[int, bool] = {}
        self._focus: QRectF | None = None
        self.setDragMode(ChassisView.DragMode.NoDrag)
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def set_scale(self, s: float) -> None:
        """The heading's type for screen scale ``s``, as the window's (kiosk/scaling.py)."""
        self.screen_scale = s
        if self.heading is not None:
            self.heading.set_scale(s)
        self._place_heading()
        self.fit()  # the slot labels' floor scales too

    def _build_chassis(self, chassis) -> None:  # type: ignore[no-untyped-def]
        super()._build_chassis(chassis)
        self._set_heading()

    def _set_heading(self) -> None:
        if self.heading is None:
            return
        chassis = self.doc.catalog.chassis.get(self.doc.build.chassis)
        self.heading.set_chassis(chassis.name if chassis else "", chassis_line(chassis) if chassis else "")
        self._place_heading()

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self._place_heading()
        super().resizeEvent(event)

    def _place_heading(self) -> None:
        """The heading across the view's top, wrapped to its width; the viewport (the drawing) under it."""
        heading = self.heading
        if heading is None:
            return
        pad = round(HEADING_PAD * self.screen_scale)
        width = max(self.width() - 2 * pad, 1)
        heading.set_chassis(heading.name, heading.line)
        height = heading.heightForWidth(width) if heading.name else 0
        if height > HEADING_MOST_SHARE * self.height():
            # the plan scenario's eight slots at 1366x768: the specification took four lines of a ~270 px view and
            # the slot labels fell under 9 px, the MIG marks with them; the name alone keeps the drawing readable
            heading.set_chassis(heading.name, heading.line, with_line=False)
            height = heading.heightForWidth(width)
        heading.setGeometry(pad, pad, width, max(height, 0))
        heading.setVisible(height > 0)
        top = height + pad if height > 0 else 0  # the drawing's own margin (focus_rect) parts them
        if self.viewportMargins().top() != top:
            self.setViewportMargins(0, top, 0, 0)  # the viewport resizes: the drawing fits again (resizeEvent)

    def label_floor_px(self) -> float:
        return max(super().label_floor_px(), LABEL_FLOOR_PX * self.screen_scale)

    def most_grow(self) -> float:
        """As far as a slot's two-line label stays clear of the next slot's: the kiosk's labels are drawn large, and
        grown 30 % (the plan scenario's at 1366x768) they ran into each other."""
        gap = self.label_gap()
        if gap is None:
            return super().most_grow()
        font = QFont()
        font.setPointSizeF(self.label_points)
        line = QFontMetricsF(font).height()
        return (gap - 6) / (2 * line)  # its two lines, 4 px under the slot's top and clear of the next

    def label_px(self) -> float:
        """The slot labels' type as shown, in screen pixels (their point size through the view's scale)."""
        return self.text_points() * self.logicalDpiY() / 72 * self.transform().m11()

    def _no_place(self, slot: int, card_id: str) -> bool:
        return False

    def refresh(self, build: Build, result: BuildResult) -> None:
        super().refresh(build, result)
        self.fit()

    def focus_rect(self) -> QRectF | None:
        """As many whole slots as fit the view at full width, down to one past the last card at least: empty
        slots further down would only shrink the drawing."""
        scene = self.scene()
        if scene is None or not self.slot_items:
            return None
        order = sorted(self.slot_items.values(), key=lambda i: i.position.x)
        full = scene.itemsBoundingRect().adjusted(-10, -10, 10, 10)
        # every slot: a visitor can reach all of them (at 1920x1080 the drawing stopped after slot 4-5 of 8)
        least = len(order)
        scale = self.viewport().width() / max(full.width(), 1.0)
        font = QFont()
        font.setPointSizeF(self.label_points)
        # two lines of labels sit under SXM sockets
        extra = 2 * QFontMetricsF(font).height() + 6 if order[0].position.kind == "sxm" else 2.0

        def bottom(n: int) -> float:
            return max(item.rect().bottom() for item in order[:n]) + extra

        n = len(order)
        while n > least and (bottom(n) - full.top()) * scale > self.viewport().height():
            n -= 1
        return QRectF(full.left(), full.top(), full.width(), min(bottom(n), full.bottom()) - full.top())

    def _fit_view(self) -> None:
        """The focus rectangle scaled into the view; ChassisView.fit grows the slot labels from there where they
        would read under its LEGIBLE_PX (the plan scenario's eight slots at 1366x768, under the heading)."""
        rect = self.focus_rect()
        if rect is None:
            super()._fit_view()
            return
        self._focus = rect
        self.scene().setSceneRect(rect)
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)

    def drawForeground(self, painter, rect: QRectF) -> None:  # type: ignore[no-untyped-def, override]
        """Blank out slots below the focus rectangle, so no row shows cut in half at the bottom edge."""
        focus = self._focus
        if focus is not None and rect.bottom() > focus.bottom():
            painter.fillRect(QRectF(rect.left(), focus.bottom(), rect.width(), rect.bottom() - focus.bottom()),
                             QColor("white"))  # fmt: skip

    def slot_at(self, pos: QPoint) -> int | None:
        """The slot under a viewport point: a card's slot, else an empty slot's."""
        scene_pos = self.mapToScene(pos)
        if self._focus is not None and scene_pos.y() > self._focus.bottom():
            return None  # blanked out below the drawing
        for items in (self.card_items, self.slot_items):
            for slot, item in items.items():
                if item.sceneBoundingRect().contains(scene_pos):
                    return slot
        return None

    @staticmethod
    def _palette_card(event) -> str | None:  # type: ignore[no-untyped-def]
        mime = event.mimeData()
        return read_card(mime) if read_slot(mime) is None else None

    def _tint(self, target: int | None = None, allowed: bool = False) -> None:
        for slot, item in self.slot_items.items():
            if slot == target:
                item.highlight(QColor(46, 125, 50, 110) if allowed else QColor(198, 40, 40, 110))
            elif slot in self._tints:
                item.highlight(QColor(46, 125, 50, 40) if self._tints[slot] else QColor(198, 40, 40, 30))
            else:
                item.highlight(None)

    def _untint(self) -> None:
        self._tints = {}
        self._tint()

    def dragEnterEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if self.locked:
            self.status.emit(LOCKED_WORDS)
            event.ignore()
            return
        card_id = self._palette_card(event)
        if card_id is None:
            super().dragEnterEvent(event)
            return
        self._tints = {s: check_drop(self.doc.build, self.doc.catalog, s, card_id) is None for s in self.slot_items}
        self._tint()
        event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        card_id = self._palette_card(event)
        if card_id is None:
            super().dragMoveEvent(event)
            return
        slot = self.slot_at(event.position().toPoint())
        reason = check_drop(self.doc.build, self.doc.catalog, slot, card_id) if slot else "drop it onto a slot"
        self._tint(slot, reason is None)
        if reason is None:
            event.acceptProposedAction()
        else:
            if slot is not None:
                self.status.emit(f"Not there: {reason}")
            event.ignore()

    def dragLeaveEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self._untint()
        super().dragLeaveEvent(event)

    def dropEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        card_id = self._palette_card(event)
        if card_id is None:
            super().dropEvent(event)
            return
        slot = self.slot_at(event.position().toPoint())
        self._untint()
        if slot is not None and self.place(slot, card_id):
            event.acceptProposedAction()
        else:
            event.ignore()

    def mousePressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if self.locked:
            event.accept()  # no card picked up to move: the planner placed them
            return
        if self.armed and event.button() == Qt.MouseButton.LeftButton:
            slot = self.slot_at(event.position().toPoint())
            if slot is not None:
                card_id, self.armed = self.armed, None
                self.place(slot, card_id)
                event.accept()
                return
        super().mousePressEvent(event)

    def contextMenuEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        event.accept()  # no menus in the kiosk


class MessageBar(QLabel):
    """A refusal or a hint, floating over the top edge of the chassis and the chart while it has words (the
    chassis's heading and the chart's title are under it for those seconds); hidden, and taking no room, while
    empty. It follows the views as the layout moves them, and lets touches through to them."""

    def __init__(self, stage: QWidget, first: QWidget, last: QWidget) -> None:
        super().__init__(" ", stage)
        self.setObjectName("message")  # its white card and border: the window's style sheet
        self.setFont(_font(19, True))
        self.setStyleSheet("color: #B71C1C;")
        self.setWordWrap(True)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.scale = 1.0  # the window's screen scale (kiosk/scaling.py): its inset and margin
        self._views = (first, last)
        for view in self._views:
            view.installEventFilter(self)
        self.hide()

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setVisible(bool(text.strip()))
        self.place()

    def place(self) -> None:
        stage = self.parentWidget()
        if stage is None or not self.isVisibleTo(stage):
            return
        first, last = (v.geometry() for v in self._views)
        inset = round(12 * self.scale)
        self.setMargin(round(10 * self.scale))
        width = last.right() - first.left() + 1 - 2 * inset
        self.setGeometry(first.left() + inset, first.top() + inset, width, self.heightForWidth(width))
        self.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Move, QEvent.Type.Resize):
            self.place()
        return False


class Overlay(QFrame):
    """A dimmed layer over the whole window with a white panel in the middle."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("overlay")
        self.setStyleSheet("#overlay { background: rgba(0, 0, 0, 150); }")
        self.panel = QFrame(self)
        self.panel.setObjectName("panel")
        self.panel.setStyleSheet("#panel { background: white; border-radius: 24px; }")
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.panel)
        row.addStretch(1)
        outer.addLayout(row)
        outer.addStretch(1)
        self.hide()

    def cover(self) -> None:
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())
        self.show()
        self.raise_()
