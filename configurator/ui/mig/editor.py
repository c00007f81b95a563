"""The MIG editor: split a card into GPU instances on its placement grid and put jobs into them.

The diagram draws the card's placement grid (8 memory slices, or 12 placement units on RTX PRO 6000)
as columns and each instance as a block over ``[start, start + size)`` with its memory and the jobs in
it. Profiles are dragged from the palette onto a grid position, jobs (``JOB_MIME``) onto an instance.
Every change is an undoable ``BuildDocument.edit``; the engine (``set_mig_layout``) refuses invalid
layouts with the placement reason, which the editor shows and emits through ``status``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QAction, QShowEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.cards import CardSpec, MigSpec
from configurator.engine import Build, BuildResult
from configurator.engine.model.build import MigInstanceRequest
from configurator.engine.model.result import MigCard
from configurator.ui.base import BuildDocument, MiddleElidedComboBox, ViewState, hidden_in_shown_window, severity_ink
from configurator.ui.mig.common import DISPLAY_MODE_NOTE, EMPTY_TEXT, JobInInstance, _short_name
from configurator.ui.mig.edits import MigEdits
from configurator.ui.mig.palette import ProfileList, fill_layouts, fill_palette, select_layout
from configurator.ui.mig.view import MigView


class _TwoRows(QWidget):
    """Two rows of controls side by side where the width holds both, else one above the other. Its minimum width
    is the narrower arrangement's: side by side they asked 564 px, and the MIG tab scrolled sideways at 1366x768."""

    GAP = 8

    def __init__(self, first: QHBoxLayout, second: QHBoxLayout) -> None:
        super().__init__()
        self.parts = (first, second)
        self.box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self.box.setContentsMargins(0, 0, 0, 0)
        self.box.setSpacing(self.GAP)
        self.box.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)  # the minimum is this widget's own
        self.box.addLayout(first, 0)  # the card box as wide as its entry; the layout box takes the rest of the row
        self.box.addLayout(second, 1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def side_by_side(self) -> bool:
        return self.box.direction() == QBoxLayout.Direction.LeftToRight

    def _wide_width(self) -> int:
        return sum(p.minimumSize().width() for p in self.parts) + self.GAP

    def _height(self) -> int:
        heights = [p.sizeHint().height() for p in self.parts]
        return max(heights) if self.side_by_side() else sum(heights) + self.GAP

    def minimumSizeHint(self) -> QSize:
        return QSize(max(p.minimumSize().width() for p in self.parts), self._height())

    def sizeHint(self) -> QSize:
        return QSize(sum(p.sizeHint().width() for p in self.parts) + self.GAP, self._height())

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        wide = self.width() >= self._wide_width()
        if wide != self.side_by_side():
            self.box.setDirection(QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom)
            self.updateGeometry()  # one row or two: the page gives it the height


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
        self._view_state: ViewState | None = None  # set by follow(): where a card picked here is announced
        self.unit = "GB"  # the view state's memory unit (follow): the profiles' and instances' figures are in it
        self.edits = MigEdits(self)  # the layout and placement edits, the clipboard actions

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

        layout.addWidget(self._build_top())
        self.display_note = QLabel(DISPLAY_MODE_NOTE)
        self.display_note.setWordWrap(True)
        self.display_note.setStyleSheet(
            "QLabel { background: #FFF4D6; color: #6B4A00; border: 1px solid #E69F00; border-radius: 4px;"
            " padding: 3px 6px; }"
        )
        self.display_note.setVisible(False)
        layout.addWidget(self.display_note)

        layout.addLayout(self._build_middle(), 1)
        layout.addLayout(self._build_bottom())

        self.remove_action = QAction("Remove instance", self)
        self.remove_action.triggered.connect(self.edits.remove_selected)

        document.changed.connect(self._on_changed)
        document.refused.connect(self._on_refused)
        self._on_changed(document.build, document.result)

    def _build_top(self) -> _TwoRows:
        """The card combo and the MIG toggle, the layout combo beside them or, where the tab is narrow, below."""
        card = QHBoxLayout()
        card.addWidget(QLabel("<b>Card</b>"))
        # as wide as its entries where the row has room, cut in the middle where not (it was cut at 16 characters,
        # "Slot 1: RTX PRO 6000 Serve", while the layout box took the rest of the row)
        self.card_box = MiddleElidedComboBox(min_chars=16)
        self.card_box.setAccessibleName("MIG card")
        self.card_box.currentIndexChanged.connect(self._card_chosen)
        card.addWidget(self.card_box)
        self.mig_toggle = QCheckBox("MIG on")
        self.mig_toggle.setAccessibleName("MIG on")
        self.mig_toggle.setToolTip("Split the card into GPU instances (nvidia-smi -mig 1); off runs it as one GPU")
        self.mig_toggle.clicked.connect(self.edits.toggle_clicked)
        card.addWidget(self.mig_toggle)
        layout = QHBoxLayout()
        layout.addWidget(QLabel("<b>Layout</b>"))
        self.preset_box = QComboBox()
        self.preset_box.setAccessibleName("MIG layout")
        self.preset_box.setMinimumContentsLength(20)
        self.preset_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.preset_box.setToolTip("mig-parted presets, then every maximal layout (no room left for another instance)")
        self.preset_box.activated.connect(self.edits.layout_chosen)
        layout.addWidget(self.preset_box, 3)
        self.top_rows = _TwoRows(card, layout)
        return self.top_rows

    def _build_middle(self) -> QHBoxLayout:
        """The profile palette beside the placement diagram."""
        middle = QHBoxLayout()
        side = QVBoxLayout()
        side.setSpacing(3)
        side.addWidget(QLabel("<b>Profiles</b> <span style='color:gray'>(drag onto the grid)</span>"))
        self.palette_list = ProfileList()
        self.palette_list.setMinimumWidth(150)  # with the diagram's 240: the tab fits a 1024 px window
        self.palette_list.setMaximumWidth(230)
        self.palette_list.itemActivated.connect(self.edits.profile_activated)
        side.addWidget(self.palette_list, 1)
        middle.addLayout(side)
        self.view = MigView(self, self)
        middle.addWidget(self.view, 1)
        return middle

    def _build_bottom(self) -> QHBoxLayout:
        """The message line and the copy buttons."""
        bottom = QHBoxLayout()
        self.message = QLabel()
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # placement reasons may quote user names
        self.message.setWordWrap(True)
        self.message.setMinimumWidth(10)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bottom.addWidget(self.message, 1)
        self.copy_commands_button = QPushButton("Copy nvidia-smi commands")
        self.copy_commands_button.setToolTip("The setup sequence for this card, largest instances first")
        self.copy_commands_button.clicked.connect(self.edits.copy_commands)
        bottom.addWidget(self.copy_commands_button)
        self.copy_yaml_button = QPushButton("Copy mig-parted YAML")
        self.copy_yaml_button.setToolTip("A mig-parted config (profile counts; mig-parted places them itself)")
        self.copy_yaml_button.clicked.connect(self.edits.copy_yaml)
        bottom.addWidget(self.copy_yaml_button)
        return bottom

    # ---- state ----
    def mig_slots(self) -> list[int]:
        cards = self.doc.catalog.cards
        return [c.slot for c in self.doc.build.cards if c.card in cards and cards[c.card].mig is not None]

    def current_slot(self) -> int | None:
        return self._slot

    def layout_choices(self) -> list[tuple[str, tuple[str, ...]]]:
        """The layout box's entries: (name, profiles)."""
        return self._choices

    def selected_instance(self) -> int | None:
        return self.view.selected_index()

    def select_instance(self, index: int) -> None:
        self.view.select(index)

    def follow(self, view: ViewState) -> None:
        """A card selected in the view state (a click in the chassis) is shown here when it can split, and a card
        picked here is the view state's selection (the chassis and the charts follow it): one selection."""
        self._view_state = view
        view.slot_changed.connect(self._slot_changed)
        view.unit_changed.connect(self._unit_changed)
        self._unit_changed(view.unit)

    def _unit_changed(self, unit: str) -> None:
        """Write every figure in ``unit``: the profiles, the instances and the jobs' headroom (with GiB chosen the
        headroom chart said '+12.4 GiB' and this tab '+13.3 GB' for the same tenant)."""
        if unit == self.unit:
            return
        self.unit = unit
        self._spec_id = None  # the profile list is refilled in the new unit
        self._on_changed(self.doc.build, self.doc.result)

    def _slot_changed(self, slot: int | None) -> None:
        if slot is not None and slot in self.mig_slots():
            self.select_slot(slot)

    def select_slot(self, slot: int) -> None:
        i = self.card_box.findData(slot)
        if i >= 0:
            self.card_box.setCurrentIndex(i)

    def card_spec(self) -> tuple[CardSpec, MigSpec] | None:
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

    def pinned_starts(self) -> list[tuple[str, int | None]]:
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

    def changeEvent(self, event: QEvent) -> None:
        """View › Dark theme: the message under the diagram takes the theme's error ink at once (it kept the old
        one until the next message)."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) and hasattr(
                self, "message"):  # fmt: skip
            self._show_message(self.mig_card())

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
        if self._view_state is not None and self._view_state.slot != slot:
            self._view_state.set_slot(slot)  # the user's pick: the one selection everyone follows

    def _show_card(self, build: Build, result: BuildResult) -> None:
        got = self.card_spec()
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
        fill_palette(self.palette_list, spec, self.unit)
        # as wide as its widest profile and no wider: the rest is the diagram's, whose instances are drawn to its width
        lst = self.palette_list
        need = lst.sizeHintForColumn(0) + 2 * lst.frameWidth() + lst.verticalScrollBar().sizeHint().width() + 4
        lst.setMaximumWidth(max(lst.minimumWidth(), min(230, need)))

    def _fill_layouts(self, spec: MigSpec) -> None:
        self._choices = fill_layouts(self.preset_box, spec)

    def _select_layout(self, spec: MigSpec, requests: list[MigInstanceRequest] | None) -> None:
        select_layout(self.preset_box, self._choices, spec, requests)

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
            self.message.setStyleSheet(f"color: {severity_ink(self, 'error')};")  # readable on either theme
        elif self._action_message is not None:
            text, error = self._action_message
            self.message.setStyleSheet(f"color: {severity_ink(self, 'error')};" if error else "")
        else:
            text = ""
            self.message.setStyleSheet("")
        self.message.setText(text)
        self.message.setToolTip(text)

    def _on_refused(self, reason: str) -> None:
        if self._editing:
            self.say(f"Refused: {reason}", error=True)

    def edit(self, text: str, make: Callable[[Build], Build]) -> bool:
        self._editing = True
        try:
            return self.doc.edit(text, make)
        finally:
            self._editing = False
