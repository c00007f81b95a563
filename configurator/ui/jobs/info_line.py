"""The line at the top of the Jobs form: the selected job's name, its fit status in the fit colour, its
parameter counts and the training stack it runs (the build's ``stack:`` defaults applied). Names are user
text: escaped before they go into rich text (issue 13)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from configurator.catalog.richtext import escape_rich
from configurator.engine.model.build import Job
from configurator.engine.model.result import JobResult
from configurator.ui.base import FIT_COLOUR
from configurator.ui.jobs.fields import STATUS_TEXT

NO_JOB = "No job selected. Add one to see whether it fits."


def info_text(job: Job, result: JobResult) -> str:
    status = STATUS_TEXT.get(result.status, result.status)
    colour = FIT_COLOUR.get(result.status, "#777777")
    trained = f"{result.params_trainable / 1e6:,.1f} M trained" if result.params_trainable else "none trained"
    stack = f"<br>Stack: {escape_rich(result.stack)}" if result.stack else ""  # what the job runs, defaults applied
    return (f"<b>{escape_rich(job.name)}</b> · <span style='color:{colour}'><b>{status}</b></span><br>"
            f"{result.params_total / 1e9:.2f} B params · {trained}{stack}")  # fmt: skip


def info_label() -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setObjectName("jobInfo")
    return label
