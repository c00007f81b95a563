"""The main window's menu bar and its actions (File, Edit, View, Tools, Help), as an object the window holds
(``window.menus``): it owns the actions and the recent-files list, and calls the window's commands, its
files (``BuildFiles``) and its sheet (``SheetExport``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QWidget

from configurator.present.link_words import menu_rate_words
from configurator.present.words import UNIT_WORDS, UNITS
from configurator.ui.base import BuildDocument, Settings, guard_slot, redo_shortcuts
from configurator.ui.shell.files import BuildFiles
from configurator.ui.shell.sheet import SheetExport

Shortcut = QKeySequence | QKeySequence.StandardKey


def standard_keys(key: QKeySequence.StandardKey, fallback: str) -> list[QKeySequence]:
    """The platform's keys for a standard command, else ``fallback``: Qt gives Quit and Preferences none on
    Windows-style schemes (the offscreen platform's too), where File › Quit and Preferences then had no key."""
    keys = [k for k in QKeySequence.keyBindings(key) if not k.isEmpty()]
    return keys or [QKeySequence(fallback)]


class WindowCommands(Protocol):
    """What the menus call on the window that holds them (MainWindow)."""

    def open_planner(self) -> Any: ...
    def quick_start(self) -> Any: ...
    def keyboard_shortcuts(self) -> Any: ...
    def about(self) -> None: ...
    def preferences(self) -> None: ...
    def verify_build(self) -> Any: ...
    def compare_with(self) -> None: ...
    def show_cards(self) -> None: ...
    def show_jobs(self) -> None: ...
    def start_demo(self) -> Any: ...
    def set_unit(self, unit: str) -> None: ...
    def set_dark(self, dark: bool) -> None: ...
    def set_link_rates(self, key: str) -> None: ...
    def set_compute_rates(self, key: str) -> None: ...
    def host_parts(self) -> Any: ...
    def bridge_selected(self) -> None: ...
    def unbridge_selected(self) -> None: ...


class Menus(QObject):
    def __init__(self, window: QMainWindow, commands: WindowCommands, doc: BuildDocument, settings: Settings,
                 files: BuildFiles, sheet: SheetExport, chassis_view: QWidget, remove_action: QAction,
                 unit: str) -> None:  # fmt: skip
        super().__init__(window)
        self.window, self.commands, self.doc, self.settings = window, commands, doc, settings
        self.files, self.sheet = files, sheet
        mb = window.menuBar()
        act = self._act
        self._make_file_menu(mb.addMenu("&File"))
        self._make_edit_menu(mb.addMenu("&Edit"), chassis_view, remove_action)
        self._make_view_menu(mb.addMenu("&View"), unit)
        self.planner_action = act(mb.addMenu("&Tools"), "Service &planner…", commands.open_planner,
                                  QKeySequence("Ctrl+Shift+P"), "Size a fleet for a fine-tuning service")  # fmt: skip
        help_menu = mb.addMenu("&Help")
        self.quick_start_action = act(help_menu, "&Quick start", commands.quick_start,
                                      QKeySequence.StandardKey.HelpContents, "The three core tasks, with pictures")
        self.shortcuts_action = act(help_menu, "&Keyboard shortcuts", commands.keyboard_shortcuts, None,
                                    "Every command's keys")  # fmt: skip
        help_menu.addSeparator()
        act(help_menu, "&About", commands.about)
        files.recent_changed.connect(self.fill_recent)
        sheet.busy.connect(lambda busy: self.export_action.setEnabled(not busy))

    def _make_file_menu(self, file: QMenu) -> None:
        """New, open (file, code, demo code, recent), save, export, preferences and quit."""
        act, files = self._act, self.files
        self.new_action = act(file, "&New", files.new_build, QKeySequence.StandardKey.New, "Start an empty build")
        self.open_action = act(file, "&Open…", files.open_dialog, QKeySequence.StandardKey.Open, "Open a build file")
        self.open_code_action = act(file, "Open from &code…", files.open_build_code_dialog, None,
                                    "Open a build from the code under a build sheet's QR code")  # fmt: skip
        act(file, "Open &demo code…", files.open_demo_code, None, "Reopen a build a visitor took home from the demo")
        self.recent_menu = file.addMenu("Open &Recent")
        self.recent_menu.triggered.connect(lambda action: files.open_path(Path(action.data())))
        self.fill_recent()
        file.addSeparator()
        self.save_action = act(file, "&Save", files.save, QKeySequence.StandardKey.Save, "Save the build")
        self.save_as_action = act(file, "Save &As…", files.save_as, QKeySequence.StandardKey.SaveAs)
        file.addSeparator()
        self.export_action = act(file, "&Export build sheet…", self.sheet.export, QKeySequence("Ctrl+E"),
                                 "Preview the build sheet and save it as PDF")  # fmt: skip
        self.export_action.setShortcuts([QKeySequence("Ctrl+E"), QKeySequence("Ctrl+P")])  # a print preview
        self.verify_action = act(file, "&Verify build…", self.commands.verify_build, QKeySequence("Ctrl+Shift+V"),
                                 "Check a built machine's burn-in results against the acceptance figures")
        self.preferences_action = act(file, "Pr&eferences…", self.commands.preferences)
        self.preferences_action.setShortcuts(standard_keys(QKeySequence.StandardKey.Preferences, "Ctrl+,"))
        file.addSeparator()
        self.quit_action = act(file, "&Quit", self.window.close)
        self.quit_action.setShortcuts(standard_keys(QKeySequence.StandardKey.Quit, "Ctrl+Q"))

    def _make_edit_menu(self, edit: QMenu, chassis_view: QWidget, remove_action: QAction) -> None:
        """Undo and redo (the document's stack), remove, bridge and unbridge."""
        act = self._act
        undo = self.doc.undo_stack.createUndoAction(self.window, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.doc.undo_stack.createRedoAction(self.window, "&Redo")
        redo.setShortcuts(redo_shortcuts())
        edit.addAction(undo)
        edit.addAction(redo)
        self.undo_action, self.redo_action = undo, redo
        edit.addSeparator()
        edit.addAction(remove_action)
        self.bridge_action = act(edit, "&Bridge selected cards", self.commands.bridge_selected, QKeySequence("Ctrl+B"),
                                 "Join two or four adjacent identical cards with an NVLink bridge")  # fmt: skip
        self.unbridge_action = act(edit, "Remove bridge", self.commands.unbridge_selected, None,
                                   "Remove the NVLink bridge of the selected card")  # fmt: skip
        for a in (self.bridge_action, self.unbridge_action):
            chassis_view.addAction(a)
        edit.addSeparator()
        self.host_action = act(edit, "&Host memory and storage…", self.commands.host_parts, None,
                               "The host RAM and NVMe the jobs need, and the DIMMs and drives installed")  # fmt: skip

    def _make_view_menu(self, view: QMenu, unit: str) -> None:
        """Units, link and compute rates, compare, demo mode and the theme."""
        commands = self.commands
        unit_actions = self._radio_menu(view, "&Units", [(u, UNIT_WORDS[u], "") for u in UNITS], commands.set_unit)
        unit_actions[unit].setChecked(True)
        self.rate_actions = self._radio_menu(view, "&Link rates", [
            ("measured", menu_rate_words("measured"), "The catalog's typical figures from published nccl-tests runs"),
            ("nominal", menu_rate_words("nominal"), "The datasheet's link rate, per direction"),
        ], commands.set_link_rates)  # fmt: skip
        self.compute_rate_actions = self._radio_menu(view, "Compute &rates", [
            ("published", "Published only", "Compute time only where NVIDIA publishes a dense BF16 rate"),
            ("estimated", "Include UNCONFIRMED estimates",
             "Where no rate is published, use the catalog's sourced estimate; every result that does says so"),
        ], commands.set_compute_rates)  # fmt: skip
        view.addSeparator()
        # the docks by key: the Jobs form sits behind the Cards tab, where Tab alone does not go
        self.cards_action = self._act(view, "C&ards palette", commands.show_cards, QKeySequence("Ctrl+1"),
                                      "Show the Cards tab and put the focus in its filter")
        self.jobs_action = self._act(view, "&Jobs", commands.show_jobs, QKeySequence("Ctrl+2"),
                                     "Show the Jobs tab and put the focus in its job list")
        view.addSeparator()
        self.compare_action = self._act(view, "&Compare with…", commands.compare_with, QKeySequence("Ctrl+K"),
                                        "This build beside another, or beside itself with another card")
        self.demo_action = self._act(view, "Demo &mode", commands.start_demo, QKeySequence("F11"),
                                     "Full-screen in-store demo; leave with Ctrl+Shift+Q and the PIN")
        view.addSeparator()
        self.dark_action = QAction("&Dark theme", self.window)
        self.dark_action.setCheckable(True)
        self.dark_action.setChecked(self.settings.get("theme") == "dark")
        self.dark_action.toggled.connect(commands.set_dark)
        view.addAction(self.dark_action)

    def show_rates(self, link_rates: str, compute_rates: str) -> None:
        """Tick the build's link and compute rate bases (they are the build's assumptions: undo changes them)."""
        for actions, key in ((self.rate_actions, link_rates), (self.compute_rate_actions, compute_rates)):
            a = actions.get(key)
            if a is not None:
                a.setChecked(True)

    def _act(self, menu: QMenu, text: str, slot: Callable[[], object], shortcut: Shortcut | None = None,
             tip: str | None = None) -> QAction:  # fmt: skip
        """An action in ``menu`` whose slot runs under the crash guard."""
        a = QAction(text, self.window)
        if shortcut is not None:
            a.setShortcut(shortcut)
        if tip:
            a.setStatusTip(tip)
            a.setToolTip(tip)
        a.triggered.connect(guard_slot(slot))
        menu.addAction(a)
        return a

    def fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.get("recent_files")
        for path in recent:
            a = QAction(path, self.window)
            a.setData(path)
            self.recent_menu.addAction(a)
        self.recent_menu.setEnabled(bool(recent))

    def _radio_menu(self, parent: QMenu, title: str, entries: list[tuple[str, str, str]],
                    on_pick: Callable[[str], None]) -> dict[str, QAction]:  # fmt: skip
        """A submenu of exclusive checkable choices (key, label, status tip); picking one calls ``on_pick(key)``."""
        menu = parent.addMenu(title)
        group = QActionGroup(self.window)
        actions: dict[str, QAction] = {}
        for key, label, tip in entries:
            a = QAction(label, self.window)
            a.setCheckable(True)
            a.setData(key)
            if tip:
                a.setStatusTip(tip)
            group.addAction(a)
            menu.addAction(a)
            actions[key] = a
        group.triggered.connect(lambda action: on_pick(action.data()))
        return actions
