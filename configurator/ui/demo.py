"""Demo mode: a full-screen kiosk for a trade-show stand or a shop window.

Five ready builds answer five customer questions (``resources/demo/scenarios.yaml``). A visitor can change
each one (drag cards from a big-icon palette into the chassis, move the sequence-length slider, switch
LoRA / QLoRA / Full) and watch the key figure, read live from the engine's result, change with it.

- No menus, no file dialogs. Escape does nothing; Ctrl+Shift+Q opens a PIN pad (settings ``demo/pin``,
  default 2468) and the right PIN emits ``exit_requested``. Window-manager closes (Alt+F4) are ignored.
- After ``demo/idle_minutes`` (default 3) without input the visitor's changes are dropped and the
  scenarios cycle every 12 s with a cross-fade, until the next touch, click or key.
- "Take this build home" writes the build sheet PDF and the build YAML into ``demo/folder`` (default
  Documents/configurator-demo) as ``<CODE>.pdf`` and ``<CODE>.yaml``; the visitor gives the 6-character
  code to the staff, who find the build with :func:`open_demo_code`.

The settings keys above are declared, with their defaults, in ``ui/settings.py``'s OPTIONS.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import typing
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from PySide6.QtCore import (
    QEasingCurve,
    QEvent,
    QObject,
    QPoint,
    QPointF,
    QPropertyAnimation,
    QRectF,
    QSize,
    QStandardPaths,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QDrag, QFont, QIcon, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QButtonGroup,
    QFrame,
    QGraphicsOpacityEffect,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.loader import Catalog, default_catalog
from configurator.engine import Build, BuildResult, evaluate
from configurator.engine.buildfile import build_to_yaml, load_build, save_build
from configurator.engine.codes import LinkKind
from configurator.engine.editing.kiosk import (
    check_drop,
    fitting_status,
    put_card,
    set_bridged,
    set_card_count,
    set_method,
    set_sequence_length,
    short_name,
    variant_build,
)
from configurator.engine.resolver import ModelResolver
from configurator.engine.result import CardMemory, JobResult
from configurator.present.words import headroom_label, to_unit
from configurator.ui.chassis.chassis_view import ChassisView
from configurator.ui.chassis.palette import card_icon
from configurator.ui.dnd.mime import card_mime, read_card, read_slot
from configurator.ui.headroom_chart import HeadroomChart
from configurator.ui.shell.document import BuildDocument
from configurator.ui.shell.settings import Settings

# ---- settings (read with these defaults; not part of the Preferences dialog) ---------------------------------

CYCLE_MS = 12_000  # attract loop: one scenario every 12 s
FADE_MS = 700  # cross-fade between scenarios
MESSAGE_MS = 7_000  # how long a refusal stays on screen

# Codes avoid characters that read alike (0/O, 1/I/L) and U (Crockford's alphabet, upper case).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789"
CODE_LENGTH = 6
SEQUENCE_LENGTHS = [512, 1024, 2048, 4096, 8192, 16384, 32768]
TOP_H = 340  # question, paragraph and key figure: the same height in every scenario
GRID_W = 188  # palette cell width: four cards fit beside the knobs at 1920 px
METHODS = [("lora", "LoRA"), ("qlora", "QLoRA"), ("full", "Full")]
CONTROLS = {"sequence", "method", "cards", "bridge"}
HEADROOM_FIELDS = {"room_for_activations_gb", "headroom_gb", "headroom_nominal_gb"}

INK, MUTED, ACCENT = "#1A1A1A", "#555555", "#1B5E20"
STATUS_INK = {"fits": "#1B5E20", "tight": "#B26A00", "does-not-fit": "#C62828", "unknown": "#555555"}
STATUS_WORDS = {"fits": "Fits in memory", "tight": "Tight: little memory to spare",
                "does-not-fit": "Does not fit in memory", "unknown": "Not placed on a card"}  # fmt: skip


def demo_resources() -> Path:
    """resources/demo beside the package (source tree) or inside it (installed wheel)."""
    from configurator.paths import resource

    return resource("demo", "scenarios.yaml").parent


# ---- scenarios ---------------------------------------------------------------------------------------------


# Figures that are not one field of the result: counted or summed by read_figure.
DERIVED_FIELDS = {"fitting_jobs", "all_gather_gb"}


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (``Compute | None`` -> Compute), else None."""
    for t in (annotation, *typing.get_args(annotation)):
        if isinstance(t, type) and issubclass(t, BaseModel):
            return t
    return None


def _check_path(model: type[BaseModel], path: str) -> None:
    """``path`` ('communication.seconds_per_step') names a number in ``model``; ValueError naming the part
    that does not."""
    here: type[BaseModel] | None = model
    for part in path.split("."):
        if here is None or part not in here.model_fields:
            known = sorted(here.model_fields) if here is not None else []
            raise ValueError(f"'{path}': no '{part}' in {here.__name__ if here else 'a number'} (one of {known})")
        here = _model_in(here.model_fields[part].annotation)


