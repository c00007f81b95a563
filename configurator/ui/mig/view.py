"""The MIG diagram: a QGraphicsView of each card's placement grid and its instances."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, QSize, Qt, SignalInstance
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QDrag,
    QFont,
    QFontMetricsF,
    QPainter,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QMenu,
    QWidget,
)

from configurator.catalog.cards import MigSpec
from configurator.engine.model.result import MigCard
from configurator.ui.base import BuildDocument, drag_started, item_under
from configurator.ui.dnd import job_mime, read_job, read_mig_profile
from configurator.ui.mig.common import (
    ALLOWED,
    CAPTION_H,
    HEADER_H,
    MARGIN,
    REFUSED,
    InstanceBlock,
    JobChip,
    JobInInstance,
    _span_text,
    _wrap,
)
from configurator.ui.mig.edits import MigEdits


class MigHost(Protocol):
    """What the slice diagram asks of the editor that holds it (MigEditor): the view draws and takes the
    pointer, the editor owns the edits and the messages."""

    doc: BuildDocument
    status: SignalInstance
    remove_action: QAction

    edits: MigEdits  # the edits the pointer makes (remove, add, assign) and their checks
    unit: str  # the view state's memory unit (GB or GiB): every figure the diagram writes is in it
    def say(self, text: str, error: bool = False) -> None: ...


class MigView(QGraphicsView):
    """The slice diagram. Scene coordinates are viewport pixels: redrawn on resize, never scaled."""

    def __init__(self, editor: MigHost, parent: QWidget) -> None:
        super().__init__(parent)
        self.editor = editor
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setAcceptDrops(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("MIG slice diagram")
        self.setMinimumSize(QSize(240, 200))  # the instances are drawn to the width (four 3-unit blocks of 55 px)
        self.blocks: dict[int, InstanceBlock] = {}
        self.cells: list[QGraphicsRectItem] = []
        self.message: str = ""  # the text drawn when there are no instances
        self._state: tuple[Any, ...] | None = None
        self._target: QGraphicsRectItem | None = None
        self._press: QPointF | None = None
        self._drawn_size = QSize()

    # ---- geometry ----
    def _grid(self) -> tuple[float, float, float, float] | None:
        """(left, top, column width, height) of the grid area, or None when nothing is shown."""
        if self._state is None:
            return None
        spec = self._state[0]
        w, h = self.viewport().width(), self.viewport().height()
        top = MARGIN + self._caption_height() + HEADER_H
        return MARGIN, top, max((w - 2 * MARGIN) / spec.grid_units, 1.0), max(h - top - MARGIN, 60.0)

    def _caption_lines(self) -> list[str]:
        """The title wrapped to the diagram's width (it was cut, "up to 4 i…", even at 1920x1080)."""
        if self._state is None:
            return []
        return _wrap(self._state[1], self._fonts()[2], self.viewport().width() - 2 * MARGIN)

    def _caption_height(self) -> float:
        lines = len(self._caption_lines())
        return max(CAPTION_H, QFontMetricsF(self._fonts()[2]).lineSpacing() * lines + 6)

    def unit_rect(self, start: int, size: int = 1) -> QRectF:
        left, top, colw, height = self._grid() or (0.0, 0.0, 1.0, 1.0)
        return QRectF(left + start * colw, top, size * colw, height)

    def unit_point(self, unit: int) -> QPoint:
        """Viewport point over grid unit ``unit`` (below any instance text), for drops."""
        r = self.unit_rect(unit)
        return self.mapFromScene(QPointF(r.center().x(), r.bottom() - 12))

    def block_point(self, index: int) -> QPoint:
        return self.mapFromScene(self.blocks[index].rect().center())

    def unit_at(self, scene_pos: QPointF) -> int | None:
        grid = self._grid()
        if grid is None:
            return None
        left, top, colw, height = grid
        spec = self._state[0] if self._state else None
        if spec is None or not (top <= scene_pos.y() <= top + height):
            return None
        unit = int((scene_pos.x() - left) // colw)
        return unit if 0 <= unit < spec.grid_units else None

    def block_at(self, scene_pos: QPointF) -> InstanceBlock | None:
        return item_under(self.scene(), scene_pos, InstanceBlock)

    def chip_at(self, scene_pos: QPointF) -> JobChip | None:
        return item_under(self.scene(), scene_pos, JobChip)

    # ---- drawing ----
    def show_card(self, spec: MigSpec | None, caption: str, mig: MigCard | None, enabled: bool,
                  jobs: dict[int, list[JobInInstance]]) -> None:  # fmt: skip
        self._state = None if spec is None else (spec, caption, mig, enabled, jobs)
        self._redraw()

    def _fonts(self) -> tuple[QFont, QFont, QFont]:
        font = QFont(self.font())
        font.setPointSizeF(max(font.pointSizeF(), 8.0) * 0.95)
        bold = QFont(font)
        bold.setBold(True)
        title = QFont(font)
        title.setBold(True)
        title.setPointSizeF(font.pointSizeF() * 1.15)
        return font, bold, title

    def _redraw(self) -> None:
        selected = {i for i, b in self.blocks.items() if b.isSelected()}
        scene = self.scene()
        scene.clear()
        self.blocks.clear()
        self.cells.clear()
        self._target = None
        w, h = self.viewport().width(), self.viewport().height()
        scene.setSceneRect(0, 0, w, h)
        self._drawn_size = self.viewport().size()
        if self._state is None:
            return
        spec, _, mig, enabled, jobs = self._state
        font, bold, title = self._fonts()
        ink = self.palette().color(self.foregroundRole())
        left, top, colw, height = self._grid() or (0, 0, 1, 1)
        cap = QGraphicsSimpleTextItem("\n".join(self._caption_lines()))
        cap.setFont(title)
        cap.setBrush(QBrush(ink))
        cap.setPos(MARGIN, MARGIN)
        scene.addItem(cap)
        faint = QColor(ink)
        faint.setAlpha(150)
        for u in range(spec.grid_units):
            r = QRectF(left + u * colw, top, colw, height)
            cell = QGraphicsRectItem(r)
            cell.setPen(QPen(faint if enabled else QColor(faint.red(), faint.green(), faint.blue(), 70), 1,
                             Qt.PenStyle.DashLine))  # fmt: skip
            cell.setBrush(QBrush(QColor(127, 127, 127, 18 if enabled else 8)))
            cell.setZValue(0)
            scene.addItem(cell)
            self.cells.append(cell)
            num = QGraphicsSimpleTextItem(str(u))
            num.setFont(font)
            num.setBrush(QBrush(faint))
            num.setPos(r.center().x() - num.boundingRect().width() / 2, top - HEADER_H + 1)
            scene.addItem(num)
        instances = mig.instances if (mig is not None and enabled) else []
        for inst in instances:
            rect = QRectF(left + inst.start * colw + 1.5, top + 1.5, inst.size * colw - 3, height - 3)
            block = InstanceBlock(spec, inst, rect, jobs.get(inst.index, []), (font, bold, title), self.editor.unit)
            scene.addItem(block)
            block.setSelected(inst.index in selected)
            self.blocks[inst.index] = block
        if not enabled:
            self.message = "MIG is off: the card runs as one GPU.\nChoose a layout, or drag a profile onto the grid."
        elif not instances:
            self.message = "MIG is on with no instances.\nDrag a profile onto the grid, or choose a layout."
        else:
            self.message = ""
        if self.message:
            text = QGraphicsSimpleTextItem(self.message)
            text.setFont(bold)
            text.setBrush(QBrush(ink))
            br = text.boundingRect()
            scale = min(1.0, (w - 4 * MARGIN) / max(br.width(), 1.0))
            text.setScale(scale)
            text.setPos(w / 2 - br.width() * scale / 2, top + height / 2 - br.height() * scale / 2)
            text.setZValue(1)
            scene.addItem(text)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        if self.viewport().size() != self._drawn_size:
            self._redraw()

    def changeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().changeEvent(event)
        if hasattr(self, "blocks") and event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            # theme switched: new ink
            self._redraw()

    # ---- highlight ----
    def highlight(self, rect: QRectF | None, allowed: bool = True) -> None:
        if rect is None:
            if self._target is not None:
                self.scene().removeItem(self._target)
                self._target = None
            return
        if self._target is None:
            self._target = QGraphicsRectItem()
            self._target.setZValue(10)
            self.scene().addItem(self._target)
        colour = ALLOWED if allowed else REFUSED
        self._target.setRect(rect)
        self._target.setBrush(QBrush(colour))
        self._target.setPen(QPen(QColor(colour.red(), colour.green(), colour.blue()), 2))

    def target_colour(self) -> QColor | None:
        """The highlight's colour while dragging (None when nothing is highlighted)."""
        return self._target.brush().color() if self._target is not None else None

    # ---- selection, keys, context menu ----
    def selected_index(self) -> int | None:
        for i, b in self.blocks.items():
            if b.isSelected():
                return i
        return None

    def select(self, index: int) -> None:
        self.scene().clearSelection()
        if index in self.blocks:
            self.blocks[index].setSelected(True)

    def keyPressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.editor.edits.remove_selected()
            event.accept()
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        block = self.block_at(self.mapToScene(event.pos()))
        if block is None:
            return
        self.select(block.index)
        menu = QMenu(self)
        menu.addAction(self.editor.remove_action)
        menu.exec(event.globalPos())

    # ---- dragging a job chip out ----
    def mousePressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self._press = event.position() if event.button() == Qt.MouseButton.LeftButton else None
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if self._press is not None and drag_started(self._press, event.position()):
            chip = self.chip_at(self.mapToScene(self._press.toPoint()))
            self._press = None
            if chip is not None:
                drag = QDrag(self)
                drag.setMimeData(job_mime(chip.job.name))
                drag.exec(Qt.DropAction.MoveAction)
                return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self._press = None
        super().mouseReleaseEvent(event)

    # ---- drops ----
    def _target_for(self, event) -> tuple[QRectF | None, str | None, str]:  # type: ignore[no-untyped-def]
        """(rect to highlight, refusal reason or None, what the drop does) for the drag under the cursor."""
        pos = self.mapToScene(event.position().toPoint())
        data = event.mimeData()
        profile = read_mig_profile(data)
        if profile is not None:
            unit = self.unit_at(pos)
            if unit is None:
                return None, "drop the profile onto a grid position", ""
            start, size, reason = self.editor.edits.check_add(profile, unit)
            where = self._state[0] if self._state else None
            span = _span_text(where, start, size) if where else str(start)
            return self.unit_rect(start, size), reason, f"Add {profile} at {span}"
        name = read_job(data)
        if name is not None:
            block = self.block_at(pos)
            if block is None:
                return None, "drop the job onto a MIG instance", ""
            job = self.editor.doc.build.job_index(name)
            reason = self.editor.edits.check_assign(job, block.index) if job is not None else f"no job called '{name}'"
            return block.rect(), reason, f"Run job in instance {block.index} ({block.profile})"
        return None, "not a MIG profile or a job", ""

    def dragEnterEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        data = event.mimeData()
        if self._state is None or (read_mig_profile(data) is None and read_job(data) is None):
            event.ignore()
            return
        event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        rect, reason, what = self._target_for(event)
        self.highlight(rect, reason is None)
        if rect is not None and reason is None:
            self.editor.status.emit(what)
            event.acceptProposedAction()
        else:
            if reason:
                self.editor.say(f"Cannot drop here: {reason}", error=True)
            event.ignore()

    def dragLeaveEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self.highlight(None)
        event.accept()  # not QGraphicsView's: it warns of a drag enter it never saw (issue 15)

    def dropEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        pos = self.mapToScene(event.position().toPoint())
        data = event.mimeData()
        self.highlight(None)
        profile, name = read_mig_profile(data), read_job(data)
        job = self.editor.doc.build.job_index(name) if name is not None else None
        ok = False
        if profile is not None:
            unit = self.unit_at(pos)
            if unit is None:
                self.editor.say("Drop the profile onto a grid position", error=True)
            else:
                ok = self.editor.edits.add_instance(profile, unit)
        elif name is not None and job is None:
            self.editor.say(f"Refused: no job called '{name}' in this build", error=True)
        elif job is not None:
            block = self.block_at(pos)
            if block is None:
                self.editor.say("Drop the job onto a MIG instance", error=True)
            else:
                ok = self.editor.edits.assign(job, block.index)
        if ok:
            event.acceptProposedAction()
        else:
            event.ignore()
