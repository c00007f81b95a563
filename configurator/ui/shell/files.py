"""File handling for the main window: new, open (all or nothing), save, per-window autosave, open from a code.

An object the window holds (``window.files``) with its own state, the window's autosave slot and timer; it
works on the window's document and settings, says what happened in the window's status bar and asks with
message boxes over the window.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMainWindow, QMessageBox

from configurator.catalog.errors import FileError
from configurator.engine import Build
from configurator.engine.model.autosave import AutosaveSlot, Orphan, orphans
from configurator.engine.model.buildcode import decode_build
from configurator.engine.model.buildfile import load_build
from configurator.ui.base import BuildDocument, Settings, file_error_box, safe_message
from configurator.ui.kiosk import demo_folder, open_demo_code
from configurator.ui.shell.code_dialog import CodeDialog


def data_folder() -> Path:
    """The user's data folder: autosave slots and kept measured runs (engine.acceptance.measured_store)."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".local/share/gpu-configurator")


def autosave_folder() -> Path:
    """Where each window's autosave slot lives (the user data folder)."""
    return data_folder() / "autosave"


class BuildFiles(QObject):
    recent_changed = Signal()  # a file opened or saved went to the top of the recent files

    def __init__(self, window: QMainWindow, doc: BuildDocument, settings: Settings) -> None:
        super().__init__(window)
        self.window, self.doc, self.settings = window, doc, settings
        self.autosave_slot: AutosaveSlot | None = None
        self._claim_autosave_slot()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.autosave)
        self._timer.start(max(5, settings.get("autosave_seconds")) * 1000)

    def _say(self, text: str, ms: int = 5000) -> None:
        self.window.statusBar().showMessage(text, ms)

    # ---- messages ----
    def show_error(self, title: str, text: str) -> None:
        QMessageBox.critical(self.window, title, safe_message(text))

    def show_file_error(self, title: str, exc: FileError, after: str = "Nothing changed.") -> None:
        """A file that cannot be read: what and where in one line, the file once, the details behind a button."""
        file_error_box(self.window, title, exc, after).exec()

    # ---- new / open ----
    def new_build(self) -> None:
        if not self.maybe_save():
            return
        self.doc.replace(Build(name="New build", chassis=self.doc.build.chassis), None)

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(self.window, "Open build", self.settings.get("last_folder"),
                                              "Build files (*.yaml *.yml);;All files (*)")  # fmt: skip
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path) -> bool:
        """Open a build, all or nothing: it is loaded and evaluated with its own folder before anything
        changes; on any problem the message names file, line and reason, and the current build, its path,
        its undo history and the title stay as they were."""
        try:
            self.doc.open(path)
        except FileError as exc:
            self.show_file_error("Cannot open build", exc, "The build you had open stays as it was.")
            return False
        except Exception as exc:  # the engine could not evaluate it: still a message, never a crash
            self.show_error("Cannot open build", f"{path}: the build cannot be evaluated ({exc})")
            return False
        self.settings.add_recent(str(path))
        self.settings.set("last_folder", str(path.parent))
        self.recent_changed.emit()
        self._say(f"Opened {path}")
        return True

    def open_build_code_dialog(self) -> None:
        """File > Open from code…: paste or type a build code (the text under a build sheet's QR code)."""
        if not self.maybe_save():
            return
        dialog = CodeDialog(self.window)
        if dialog.exec():
            self.open_build_code(dialog.code())

    def open_build_code(self, code: str) -> bool:
        """Decode a build code and open it as an untitled build; a bad code gives the decoder's reason."""
        try:
            build = decode_build(code.strip(), self.doc.catalog)
            result = self.doc.prepare(build, None)
        except (FileError, ValueError) as exc:
            self.show_error("Cannot open build code", str(exc))
            return False
        except Exception as exc:
            self.show_error("Cannot open build code", f"the build in this code cannot be evaluated ({exc})")
            return False
        self.doc.replace(build, None, result)
        self._say(f"Opened {build.name} from its code")
        return True

    # ---- save ----
    def save(self) -> bool:
        if self.doc.path is None:
            return self.save_as()
        return self.save_to(self.doc.path)

    def save_as(self) -> bool:
        start = str(Path(self.settings.get("last_folder") or Path.home()) / f"{self.doc.build.name}.yaml")
        path, _ = QFileDialog.getSaveFileName(self.window, "Save build", start, "Build files (*.yaml)")
        return self.save_to(Path(path)) if path else False

    def save_to(self, path: Path) -> bool:
        try:
            self.doc.save(path)
        except (FileError, ValueError) as exc:
            self.show_error("Cannot save build", f"{exc}\nThe build is unchanged; choose another place.")
            return False
        self.settings.add_recent(str(path))
        self.settings.set("last_folder", str(path.parent))
        self.recent_changed.emit()
        if self.autosave_slot is not None:
            self.autosave_slot.clear()
        self._say(f"Saved {path}")
        return True

    # ---- autosave ----
    def _claim_autosave_slot(self) -> None:
        """This window's own autosave slot, locked while it lives (a second window never touches it)."""
        try:
            self.autosave_slot = AutosaveSlot(autosave_folder())
        except (OSError, FileError) as exc:
            self.autosave_slot = None
            self._say(f"Autosave is off: {exc}", 8000)

    def autosave(self) -> bool:
        """Write unsaved edits to this window's slot (atomic); a later start offers them back."""
        if not self.doc.modified or self.autosave_slot is None:
            return False
        try:
            self.autosave_slot.save(self.doc.build, self.doc.path)
        except (FileError, OSError) as exc:
            self._say(f"Autosave failed: {exc}", 8000)
            return False
        return True

    def offer_restore(self) -> bool:
        """After a crash: offer back an autosave whose window is gone (never another live window's)."""
        found: list[Orphan] = orphans(autosave_folder())
        if not found:
            return False
        orphan = found[0]
        where = f" (from {orphan.origin})" if orphan.origin else ""
        text = f"The configurator closed with unsaved changes{where}. Restore them?"
        answer = QMessageBox.question(self.window, "Restore unsaved build?", safe_message(text))
        if answer != QMessageBox.StandardButton.Yes:
            orphan.discard()
            return False
        try:
            build = load_build(orphan.build_path, self.doc.catalog, keep_unknown=True)
            result = self.doc.prepare(build, orphan.base_dir)
        except FileError as exc:
            self.show_file_error("Cannot restore", exc)
            return False
        except Exception as exc:
            self.show_error("Cannot restore", f"the autosaved build cannot be evaluated ({exc})")
            return False
        # untitled (Save asks where), but relative model paths still resolve from the build's own folder
        self.doc.replace(build, None, result, base_dir=orphan.base_dir)
        orphan.discard()
        # modified: the restored edits are not saved anywhere yet
        self.doc.undo_stack.resetClean()  # the window's title follows the stack's clean state
        self.autosave()
        return True

    def maybe_save(self) -> bool:
        if not self.doc.modified:
            return True
        answer = QMessageBox.question(
            self.window, "Unsaved changes", f"Save changes to {self.doc.build.name}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        )  # fmt: skip
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    # ---- demo take-home codes ----
    def open_demo_code(self) -> None:
        code, ok = QInputDialog.getText(self.window, "Open demo code", "Code the visitor was given:")
        if ok and code.strip():
            self.open_code(code)

    def open_code(self, code: str) -> bool:
        if not self.maybe_save():
            return False
        try:
            path = open_demo_code(code, demo_folder(self.settings))
        except (ValueError, FileNotFoundError) as exc:
            self.show_error("Cannot open demo code", str(exc))
            return False
        return self.open_path(path)

    def release(self) -> None:
        """The window closes: unsaved edits it discarded on purpose leave nothing to offer back."""
        self._timer.stop()
        if self.autosave_slot is not None:
            if self.doc.modified:
                self.autosave_slot.clear()
            self.autosave_slot.release()
            self.autosave_slot = None
