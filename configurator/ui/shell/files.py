"""File handling for the main window: new, open (all or nothing), save, per-window autosave, open from a code.

A mixin of :class:`~configurator.ui.shell.main_window.MainWindow`: it uses the window's ``doc``,
``settings`` and status bar.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtGui import Qt as QtGuiNs
from PySide6.QtWidgets import QFileDialog, QMessageBox

from configurator.catalog.errors import FileError
from configurator.engine import Build
from configurator.engine.model.autosave import AutosaveSlot, Orphan, orphans
from configurator.engine.model.buildfile import load_build


def safe_message(text: str) -> str:
    """``text`` for a message box, which guesses rich text: file and build names are user text, so a
    message Qt would take as HTML (``<img src=...>``) is escaped and shown as the characters typed."""
    if not QtGuiNs.mightBeRichText(text):
        return text
    return "<p>" + html.escape(text).replace("\n", "<br>") + "</p>"


def data_folder() -> Path:
    """The user's data folder: autosave slots and kept measured runs (engine.acceptance.measured_store)."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".local/share/gpu-configurator")


def autosave_folder() -> Path:
    """Where each window's autosave slot lives (the user data folder)."""
    return data_folder() / "autosave"


class FilesMixin:
    # ---- messages ----
    def show_error(self, title: str, text: str) -> None:
        QMessageBox.critical(self, title, safe_message(text))

    # ---- new / open ----
    def new_build(self) -> None:
        if not self.maybe_save():
            return
        self.doc.replace(Build(name="New build", chassis=self.doc.build.chassis), None)

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open build", self.settings.get("last_folder"),
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
            self.show_error("Cannot open build", str(exc))
            return False
        except Exception as exc:  # the engine could not evaluate it: still a message, never a crash
            self.show_error("Cannot open build", f"{path}: the build cannot be evaluated ({exc})")
            return False
        self.settings.add_recent(str(path))
        self.settings.set("last_folder", str(path.parent))
        self._fill_recent()
        self.statusBar().showMessage(f"Opened {path}", 5000)
        return True

    def open_build_code_dialog(self) -> None:
        """File > Open from code…: paste or type a build code (the text under a build sheet's QR code)."""
        from configurator.ui.shell.code_dialog import CodeDialog

        if not self.maybe_save():
            return
        dialog = CodeDialog(self)
        if dialog.exec():
            self.open_build_code(dialog.code())

    def open_build_code(self, code: str) -> bool:
        """Decode a build code and open it as an untitled build; a bad code gives the decoder's reason."""
        from configurator.engine.model.buildcode import decode_build

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
        self.statusBar().showMessage(f"Opened {build.name} from its code", 5000)
        return True

    # ---- save ----
    def save(self) -> bool:
        if self.doc.path is None:
            return self.save_as()
        return self._save_to(self.doc.path)

    def save_as(self) -> bool:
        start = str(Path(self.settings.get("last_folder") or Path.home()) / f"{self.doc.build.name}.yaml")
        path, _ = QFileDialog.getSaveFileName(self, "Save build", start, "Build files (*.yaml)")
        return self._save_to(Path(path)) if path else False

    def _save_to(self, path: Path) -> bool:
        try:
            self.doc.save(path)
        except (FileError, ValueError) as exc:
            self.show_error("Cannot save build", f"{exc}\nThe build is unchanged; choose another place.")
            return False
        self.settings.add_recent(str(path))
        self.settings.set("last_folder", str(path.parent))
        self._fill_recent()
        if self._autosave_slot is not None:
            self._autosave_slot.clear()
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    # ---- autosave ----
    def _claim_autosave_slot(self) -> None:
        """This window's own autosave slot, locked while it lives (a second window never touches it)."""
        try:
            self._autosave_slot: AutosaveSlot | None = AutosaveSlot(autosave_folder())
        except (OSError, FileError) as exc:
            self._autosave_slot = None
            self.statusBar().showMessage(f"Autosave is off: {exc}", 8000)

    def autosave(self) -> bool:
        """Write unsaved edits to this window's slot (atomic); a later start offers them back."""
        if not self.doc.modified or self._autosave_slot is None:
            return False
        try:
            self._autosave_slot.save(self.doc.build, self.doc.path)
        except (FileError, OSError) as exc:
            self.statusBar().showMessage(f"Autosave failed: {exc}", 8000)
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
        answer = QMessageBox.question(self, "Restore unsaved build?", safe_message(text))
        if answer != QMessageBox.StandardButton.Yes:
            orphan.discard()
            return False
        try:
            build = load_build(orphan.build_path, self.doc.catalog)
            result = self.doc.prepare(build, orphan.base_dir)
        except FileError as exc:
            self.show_error("Cannot restore", str(exc))
            return False
        except Exception as exc:
            self.show_error("Cannot restore", f"the autosaved build cannot be evaluated ({exc})")
            return False
        # untitled (Save asks where), but relative model paths still resolve from the build's own folder
        self.doc.replace(build, None, result, base_dir=orphan.base_dir)
        orphan.discard()
        # modified: the restored edits are not saved anywhere yet
        self.doc.undo_stack.resetClean()
        self._update_title()
        self.autosave()
        return True

    def maybe_save(self) -> bool:
        if not self.doc.modified:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes", f"Save changes to {self.doc.build.name}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        )  # fmt: skip
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    # ---- demo take-home codes ----
    def open_demo_code(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        code, ok = QInputDialog.getText(self, "Open demo code", "Code the visitor was given:")
        if ok and code.strip():
            self.open_code(code)

    def open_code(self, code: str) -> bool:
        from configurator.ui.kiosk import demo_folder, open_demo_code

        if not self.maybe_save():
            return False
        try:
            path = open_demo_code(code, demo_folder(self.settings))
        except (ValueError, FileNotFoundError) as exc:
            self.show_error("Cannot open demo code", str(exc))
            return False
        return self.open_path(path)
