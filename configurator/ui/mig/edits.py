"""The MIG editor's edits and clipboard actions, as a mixin of ``MigEditor``.

Split out of ``editor.py`` (issue 11: modules under ~400 lines). Every edit goes through
``MigEditor._edit`` (an undoable ``BuildDocument.edit``) and reports through ``MigEditor.say``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QCheckBox, QComboBox, QListWidgetItem

from configurator.catalog.cards import CardSpec, MigSpec
from configurator.engine import Build, editing
from configurator.engine.model.result import MigCard
from configurator.ui.mig.common import PROFILE_ROLE, _span_text
from configurator.ui.mig.view import MigView
from configurator.ui.shell import BuildDocument


class MigEdits:
    """Edits of the selected card's layout and job placement; the state lives on ``MigEditor``."""

    doc: BuildDocument
    view: MigView
    mig_toggle: QCheckBox
    preset_box: QComboBox
    _slot: int | None
    _choices: list[tuple[str, tuple[str, ...]]]
    _spec: Callable[[], tuple[CardSpec, MigSpec] | None]
    _pinned: Callable[[], list[tuple[str, int | None]]]
    _edit: Callable[[str, Callable[[Build], Build]], bool]
    say: Callable[..., None]
    mig_card: Callable[[], MigCard | None]

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
