"""The MIG editor's edits and clipboard actions: an object the editor holds (``MigEditor.edits``), asking the
editor for the selected card and its widgets through ``EditsHost``.

Every edit goes through ``EditsHost.edit`` (an undoable ``BuildDocument.edit``) and reports through
``EditsHost.say``. (It was a mixin reaching into the editor's attributes: issue 22, composition.)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Protocol

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QCheckBox, QComboBox, QListWidgetItem

from configurator.catalog.cards import CardSpec, MigSpec
from configurator.engine import Build, editing
from configurator.engine.model.result import MigCard
from configurator.ui.base import BuildDocument
from configurator.ui.mig.common import PROFILE_ROLE, _span_text


class EditsHost(Protocol):
    """What the edits ask of the editor that holds them: the document, the selected card and its layouts, the
    toggle and the layout box, the undoable edit and the status line."""

    doc: BuildDocument
    mig_toggle: QCheckBox
    preset_box: QComboBox

    def current_slot(self) -> int | None: ...
    def layout_choices(self) -> list[tuple[str, tuple[str, ...]]]: ...
    def card_spec(self) -> tuple[CardSpec, MigSpec] | None: ...
    def pinned_starts(self) -> list[tuple[str, int | None]]: ...
    def edit(self, text: str, make: Callable[[Build], Build]) -> bool: ...
    def say(self, text: str, error: bool = False) -> None: ...
    def mig_card(self) -> MigCard | None: ...
    def selected_instance(self) -> int | None: ...
    def select_instance(self, index: int) -> None: ...


class MigEdits:
    """Edits of the selected card's layout and job placement; the selection lives on the editor (``EditsHost``)."""

    def __init__(self, host: EditsHost) -> None:
        self.host = host

    def layout_chosen(self, index: int) -> None:
        key = self.host.preset_box.itemData(index)
        if key is None or key < 0 or self.host.current_slot() is None:
            return
        name, profiles = self.host.layout_choices()[key]
        self.apply_layout(name, list(profiles))

    def apply_layout(self, name: str, profiles: list[str]) -> bool:
        """Replace the selected card's layout (starts placed automatically)."""
        slot, catalog = self.host.current_slot(), self.host.doc.catalog
        if slot is None:
            return False
        requests: list[tuple[str, int | None]] = [(p, None) for p in profiles]
        make = partial(editing.set_mig_layout, catalog=catalog, slot=slot, profiles=requests)
        before = self.host.doc.build
        ok = self.host.edit(f"MIG layout {name} on slot {slot}", make)
        if ok:
            self.say_lost(f"Slot {slot}: MIG layout {name}", before, slot)
        return ok

    def say_lost(self, done: str, before: Build, slot: int) -> None:
        """Say what an edit did, and which jobs it took off the card (they no longer run anywhere on it)."""
        lost = editing.lost_placements(before, self.host.doc.build, slot)
        if not lost:
            self.host.say(done)
            return
        n = len(lost)
        self.host.say(f"{done}. {n} job{'s' if n > 1 else ''} lost {'their' if n > 1 else 'its'} instance: "
                      f"{', '.join(lost)} (Ctrl+Z to undo)", error=True)  # fmt: skip

    def apply_preset(self, name: str) -> bool:
        for choice, profiles in self.host.layout_choices():
            if choice == name:
                return self.apply_layout(choice, list(profiles))
        self.host.say(f"No layout called {name}", error=True)
        return False

    def toggle_clicked(self, checked: bool) -> None:
        self.set_mig(checked)

    def set_mig(self, on: bool) -> bool:
        slot, catalog = self.host.current_slot(), self.host.doc.catalog
        if slot is None:
            return False
        layout: list[tuple[str, int | None]] | None = [] if on else None
        make = partial(editing.set_mig_layout, catalog=catalog, slot=slot, profiles=layout)
        before = self.host.doc.build
        ok = self.host.edit(f"MIG {'on' if on else 'off'} on slot {slot}", make)
        if ok:
            what = "on: choose a layout or drag profiles onto the grid" if on else "off, its jobs run on the whole card"
            self.say_lost(f"Slot {slot}: MIG {what}", before, slot)
        else:  # refused or unchanged: show the real state again
            placement = self.host.doc.build.card_in(slot)
            self.host.mig_toggle.setChecked(placement is not None and placement.mig is not None)
        return ok

    def check_add(self, profile: str, unit: int) -> tuple[int, int, str | None]:
        """(start, size, refusal reason or None) for dropping ``profile`` on grid unit ``unit``."""
        got = self.host.card_spec()
        if got is None:
            return unit, 1, "select a MIG-capable card"
        spec = got[1]
        start, size = editing.snap_start(spec, profile, unit)
        return start, size, editing.check_mig_layout(spec, [*self.host.pinned_starts(), (profile, start)])

    def add_instance(self, profile: str, unit: int | None) -> bool:
        """Add ``profile`` at the start covering grid ``unit`` (None: wherever it fits)."""
        got, slot, catalog = self.host.card_spec(), self.host.current_slot(), self.host.doc.catalog
        if got is None or slot is None:
            return False
        spec = got[1]
        start: int | None = None
        where = "where it fits"
        if unit is not None:
            start, size = editing.snap_start(spec, profile, unit)
            where = f"at {_span_text(spec, start, size)}"
        layout = [*self.host.pinned_starts(), (profile, start)]
        make = partial(editing.set_mig_layout, catalog=catalog, slot=slot, profiles=layout)
        ok = self.host.edit(f"Add MIG {profile} {where} on slot {slot}", make)
        if ok:
            self.host.say(f"Slot {slot}: added {profile} {where}")
            self.host.select_instance(len(layout) - 1)
        return ok

    def profile_activated(self, item: QListWidgetItem) -> None:
        self.add_instance(item.data(PROFILE_ROLE), None)

    def remove_instance(self, index: int) -> bool:
        slot, catalog = self.host.current_slot(), self.host.doc.catalog
        layout = self.host.pinned_starts()
        if slot is None or not 0 <= index < len(layout):
            return False
        profile = layout[index][0]
        make = partial(editing.remove_mig_instance, catalog=catalog, slot=slot, layout=layout, index=index)
        before = self.host.doc.build
        ok = self.host.edit(f"Remove MIG instance {index} ({profile}) from slot {slot}", make)
        if ok:
            self.say_lost(f"Slot {slot}: removed instance {index} ({profile})", before, slot)
        return ok

    def remove_selected(self) -> bool:
        index = self.host.selected_instance()
        if index is None:
            self.host.say("Select an instance to remove", error=True)
            return False
        return self.remove_instance(index)

    def check_assign(self, job: int, instance: int) -> str | None:
        slot = self.host.current_slot()
        if slot is None:
            return "select a MIG-capable card"
        if not 0 <= job < len(self.host.doc.build.jobs):
            return f"no job {job + 1}"
        try:
            editing.assign_job(self.host.doc.build, self.host.doc.catalog, job, slot, instance)
        except ValueError as exc:  # EditRefused is a ValueError
            return str(exc)
        return None

    def assign(self, job: int, instance: int) -> bool:
        slot, catalog = self.host.current_slot(), self.host.doc.catalog
        if slot is None:
            return False
        if not 0 <= job < len(self.host.doc.build.jobs):
            self.host.say(f"Refused: no job {job + 1}", error=True)
            return False
        name = self.host.doc.build.jobs[job].name
        make = partial(editing.assign_job, catalog=catalog, index=job, slot=slot, instance=instance)
        ok = self.host.edit(f"Assign {name} to slot {slot} instance {instance}", make)
        if ok:
            self.host.say(f"{name} runs in slot {slot} instance {instance}")
        elif self.check_assign(job, instance) is None:
            self.host.say(f"{name} already runs in slot {slot} instance {instance}")
        return ok

    # ---- clipboard ----
    def copy_commands(self) -> None:
        mig = self.host.mig_card()
        if mig is None or not mig.commands:
            self.host.say("No valid layout to copy", error=True)
            return
        QGuiApplication.clipboard().setText("\n".join(mig.commands))
        self.host.say(f"Copied the nvidia-smi commands for slot {mig.slot}")

    def copy_yaml(self) -> None:
        mig = self.host.mig_card()
        if mig is None or not mig.mig_parted_yaml:
            self.host.say("No valid layout to copy", error=True)
            return
        QGuiApplication.clipboard().setText(mig.mig_parted_yaml)
        self.host.say(f"Copied the mig-parted YAML for slot {mig.slot}")