class FigureSpec(BaseModel):
    """Where a figure comes from in the result and how it reads (see the comment in scenarios.yaml).

    ``field`` is checked against the result models when the scenarios load: a CardMemory field (read on
    the job's card ``card``), a dotted JobResult path ('communication.seconds_per_step'), or one of
    DERIVED_FIELDS. A misspelt field fails the load, not the stand."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    field: str
    label: str
    job: int = Field(default=0, ge=0)
    card: int = Field(default=0, ge=0)
    unit: Literal["GB", "s", ""] = "GB"
    digits: int = Field(default=1, ge=0, le=3)
    short_label: str | None = None
    variant: dict[str, str] | None = None

    @field_validator("field")
    @classmethod
    def _names_a_result_figure(cls, value: str) -> str:
        if value in DERIVED_FIELDS:
            return value
        if "." in value or value == "step_seconds":  # read_figure reads these from the job, the rest from its card
            _check_path(JobResult, value)
        else:
            _check_path(CardMemory, value)
        return value


@dataclass(frozen=True)
class Scenario:
    title: str
    build_path: Path
    text: str
    cards: list[str]
    key: FigureSpec
    more: list[FigureSpec] = field(default_factory=list)
    controls: list[str] = field(default_factory=lambda: ["sequence", "method"])
    card_counts: list[int] = field(default_factory=list)
    grow_job: int | None = None


def _figure(data: Any, where: str) -> FigureSpec:
    if not isinstance(data, dict) or "field" not in data or "label" not in data:
        raise ValueError(f"{where}: a figure needs at least field and label")
    try:
        return FigureSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"{where}: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def load_scenarios(path: Path | None = None, catalog: Catalog | None = None) -> list[Scenario]:
    """Read scenarios.yaml; every build it names must exist (ValueError with the scenario otherwise)."""
    path = path or demo_resources() / "scenarios.yaml"
    catalog = catalog or default_catalog()
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    out: list[Scenario] = []
    for i, s in enumerate(data.get("scenarios") or []):
        where = f"{path.name}: scenario {i + 1}"
        build_path = path.parent / str(s.get("build", ""))
        if not build_path.is_file():
            raise ValueError(f"{where}: build file {build_path.name!r} not found")
        cards = [str(c) for c in s.get("cards") or []]
        bad = [c for c in cards if c not in catalog.cards]
        if bad:
            raise ValueError(f"{where}: unknown card(s) {bad}")
        controls = [str(c) for c in s.get("controls", ["sequence", "method"])]
        if set(controls) - CONTROLS:
            raise ValueError(f"{where}: unknown control(s) {sorted(set(controls) - CONTROLS)}")
        out.append(
            Scenario(
                title=str(s["title"]),
                build_path=build_path,
                text=" ".join(str(s.get("text", "")).split()),
                cards=cards,
                key=_figure(s.get("key"), f"{where} key"),
                more=[_figure(m, f"{where} more[{j}]") for j, m in enumerate(s.get("more") or [])],
                controls=controls,
                card_counts=[int(n) for n in s.get("card_counts") or []],
                grow_job=s.get("grow_job"),
            )
        )
    if not out:
        raise ValueError(f"{path}: no scenarios")
    return out


# ---- figures read from the result ------------------------------------------------------------------------


def _link_words(bound_by: str | None) -> str:
    if not bound_by:
        return "the card's own memory"
    return "NVLink" if LinkKind(bound_by).is_nvlink else "PCIe"


@dataclass(frozen=True)
class Figure:
    value: float | None
    number: str  # "108 GB"
    label: str  # "left for activations on the H200 NVL"
    status: str  # fits / tight / does-not-fit / unknown

    @property
    def text(self) -> str:
        return f"{self.number} {self.label}"


def _rows(result: BuildResult, spec: FigureSpec) -> tuple[JobResult | None, CardMemory | None]:
    job = result.jobs[spec.job] if 0 <= spec.job < len(result.jobs) else None
    row = job.cards[spec.card] if job is not None and 0 <= spec.card < len(job.cards) else None
    return job, row




def read_figure(spec: FigureSpec, build: Build, result: BuildResult, catalog: Catalog,
                models: ModelResolver | None = None, unit: str = "GB") -> Figure:  # fmt: skip
    """Evaluate one figure spec against a build's result (``models``: the scenario document's resolver, so a
    variant resolves a relative config.json from the scenario's folder like the build itself). ``unit``:
    the display unit (settings ``units``); a figure in GB is shown in it."""
    if spec.variant:
        build = variant_build(build, spec.variant)
        result = evaluate(build, catalog, models=models)
    job, row = _rows(result, spec)
    value: float | None = None
    number = ""
    status = row.status if row is not None else (job.status if job is not None else "unknown")
    if spec.field == "fitting_jobs":
        fits = sum(1 for j in result.jobs if j.fits)
        value = float(fits)
        number = f"{fits} of {len(result.jobs)}"
        status = fitting_status(fits, len(result.jobs))
        row = row or next((c for j in result.jobs for c in j.cards), None)
    elif spec.field == "all_gather_gb" and job is not None:
        value = sum(c.bytes_per_card for c in job.communication.collectives if c.kind == "all-gather") / 1e9
    elif "." in spec.field or spec.field == "step_seconds":
        obj: Any = job
        for part in spec.field.split("."):
            obj = getattr(obj, part, None) if obj is not None else None
        value = float(obj) if isinstance(obj, int | float) else None
    elif row is not None:
        raw = getattr(row, spec.field, None)
        value = float(raw) if isinstance(raw, int | float) else None
    if job is not None and row is None and job.cards:
        row = job.cards[0]
    words = {
        "card": short_name(row.card_name) if row is not None else "card",
        "capacity": f"{row.capacity_nominal_gb:.0f}" if row is not None else "?",
        "mig": (row.mig or "") if row is not None else "",
        "link": _link_words(job.communication.bound_by if job is not None else None),
        "job": job.name if job is not None else "",
    }
    label = spec.label
    if value is None:
        return Figure(None, "—", "(this job has no card: drag one into the chassis)", "unknown")
    if not number:
        shown = abs(value) if value < 0 and spec.short_label else value
        if spec.unit == "GB" and unit != "GB":
            value, shown = to_unit(value, unit), to_unit(shown, unit)
        shown_unit = unit if spec.unit == "GB" else spec.unit
        number = f"{shown:,.{spec.digits}f}" + (f" {shown_unit}" if shown_unit else "")
        if value < 0:
            fallback = "short: it does not fit" if spec.field in HEADROOM_FIELDS else spec.label
            label = spec.short_label or fallback
    return Figure(value, number, label.format(**words), status)


# ---- take-home codes ------------------------------------------------------------------------------------


def demo_code(build: Build, date: dt.date, salt: int = 0) -> str:
    """Six characters from the build's content and the day (its build-sheet reference number)."""
    from configurator.report.sheet import reference_number

    text = f"{reference_number(build, date)}|{build_to_yaml(build)}|{salt}"
    n = int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], "big")
    out = []
    for _ in range(CODE_LENGTH):
        n, r = divmod(n, len(CODE_ALPHABET))
        out.append(CODE_ALPHABET[r])
    return "".join(out)


def default_demo_folder() -> Path:
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or str(Path.home())
    return Path(docs) / "configurator-demo"


def demo_folder(settings: Settings) -> Path:
    value = settings.get("demo/folder")
    return Path(value) if value else default_demo_folder()


