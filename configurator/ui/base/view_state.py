"""What the window shows, as opposed to what the build is: display unit, theme, selected job and slot.

The document holds the build (saved, undoable); ``ViewState`` holds how it is looked at (remembered in the
settings, not undoable). Views subscribe to its signals the way they subscribe to the document's
``changed``, and nothing else pushes view state into them. The rate bases (published or measured link
rates, published or estimated compute rates) are the build's assumptions: they live in the document.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from configurator.present.words import UNITS


class ViewState(QObject):
    unit_changed = Signal(str)
    theme_changed = Signal(bool)  # dark?
    job_changed = Signal(int)  # index of the selected job in the build
    slot_changed = Signal(object)  # int | None: the selected card's slot

    def __init__(self, unit: str = "GB", dark: bool = False, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if unit not in UNITS:
            raise ValueError(f"unknown display unit '{unit}': one of {', '.join(UNITS)}")
        self._unit, self._dark, self._job = unit, dark, 0
        self._slot: int | None = None

    @property
    def unit(self) -> str:
        return self._unit

    @property
    def dark(self) -> bool:
        return self._dark

    @property
    def job(self) -> int:
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

    def set_job(self, index: int) -> None:
        if index != self._job:
            self._job = index
            self.job_changed.emit(index)

    def set_slot(self, slot: int | None) -> None:
        if slot != self._slot:
            self._slot = slot
            self.slot_changed.emit(slot)
