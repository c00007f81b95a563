"""The Jobs panel's list: the build's jobs with their fit status, Add / Duplicate / Remove, rename in place
(F2 or double-click), Delete to remove. The list is a drag source (ui/jobs/fields.py JobList)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractItemView, QHBoxLayout, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from configurator.catalog.richtext import escape_rich
from configurator.engine import Build, BuildResult, editing
from configurator.ui.jobs.fields import STATUS_ROLE, STATUS_TEXT, JobList, blocked, reason
from configurator.ui.jobs.form_kit import FormKit


class JobListSection(QWidget):
    def __init__(self, kit: FormKit, select: Callable[[int], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kit = kit
        self._select = select
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        lst = self.job_list = JobList()
        lst.setAccessibleName("Jobs")
        lst.setToolTip("Jobs in this build. F2 or double-click renames; drag a job onto a card to run it there.")
        lst.setMinimumHeight(60)
        lst.setObjectName("jobList")
        kit.tips[lst] = lst.toolTip()
        layout.addWidget(lst, 1)
        buttons = QHBoxLayout()
        buttons.setSpacing(4)
        self.add_button = QPushButton("Add")
        self.add_button.setToolTip("Add a job (an 8B LoRA on the first card)")
        self.duplicate_button = QPushButton("Duplicate")
        self.duplicate_button.setToolTip("Add a copy of the selected job")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected job (Delete)")
        for b in (self.add_button, self.duplicate_button, self.remove_button):
            buttons.addWidget(b)
        layout.addLayout(buttons)
        remove_action = QAction("Remove job", lst)
        remove_action.setShortcut(Qt.Key.Key_Delete)
        remove_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        remove_action.triggered.connect(self.remove)
        lst.addAction(remove_action)
        self.add_button.clicked.connect(self.add)
        self.duplicate_button.clicked.connect(self.duplicate)
        self.remove_button.clicked.connect(self.remove)
        lst.itemChanged.connect(self._item_renamed)

    def refresh(self, build: Build, result: BuildResult) -> int:
        """Show ``build``'s jobs with their status; returns the row now selected (-1: none)."""
        lst, kit = self.job_list, self.kit
        with blocked([lst]):
            if lst.count() != len(build.jobs):
                kit.clear_all()  # marks belong to the job they were made on
                lst.clear()
                for _ in build.jobs:
                    item = QListWidgetItem()
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsDragEnabled)
                    lst.addItem(item)
            for i, job in enumerate(build.jobs):
                item = lst.item(i)
                jr = result.job(job.name)
                status = jr.status if jr is not None else "unknown"
                if item.text() != job.name and lst.state() != QAbstractItemView.State.EditingState:
                    item.setText(job.name)
                if item.data(STATUS_ROLE) != status:
                    item.setData(STATUS_ROLE, status)
                tip = f"{escape_rich(job.name)}: {STATUS_TEXT.get(status, status)}. F2 renames; drag onto a card."
                item.setToolTip(tip)
            index = kit.index
            row = index if 0 <= index < len(build.jobs) else min(max(index, 0), len(build.jobs) - 1)
            if lst.currentRow() != row:
                lst.setCurrentRow(row)
        lst.viewport().update()
        return row

    def enable(self, has_job: bool) -> None:
        self.duplicate_button.setEnabled(has_job)
        self.remove_button.setEnabled(has_job)

    # ---- list edits --------------------------------------------------------------------------------------

    def add(self) -> None:
        doc = self.kit.doc
        make = partial(editing.add_job, models=doc.models)
        name = make(doc.build).jobs[-1].name
        if doc.edit(f"Add job {name}", make):
            self._select(len(doc.build.jobs) - 1)

    def duplicate(self) -> None:
        i, job = self.kit.index, self.kit.job()
        if job is None:
            return
        make = partial(editing.duplicate_job, index=i, models=self.kit.doc.models)
        if self.kit.doc.edit(f"Duplicate job {job.name}", make):
            self._select(i + 1)

    def remove(self) -> None:
        i, job = self.kit.index, self.kit.job()
        if job is None:
            return
        self.kit.doc.edit(f"Remove job {job.name}", partial(editing.remove_job, index=i))

    def _item_renamed(self, item: QListWidgetItem) -> None:
        doc, kit = self.kit.doc, self.kit
        i = self.job_list.row(item)
        if not 0 <= i < len(doc.build.jobs):
            return
        old, new = doc.build.jobs[i].name, item.text().strip()
        if new == old:
            return
        try:
            editing.rename_job(doc.build, i, new)
        except ValueError as exc:
            kit.mark_invalid(self.job_list, reason(exc))
            doc.refused.emit(reason(exc))
            with blocked([self.job_list]):
                item.setText(old)
            return
        kit.clear_invalid(self.job_list)
        doc.edit(f"Rename job {old} to {new}", partial(editing.rename_job, index=i, name=new))
