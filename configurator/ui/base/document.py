"""The one source of state in the window: a build document with an undo stack.

The build itself is an immutable pydantic ``Build``; every user edit is a ``QUndoCommand`` that swaps
in a new build made by ``configurator.engine.editing``. After each change the engine re-runs once and
``changed`` carries the build and its result to every view; views never talk to each other.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

# pydantic.ValidationError itself, taken from pydantic_core: pydantic's lazy import of it, first in a fresh process,
# broke pydantic's next lazy import under shiboken's import hook (a circular ImportError at start-up)
from pydantic_core import ValidationError
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from configurator.catalog.loader import Catalog, default_catalog
from configurator.engine import Build, BuildResult, evaluate
from configurator.engine.editing import EditRefused
from configurator.engine.model.buildfile import load_build, save_build
from configurator.engine.model.resolver import ModelResolver
from configurator.ui.base.guard import guarded

_MERGE_IDS: dict[str, int] = {}


class SetBuildCommand(QUndoCommand):
    """Replace the build with another; undo puts the old one back.

    Edits with the same ``merge_key`` in a row (a slider being dragged, a spin box being stepped) merge
    into one undo step that goes back to the value before the first of them. Each side keeps the result
    the engine gave for it, so undo and redo swap results in instead of evaluating again.
    """

    def __init__(self, document: BuildDocument, before: Build, after: Build, text: str,
                 merge_key: str | None = None) -> None:  # fmt: skip
        super().__init__(text)
        self._doc, self._before, self._after = document, before, after
        self._before_result: BuildResult | None = document.result if document.build is before else None
        self._after_result: BuildResult | None = None
        self._id = _MERGE_IDS.setdefault(merge_key, 1000 + len(_MERGE_IDS)) if merge_key else -1

    def id(self) -> int:
        return self._id

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, SetBuildCommand) or other.id() != self.id() or self.id() == -1:
            return False
        self._after, self._after_result = other._after, other._after_result
        self.setText(other.text())
        return True

    def redo(self) -> None:
        # an exception escaping a QUndoCommand would abort the application from inside Qt: report it instead
        with guarded(f"Redo {self.text()}"):
            self._after_result = self._doc._set(self._after, self._after_result)

    def undo(self) -> None:
        with guarded(f"Undo {self.text()}"):
            self._before_result = self._doc._set(self._before, self._before_result)


class BuildDocument(QObject):
    changed = Signal(object, object)  # (Build, BuildResult)
    path_changed = Signal(object)  # Path | None
    refused = Signal(str)  # an edit refused, with the reason

    def __init__(self, build: Build, catalog: Catalog | None = None, path: Path | None = None) -> None:
        super().__init__()
        self.catalog = catalog or default_catalog()
        self.undo_stack = QUndoStack(self)
        self._build = build
        self._path = path
        self._models = ModelResolver(self.catalog, path.parent if path else None)
        self.evaluations = 0  # how many times the engine ran for this document (undo/redo reuse results)
        self._result = self._evaluate(build)

    # ---- state ----
    @property
    def build(self) -> Build:
        return self._build

    @property
    def result(self) -> BuildResult:
        return self._result

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def models(self) -> ModelResolver:
        """The one resolver for this build's model references: relative config.json paths from its folder.
        evaluate, the sweeps, the compare dialog and the demo's figures all use it."""
        return self._models

    def _set_path(self, path: Path | None, base_dir: Path | None = None) -> None:
        """``base_dir``: where relative model paths resolve when it is not the file's folder (a restored
        autosave keeps its build's original folder)."""
        self._path = path
        self._models = ModelResolver(self.catalog, base_dir or (path.parent if path else None))

    @property
    def modified(self) -> bool:
        return not self.undo_stack.isClean()

    def _evaluate(self, build: Build) -> BuildResult:
        result = evaluate(build, self.catalog, models=self._models)
        self.evaluations += 1
        return result

    def _set(self, build: Build, result: BuildResult | None = None) -> BuildResult:
        """Make ``build`` current with its ``result`` (evaluated when not given); returns the result.
        Evaluates first: when the engine raises, build and result stay as they were."""
        new_result = result if result is not None else self._evaluate(build)
        self._build, self._result = build, new_result
        self.changed.emit(self._build, self._result)
        return self._result

    # ---- edits ----
    def edit(self, text: str, make: Callable[[Build], Build], merge_key: str | None = None) -> bool:
        """Apply ``make`` to the build as one undoable step; a refusal is reported, nothing changes.

        ``merge_key``: consecutive edits with the same key merge into one undo step (slider drags).
        """
        try:
            after = make(self._build)
        except (EditRefused, ValueError) as exc:
            self.refused.emit(str(exc))
            return False
        except Exception as exc:  # a bug in an edit function: refuse the edit, keep the build
            self.refused.emit(f"the edit failed ({type(exc).__name__}: {exc})")
            return False
        if after == self._build:
            return False
        problem = self._invalid(after)
        if problem is not None:
            self.refused.emit(problem)
            return False
        try:  # evaluated before the push: an edit the engine cannot evaluate is refused, nothing changes
            result = self._evaluate(after)
        except Exception as exc:
            self.refused.emit(f"the engine cannot evaluate this build ({type(exc).__name__}: {exc})")
            return False
        command = SetBuildCommand(self, self._build, after, text, merge_key)
        command._after_result = result
        self.undo_stack.push(command)
        return True

    def _invalid(self, build: Build) -> str | None:
        """Why ``build`` cannot become the document's build (it fails the Build model's own validation or
        names parts the catalog lacks), or None. Editing functions are meant to produce only valid builds;
        this is the check that one that does not is refused rather than pushed."""
        try:
            Build.model_validate(build.model_dump())
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            return f"the edit would make an invalid build ({where}: {first.get('msg', 'invalid')})"
        # an id the opened file already named stays (it is shown with its check until the user changes it);
        # an edit never brings in a new one
        if build.chassis not in self.catalog.chassis and build.chassis != self._build.chassis:
            return f"the edit would make an invalid build (unknown chassis {build.chassis!r})"
        known = set(self.catalog.cards) | {c.card for c in self._build.cards}
        unknown = sorted({c.card for c in build.cards} - known)
        if unknown:
            return f"the edit would make an invalid build (unknown card {unknown[0]!r})"
        return None

    # ---- files ----
    def replace(self, build: Build, path: Path | None, result: BuildResult | None = None,
                base_dir: Path | None = None) -> None:  # fmt: skip
        """A new or opened build: fresh history, clean state. ``result``: the build's result when already
        evaluated with the same folder (Open evaluates before it touches anything)."""
        self.undo_stack.clear()
        self._set_path(path, base_dir)
        self._set(build, result)
        self.undo_stack.setClean()
        self.path_changed.emit(path)

    def prepare(self, build: Build, base_dir: Path | None) -> BuildResult:
        """Evaluate ``build`` with model paths resolved from ``base_dir``, touching no state: raises when the
        engine cannot evaluate it, so a caller can refuse the build before the current one, its path or
        history change. A job whose model reference cannot be read (a config.json moved, a folder, a FIFO, a
        device, unreadable, ``~nosuchuser``) does not refuse the build: the result carries a JOB_MODEL_UNKNOWN
        check with the reason on that job, the rest of the build works, and the Jobs tab offers "Locate
        config.json…". Counts in ``evaluations`` (the one state it touches) when the engine has run."""
        models = ModelResolver(self.catalog, base_dir)
        result = evaluate(build, self.catalog, models=models)
        self.evaluations += 1
        return result

    def open(self, path: Path) -> None:
        """Load and evaluate ``path`` first; only then swap it in (all or nothing). Raises FileError (or the
        engine's error for a build it cannot evaluate) and leaves build, path, history and title untouched.
        A card, chassis or model id the catalog lacks opens: the result's checks say where it is, and a save
        writes it back unchanged until the user replaces it."""
        build = load_build(path, self.catalog, keep_unknown=True)
        result = self.prepare(build, path.parent)
        self.replace(build, path, result)

    def save(self, path: Path | None = None) -> None:
        target = path or self._path
        if target is None:
            raise ValueError("no file name: use Save As")
        save_build(self._build, target)
        if target != self._path:
            self._set_path(target)
            self.path_changed.emit(target)
        self.undo_stack.setClean()
