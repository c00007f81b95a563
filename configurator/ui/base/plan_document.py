"""The plan document: an immutable ``Plan`` plus a QUndoStack; every edit is a QUndoCommand that swaps in a
plan made by ``configurator.engine.planner.editing`` (validated there), as the build editor does for builds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from configurator.engine.planner import Plan, load_plan, save_plan
from configurator.engine.planner.editing import EditRefused

_MERGE_IDS: dict[str, int] = {}


class SetPlanCommand(QUndoCommand):
    """Replace the plan; undo restores the previous one. Consecutive edits with one ``merge_key`` (a spin
    box being stepped) merge into one undo step back to the value before the first of them."""

    def __init__(self, doc: PlanDocument, before: Plan, after: Plan, text: str, merge_key: str | None) -> None:
        super().__init__(text)
        self._doc, self._before, self._after = doc, before, after
        self._id = _MERGE_IDS.setdefault(merge_key, 2000 + len(_MERGE_IDS)) if merge_key else -1

    def id(self) -> int:
        return self._id

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, SetPlanCommand) or other.id() != self.id() or self.id() == -1:
            return False
        self._after = other._after
        self.setText(other.text())
        return True

    def redo(self) -> None:
        self._doc._set(self._after)

    def undo(self) -> None:
        self._doc._set(self._before)


class PlanDocument(QObject):
    changed = Signal(object)  # Plan
    path_changed = Signal(object)  # Path | None
    refused = Signal(str)

    def __init__(self, plan: Plan, path: Path | None = None) -> None:
        super().__init__()
        self.undo_stack = QUndoStack(self)
        self._plan = plan
        self._path = path

    @property
    def plan(self) -> Plan:
        return self._plan

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def base_dir(self) -> Path | None:
        """Where the plan's relative paths (build files, price list, config.json) are read from."""
        return self._path.parent if self._path else None

    @property
    def modified(self) -> bool:
        return not self.undo_stack.isClean()

    def _set(self, plan: Plan) -> None:
        self._plan = plan
        self.changed.emit(plan)

    def edit(self, text: str, make: Callable[[Plan], Plan], merge_key: str | None = None) -> bool:
        """Apply ``make`` as one undoable step; a refused edit is reported and nothing changes."""
        try:
            after = make(self._plan)
        except (EditRefused, ValueError) as exc:
            self.refused.emit(str(exc))
            return False
        if after == self._plan:
            return False
        self.undo_stack.push(SetPlanCommand(self, self._plan, after, text, merge_key))
        return True

    def replace(self, plan: Plan, path: Path | None) -> None:
        """A new or opened plan: fresh history, clean state."""
        self.undo_stack.clear()
        self._path = path
        self._set(plan)
        self.undo_stack.setClean()
        self.path_changed.emit(path)

    def open(self, path: Path) -> None:
        """Load ``path``; FileError (file, line, field) leaves the current plan untouched."""
        self.replace(load_plan(path), path)

    def save(self, path: Path | None = None) -> None:
        """Atomic save through the engine's ``save_plan``; FileError on failure, the plan unchanged."""
        target = path or self._path
        if target is None:
            raise ValueError("no file name: use Save As")
        save_plan(self._plan, target)
        if target != self._path:
            self._path = target
            self.path_changed.emit(target)
        self.undo_stack.setClean()
