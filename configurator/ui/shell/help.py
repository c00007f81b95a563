"""Help > Quick start (the three core tasks, each with a picture rendered from the app itself) and Help >
Keyboard shortcuts (read from the window's actions, so the list never goes stale).

The pictures ship in resources/help/; ``python -m configurator.ui.shell.help_pictures OUT_FOLDER`` renders them
again from an offscreen window (the default build at 1280x800).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from configurator.paths import resource
from configurator.ui.base import fit_to_screen

# (picture file, heading, what to do): the three things a first-time user does
TASKS = [
    ("place-cards.png", "1. Place cards",
     "Drag a card from the Cards list on the left into a slot of the chassis (or select it and press Enter). "
     "Drag an NVLink bridge onto a card to join it with its neighbour. Del removes the selected card."),
    ("set-a-job.png", "2. Set a job",
     "Open the Jobs tab on the left. Tick the cards the job runs on under “Runs on” at the top of the form, or "
     "drag the job from the list onto a card in the chassis; then choose the model, the method and the "
     "sequence length."),
    ("read-the-verdict.png", "3. Read the verdict",
     "The line above the charts says whether every job fits, is tight or does not fit. The Headroom chart "
     "shows each card's memory against what the driver shows; the Checks list below says what to change."),
]  # fmt: skip


def help_folder() -> Path:
    return Path(resource("help"))


def shortcut_rows(window: QMainWindow) -> list[tuple[str, str, str]]:
    """(menu, command, keys) for every action of the window's menus that has a shortcut, in menu order, then
    the window's other actions with one (the chassis view's)."""
    rows: list[tuple[str, str, str]] = []
    seen: set[int] = set()

    def walk(menu: QMenu, path: str) -> None:
        for action in menu.actions():
            sub = action.menu()
            if isinstance(sub, QMenu):
                walk(sub, f"{path} › {action.text().replace('&', '')}")
                continue
            keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts() if not k.isEmpty()]
            if keys and not action.isSeparator():
                seen.add(id(action))
                rows.append((path, action.text().replace("&", "").rstrip("…").strip(), ", ".join(keys)))

    for action in window.menuBar().actions():
        top = action.menu()
        if isinstance(top, QMenu):
            walk(top, action.text().replace("&", ""))
    for action in window.findChildren(QAction):
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts() if not k.isEmpty()]
        if keys and id(action) not in seen and action.text():
            seen.add(id(action))
            rows.append(("Chassis and lists", action.text().replace("&", ""), ", ".join(keys)))
    return rows


class ShortcutsDialog(QDialog):
    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.setWindowTitle("Keyboard shortcuts")
        rows = shortcut_rows(window)
        self.table = QTableWidget(len(rows), 3)
        self.table.setHorizontalHeaderLabels(["Menu", "Command", "Keys"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        note = QLabel("In the chassis: arrow keys move the cursor, Space selects, Shift+arrows move a card, B bridges "
                      "the selected cards. Tab moves between the panels.")  # fmt: skip
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(note)
        layout.addWidget(buttons)
        fit_to_screen(self, 640, 560)


class QuickStartDialog(QDialog):
    """One page: the three core tasks, each a picture of the app and what to do."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Quick start")
        page = QWidget()
        col = QVBoxLayout(page)
        self.pictures: list[QLabel] = []
        for file, heading, text in TASKS:
            title = QLabel(f"<h3>{heading}</h3>")
            col.addWidget(title)
            picture = QLabel()
            pixmap = QPixmap(str(help_folder() / file))
            if not pixmap.isNull():
                picture.setPixmap(pixmap.scaledToWidth(min(pixmap.width(), 620),
                                                       Qt.TransformationMode.SmoothTransformation))  # fmt: skip
            picture.setAccessibleName(heading)
            self.pictures.append(picture)
            col.addWidget(picture)
            words = QLabel(text)
            words.setWordWrap(True)
            col.addWidget(words)
        col.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(page)
        scroll.setWidgetResizable(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll)
        layout.addWidget(buttons)
        fit_to_screen(self, 700, 820)
