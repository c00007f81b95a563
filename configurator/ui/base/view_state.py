"""What the window shows, as opposed to what the build is: display unit, theme, selected job and slot.

The document holds the build (saved, undoable); ``ViewState`` holds how it is looked at (the unit and the
theme remembered in the settings, nothing undoable). It is the one place a selection lives: views subscribe to
its signals the way they subscribe to the document's ``changed``, write the selection a user makes into it,
and store no copy of their own. The rate bases (published or measured link rates, published or estimated
compute rates) are the build's assumptions: they live in the document.

A job is selected by its name (jobs are identified by name, ``Build.job_index``). When an edit takes that name
away (the job renamed, removed, a file opened), :meth:`track` moves the selection to the job now at its place
in the list, or the last one, or none when there are no jobs.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from configurator.engine import Build, BuildResult
from configurator.present.words import UNITS
from configurator.ui.base.document import BuildDocument


class ViewState(QObject):
    unit_changed = Signal(str)
    theme_changed = Signal(bool)  # dark?
    job_changed = Signal(object)  # str | None: the selected job's name
    slot_changed = Signal(object)  # int | None: the selected card's slot

    def __init__(self, unit: str = "GB", dark: bool = False, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if unit not in UNITS:
            raise ValueError(f"unknown display unit '{unit}': one of {', '.join(UNITS)}")
        self._unit, self._dark = unit, dark
        self._job: str | None = None
        self._slot: int | None = None
        self._names: list[str] = []  # the jobs' names when the selection was last checked, for its place

    @property
    def unit(self) -> str:
        return self._unit

    @property
    def dark(self) -> bool:
        return self._dark

    @property
    def job(self) -> str | None:
        return self._job

    @property
    def slot(self) -> int | None:
        return self._slot

    def set_unit(self, unit: str) -> None:
        if unit not in UNITS:
            raise ValueError(f"unknown display unit '{unit}': one of {', '.join(UNITS)}")
        if unit != self._unit:
            self._unit = unit
            self.unit_changed.emit(unit)

    def set_dark(self, dark: bool) -> None:
        if dark != self._dark:
            self._dark = dark
            self.theme_changed.emit(dark)

    def set_job(self, name: str | None) -> None:
        if name != self._job:
            self._job = name
            self.job_changed.emit(name)

    def set_slot(self, slot: int | None) -> None:
        if slot != self._slot:
            self._slot = slot
            self.slot_changed.emit(slot)

    # ---- the selected job across edits ----
    def track(self, document: BuildDocument) -> None:
        """Keep the selected job one of ``document``'s: checked now and after every change, before the views
        that connect to ``changed`` later hear of it (connect this first)."""
        self._names = [job.name for job in document.build.jobs]
        self.follow_build(document.build)
        document.changed.connect(self._changed)

    def _changed(self, build: Build, _result: BuildResult) -> None:
        self.follow_build(build)

    def follow_build(self, build: Build) -> None:
        names = [job.name for job in build.jobs]
        if self._job not in names:
            at = self._names.index(self._job) if self._job in self._names else 0
            self.set_job(names[min(at, len(names) - 1)] if names else None)
        self._names = names
        if self._slot is not None and build.card_in(self._slot) is None:
            self.set_slot(None)  # the selected card was removed or moved away
