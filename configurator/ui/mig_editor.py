"""The MIG editor: split a card into GPU instances on its placement grid and put jobs into them.

The diagram draws the card's placement grid (8 memory slices, or 12 placement units on RTX PRO 6000)
as columns and each instance as a block over ``[start, start + size)`` with its memory and the jobs in
it. Profiles are dragged from the palette onto a grid position, jobs (``JOB_MIME``) onto an instance.
Every change is an undoable ``BuildDocument.edit``; the engine (``set_mig_layout``) refuses invalid
layouts with the placement reason, which the editor shows and emits through ``status``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from PySide6.QtCore import QEvent, QMimeData, QPoint, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QDrag,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QIcon,
    QPainter,
    QPen,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.cards import CardSpec, MigProfile, MigSpec, short_card_name
from configurator.engine import Build, BuildResult, editing
from configurator.engine.mig import enumerate_layouts
from configurator.engine.result import CardMemory, MigCard, MigInstanceResult
from configurator.ui.chassis.scene import drag_started, item_under
from configurator.ui.dnd.drag_list import DragList
from configurator.ui.dnd.mime import job_mime, mig_profile_mime, read_job, read_mig_profile
from configurator.ui.shell.document import BuildDocument
from configurator.ui.shell.lazy import hidden_in_shown_window
from configurator.ui.shell.style import FIT_COLOUR, hidpi_canvas

DISPLAY_MODE_NOTE = (
    "Workstation and Max-Q editions: switch display mode to compute first "
    "(DisplayModeSelector --gpumode=compute, reboot); display outputs turn off."
)
EMPTY_TEXT = "No card in this build supports MIG"
PROFILE_ROLE = Qt.ItemDataRole.UserRole

ALLOWED = QColor(46, 125, 50, 120)
REFUSED = QColor(198, 40, 40, 120)
# Instance fills by compute slices (white text on all of them).
SLICE_COLOUR = {1: "#34568B", 2: "#5B4B8A", 3: "#2A6F77", 4: "#7A5230", 7: "#4A4A4A"}
MARGIN = 8.0
CAPTION_H = 24.0
HEADER_H = 18.0


def _short_name(card: CardSpec) -> str:
    return short_card_name(card.name, abbreviate=False)


def _size_order(spec: MigSpec, names: list[str] | tuple[str, ...]) -> list[str]:
    """Profile names largest first (grid size, compute slices), as ``enumerate_layouts`` lists them."""

    def key(name: str) -> tuple[int, int, str]:
        try:
            p = spec.profile(name)
        except KeyError:
            return (0, 0, name)
        return (-p.placement.size, -p.compute_slices, name)

    return sorted(names, key=key)


def layout_label(spec: MigSpec, names: list[str] | tuple[str, ...]) -> str:
    """'3g.71gb + 2g.35gb + 1g.18gb + 1g.18gb'."""
    return " + ".join(_size_order(spec, names))


def _count_label(spec: MigSpec, names: list[str] | tuple[str, ...]) -> str:
    """'3g.71gb + 2g.35gb + 2 × 1g.18gb' (compact, for the preset entries)."""
    counts: dict[str, int] = {}
    for n in _size_order(spec, names):
        counts[n] = counts.get(n, 0) + 1
    return " + ".join(n if c == 1 else f"{c} × {n}" for n, c in counts.items())


def _swatch(colour: QColor, size: int = 14) -> QIcon:
    pm, p = hidpi_canvas(size)
    p.setPen(colour.darker(150))
    p.setBrush(colour)
    p.drawRoundedRect(QRectF(1, 1, size - 2, size - 2), 3, 3)
    p.end()
    return QIcon(pm)


def _span_text(spec: MigSpec, start: int, size: int) -> str:
    unit = "slice" if spec.grid_units == 8 else "position"
    return f"{unit} {start}" if size == 1 else f"{unit}s {start}-{start + size - 1}"


@dataclass(frozen=True)
class JobInInstance:
    """A job placed in an instance, with the engine's memory row for it."""

    index: int  # position in build.jobs (for dragging it elsewhere)
    name: str
    row: CardMemory

    @property
    def headroom_gb(self) -> float:
        return self.row.headroom_gb

    @property
    def fits(self) -> bool:
        return self.row.fits

    @property
    def status(self) -> str:
        return self.row.status


