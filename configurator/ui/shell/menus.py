"""The main window's menus and actions (File, Edit, View, Help). A mixin of MainWindow."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from configurator.ui.base import guard_slot, redo_shortcuts
from configurator.ui.shell.verify_dialog import open_verify_dialog


class MenusMixin:
    def _make_actions(self) -> None:
        mb = self.menuBar()
        act = self._act
        self._make_file_menu(mb.addMenu("&File"))
        self._make_edit_menu(mb.addMenu("&Edit"))
        self._make_view_menu(mb.addMenu("&View"))
        self.planner_action = act(mb.addMenu("&Tools"), "Service &planner…", self.open_planner,
                                  QKeySequence("Ctrl+Shift+P"), "Size a fleet for a fine-tuning service")  # fmt: skip
        help_menu = mb.addMenu("&Help")
        self.quick_start_action = act(help_menu, "&Quick start", self.quick_start,
                                      QKeySequence.StandardKey.HelpContents, "The three core tasks, with pictures")
        self.shortcuts_action = act(help_menu, "&Keyboard shortcuts", self.keyboard_shortcuts, None,
                                    "Every command's keys")  # fmt: skip
        help_menu.addSeparator()
        act(help_menu, "&About", self.about)

    def _make_file_menu(self, file: QMenu) -> None:
        """New, open (file, code, demo code, recent), save, export, preferences and quit."""
        act = self._act
        self.new_action = act(file, "&New", self.new_build, QKeySequence.StandardKey.New, "Start an empty build")
        self.open_action = act(file, "&Open…", self.open_dialog, QKeySequence.StandardKey.Open, "Open a build file")
        self.open_code_action = act(file, "Open from &code…", self.open_build_code_dialog, None,
                                    "Open a build from the code under a build sheet's QR code")  # fmt: skip
        act(file, "Open &demo code…", self.open_demo_code, None, "Reopen a build a visitor took home from the demo")
        self.recent_menu = file.addMenu("Open &Recent")
        self.recent_menu.triggered.connect(lambda action: self.open_path(Path(action.data())))
        self._fill_recent()
        file.addSeparator()
        self.save_action = act(file, "&Save", self.save, QKeySequence.StandardKey.Save, "Save the build")
        self.save_as_action = act(file, "Save &As…", self.save_as, QKeySequence.StandardKey.SaveAs)
        file.addSeparator()
        self.export_action = act(file, "&Export build sheet…", self.export_sheet, QKeySequence("Ctrl+E"),
                                 "Preview the build sheet and save it as PDF")  # fmt: skip
        self.export_action.setShortcuts([QKeySequence("Ctrl+E"), QKeySequence("Ctrl+P")])  # a print preview
        self.verify_action = act(file, "&Verify build…", partial(open_verify_dialog, self), None,
                                 "Check a built machine's burn-in results against the acceptance figures")
        act(file, "Pr&eferences…", self.preferences, QKeySequence.StandardKey.Preferences)
        file.addSeparator()
        act(file, "&Quit", self.close, QKeySequence.StandardKey.Quit)

    def _make_edit_menu(self, edit: QMenu) -> None:
        """Undo and redo (the document's stack), remove, bridge and unbridge."""
        act = self._act
        undo = self.doc.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.doc.undo_stack.createRedoAction(self, "&Redo")
        redo.setShortcuts(redo_shortcuts())
        edit.addAction(undo)
        edit.addAction(redo)
        self.undo_action, self.redo_action = undo, redo
        edit.addSeparator()
        edit.addAction(self.chassis_view.remove_action)
        self.bridge_action = act(edit, "&Bridge selected cards", self.bridge_selected, QKeySequence("Ctrl+B"),
                                 "Join two or four adjacent identical cards with an NVLink bridge")  # fmt: skip
        self.unbridge_action = act(edit, "Remove bridge", self.unbridge_selected, None,
                                   "Remove the NVLink bridge of the selected card")  # fmt: skip
        for a in (self.bridge_action, self.unbridge_action):
            self.chassis_view.addAction(a)

    def _make_view_menu(self, view: QMenu) -> None:
        """Units, link and compute rates, compare, demo mode and the theme."""
        unit_actions = self._radio_menu(view, "&Units", [
            ("GB", "GB (10^9 bytes)", ""), ("GiB", "GiB (2^30 bytes)", "")], self.set_unit)  # fmt: skip
        unit_actions[self.unit].setChecked(True)
        self.rate_actions = self._radio_menu(view, "&Link rates", [
            ("measured", "Measured (typical nccl-tests busbw)", ""),
            ("nominal", "Nominal (datasheet)", ""),
        ], self.set_link_rates)  # fmt: skip
        self.compute_rate_actions = self._radio_menu(view, "Compute &rates", [
            ("published", "Published only", "Compute time only where NVIDIA publishes a dense BF16 rate"),
            ("estimated", "Include UNCONFIRMED estimates",
             "Where no rate is published, use the catalog's sourced estimate; every result that does says so"),
        ], self.set_compute_rates)  # fmt: skip
        view.addSeparator()
        self.compare_action = QAction("&Compare with…", self)
        self.compare_action.setShortcut(QKeySequence("Ctrl+K"))
        self.compare_action.setStatusTip("This build beside another, or beside itself with another card")
        self.compare_action.triggered.connect(self.compare_with)
        view.addAction(self.compare_action)
        self.demo_action = QAction("Demo &mode", self)
        self.demo_action.setShortcut(QKeySequence("F11"))
        self.demo_action.setStatusTip("Full-screen in-store demo; leave with Ctrl+Shift+Q and the PIN")
        self.demo_action.triggered.connect(self.start_demo)
        view.addAction(self.demo_action)
        view.addSeparator()
        self.dark_action = QAction("&Dark theme", self)
        self.dark_action.setCheckable(True)
        self.dark_action.setChecked(self.settings.get("theme") == "dark")
        self.dark_action.toggled.connect(self.set_dark)
        view.addAction(self.dark_action)

    def _act(self, menu, text, slot, shortcut=None, tip=None):  # type: ignore[no-untyped-def]
        """An action in ``menu`` whose slot runs under the crash guard."""
        a = QAction(text, self)
        if shortcut is not None:
            a.setShortcut(shortcut)
        if tip:
            a.setStatusTip(tip)
            a.setToolTip(tip)
        a.triggered.connect(guard_slot(slot))
        menu.addAction(a)
        return a

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.get("recent_files")
        for path in recent:
            a = QAction(path, self)
            a.setData(path)
            self.recent_menu.addAction(a)
        self.recent_menu.setEnabled(bool(recent))

    def _radio_menu(self, parent: QMenu, title: str, entries: list[tuple[str, str, str]],
                    on_pick: Callable[[str], None]) -> dict[str, QAction]:  # fmt: skip
        """A submenu of exclusive checkable choices (key, label, status tip); picking one calls ``on_pick(key)``."""
        menu = parent.addMenu(title)
        group = QActionGroup(self)
        actions: dict[str, QAction] = {}
        for key, label, tip in entries:
            a = QAction(label, self)
            a.setCheckable(True)
            a.setData(key)
            if tip:
                a.setStatusTip(tip)
            group.addAction(a)
            menu.addAction(a)
            actions[key] = a
        group.triggered.connect(lambda action: on_pick(action.data()))
        return actions
