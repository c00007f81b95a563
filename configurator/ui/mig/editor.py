"""The MIG editor: split a card into GPU instances on its placement grid and put jobs into them.

The diagram draws the card's placement grid (8 memory slices, or 12 placement units on RTX PRO 6000)
as columns and each instance as a block over ``[start, start + size)`` with its memory and the jobs in
it. Profiles are dragged from the palette onto a grid position, jobs (``JOB_MIME``) onto an instance.
Every change is an undoable ``BuildDocument.edit``; the engine (``set_mig_layout``) refuses invalid
layouts with the placement reason, which the editor shows and emits through ``status``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QGuiApplication,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidgetItem,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.cards import CardSpec, MigProfile, MigSpec
from configurator.engine import Build, BuildResult, editing
from configurator.engine.mig import enumerate_layouts
from configurator.engine.result import MigCard
from configurator.ui.dnd import DragList, mig_profile_mime
from configurator.ui.mig.common import (
    DISPLAY_MODE_NOTE,
    EMPTY_TEXT,
    PROFILE_ROLE,
    SLICE_COLOUR,
    JobInInstance,
    _count_label,
    _short_name,
    _span_text,
    _swatch,
    layout_label,
)
from configurator.ui.mig.view import MigView
from configurator.ui.shell import BuildDocument, hidden_in_shown_window


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
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # placement reasons may quote user names
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