def _fit_text(candidates: list[str], font: QFont, width: float) -> str:
    """The first candidate that fits ``width``, else the last one elided."""
    fm = QFontMetricsF(font)
    for text in candidates:
        if fm.horizontalAdvance(text) <= width:
            return text
    return fm.elidedText(candidates[-1], Qt.TextElideMode.ElideRight, width)


def _wrap(text: str, font: QFont, width: float) -> list[str]:
    """Greedy word wrap to ``width``; a word longer than the width is elided. ' · ' never ends or starts a line."""
    fm = QFontMetricsF(font)
    if fm.horizontalAdvance(text) <= width:
        return [text]
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if fm.horizontalAdvance(trial) <= width or not line:
            line = trial
        else:
            lines.append(line)
            line = word
    lines.append(line)
    lines = [ln.removesuffix(" ·").removeprefix("· ") for ln in lines if ln not in ("·", "")]
    return [fm.elidedText(ln, Qt.TextElideMode.ElideRight, width) for ln in lines]


def _add_lines(parent: QGraphicsItem, rows: list[tuple[str, QFont, QBrush]], x: float, y: float,
               width: float) -> float:  # fmt: skip
    """Draw ``rows`` wrapped to ``width`` from (x, y) as children of ``parent``; returns the y below them."""
    for text, font, brush in rows:
        step = QFontMetricsF(font).height()
        for line in _wrap(text, font, width):
            item = QGraphicsSimpleTextItem(line, parent)
            item.setFont(font)
            item.setBrush(brush)
            item.setPos(x, y)
            y += step
    return y


def _lines_height(rows: list[tuple[str, QFont, QBrush]], width: float) -> float:
    return sum(len(_wrap(text, font, width)) * QFontMetricsF(font).height() for text, font, _ in rows)


class JobChip(QGraphicsRectItem):
    """A job inside an instance block: its name and headroom, coloured by fit."""

    PAD = 3.0

    def __init__(self, job: JobInInstance, rect: QRectF, rows: list[tuple[str, QFont, QBrush]],
                 parent: QGraphicsItem) -> None:  # fmt: skip
        super().__init__(rect, parent)
        self.job = job
        self.colour = QColor(FIT_COLOUR.get(job.status, FIT_COLOUR["unknown"]))
        self.setBrush(QBrush(self.colour))
        self.setPen(QPen(self.colour.darker(140), 1))
        self.lines = [text for text, _, _ in rows]
        _add_lines(self, rows, rect.left() + self.PAD, rect.top() + self.PAD, rect.width() - 2 * self.PAD)
        h = job.headroom_gb
        self.setToolTip(
            f"{job.name}: {job.row.peak_reserved_gb:.1f} GB peak of {job.row.capacity_gb:.1f} GB, "
            f"{h:+.1f} GB headroom ({self.lines[-1]}). Drag it onto another instance to move it."
        )

    @staticmethod
    def rows(job: JobInInstance, font: QFont, bold: QFont) -> list[tuple[str, QFont, QBrush]]:
        ink = QBrush(QColor("#1a1a1a") if job.status == "tight" else QColor("white"))
        verdict = {"fits": "fits", "tight": "tight", "does-not-fit": "does not fit"}.get(job.status, job.status)
        return [(job.name, bold, ink), (f"{job.headroom_gb:+.1f} GB headroom", font, ink), (verdict, font, ink)]