def normalise_code(code: str) -> str:
    """Upper case, spaces and dashes dropped; letters that read like digits mapped to the alphabet."""
    text = re.sub(r"[\s\-_.]", "", code).upper()
    if len(text) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in text):
        raise ValueError(f"a demo code is {CODE_LENGTH} characters from {CODE_ALPHABET}, e.g. K7Q2MX; got {code!r}")
    return text


def open_demo_code(code: str, folder: str | Path | None = None) -> Path:
    """The build file a visitor saved under ``code`` (``<folder>/<CODE>.yaml``), for File → Open demo code….

    ``folder`` defaults to the demo folder of the user's settings. Raises ValueError for a malformed code
    and FileNotFoundError when no build was saved under it.
    """
    key = normalise_code(code)
    base = Path(folder) if folder else demo_folder(Settings())
    path = base / f"{key}.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"no demo build saved under {key} in {base}")
    return path


# ---- widgets ---------------------------------------------------------------------------------------------


def _font(points: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPointSizeF(points)
    f.setBold(bold)
    return f


class WrapButton(QPushButton):
    """A tall button whose words wrap (QPushButton alone never wraps)."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(text, self)
        self.label.setWordWrap(True)
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(18, 10, 18, 10)
        layout.addWidget(self.label)
        self.setAccessibleName(text)
        self.setCheckable(True)
        self.setMinimumHeight(112)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.toggled.connect(self._recolour)
        self._recolour(False)

    def _recolour(self, checked: bool) -> None:
        self.label.setStyleSheet(f"color: {'white' if checked else INK}; background: transparent;")

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), max(112, self.label.sizeHint().height() + 24))


class DemoPalette(QListWidget):
    """The scenario's cards as big icons; drag one out, or tap it and then tap a slot."""

    armed = Signal(str)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self._icons: dict[str, QIcon] = {}
        self.setViewMode(QListWidget.ViewMode.IconMode)
        self.setFlow(QListWidget.Flow.LeftToRight)
        self.setWrapping(False)
        self.setMovement(QListWidget.Movement.Static)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.setIconSize(QSize(84, 84))
        self.setGridSize(QSize(GRID_W, 176))
        self.setFixedHeight(184)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWordWrap(True)
        self.setFont(_font(18, True))
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setAccessibleName("Cards to drag into the chassis")
        self.itemClicked.connect(self._clicked)

    def set_cards(self, card_ids: list[str]) -> None:
        self.clear()
        for card_id in card_ids:
            card = self.catalog.cards[card_id]
            if card_id not in self._icons:
                self._icons[card_id] = card_icon(card, 84)
            item = QListWidgetItem(self._icons[card_id], f"{short_name(card.name)}\n{card.memory_gb.value:.0f} GB")
            item.setData(Qt.ItemDataRole.UserRole, card_id)
            item.setTextAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            self.addItem(item)
        self.setFixedWidth(max(len(card_ids), 2) * GRID_W + 2 * self.frameWidth() + 6)

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


class DemoChassisView(ChassisView):
    """The chassis view with kiosk rules: a palette card dropped on a card swaps it, a tapped slot takes the
    armed card, and there is no context menu."""

    def __init__(self, document: BuildDocument, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.armed: str | None = None
        self.place = self._no_place
        self._tints: dict[int, bool] = {}
        self._focus: QRectF | None = None
        self.setDragMode(ChassisView.DragMode.NoDrag)
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def _no_place(self, slot: int, card_id: str) -> bool:
        return False

    def refresh(self, build: Build, result: BuildResult) -> None:
        super().refresh(build, result)
        self.fit()

    def focus_rect(self) -> QRectF | None:
        """The chassis heading and as many whole slots as fit the view at full width, down to one past the
        last card at least: empty slots further down would only shrink the drawing."""
        scene = self.scene()
        if scene is None or not self.slot_items:
            return None
        order = sorted(self.slot_items.values(), key=lambda i: i.position.x)
        full = scene.itemsBoundingRect().adjusted(-10, -10, 10, 10)
        used = [n for n, item in enumerate(order) if item.slot in self.card_items]
        least = min(len(order), max(2, max(used, default=0) + 2))
        scale = self.viewport().width() / max(full.width(), 1.0)
        extra = 50.0 if order[0].position.kind == "sxm" else 2.0  # labels sit under SXM sockets

        def bottom(n: int) -> float:
            return max(item.rect().bottom() for item in order[:n]) + extra

        n = len(order)
        while n > least and (bottom(n) - full.top()) * scale > self.viewport().height():
            n -= 1
        return QRectF(full.left(), full.top(), full.width(), min(bottom(n), full.bottom()) - full.top())

    def fit(self) -> None:
        rect = self.focus_rect()
        if rect is None:
            super().fit()
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
        for slot, item in self.card_items.items():
            if item.sceneBoundingRect().contains(scene_pos):
                return slot
        for slot, item in self.slot_items.items():
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
        self.setGeometry(self.parentWidget().rect())
        self.show()
        self.raise_()


class PinPad(Overlay):
    """Big digit buttons; the window checks the PIN."""

    submitted = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.digits = ""
        layout = QVBoxLayout(self.panel)
        layout.setContentsMargins(40, 32, 40, 32)
        layout.setSpacing(14)
        title = QLabel("Staff only: enter the PIN to leave demo mode")
        title.setFont(_font(22, True))
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(title)
        self.display = QLabel(" ")
        self.display.setFont(_font(40, True))
        self.display.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.display.setMinimumHeight(70)
        layout.addWidget(self.display)
        self.message = QLabel(" ")
        self.message.setFont(_font(20, True))
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setStyleSheet("color: #C62828;")
        layout.addWidget(self.message)
        grid = QGridLayout()
        grid.setSpacing(12)
        self.group = QButtonGroup(self)
        keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "Clear", "0", "OK"]
        for i, key in enumerate(keys):
            b = QPushButton(key)
            b.setObjectName("pinkey")
            b.setFont(_font(30 if key.isdigit() else 22, True))
            b.setMinimumSize(150, 96)
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self.group.addButton(b, i)
            grid.addWidget(b, i // 3, i % 3)
        self.group.idClicked.connect(self._key)
        layout.addLayout(grid)
        cancel = QPushButton("Cancel")
        cancel.setFont(_font(22, True))
        cancel.setMinimumHeight(80)
        cancel.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        cancel.clicked.connect(self._cancel)
        layout.addWidget(cancel)
        self._keys = keys
        self.shake = QPropertyAnimation(self.panel, b"pos", self)
        self.shake.setDuration(420)

    def open(self) -> None:
        self.digits = ""
        self.message.setText(" ")
        self._show_digits()
        self.cover()
        self.setFocus()

    def _show_digits(self) -> None:
        self.display.setText(" ".join("●" for _ in self.digits) or " ")

    def _key(self, index: int) -> None:
        key = self._keys[index]
        if key == "Clear":
            self.digits = ""
        elif key == "OK":
            self.submitted.emit(self.digits)
            return
        elif len(self.digits) < 12:
            self.digits += key
        self.message.setText(" ")
        self._show_digits()

    def _cancel(self) -> None:
        self.hide()
        self.cancelled.emit()

    def refuse(self) -> None:
        self.digits = ""
        self._show_digits()
        self.message.setText("Wrong PIN: try again")
        if self.shake.state() == QPropertyAnimation.State.Running:
            return
        start = self.panel.pos()
        self.shake.setStartValue(start)
        for i, dx in enumerate((-28, 24, -18, 12, -6)):
            self.shake.setKeyValueAt((i + 1) / 6, start + QPoint(dx, 0))
        self.shake.setEndValue(start)
        self.shake.start()

    def keyPressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        text = event.text()
        if text.isdigit() and len(text) == 1:
            self._key(self._keys.index(text))
        elif event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.submitted.emit(self.digits)
        elif event.key() == Qt.Key.Key_Backspace:
            self.digits = self.digits[:-1]
            self._show_digits()
        else:
            event.accept()  # Escape and the rest: nothing


class CodePanel(Overlay):
    """'Give this code to our staff: K7Q2MX'."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self.panel)
        layout.setContentsMargins(64, 40, 64, 40)
        layout.setSpacing(18)
        self.title = QLabel("Your build is saved")
        self.title.setFont(_font(30, True))
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.title)
        self.prompt = QLabel("Give this code to our staff:")
        self.prompt.setFont(_font(26))
        self.prompt.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.prompt)
        self.code = QLabel("")
        code_font = QFont("DejaVu Sans Mono")
        code_font.setStyleHint(QFont.StyleHint.Monospace)
        code_font.setPointSizeF(96)
        code_font.setBold(True)
        code_font.setLetterSpacing(QFont.SpacingType.AbsoluteSpacing, 12)
        self.code.setFont(code_font)
        self.code.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.code.setStyleSheet(f"color: {ACCENT};")
        self.code.setAccessibleName("Demo code")
        layout.addWidget(self.code)
        self.note = QLabel("They will open your build and send you its build sheet.")
        self.note.setFont(_font(20))
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setStyleSheet(f"color: {MUTED};")
        layout.addWidget(self.note)
        self.done = QPushButton("Done")
        self.done.setFont(_font(24, True))
        self.done.setMinimumHeight(88)
        self.done.setObjectName("primary")
        self.done.clicked.connect(self.hide)
        layout.addWidget(self.done)

    def show_code(self, code: str) -> None:
        self.title.setText("Your build is saved")
        self.prompt.setText("Give this code to our staff:")
        self.code.setText(code)
        self.code.show()
        self.note.setText("They will open your build and send you its build sheet.")
        self.cover()

    def show_failure(self, reason: str) -> None:
        self.title.setText("Sorry, the build could not be saved")
        self.prompt.setText("Please ask our staff for help.")
        self.code.setText("")
        self.code.hide()
        self.note.setText(reason)
        self.cover()


STYLE = f"""
DemoWindow {{ background: #F4F6F3; }}
QLabel {{ color: {INK}; }}
QPushButton {{ background: white; border: 2px solid #B8C2B0; border-radius: 14px; padding: 8px 18px;
              color: {INK}; min-height: 64px; font-size: 20pt; }}
QPushButton:checked {{ background: {ACCENT}; border-color: {ACCENT}; color: white; }}
QPushButton:pressed {{ background: #DDE7D6; }}
QPushButton:disabled {{ color: #9E9E9E; border-color: #DDDDDD; }}
QPushButton#primary {{ background: #76B900; border-color: #5E9400; color: #0B1F00; font-weight: bold; }}
QPushButton#primary:pressed {{ background: #5E9400; }}
QPushButton#pinkey {{ font-size: 30pt; }}
QFrame#card {{ background: white; border-radius: 18px; border: 1px solid #D6DDD0; }}
QListWidget {{ background: white; border: 1px solid #D6DDD0; border-radius: 14px; color: {INK}; }}
QListWidget::item:selected {{ background: #DDEFD0; color: {INK}; border-radius: 10px; }}
QSlider::groove:horizontal {{ height: 14px; background: #C9D3C0; border-radius: 7px; }}
QSlider::sub-page:horizontal {{ background: {ACCENT}; border-radius: 7px; }}
QSlider::handle:horizontal {{ width: 56px; height: 56px; margin: -21px 0; border-radius: 28px;
                              background: white; border: 4px solid {ACCENT}; }}
"""

_INPUT_EVENTS = frozenset(
    {
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonDblClick,
        QEvent.Type.Wheel,
        QEvent.Type.KeyPress,
        QEvent.Type.TouchBegin,
        QEvent.Type.TabletPress,
    }
)


class DemoWindow(QWidget):
    """The kiosk. ``showFullScreen()`` is up to the caller; it also lays out at a fixed 1920x1080."""

    exit_requested = Signal()
    scenario_changed = Signal(int)

    def __init__(self, settings: Settings | None = None, parent: QWidget | None = None, *,
                 idle_ms: int | None = None, cycle_ms: int | None = None, fade_ms: int | None = None,
                 catalog: Catalog | None = None, scenarios_path: Path | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.setObjectName("DemoWindow")
        self.setWindowTitle("GPU Build Configurator: demo")
        self.settings = settings or Settings()
        self.unit = self.settings.get("units")  # the window's View > Units, for every figure and the chart
        self.catalog = catalog or default_catalog()
        self.scenarios = load_scenarios(scenarios_path, self.catalog)
        self._builds = [load_build(s.build_path, self.catalog) for s in self.scenarios]
        minutes = self.settings.get("demo/idle_minutes")
        self.idle_ms = idle_ms if idle_ms is not None else max(int(minutes * 60_000), 1_000)
        self.cycle_ms = cycle_ms if cycle_ms is not None else CYCLE_MS
        self.fade_ms = fade_ms if fade_ms is not None else FADE_MS
        self.allow_close = False  # window-manager closes (Alt+F4) are refused unless this is set
        self._index = 0
        self._attracting = False
        self._saving = False
        self._filtering = False
        self._last_move: QPointF | None = None
        self.doc = BuildDocument(self._builds[0], self.catalog, path=self.scenarios[0].build_path)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setFont(_font(18))
        self.setStyleSheet(STYLE)
        self._build_ui()
        self._build_timers()
        self.doc.changed.connect(self._on_changed)
        self.doc.refused.connect(self.say)
        self.chassis.status.connect(self._chassis_status)
        self.exit_shortcut = QShortcut(QKeySequence("Ctrl+Shift+Q"), self)
        self.exit_shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        self.exit_shortcut.activated.connect(self.show_pin_pad)
        self.show_scenario(0)

    # ---- layout ----
    def _build_ui(self) -> None:
        root = QHBoxLayout(self)
        # the window's size is the screen's: the layout never resizes it (nor re-sends size hints on every
        # scenario, which the offscreen platform answers with a warning each time)
        root.setSizeConstraint(QHBoxLayout.SizeConstraint.SetNoConstraint)
        root.setContentsMargins(24, 20, 24, 20)
        root.setSpacing(24)

        side = QVBoxLayout()
        side.setSpacing(12)
        brand = QLabel("Ask the configurator")
        brand.setFont(_font(26, True))
        side.addWidget(brand)
        hint = QLabel("Tap a question:")
        hint.setFont(_font(18))
        hint.setStyleSheet(f"color: {MUTED};")
        side.addWidget(hint)
        self.scenario_group = QButtonGroup(self)
        self.scenario_group.setExclusive(True)
        self.scenario_buttons: list[WrapButton] = []
        for i, s in enumerate(self.scenarios):
            b = WrapButton(f"{i + 1}.  {s.title}")
            b.label.setFont(_font(19, True))
            self.scenario_group.addButton(b, i)
            self.scenario_buttons.append(b)
            side.addWidget(b)
        self.scenario_group.idClicked.connect(self._scenario_clicked)
        side.addStretch(1)
        about = QLabel(
            "Every figure here comes from the same sizing engine our staff use: change the build "
            "and watch the numbers follow."
        )
        about.setFont(_font(18))
        about.setWordWrap(True)
        about.setStyleSheet(f"color: {MUTED};")
        side.addWidget(about)
        side.addSpacing(12)
        self.reset_button = QPushButton("Start this question over")
        self.reset_button.setMinimumHeight(80)
        self.reset_button.clicked.connect(self.reset_scenario)
        side.addWidget(self.reset_button)
        self.take_home_button = QPushButton("Take this build home")
        self.take_home_button.setObjectName("primary")
        self.take_home_button.setMinimumHeight(104)
        self.take_home_button.setStyleSheet("font-size: 24pt;")
        self.take_home_button.clicked.connect(self._take_home_clicked)
        side.addWidget(self.take_home_button)
        side_widget = QWidget()
        side_widget.setLayout(side)
        side_widget.setFixedWidth(440)
        root.addWidget(side_widget)

        # the stage: everything that cross-fades between scenarios
        self.stage = QWidget()
        stage = QVBoxLayout(self.stage)
        stage.setContentsMargins(0, 0, 0, 0)
        stage.setSpacing(14)
        top = QHBoxLayout()
        top.setSpacing(20)
        words = QVBoxLayout()
        words.setSpacing(8)
        self.title = QLabel()
        self.title.setFont(_font(30, True))
        self.title.setWordWrap(True)
        words.addWidget(self.title)
        self.text = QLabel()
        self.text.setFont(_font(18))
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        words.addWidget(self.text, 1)
        top.addLayout(words, 3)
        top.addWidget(self._key_panel(), 2)
        top_widget = QWidget()
        top_widget.setLayout(top)
        top_widget.setFixedHeight(TOP_H)
        stage.addWidget(top_widget)

        views = QHBoxLayout()
        views.setSpacing(14)
        self.chassis = DemoChassisView(self.doc)
        self.chassis.place = self.place_card
        self.chassis.setMinimumHeight(300)
        self.chassis.setFrameShape(QFrame.Shape.NoFrame)
        self.chassis.setStyleSheet("background: white; border-radius: 14px;")
        views.addWidget(self.chassis, 1)
        self.chart = HeadroomChart(unit=self.unit)
        self._enlarge_chart()
        views.addWidget(self.chart, 1)
        stage.addLayout(views, 1)

        self.message = QLabel(" ")
        self.message.setFont(_font(19, True))
        self.message.setStyleSheet("color: #B71C1C;")
        self.message.setWordWrap(True)
        stage.addWidget(self.message)

        controls = QHBoxLayout()
        controls.setSpacing(22)
        pal = QVBoxLayout()
        pal.setSpacing(4)
        pal_label = QLabel("Drag a card onto a slot:")
        pal_label.setFont(_font(18, True))
        pal.addWidget(pal_label)
        self.card_palette = DemoPalette(self.catalog)
        self.card_palette.armed.connect(self._armed)
        pal.addWidget(self.card_palette)
        controls.addLayout(pal)

        knobs = QVBoxLayout()
        knobs.setSpacing(10)
        self.seq_box = QWidget()
        seq = QVBoxLayout(self.seq_box)
        seq.setContentsMargins(0, 0, 0, 0)
        seq.setSpacing(2)
        self.seq_label = QLabel()
        self.seq_label.setFont(_font(18, True))
        seq.addWidget(self.seq_label)
        self.seq_slider = QSlider(Qt.Orientation.Horizontal)
        self.seq_slider.setRange(0, len(SEQUENCE_LENGTHS) - 1)
        self.seq_slider.setPageStep(1)
        self.seq_slider.setMinimumHeight(68)
        self.seq_slider.setAccessibleName("Sequence length")
        self.seq_slider.valueChanged.connect(self._sequence_moved)
        seq.addWidget(self.seq_slider)
        knobs.addWidget(self.seq_box)

        self.method_box = QWidget()
        method = QHBoxLayout(self.method_box)
        method.setContentsMargins(0, 0, 0, 0)
        method.setSpacing(10)
        self.method_group = QButtonGroup(self)
        self.method_buttons: list[QPushButton] = []
        for i, (_, label) in enumerate(METHODS):
            b = QPushButton(label)
            b.setCheckable(True)
            b.setMinimumSize(150, 72)
            self.method_group.addButton(b, i)
            self.method_buttons.append(b)
            method.addWidget(b)
        method.addStretch(1)
        self.method_group.idClicked.connect(self._method_clicked)
        knobs.addWidget(self.method_box)

        self.count_box = QWidget()
        counts = QHBoxLayout(self.count_box)
        counts.setContentsMargins(0, 0, 0, 0)
        counts.setSpacing(10)
        self.count_group = QButtonGroup(self)
        self.count_buttons: dict[int, QPushButton] = {}
        for n in sorted({n for s in self.scenarios for n in s.card_counts}):
            b = QPushButton(f"{n} cards")
            b.setCheckable(True)
            b.setMinimumSize(150, 72)
            self.count_group.addButton(b, n)
            self.count_buttons[n] = b
            counts.addWidget(b)
        self.count_group.idClicked.connect(self._count_clicked)
        self.bridge_button = QPushButton("NVLink bridge")
        self.bridge_button.setCheckable(True)
        self.bridge_button.setMinimumSize(250, 72)
        self.bridge_button.clicked.connect(self._bridge_clicked)
        counts.addWidget(self.bridge_button)
        counts.addStretch(1)
        knobs.addWidget(self.count_box)
        knobs.addStretch(1)
        controls.addLayout(knobs, 1)
        stage.addLayout(controls)
        root.addWidget(self.stage, 1)

        # layers above everything
        self.fade = QLabel(self.stage)
        self.fade.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.fade_effect = QGraphicsOpacityEffect(self.fade)
        self.fade.setGraphicsEffect(self.fade_effect)
        self.fade.hide()
        self.fade_anim = QPropertyAnimation(self.fade_effect, b"opacity", self)
        self.fade_anim.setStartValue(1.0)
        self.fade_anim.setEndValue(0.0)
        self.fade_anim.setEasingCurve(QEasingCurve.Type.InOutQuad)
        self.fade_anim.finished.connect(self._fade_done)
        self.banner = QLabel(
            "<div style='font-size:34pt; font-weight:bold'>Touch the screen to try it yourself</div>"
            "<div style='font-size:20pt'>Drag cards into the server, move the slider, switch the method: "
            "the figures follow.</div>",
            self,
        )
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setStyleSheet(f"background: {ACCENT}; color: white; border-radius: 18px;")
        self.banner.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.banner.hide()
        self.code_panel = CodePanel(self)
        self.pin_pad = PinPad(self)
        self.pin_pad.submitted.connect(self._pin_submitted)

    def _key_panel(self) -> QFrame:
        panel = QFrame()
        panel.setObjectName("card")
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(26, 12, 26, 12)
        layout.setSpacing(2)
        self.key_number = QLabel()
        self.key_number.setFont(_font(56, True))
        self.key_number.setAccessibleName("Key figure")
        layout.addWidget(self.key_number)
        self.key_label = QLabel()
        self.key_label.setFont(_font(22, True))
        self.key_label.setWordWrap(True)
        layout.addWidget(self.key_label)
        self.key_status = QLabel()
        self.key_status.setFont(_font(19, True))
        layout.addWidget(self.key_status)
        self.more_labels: list[QLabel] = []
        for _ in range(max(len(s.more) for s in self.scenarios)):
            label = QLabel()
            label.setFont(_font(18))
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            layout.addWidget(label)
            self.more_labels.append(label)
        layout.addStretch(1)
        panel.setFixedWidth(640)
        return panel

    def _enlarge_chart(self) -> None:
        """Kiosk-sized type in the chart: axes, bar labels and legend."""
        chart = self.chart
        chart.plot.setTitle("Memory per card (on top: free after activations)", color="#222", size="18pt")
        tick = _font(15)
        for side in ("left", "bottom"):
            axis = chart.plot.getAxis(side)
            axis.setStyle(tickFont=tick)
            axis.label.setFont(_font(16))
        chart.plot.getAxis("bottom").setHeight(70)
        chart.plot.getAxis("left").setWidth(80)
        for label in chart.labels:
            label.setFont(_font(16, True))
        for _, item in chart.legend.items:
            item.setText(item.text, size="15pt")
        chart.setMinimumHeight(300)

    def _build_timers(self) -> None:
        self.idle_timer = QTimer(self)
        self.idle_timer.setSingleShot(True)
        self.idle_timer.timeout.connect(self.start_attract)
        self.cycle_timer = QTimer(self)
        self.cycle_timer.timeout.connect(self._cycle)
        self.message_timer = QTimer(self)
        self.message_timer.setSingleShot(True)
        self.message_timer.setInterval(MESSAGE_MS)
        self.message_timer.timeout.connect(self._clear_message)

    # ---- scenarios ----
    def scenario_count(self) -> int:
        return len(self.scenarios)

    def current_index(self) -> int:
        return self._index

    @property
    def scenario(self) -> Scenario:
        return self.scenarios[self._index]

    def show_scenario(self, index: int, animated: bool = False) -> None:
        """Show scenario ``index`` as its file has it (any visitor change is dropped)."""
        index %= len(self.scenarios)
        if animated and self.isVisible() and self.fade_ms > 0:
            self.fade_anim.stop()
            self.fade.setPixmap(self.stage.grab())
            self.fade.setGeometry(self.stage.rect())
            self.fade_effect.setOpacity(1.0)
            self.fade.show()
            self.fade.raise_()
        self._index = index
        s = self.scenarios[index]
        self.title.setText(s.title)
        self.text.setText(s.text)
        self.card_palette.set_cards(s.cards)
        self.chassis.armed = None
        self.seq_box.setVisible("sequence" in s.controls)
        self.method_box.setVisible("method" in s.controls)
        self.count_box.setVisible("cards" in s.controls or "bridge" in s.controls)
        for n, b in self.count_buttons.items():
            b.setVisible("cards" in s.controls and n in s.card_counts)
        self.bridge_button.setVisible("bridge" in s.controls)
        self.scenario_buttons[index].setChecked(True)
        self._clear_message()
        self.doc.replace(self._builds[index], s.build_path)
        if animated and self.fade.isVisible():
            self.fade_anim.setDuration(self.fade_ms)
            self.fade_anim.start()
        self.scenario_changed.emit(index)

    def reset_scenario(self) -> None:
        self.show_scenario(self._index)

    def _scenario_clicked(self, index: int) -> None:
        self.show_scenario(index, animated=True)

    def _fade_done(self) -> None:
        self.fade.hide()
        self.fade.setPixmap(QPixmap())

    # ---- the live figures ----
    def figure(self, spec: FigureSpec) -> Figure:
        return read_figure(spec, self.doc.build, self.doc.result, self.catalog, self.doc.models, self.unit)

    def key_figure(self) -> Figure:
        return self.figure(self.scenario.key)

    def key_figure_text(self) -> str:
        """The key figure as shown, e.g. '60 GB left for activations on the RTX PRO 6000 Server'."""
        return self.key_figure().text

    def _on_changed(self, build: Build, result: BuildResult) -> None:
        s = self.scenario
        key = self.key_figure()
        ink = STATUS_INK.get(key.status, INK)
        self.key_number.setText(key.number)
        self.key_number.setStyleSheet(f"color: {ink};")
        self.key_label.setText(key.label)
        self.key_status.setText(STATUS_WORDS.get(key.status, ""))
        self.key_status.setStyleSheet(f"color: {ink};")
        for i, label in enumerate(self.more_labels):
            if i < len(s.more):
                f = self.figure(s.more[i])
                colour = STATUS_INK.get(f.status, INK) if f.value is not None and f.value < 0 else INK
                label.setText(f"<span style='font-size:26pt; font-weight:bold; color:{colour}'>{f.number}</span>"
                              f"&nbsp; {f.label}")  # fmt: skip
                label.show()
            else:
                label.hide()
        self.chart.update_result(result)
        self._tune_chart()
        self._sync_controls(build)

    def _tune_chart(self) -> None:
        """Kiosk-sized bar labels and ticks while there is room; narrower bars get smaller, rounded labels and
        one-line ticks (the tenant for MIG slices, else the slot)."""
        rows = self.chart.rows
        if not rows:
            return
        per_bar = self.chart.width() * 0.85 / len(rows)
        compact = len(rows) >= 4 or per_bar < 190
        font = _font(12 if compact else 16, True)
        for i, label in enumerate(self.chart.labels[: len(rows)]):
            label.setFont(font)
            if compact:
                r = rows[i][1]
                digits = 0 if abs(to_unit(r.headroom_gb, self.unit)) >= 100 else 1
                label.setText(headroom_label(r.headroom_gb, r.fits, self.unit, digits))
        if compact:
            ticks = [(float(i), job if r.mig else f"slot {r.slot}") for i, (job, r) in enumerate(rows)]
            self.chart.plot.getAxis("bottom").setTicks([ticks])

    def _sync_controls(self, build: Build) -> None:
        s = self.scenario
        job = build.jobs[min(max(s.key.job, 0), len(build.jobs) - 1)] if build.jobs else None
        if job is None:
            return
        tokens = job.sequence_length
        self.seq_slider.blockSignals(True)
        self.seq_slider.setValue(min(range(len(SEQUENCE_LENGTHS)), key=lambda i: abs(SEQUENCE_LENGTHS[i] - tokens)))
        self.seq_slider.blockSignals(False)
        self.seq_label.setText(f"Sequence length: {tokens:,} tokens")
        for i, (m, _) in enumerate(METHODS):
            self.method_buttons[i].setChecked(m == job.method)
        n = len(job.cards)
        self.count_group.setExclusive(False)
        for count, b in self.count_buttons.items():
            b.setChecked(count == n)
        self.count_group.setExclusive(True)
        self.bridge_button.setChecked(bool(build.bridges))

    # ---- visitor edits ----
    def place_card(self, slot: int, card_id: str) -> bool:
        """A palette card onto ``slot`` (dragged, or tapped then the slot tapped)."""
        grow = self.scenario.grow_job
        name = short_name(self.catalog.cards[card_id].name)
        return self.doc.edit(f"{name} into slot {slot}", self._placer(slot, card_id, grow))

    def _placer(self, slot: int, card_id: str, grow: int | None) -> partial[Build]:
        return partial(put_card, catalog=self.catalog, slot=slot, card_id=card_id, grow_job=grow)

    def _armed(self, card_id: str) -> None:
        self.chassis.armed = card_id
        self.say(f"Now tap a slot for the {short_name(self.catalog.cards[card_id].name)}", colour=ACCENT)

    def set_sequence_length(self, tokens: int) -> bool:
        return self.doc.edit(f"Sequence length {tokens}", partial(set_sequence_length, tokens=tokens),
                             merge_key="demo-sequence")  # fmt: skip

    def _sequence_moved(self, position: int) -> None:
        tokens = SEQUENCE_LENGTHS[position]
        self.seq_label.setText(f"Sequence length: {tokens:,} tokens")
        self.set_sequence_length(tokens)

    def set_method(self, method: str) -> bool:
        return self.doc.edit(f"Method {method}", partial(set_method, method=method))

    def _method_clicked(self, index: int) -> None:
        self.set_method(METHODS[index][0])

    def set_card_count(self, count: int) -> bool:
        make = partial(set_card_count, catalog=self.catalog, job=self.scenario.key.job, count=count)
        ok = self.doc.edit(f"{count} cards", make)
        self._sync_controls(self.doc.build)
        return ok

    def _count_clicked(self, count: int) -> None:
        self.set_card_count(count)

    def set_bridged(self, on: bool) -> bool:
        make = partial(set_bridged, catalog=self.catalog, job=self.scenario.key.job, on=on)
        ok = self.doc.edit("NVLink bridge " + ("on" if on else "off"), make)
        self._sync_controls(self.doc.build)
        return ok

    def _bridge_clicked(self, checked: bool) -> None:
        self.set_bridged(checked)

    def say(self, text: str, colour: str = "#B71C1C") -> None:
        self.message.setStyleSheet(f"color: {colour};")
        self.message.setText(text[:1].upper() + text[1:])
        self.message_timer.start()

    def _chassis_status(self, text: str) -> None:
        refused = text.startswith(("Cannot", "Not there", "Select"))
        self.say(text, colour="#B71C1C" if refused else ACCENT)

    def _clear_message(self) -> None:
        self.message.setText(" ")

    # ---- take home ----
    def take_home(self) -> str:
        """Write <CODE>.pdf and <CODE>.yaml into the demo folder; show and return the code ('' on failure)."""
        from configurator.catalog.errors import FileError
        from configurator.report.pdf import default_page, export_pdf
        from configurator.report.sheet import SheetOptions

        if self._saving:
            return ""
        self._saving = True
        try:
            build, result = self.doc.build, self.doc.result
            folder = demo_folder(self.settings)
            today = dt.date.today()
            try:
                folder.mkdir(parents=True, exist_ok=True)
                text = build_to_yaml(build)
                salt = 0
                code = demo_code(build, today)
                while (folder / f"{code}.yaml").is_file() and (folder / f"{code}.yaml").read_text("utf-8") != text:
                    salt += 1
                    code = demo_code(build, today, salt)
                options = SheetOptions(
                    seller_name=str(self.settings.get("seller_name") or SheetOptions.seller_name),
                    seller_logo=str(self.settings.get("seller_logo") or "") or None,
                    page=str(self.settings.get("page") or "") or default_page(),
                    date=today,
                )
                export_pdf(folder / f"{code}.pdf", build, result, self.catalog, options)
                save_build(build, folder / f"{code}.yaml")
            except (FileError, OSError) as exc:
                self.code_panel.show_failure(str(exc))
                return ""
            self.code_panel.show_code(code)
            return code
        finally:
            self._saving = False

    def _take_home_clicked(self) -> None:
        self.take_home_button.setEnabled(False)
        self.take_home_button.setText("Preparing your build sheet…")
        self.take_home_button.repaint()
        try:
            self.take_home()
        finally:
            self.take_home_button.setText("Take this build home")
            self.take_home_button.setEnabled(True)

    # ---- leaving ----
    def show_pin_pad(self) -> None:
        self.stop_attract()
        self.pin_pad.open()

    def pin(self) -> str:
        return str(self.settings.get("demo/pin"))

    def enter_pin(self, digits: str) -> bool:
        """True (and ``exit_requested``) for the right PIN; a wrong one shakes the pad."""
        if digits == self.pin():
            self.pin_pad.hide()
            self.allow_close = True
            self.exit_requested.emit()
            return True
        if not self.pin_pad.isVisible():
            self.pin_pad.open()
        self.pin_pad.refuse()
        return False

    def _pin_submitted(self, digits: str) -> None:
        self.enter_pin(digits)

    def keyPressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        event.accept()  # Escape and every other stray key: nothing (leaving takes Ctrl+Shift+Q and the PIN)

    def closeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if event.spontaneous() and not self.allow_close:
            event.ignore()  # Alt+F4 and the like from the window manager
            return
        self._stop_everything()
        super().closeEvent(event)

    # ---- attract loop ----
    def is_attracting(self) -> bool:
        return self._attracting

    def start_attract(self) -> None:
        """Drop the visitor's changes and cycle the scenarios until the next input."""
        self.idle_timer.stop()
        self.pin_pad.hide()
        self.code_panel.hide()
        self._attracting = True
        self.show_scenario(self._index, animated=False)
        self._place_banner()
        self.banner.show()
        self.banner.raise_()
        self.cycle_timer.start(self.cycle_ms)

    def stop_attract(self) -> None:
        was = self._attracting
        self._attracting = False
        self.cycle_timer.stop()
        self.banner.hide()
        if was and self.fade_anim.state() == QPropertyAnimation.State.Running:
            self.fade_anim.stop()
            self._fade_done()
        self._restart_idle()

    def _cycle(self) -> None:
        if self._attracting:
            self.show_scenario(self._index + 1, animated=True)
            self.banner.raise_()

    def _restart_idle(self) -> None:
        if self.isVisible():
            self.idle_timer.start(self.idle_ms)

    def _place_banner(self) -> None:
        """Over the controls row, which the loop does not use."""
        stage = self.stage.geometry()
        shown = self.card_palette.isVisible()
        top = self.card_palette.mapTo(self, QPoint(0, 0)).y() - 40 if shown else stage.bottom() - 220
        self.banner.setGeometry(stage.left(), top, stage.width(), stage.bottom() - top + 1)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in _INPUT_EVENTS and kind != QEvent.Type.MouseMove:
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self:
            return False
        if kind == QEvent.Type.MouseMove:
            pos = event.globalPosition()  # type: ignore[attr-defined]
            moved = self._last_move is not None and (pos - self._last_move).manhattanLength() > 6
            self._last_move = pos
            if not (moved and event.spontaneous()):
                return False
        if self._attracting:
            self.stop_attract()
            return kind != QEvent.Type.MouseMove  # the waking touch does not also press a button
        self._restart_idle()
        return False

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        app = QApplication.instance()
        if app is not None and not self._filtering:
            app.installEventFilter(self)
            self._filtering = True
        if not self._attracting:
            self._restart_idle()

    def hideEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self._stop_everything()
        super().hideEvent(event)

    def _stop_everything(self) -> None:
        self.idle_timer.stop()
        self.cycle_timer.stop()
        self.message_timer.stop()
        self.fade_anim.stop()
        self._attracting = False
        self.banner.hide()
        app = QApplication.instance()
        if app is not None and self._filtering:
            app.removeEventFilter(self)
            self._filtering = False

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        for overlay in (self.pin_pad, self.code_panel):
            if overlay.isVisible():
                overlay.setGeometry(self.rect())
        if self.fade.isVisible():
            self.fade.setGeometry(self.stage.rect())
        self._place_banner()