class InstanceBlock(QGraphicsRectItem):
    """One GPU instance spanning its grid units."""

    PAD = 4.0

    def __init__(self, spec: MigSpec, inst: MigInstanceResult, rect: QRectF, jobs: list[JobInInstance],
                 fonts: tuple[QFont, QFont, QFont]) -> None:  # fmt: skip
        super().__init__(rect)
        font, bold, title = fonts
        self.instance = inst
        self.index = inst.index
        self.profile = inst.profile
        self.start, self.size = inst.start, inst.size
        self.capacity_gb, self.nominal_gb = inst.capacity_gb, inst.capacity_nominal_gb
        try:
            slices = spec.profile(inst.profile).compute_slices
        except KeyError:
            slices = 0
        self.colour = QColor(SLICE_COLOUR.get(slices, "#4A4A4A"))
        self.setBrush(QBrush(self.colour))
        self.setPen(QPen(self.colour.darker(150), 1.5))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setZValue(2)
        span = _span_text(spec, inst.start, inst.size)
        cap, nom = inst.capacity_gb, inst.capacity_nominal_gb
        self.lines = [inst.profile, f"{cap:.1f} GB", f"{nom:g} GB nominal", f"instance {inst.index} · {span}"]
        width = rect.width() - 2 * self.PAD
        white = QBrush(QColor("white"))
        pale = QBrush(QColor(255, 255, 255, 205))
        wide = f"{cap:.1f} GB · {nom:g} GB nominal"
        rows: list[tuple[str, QFont, QBrush]] = [(inst.profile, title, white)]
        if QFontMetricsF(font).horizontalAdvance(wide) <= width:
            rows.append((wide, font, white))
        else:
            rows += [(f"{cap:.1f} GB", font, white), (f"nominal {nom:g} GB", font, pale)]
        rows.append((f"instance {inst.index} · {span}", font, pale))
        y = _add_lines(self, rows, rect.left() + self.PAD, rect.top() + self.PAD, width) + 4
        self.chips: list[JobChip] = []
        chip_w = rect.width() - 2 * self.PAD + 2
        for k, job in enumerate(jobs):
            chip_rows = JobChip.rows(job, font, bold)
            chip_h = _lines_height(chip_rows, chip_w - 2 * JobChip.PAD) + 2 * JobChip.PAD
            if y + chip_h > rect.bottom() - self.PAD:
                _add_lines(self, [(f"+{len(jobs) - k} more", font, white)], rect.left() + self.PAD,
                           min(y, rect.bottom() - QFontMetricsF(font).height() - 2), width)  # fmt: skip
                break
            chip = JobChip(job, QRectF(rect.left() + self.PAD - 1, y, chip_w, chip_h), chip_rows, self)
            self.chips.append(chip)
            y += chip_h + 3
        self.jobs = jobs
        placed = ", ".join(f"{j.name} ({j.headroom_gb:+.1f} GB)" for j in jobs) or "no job"
        self.setToolTip(
            f"Instance {inst.index}: {inst.profile} at {span}; {cap:.1f} GB as the driver shows it "
            f"({nom:g} GB nominal). Jobs: {placed}. Drop a job here to run it in this instance; "
            "Delete removes the instance."
        )

    def paint(self, painter: QPainter, option, widget=None) -> None:  # type: ignore[no-untyped-def, override]
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(self.brush())
        painter.setPen(QPen(QColor("#FFD54F"), 3) if self.isSelected() else self.pen())
        painter.drawRoundedRect(self.rect(), 5, 5)


class MigView(QGraphicsView):
    """The slice diagram. Scene coordinates are viewport pixels: redrawn on resize, never scaled."""

    def __init__(self, editor: MigEditor) -> None:
        super().__init__(editor)
        self.editor = editor
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setAcceptDrops(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("MIG slice diagram")
        self.setMinimumSize(QSize(320, 200))
        self.blocks: dict[int, InstanceBlock] = {}
        self.cells: list[QGraphicsRectItem] = []
        self.message: str = ""  # the text drawn when there are no instances
        self._state: tuple | None = None
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
        top = MARGIN + CAPTION_H + HEADER_H
        return MARGIN, top, max((w - 2 * MARGIN) / spec.grid_units, 1.0), max(h - top - MARGIN, 60.0)

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
        spec, caption, mig, enabled, jobs = self._state
        font, bold, title = self._fonts()
        ink = self.palette().color(self.foregroundRole())
        left, top, colw, height = self._grid() or (0, 0, 1, 1)
        cap = QGraphicsSimpleTextItem(_fit_text([caption], title, w - 2 * MARGIN))
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
            block = InstanceBlock(spec, inst, rect, jobs.get(inst.index, []), (font, bold, title))
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
            self.editor.remove_selected()
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
        if drag_started(self._press, event.position()):
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
            start, size, reason = self.editor.check_add(profile, unit)
            where = self._state[0] if self._state else None
            span = _span_text(where, start, size) if where else str(start)
            return self.unit_rect(start, size), reason, f"Add {profile} at {span}"
        name = read_job(data)
        if name is not None:
            block = self.block_at(pos)
            if block is None:
                return None, "drop the job onto a MIG instance", ""
            job = self.editor.doc.build.job_index(name)
            reason = self.editor.check_assign(job, block.index) if job is not None else f"no job called '{name}'"
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
        super().dragLeaveEvent(event)

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
                ok = self.editor.add_instance(profile, unit)
        elif name is not None and job is None:
            self.editor.say(f"Refused: no job called '{name}' in this build", error=True)
        elif job is not None:
            block = self.block_at(pos)
            if block is None:
                self.editor.say("Drop the job onto a MIG instance", error=True)
            else:
                ok = self.editor.assign(job, block.index)
        if ok:
            event.acceptProposedAction()
        else:
            event.ignore()


class ProfileList(DragList):
    """The card's MIG profiles; dragged out by name (``MIG_PROFILE_MIME``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(icon_px=14, spacing=3, parent=parent)
        self.setAccessibleName("MIG profiles")

    def payload(self, item: QListWidgetItem) -> QMimeData:
        return mig_profile_mime(item.data(PROFILE_ROLE))


class MigEditor(QWidget):
    status = Signal(str)

    def __init__(self, document: BuildDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self._slot: int | None = None
        self._spec_id: str | None = None  # card whose palette and layout list are shown
        self._choices: list[tuple[str, tuple[str, ...]]] = []  # layout combo entries: (name, profiles)
        self._editing = False
        self._refresh_pending = False  # an edit arrived while the MIG tab was hidden
        self._action_message: tuple[str, bool] | None = None

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.stack = QStackedWidget()
        outer.addWidget(self.stack)
        self.empty_label = QLabel(EMPTY_TEXT)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setStyleSheet("color: gray; font-size: 13pt;")
        self.stack.addWidget(self.empty_label)

        page = QWidget()
        self.stack.addWidget(page)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(6)

        top = QHBoxLayout()
        top.addWidget(QLabel("<b>Card</b>"))
        self.card_box = QComboBox()
        self.card_box.setAccessibleName("MIG card")
        self.card_box.setMinimumContentsLength(16)
        self.card_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.card_box.currentIndexChanged.connect(self._card_chosen)
        top.addWidget(self.card_box, 2)
        self.mig_toggle = QCheckBox("MIG on")
        self.mig_toggle.setAccessibleName("MIG on")
        self.mig_toggle.setToolTip("Split the card into GPU instances (nvidia-smi -mig 1); off runs it as one GPU")
        self.mig_toggle.clicked.connect(self._toggle_clicked)
        top.addWidget(self.mig_toggle)
        top.addSpacing(8)
        top.addWidget(QLabel("<b>Layout</b>"))
        self.preset_box = QComboBox()
        self.preset_box.setAccessibleName("MIG layout")
        self.preset_box.setMinimumContentsLength(20)
        self.preset_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.preset_box.setToolTip("mig-parted presets, then every maximal layout (no room left for another instance)")
        self.preset_box.activated.connect(self._layout_chosen)
        top.addWidget(self.preset_box, 3)
        layout.addLayout(top)

        self.display_note = QLabel(DISPLAY_MODE_NOTE)
        self.display_note.setWordWrap(True)
        self.display_note.setStyleSheet(
            "QLabel { background: #FFF4D6; color: #6B4A00; border: 1px solid #E69F00; border-radius: 4px;"
            " padding: 3px 6px; }"
        )
        self.display_note.setVisible(False)
        layout.addWidget(self.display_note)

        middle = QHBoxLayout()
        side = QVBoxLayout()
        side.setSpacing(3)
        side.addWidget(QLabel("<b>Profiles</b> <span style='color:gray'>(drag onto the grid)</span>"))
        self.palette_list = ProfileList()
        self.palette_list.setMinimumWidth(170)
        self.palette_list.setMaximumWidth(230)
        self.palette_list.itemActivated.connect(self._profile_activated)
        side.addWidget(self.palette_list, 1)
        middle.addLayout(side)
        self.view = MigView(self)
        middle.addWidget(self.view, 1)
        layout.addLayout(middle, 1)

        bottom = QHBoxLayout()
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setMinimumWidth(10)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bottom.addWidget(self.message, 1)
        self.copy_commands_button = QPushButton("Copy nvidia-smi commands")
        self.copy_commands_button.setToolTip("The setup sequence for this card, largest instances first")
        self.copy_commands_button.clicked.connect(self.copy_commands)
        bottom.addWidget(self.copy_commands_button)
        self.copy_yaml_button = QPushButton("Copy mig-parted YAML")
        self.copy_yaml_button.setToolTip("A mig-parted config (profile counts; mig-parted places them itself)")
        self.copy_yaml_button.clicked.connect(self.copy_yaml)
        bottom.addWidget(self.copy_yaml_button)
        layout.addLayout(bottom)

        self.remove_action = QAction("Remove instance", self)
        self.remove_action.triggered.connect(self.remove_selected)

        document.changed.connect(self._on_changed)
        document.refused.connect(self._on_refused)
        self._on_changed(document.build, document.result)

    # ---- state ----
    def mig_slots(self) -> list[int]:
        cards = self.doc.catalog.cards
        return [c.slot for c in self.doc.build.cards if c.card in cards and cards[c.card].mig is not None]

    def current_slot(self) -> int | None:
        return self._slot

    def select_slot(self, slot: int) -> None:
        i = self.card_box.findData(slot)
        if i >= 0:
            self.card_box.setCurrentIndex(i)

    def _spec(self) -> tuple[CardSpec, MigSpec] | None:
        if self._slot is None:
            return None
        placement = self.doc.build.card_in(self._slot)
        card = self.doc.catalog.cards.get(placement.card) if placement else None
        if card is None or card.mig is None:
            return None
        return card, card.mig

    def mig_card(self) -> MigCard | None:
        """The engine's MIG result for the selected card (None when MIG is off)."""
        for m in self.doc.result.mig:
            if m.slot == self._slot:
                return m
        return None

    def _pinned(self) -> list[tuple[str, int | None]]:
        """The current layout with every instance at the start it has now, so adding or removing one
        leaves the others where the diagram shows them."""
        placement = self.doc.build.card_in(self._slot) if self._slot is not None else None
        if placement is None or placement.mig is None:
            return []
        mig = self.mig_card()
        starts = {i.index: i.start for i in mig.instances} if mig is not None and mig.valid else {}
        return [(r.profile, r.start if r.start is not None else starts.get(i)) for i, r in enumerate(placement.mig)]

    def _job_rows(self, result: BuildResult, slot: int) -> dict[int, list[JobInInstance]]:
        index = {j.name: i for i, j in enumerate(self.doc.build.jobs)}
        rows: dict[int, list[JobInInstance]] = {}
        for jr in result.jobs:
            for row in jr.cards:
                if row.slot == slot and row.instance is not None:
                    rows.setdefault(row.instance, []).append(JobInInstance(index.get(jr.name, -1), jr.name, row))
        return rows

    # ---- refresh ----
    def _on_changed(self, build: Build, result: BuildResult) -> None:
        if not self._editing:
            self._action_message = None
        if hidden_in_shown_window(self):
            self._refresh_pending = True  # redrawn when the tab is shown
            return
        self.setUpdatesEnabled(False)
        try:
            self._refresh(build, result)
        finally:
            self.setUpdatesEnabled(True)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._refresh_pending:
            self._on_changed(self.doc.build, self.doc.result)

    def _refresh(self, build: Build, result: BuildResult) -> None:
        self._refresh_pending = False
        slots = self.mig_slots()
        if not slots:
            self._slot = None
            self.card_box.blockSignals(True)
            self.card_box.clear()
            self.card_box.blockSignals(False)
            self.view.show_card(None, "", None, False, {})
            self.stack.setCurrentWidget(self.empty_label)
            return
        self.stack.setCurrentIndex(1)
        cards = self.doc.catalog.cards
        entries = []
        for s in slots:
            placement = build.card_in(s)
            assert placement is not None
            entries.append((f"Slot {s}: {_short_name(cards[placement.card])}", s))
        current = [(self.card_box.itemText(i), self.card_box.itemData(i)) for i in range(self.card_box.count())]
        if current != entries:
            keep = self._slot if self._slot in slots else slots[0]
            self.card_box.blockSignals(True)
            self.card_box.clear()
            for text, s in entries:
                self.card_box.addItem(text, s)
            self.card_box.setCurrentIndex(self.card_box.findData(keep))
            self.card_box.blockSignals(False)
        self._slot = self.card_box.currentData()
        self._show_card(build, result)

    def _card_chosen(self, _index: int) -> None:
        slot = self.card_box.currentData()
        if slot is None or slot == self._slot:
            return
        self._slot = slot
        self._action_message = None
        self._show_card(self.doc.build, self.doc.result)

    def _show_card(self, build: Build, result: BuildResult) -> None:
        got = self._spec()
        if got is None:
            return
        card, spec = got
        slot = self._slot
        assert slot is not None
        placement = build.card_in(slot)
        enabled = placement is not None and placement.mig is not None
        mig = next((m for m in result.mig if m.slot == slot), None)
        if card.id != self._spec_id:
            self._spec_id = card.id
            self._fill_palette(spec)
            self._fill_layouts(spec)
        self.mig_toggle.setChecked(enabled)
        self._select_layout(spec, placement.mig if placement else None)
        self.display_note.setVisible(spec.display_mode_required)
        usable = mig is not None and mig.valid and bool(mig.instances)
        self.copy_commands_button.setEnabled(usable and bool(mig and mig.commands))
        self.copy_yaml_button.setEnabled(usable and bool(mig and mig.mig_parted_yaml))
        unit = "memory slices" if spec.grid_units == 8 else "placement units"
        caption = (f"Slot {slot} · {_short_name(card)} · {spec.grid_units} {unit}, "
                   f"up to {spec.max_instances} instances")  # fmt: skip
        self.view.show_card(spec, caption, mig, enabled, self._job_rows(result, slot))
        self._show_message(mig)

    def _fill_palette(self, spec: MigSpec) -> None:
        self.palette_list.clear()
        for p in spec.profiles:
            item = QListWidgetItem(
                _swatch(QColor(SLICE_COLOUR.get(p.compute_slices, "#4A4A4A"))), self._profile_text(p)
            )
            item.setData(PROFILE_ROLE, p.name)
            starts = ", ".join(str(s) for s in p.placement.starts)
            item.setToolTip(
                f"<b>{p.name}</b> (profile id {p.profile_id}): {p.capacity_gb:.1f} GB as the driver shows it "
                f"({p.memory_gib.value:g} GiB; {p.memory_nominal_gb.value:g} GB nominal), "
                f"{p.sm_count.value:g} SMs, {p.compute_slices} compute slice(s).<br>Occupies {p.placement.size} "
                f"grid unit(s); starts {starts}; at most {p.max_count} per card.<br>Drag onto the grid, or "
                "double-click to add it where it fits."
            )
            self.palette_list.addItem(item)

    @staticmethod
    def _profile_text(p: MigProfile) -> str:
        return f"{p.name}\n{p.capacity_gb:.1f} GB · {p.memory_nominal_gb.value:g} GB nominal"

    def _fill_layouts(self, spec: MigSpec) -> None:
        self.preset_box.blockSignals(True)
        self.preset_box.clear()
        self._choices = []
        self.preset_box.addItem("Choose a layout…", -1)
        for name, profiles in spec.presets.items():
            self._choices.append((name, tuple(profiles)))
            self.preset_box.addItem(f"{name}: {_count_label(spec, profiles)}", len(self._choices) - 1)
        layouts = enumerate_layouts(spec)
        if layouts:
            self.preset_box.insertSeparator(self.preset_box.count())
            for names in layouts:
                label = layout_label(spec, names)
                self._choices.append((label, tuple(names)))
                self.preset_box.addItem(label, len(self._choices) - 1)
                self.preset_box.setItemData(self.preset_box.count() - 1, "maximal layout", Qt.ItemDataRole.ToolTipRole)
        self.preset_box.view().setMinimumWidth(self.preset_box.view().sizeHintForColumn(0) + 24)
        self.preset_box.blockSignals(False)

    def _select_layout(self, spec: MigSpec, requests: list | None) -> None:
        """Show the entry matching the current layout, or 'Custom: …' / 'Choose a layout…'."""
        self.preset_box.blockSignals(True)
        index = 0
        if requests is None:
            self.preset_box.setItemText(0, "Choose a layout…")
        else:
            names = sorted(r.profile for r in requests)
            match = next((k for k, (_, p) in enumerate(self._choices) if sorted(p) == names), None)
            if match is not None:
                index = self.preset_box.findData(match)
            self.preset_box.setItemText(0, f"Custom: {_count_label(spec, names)}" if names else "No instances")
        self.preset_box.setCurrentIndex(max(index, 0))
        self.preset_box.blockSignals(False)

    def layout_names(self) -> list[str]:
        """The layout combo's choices (presets first, then maximal layouts), by the name used in edits."""
        return [name for name, _ in self._choices]

    # ---- messages ----
    def say(self, text: str, error: bool = False) -> None:
        """Show an action's outcome under the diagram and emit it through ``status``."""
        self._action_message = (text, error)
        self._show_message(self.mig_card())
        self.status.emit(text)

    def _show_message(self, mig: MigCard | None) -> None:
        if mig is not None and mig.problems:
            text = "Invalid layout: " + "; ".join(mig.problems)
            self.message.setStyleSheet("color: #C62828;")
        elif self._action_message is not None:
            text, error = self._action_message
            self.message.setStyleSheet("color: #C62828;" if error else "")
        else:
            text = ""
            self.message.setStyleSheet("")
        self.message.setText(text)
        self.message.setToolTip(text)

    def _on_refused(self, reason: str) -> None:
        if self._editing:
            self.say(f"Refused: {reason}", error=True)

    def _edit(self, text: str, make: Callable[[Build], Build]) -> bool:
        self._editing = True
        try:
            return self.doc.edit(text, make)
        finally:
            self._editing = False

    # ---- edits ----
    def _layout_chosen(self, index: int) -> None:
        key = self.preset_box.itemData(index)
        if key is None or key < 0 or self._slot is None:
            return
        name, profiles = self._choices[key]
        self.apply_layout(name, list(profiles))

    def apply_layout(self, name: str, profiles: list[str]) -> bool:
        """Replace the selected card's layout (starts placed automatically)."""
        slot, catalog = self._slot, self.doc.catalog
        if slot is None:
            return False
        requests: list[tuple[str, int | None]] = [(p, None) for p in profiles]
        make = partial(editing.set_mig_layout, catalog=catalog, slot=slot, profiles=requests)
        ok = self._edit(f"MIG layout {name} on slot {slot}", make)
        if ok:
            self.say(f"Slot {slot}: MIG layout {name}")
        return ok

    def apply_preset(self, name: str) -> bool:
        for choice, profiles in self._choices:
            if choice == name:
                return self.apply_layout(choice, list(profiles))
        self.say(f"No layout called {name}", error=True)
        return False

    def _toggle_clicked(self, checked: bool) -> None:
        self.set_mig(checked)

    def set_mig(self, on: bool) -> bool:
        slot, catalog = self._slot, self.doc.catalog
        if slot is None:
            return False
        layout: list[tuple[str, int | None]] | None = [] if on else None
        make = partial(editing.set_mig_layout, catalog=catalog, slot=slot, profiles=layout)
        ok = self._edit(f"MIG {'on' if on else 'off'} on slot {slot}", make)
        if ok:
            self.say(f"Slot {slot}: MIG {'on: choose a layout or drag profiles onto the grid' if on else 'off'}")
        else:  # refused or unchanged: show the real state again
            placement = self.doc.build.card_in(slot)
            self.mig_toggle.setChecked(placement is not None and placement.mig is not None)
        return ok

    def check_add(self, profile: str, unit: int) -> tuple[int, int, str | None]:
        """(start, size, refusal reason or None) for dropping ``profile`` on grid unit ``unit``."""
        got = self._spec()
        if got is None:
            return unit, 1, "select a MIG-capable card"
        spec = got[1]
        start, size = editing.snap_start(spec, profile, unit)
        return start, size, editing.check_mig_layout(spec, [*self._pinned(), (profile, start)])

    def add_instance(self, profile: str, unit: int | None) -> bool:
        """Add ``profile`` at the start covering grid ``unit`` (None: wherever it fits)."""
        got, slot, catalog = self._spec(), self._slot, self.doc.catalog
        if got is None or slot is None:
            return False
        spec = got[1]
        start: int | None = None
        where = "where it fits"
        if unit is not None:
            start, size = editing.snap_start(spec, profile, unit)
            where = f"at {_span_text(spec, start, size)}"
        layout = [*self._pinned(), (profile, start)]
        make = partial(editing.set_mig_layout, catalog=catalog, slot=slot, profiles=layout)
        ok = self._edit(f"Add MIG {profile} {where} on slot {slot}", make)
        if ok:
            self.say(f"Slot {slot}: added {profile} {where}")
            self.view.select(len(layout) - 1)
        return ok

    def _profile_activated(self, item: QListWidgetItem) -> None:
        self.add_instance(item.data(PROFILE_ROLE), None)

    def remove_instance(self, index: int) -> bool:
        slot, catalog = self._slot, self.doc.catalog
        layout = self._pinned()
        if slot is None or not 0 <= index < len(layout):
            return False
        profile = layout[index][0]
        make = partial(editing.remove_mig_instance, catalog=catalog, slot=slot, layout=layout, index=index)
        ok = self._edit(f"Remove MIG instance {index} ({profile}) from slot {slot}", make)
        if ok:
            self.say(f"Slot {slot}: removed instance {index} ({profile})")
        return ok

    def remove_selected(self) -> bool:
        index = self.view.selected_index()
        if index is None:
            self.say("Select an instance to remove", error=True)
            return False
        return self.remove_instance(index)

    def check_assign(self, job: int, instance: int) -> str | None:
        slot = self._slot
        if slot is None:
            return "select a MIG-capable card"
        if not 0 <= job < len(self.doc.build.jobs):
            return f"no job {job + 1}"
        try:
            editing.assign_job(self.doc.build, self.doc.catalog, job, slot, instance)
        except ValueError as exc:  # EditRefused is a ValueError
            return str(exc)
        return None

    def assign(self, job: int, instance: int) -> bool:
        slot, catalog = self._slot, self.doc.catalog
        if slot is None:
            return False
        if not 0 <= job < len(self.doc.build.jobs):
            self.say(f"Refused: no job {job + 1}", error=True)
            return False
        name = self.doc.build.jobs[job].name
        make = partial(editing.assign_job, catalog=catalog, index=job, slot=slot, instance=instance)
        ok = self._edit(f"Assign {name} to slot {slot} instance {instance}", make)
        if ok:
            self.say(f"{name} runs in slot {slot} instance {instance}")
        elif self.check_assign(job, instance) is None:
            self.say(f"{name} already runs in slot {slot} instance {instance}")
        return ok

    # ---- clipboard ----
    def copy_commands(self) -> None:
        mig = self.mig_card()
        if mig is None or not mig.commands:
            self.say("No valid layout to copy", error=True)
            return
        QGuiApplication.clipboard().setText("\n".join(mig.commands))
        self.say(f"Copied the nvidia-smi commands for slot {mig.slot}")

    def copy_yaml(self) -> None:
        mig = self.mig_card()
        if mig is None or not mig.mig_parted_yaml:
            self.say("No valid layout to copy", error=True)
            return
        QGuiApplication.clipboard().setText(mig.mig_parted_yaml)
        self.say(f"Copied the mig-parted YAML for slot {mig.slot}")
